//! The MCP server: the tool list from the core's tool table, each call through the core's
//! [`Session`], one at a time (a browser's tab takes one action at a time; a client that sends
//! two at once has them run in turn).

use crate::answer;
use crate::browser::{Live, Reach};
use crate::refs::{RefBook, UnknownRef};
use navguard::adapter::LaunchError;
use navguard::agent::{Agent, AgentConfig, FailureKind, RefArg, RiskHint, Session, ToolCall, ToolName, ToolSet};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// The longest a call may take, whatever it asked for: the longest wait a tool takes (60 s)
/// with the settle and the look after it, and a wide margin. The core's own deadlines end
/// every call well before; this one keeps the server answering if one did not.
const CALL_DEADLINE: Duration = Duration::from_secs(150);

/// What the server says of itself in the handshake.
const INSTRUCTIONS: &str = "Browser tools that wait for a page to settle: every answer shows the \
    page after the call (URL, title, elements with refs, text), never a page that is leaving. \
    Start with navigate or open_url. A ref belongs to the page it was read on: after a \
    navigation it is refused as stale, so take refs from the latest answer. A dialog the page \
    opens is shown and must be answered with handle_dialog. done with `expect` checks the page \
    before it accepts.";

/// The server: where its browser comes from, and the session once a call has started it.
#[derive(Clone)]
pub struct NavguardServer {
    reach: Arc<Reach>,
    /// The folder `upload_file` may take files from (`--files`).
    files: Option<Arc<std::path::Path>>,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for NavguardServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavguardServer").field("reach", &self.reach).finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    live: Option<Live>,
    session: Session,
    refs: RefBook,
}

impl NavguardServer {
    pub fn new(reach: Reach, files: Option<std::path::PathBuf>) -> Self {
        let files = files.map(Arc::from);
        Self { reach: Arc::new(reach), files, state: Arc::new(Mutex::new(State::default())) }
    }

    /// Joins the session of `--join` at once, so that the first call does not wait for the
    /// connection. A browser of the server's own is started only by a call: a client that
    /// never calls a tool starts none. A join that fails here is the first call's to report.
    pub async fn join_early(&self) {
        if !matches!(*self.reach, Reach::Join { .. }) {
            return;
        }
        let mut state = self.state.lock().await;
        if let Err(e) = self.start_if_none(&mut state).await {
            tracing::debug!(error = %e, "the early join failed; the first call joins again");
        }
    }

    /// Starts (or joins) the browser unless the server has one.
    async fn start_if_none(&self, state: &mut State) -> Result<(), LaunchError> {
        if state.live.is_none() {
            state.live = Some(Live::start(&self.reach).await?);
        }
        Ok(())
    }

    /// Closes the browser the server started, at most `deadline` (a call still running keeps
    /// the session busy: then the driver's guardian ends it when the process exits).
    pub async fn shutdown(&self, deadline: Duration) {
        let Ok(mut state) = tokio::time::timeout(deadline, self.state.lock()).await else { return };
        if let Some(live) = state.live.take() {
            let _ = tokio::time::timeout(deadline, live.close()).await;
        }
    }

    /// Runs one call: the browser first (started if there is none, or a new one with a new
    /// session when the last has gone away), then the call and the look after it.
    async fn run(&self, tool: ToolName, mut args: Value) -> rmcp::model::CallToolResult {
        let mut state = self.state.lock().await;
        let asked = match take_short_refs(&state.refs, tool, &mut args) {
            Ok(asked) => asked,
            Err(e) => return answer::failed(tool.name(), e.kind(), &format!("{}: {e}", tool.name())),
        };
        if state.live.as_ref().is_some_and(Live::is_gone) {
            tracing::warn!("the browser went away; the next call starts another, with a new session");
            if let Some(gone) = state.live.take() {
                gone.close().await;
            }
            state.session = Session::new();
            state.refs = RefBook::default();
        }
        if let Err(e) = self.start_if_none(&mut state).await {
            let message = format!("the browser could not start: {e}");
            return answer::failed(tool.name(), FailureKind::Browser, &message);
        }
        let State { live: Some(live), session, refs } = &mut *state else { unreachable!("started above") };
        let port = Arc::clone(&live.port);
        // A scenario, like a person, may repeat a call on purpose: the no-progress detector
        // stops a loop's task, and a caller's session has no task to stop.
        let files = self.files.as_deref().map(std::path::Path::to_path_buf);
        let config = AgentConfig { no_progress: false, files, ..AgentConfig::default() };
        let agent = Agent::for_caller(port.as_ref(), config);
        let call = ToolCall { name: tool.name().to_owned(), args };
        match tokio::time::timeout(CALL_DEADLINE, session.call(&agent, call)).await {
            Ok(done) => answer::tool_result(tool.name(), &done, refs, &asked),
            Err(_) => {
                let message = format!("no answer within {} s", CALL_DEADLINE.as_secs());
                answer::failed(tool.name(), FailureKind::Timeout, &message)
            }
        }
    }
}

/// Puts the core's refs in place of short ones wherever the tool's arguments hold refs (the
/// tool table says where); returns each (as written, as taken).
fn take_short_refs(refs: &RefBook, tool: ToolName, args: &mut Value) -> Result<Vec<(String, String)>, UnknownRef> {
    let mut taken = Vec::new();
    for arg in tool.spec().refs {
        match *arg {
            // A ref argument holds a ref: any other text is refused in the form the client sees.
            RefArg::Key(key) => {
                if let Some(given) = args.get_mut(key) {
                    put_full_ref(refs, given, true, &mut taken)?;
                }
            }
            RefArg::RefOrSelector(key) => {
                if let Some(given) = args.get_mut(key) {
                    put_full_ref(refs, given, false, &mut taken)?;
                }
            }
            // Each item names its element as `ref` (a ref) or `selector`.
            RefArg::EachRef(key) => {
                if let Some(Value::Array(items)) = args.get_mut(key) {
                    for given in items.iter_mut().filter_map(|item| item.get_mut("ref")) {
                        put_full_ref(refs, given, true, &mut taken)?;
                    }
                }
            }
            // Each value is a ref or a CSS selector: only a short ref is put in its place.
            RefArg::ValuesOf(key) => {
                if let Some(Value::Object(map)) = args.get_mut(key) {
                    for given in map.values_mut() {
                        put_full_ref(refs, given, false, &mut taken)?;
                    }
                }
            }
        }
    }
    Ok(taken)
}

/// Puts the core's ref in place of `given` when it is a short ref; a text that is no ref is
/// refused when `strict`, else left as it is (a selector).
fn put_full_ref(
    refs: &RefBook,
    given: &mut Value,
    strict: bool,
    taken: &mut Vec<(String, String)>,
) -> Result<(), UnknownRef> {
    let Some(written) = given.as_str().map(str::to_owned) else { return Ok(()) };
    if !strict && !RefBook::is_short(&written) {
        return Ok(());
    }
    if let Some(full) = refs.full(&written)? {
        *given = Value::String(full.clone());
        taken.push((written, full));
    }
    Ok(())
}

/// A tool of the table as MCP lists it: its name, description and argument schema from the
/// table, and hints a client may show (it reads only; it acts on the page).
fn listed(tool: ToolName) -> Tool {
    let spec = tool.spec();
    let schema = match spec.schema() {
        Value::Object(schema) => schema,
        _ => JsonObject::new(),
    };
    // close_tabs has no risk for the loop (it closes the task's own tabs), but it changes the
    // browser: MCP's readOnlyHint lets a client run a tool without asking.
    let closes = tool == ToolName::CloseTabs;
    let reads_only = !spec.input && spec.risk == RiskHint::None && !closes;
    let mut hints = ToolAnnotations::default();
    hints.read_only_hint = Some(reads_only);
    hints.destructive_hint = Some(closes);
    let mut listed = Tool::new(tool.name(), spec.description, schema);
    listed.annotations = Some(hints);
    listed
}

impl ServerHandler for NavguardServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("navguard", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(ToolSet::Caller.tools().into_iter().map(listed).collect()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        name.parse::<ToolName>().ok().filter(|t| ToolSet::Caller.offers(*t)).map(listed)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.as_ref();
        let Some(tool) = name.parse::<ToolName>().ok().filter(|t| ToolSet::Caller.offers(*t)) else {
            let message = format!("unknown tool {name:?}: the tools are {}", ToolSet::Caller);
            return Err(McpError::invalid_params(message, None));
        };
        let args = request.arguments.map_or(Value::Null, Value::Object);
        Ok(self.run(tool, args).await.into())
    }
}
