//! An agent that is a Model Context Protocol server, started as a child process over stdio and
//! spoken to with the official Rust SDK (`rmcp`). Its answers are text; the description's
//! patterns read the page, the elements, the tabs and the failure class out of them.

use super::description::Description;
use super::lines::StrayLines;
use super::process::AgentProcess;
use super::{AgentError, AgentUnderTest, Answer, BrowserAt, ElementSeen, Failure, NeutralTool, PageSeen, TabSeen};
use async_trait::async_trait;
use base64::Engine as _;
use rmcp::RoleClient;
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a server that broke off has for its last words on stderr to be read.
const STDERR_GRACE: Duration = Duration::from_secs(1);
/// The longest line an answer may be (a snapshot of a large page is one long JSON line).
const MAX_LINE: usize = 64 << 20;

/// A running MCP server as the agent under test.
pub struct McpAgent {
    description: Arc<Description>,
    client: RunningService<RoleClient, ClientConfig>,
    process: AgentProcess,
    /// The tools the server offers, by name.
    offered: BTreeSet<String>,
    /// The server's name and version, as it gave them in the handshake.
    pub server: String,
    /// Why its stdout stopped being passed on, once a line was not one of its messages.
    screened: tokio::sync::watch::Receiver<Option<String>>,
    /// The lines it wrote on stdout, once it spoke the protocol, that were not its messages.
    stray: StrayLines,
    /// The role its answers gave each ref, for a mapping whose list items name the role (a
    /// form's fields, each with its kind of control).
    roles: HashMap<String, String>,
}

impl std::fmt::Debug for McpAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpAgent").field("agent", &self.description.name).field("server", &self.server).finish()
    }
}

impl McpAgent {
    /// Starts the server, does the handshake and lists its tools, all within the description's
    /// start timeout; a server that does not start, or is not an MCP server, is one error
    /// naming it and what to do. `prepare`: make the description's calls after start (not in the
    /// check before a run, which has no browser for them).
    pub async fn start(
        description: Arc<Description>,
        chromium: &str,
        at: BrowserAt<'_>,
        prepare: bool,
    ) -> Result<Self, AgentError> {
        let mut process = AgentProcess::start(&description, chromium, at)?;
        let command = process.command.clone();
        let deadline = Duration::from_millis(description.start.timeout_ms);
        let (Some(stdout), Some(stdin)) = (process.stdout.take(), process.stdin.take()) else {
            return Err(protocol(&description, "its stdio could not be taken".into(), &process));
        };
        let stray = StrayLines::default();
        let (stdout, mut garbage) = screen(stdout, description.name.clone(), stray.clone());
        let transport = AsyncRwTransport::new_client(stdout, stdin).with_max_line_length(MAX_LINE);
        let config = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("navguard", env!("CARGO_PKG_VERSION")),
        )
        // The SDK's newest protocol version has no `initialize`; servers of today need it.
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
        let no_handshake = || AgentError::NoHandshake {
            agent: description.name.clone(),
            what: "MCP handshake (initialize)",
            command: command.clone(),
            expected: "an MCP server over stdio",
            after: deadline,
            stderr: process.stderr_tail(),
        };
        let handshake = tokio::select! {
            biased;
            // Garbage on stdout cuts the client off: it is the real reason, so it is told first.
            Ok(()) = garbage.changed() => {
                let line = garbage.borrow().clone().unwrap_or_default();
                let e = protocol(&description, line, &process);
                process.end().await;
                return Err(e);
            }
            handshake = tokio::time::timeout(deadline, config.serve(transport)) => handshake,
        };
        let client = match handshake {
            Err(_) => {
                let e = no_handshake();
                process.end().await;
                return Err(e);
            }
            Ok(Err(e)) => {
                // The screen ends the client's input when it finds garbage: say what it found.
                let why = garbage.borrow().clone().unwrap_or_else(|| format!("the handshake failed ({e})"));
                let e = protocol(&description, why, &process);
                process.end().await;
                return Err(e);
            }
            Ok(Ok(client)) => client,
        };
        let server = client
            .peer_info()
            .and_then(|i| i.server_info.as_ref().map(|s| format!("{} {}", s.name, s.version)))
            .unwrap_or_default();
        let offered = match tokio::time::timeout(deadline, client.list_all_tools()).await {
            Ok(Ok(tools)) => tools.into_iter().map(|t| t.name.to_string()).collect(),
            Ok(Err(e)) => {
                let e = protocol(&description, format!("it could not list its tools ({e})"), &process);
                process.end().await;
                return Err(e);
            }
            Err(_) => {
                let e = no_handshake();
                process.end().await;
                return Err(e);
            }
        };
        let agent =
            Self { description, client, process, offered, server, screened: garbage, stray, roles: HashMap::new() };
        if prepare && let Err(e) = agent.after_start(deadline).await {
            agent.end().await;
            return Err(e);
        }
        Ok(agent)
    }

    /// The description's calls after start, each within the start's deadline: the first that
    /// is not offered, fails or does not answer is the error.
    async fn after_start(&self, deadline: Duration) -> Result<(), AgentError> {
        let failed = |call: &str, why: String| AgentError::AfterStart {
            agent: self.description.name.clone(),
            call: call.to_owned(),
            why: format!("{why}{}", self.process.stderr_tail()),
        };
        for step in &self.description.after_start {
            if !self.offered.contains(&step.call) {
                return Err(failed(&step.call, "the server does not offer it".into()));
            }
            let params = CallToolRequestParams::new(step.call.clone()).with_arguments(step.fill(&Value::Null));
            let answer = tokio::time::timeout(deadline, self.call_tool(params))
                .await
                .map_err(|_| failed(&step.call, format!("no answer within {} s", deadline.as_secs())))?;
            if let Some(failure) = answer.failure {
                return Err(failed(&step.call, failure.message));
            }
        }
        Ok(())
    }

    /// Makes the description's calls before the end (each within 10 s, whatever they answer),
    /// then ends the server and its process group.
    async fn end(self) {
        let Self { description, client, process, .. } = self;
        for step in &description.before_end {
            let params = CallToolRequestParams::new(step.call.clone()).with_arguments(step.fill(&Value::Null));
            let _ = tokio::time::timeout(Duration::from_secs(10), client.call_tool(params)).await;
        }
        // Closing the service ends the server's stdin; the process group goes in any case.
        let _ = tokio::time::timeout(Duration::from_secs(2), client.cancel()).await;
        process.end().await;
    }

    /// The neutral tools whose mapping names a tool this server does not offer.
    pub fn unmapped(&self) -> Vec<String> {
        NeutralTool::ALL
            .iter()
            .filter_map(|t| self.description.tool(*t).map(|m| (t, m)))
            .flat_map(|(t, m)| m.calls().filter(|c| !self.offered.contains(*c)).map(move |c| (t, c.to_owned())))
            .map(|(t, c)| format!("{t} (mapped to {c}, which the server does not offer)"))
            .collect()
    }

    fn read(&self, text: String, flagged: bool) -> Answer {
        read(&self.description, text, flagged)
    }
}

/// What an answer's text shows, read by `description`'s patterns; `flagged`: the agent flagged
/// it as an error.
pub fn read(description: &Description, text: String, flagged: bool) -> Answer {
    let text = strip_ansi(&text);
    let rules = &description.answer;
    let first = |patterns: &[regex::Regex], name: &str| {
        patterns
            .iter()
            .find_map(|re| re.captures(&text))
            .and_then(|c| c.name(name).or_else(|| c.get(1)))
            .map(|m| m.as_str().trim().to_owned())
    };
    let page = match (first(&rules.url, "url"), first(&rules.title, "title")) {
        (None, None) => None,
        (url, title) => Some(PageSeen { url: url.unwrap_or_default(), title: title.unwrap_or_default() }),
    };
    let elements = every_match(&rules.element, &text, |c| ElementSeen {
        reference: group(c, "ref"),
        role: group(c, "role"),
        name: group(c, "name"),
    });
    let tabs = every_match(&rules.tab, &text, |c| TabSeen {
        title: group(c, "title"),
        url: group(c, "url"),
        current: c.name("current").is_some(),
    });
    let dialog = rules.dialog_in(&text);
    let failed = flagged || description.fails_when.iter().any(|re| re.is_match(&text));
    let failure = failed.then(|| Failure { class: description.classify(&text), message: first_lines(&text) });
    Answer {
        failure,
        page,
        elements: (!elements.is_empty()).then_some(elements),
        tabs: (!tabs.is_empty()).then_some(tabs),
        dialog,
        text,
        took: Duration::ZERO,
        broken: false,
        picture: None,
        looked: false,
        stray: Vec::new(),
    }
}

impl McpAgent {
    async fn call_tool(&self, params: CallToolRequestParams) -> Answer {
        match self.call_tool_text(params).await {
            Ok(reply) => Answer { picture: reply.picture, ..self.read(reply.text, reply.flagged) },
            Err(failed) => failed,
        }
    }

    /// One call's reply; a call that got no answer of the tool's is the failed answer.
    async fn call_tool_text(&self, params: CallToolRequestParams) -> Result<Reply, Answer> {
        match self.client.call_tool(params).await {
            Ok(result) => {
                let text: Vec<&str> =
                    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
                let picture = result.content.iter().filter_map(|c| c.as_image()).find_map(|image| {
                    let png = base64::engine::general_purpose::STANDARD.decode(&image.data).ok()?;
                    super::png_size(&png)
                });
                Ok(Reply { text: text.join("\n"), flagged: result.is_error == Some(true), picture })
            }
            Err(e) => Err(self.connection_failed(e)),
        }
    }

    fn connection_failed(&self, e: ServiceError) -> Answer {
        match e {
            ServiceError::McpError(error) => Answer::failed(
                self.description.classify(&error.message),
                format!("MCP error {}: {}", error.code.0, error.message),
            ),
            e => {
                // Its last words on stderr are added by `call`, once they have been read.
                let what = match self.screened.borrow().clone() {
                    Some(why) => format!("broke the protocol: {why}"),
                    None => format!("broke off: its connection failed ({e})"),
                };
                Answer::broken(&self.description.name, what)
            }
        }
    }
}

/// What one tool call of the agent's answered: its text, whether it flagged it as an error, and
/// the size of the PNG it held, if it held one.
pub(super) struct Reply {
    pub text: String,
    pub flagged: bool,
    pub picture: Option<usize>,
}

/// The answer to a neutral call of `tool` made of the steps its mapping runs for `args`, in
/// order, each made by `run` (a failed answer: it got no reply): the last step's reply, read
/// after the replies of the steps kept (`keep_as`); the first that fails ends it.
pub(super) async fn answer_steps<F, R>(description: &Description, tool: NeutralTool, args: &Value, mut run: F) -> Answer
where
    F: FnMut(&super::description::ToolStep) -> R,
    R: std::future::Future<Output = Result<Reply, Answer>>,
{
    let Some(map) = description.tool(tool) else {
        return Answer::failed(super::FailureClass::Other, format!("{} has no {tool}", description.name));
    };
    let mut answer = Answer::failed(super::FailureClass::Other, "the mapping has no step for this call");
    // The texts of the steps kept, each as `<label>: <text>`.
    let mut kept = String::new();
    for step in map.steps().iter().filter(|s| s.runs(args)) {
        answer = match (&step.keep_as, run(step).await) {
            (Some(label), Ok(Reply { text, flagged: false, picture })) => {
                keep(&mut kept, label, &text);
                Answer { picture, ..read(description, kept.clone(), false) }
            }
            (_, Ok(Reply { text, flagged, picture })) => {
                Answer { picture, ..read(description, format!("{kept}{text}"), flagged) }
            }
            (_, Err(failed)) => failed,
        };
        if !answer.succeeded() {
            break;
        }
    }
    answer
}

/// Adds a step's answer `text` to the texts `kept` (a step's `keep_as`), as `<label>: <text>`.
pub fn keep(kept: &mut String, label: &str, text: &str) {
    kept.push_str(&format!("{label}: {}\n", text.trim_end()));
}

/// A call's `args` with each list item that names a `ref` given `role`: the role the agent's own
/// snapshots gave that ref (an item whose ref they never showed gets none).
fn with_roles(args: &Value, roles: &HashMap<String, String>) -> Value {
    let mut args = args.clone();
    for value in args.as_object_mut().into_iter().flat_map(|map| map.values_mut()) {
        for item in value.as_array_mut().into_iter().flatten() {
            let role = item.get("ref").and_then(Value::as_str).and_then(|r| roles.get(r)).cloned();
            if let (Some(role), Some(item)) = (role, item.as_object_mut()) {
                item.insert("role".into(), Value::String(role));
            }
        }
    }
    args
}

/// Passes the server's stdout on to the MCP client line by line. Until its first JSON-RPC
/// message, a line that is not one (a program that prints a banner or its usage) ends it, as
/// does our own `initialize` sent back at any time (a program that echoes): the receiver gets
/// why, at once, instead of the handshake waiting out its deadline. Once the server has spoken
/// the protocol, a line that is not JSON-RPC (a log line written to the wrong stream) is kept
/// in `stray`, named, and skipped: the server is judged on what it answered.
fn screen(
    stdout: tokio::process::ChildStdout,
    agent: String,
    stray: StrayLines,
) -> (tokio::io::DuplexStream, tokio::sync::watch::Receiver<Option<String>>) {
    use tokio::io::AsyncWriteExt as _;
    let (mut to_client, from_screen) = tokio::io::duplex(1 << 16);
    let (tell, told) = tokio::sync::watch::channel(None);
    tokio::spawn(async move {
        // Bounded: a line without end is an error, not a buffer without end.
        let mut lines = super::lines::LineReader::new(stdout);
        let mut spoke = false;
        loop {
            let line = match lines.next().await {
                Ok(Some(line)) => line,
                Ok(None) => return,
                Err(e) => {
                    let _ = tell.send(Some(format!("it wrote {e}")));
                    return;
                }
            };
            match not_json_rpc(&line) {
                None => spoke = true,
                Some(NotMessage::Other(_)) if spoke => {
                    stray.push(&agent, &line);
                    continue;
                }
                Some(not) => {
                    let _ = tell.send(Some(not.why()));
                    return;
                }
            }
            if to_client.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                return;
            }
        }
    });
    (from_screen, told)
}

/// A line of an MCP server's stdout that is not one of its messages.
#[derive(Debug)]
enum NotMessage {
    /// Our own `initialize` request, sent back.
    Echo(String),
    /// Not a JSON-RPC message at all.
    Other(String),
}

impl NotMessage {
    fn why(self) -> String {
        match self {
            NotMessage::Echo(shown) => format!("it sent back our own initialize request: {shown}"),
            NotMessage::Other(shown) => format!("it wrote a line that is not JSON-RPC: {shown:?}"),
        }
    }
}

/// What a line of an MCP server's stdout is, if it is not one of its messages.
fn not_json_rpc(line: &str) -> Option<NotMessage> {
    let shown: String = line.trim().chars().take(120).collect();
    match serde_json::from_str::<Value>(line) {
        Ok(message) if message.get("jsonrpc").and_then(Value::as_str) == Some("2.0") => {
            (message.get("method").and_then(Value::as_str) == Some("initialize")).then_some(NotMessage::Echo(shown))
        }
        _ => Some(NotMessage::Other(shown)),
    }
}

/// What every match of every pattern says, in order.
fn every_match<T>(patterns: &[regex::Regex], text: &str, read: impl Fn(&regex::Captures<'_>) -> T) -> Vec<T> {
    patterns.iter().flat_map(|re| re.captures_iter(text).map(|c| read(&c)).collect::<Vec<_>>()).collect()
}

fn group(captures: &regex::Captures<'_>, name: &str) -> String {
    captures.name(name).map_or_else(String::new, |m| m.as_str().trim().to_owned())
}

/// An answer's first lines, as a failure's message.
fn first_lines(text: &str) -> String {
    text.lines().filter(|l| !l.trim().is_empty()).take(3).collect::<Vec<_>>().join(" / ")
}

/// Terminal colour codes some servers leave in their error texts.
fn strip_ansi(text: &str) -> String {
    static ANSI: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new("\u{1b}\\[[0-9;]*[A-Za-z]").expect("a valid pattern"));
    ANSI.replace_all(text, "").into_owned()
}

fn protocol(description: &Description, why: String, process: &AgentProcess) -> AgentError {
    AgentError::Protocol {
        agent: description.name.clone(),
        expected: "an MCP server over stdio",
        why,
        stderr: process.stderr_tail(),
    }
}

#[async_trait]
impl AgentUnderTest for McpAgent {
    fn version(&self) -> Option<String> {
        Some(self.server.clone()).filter(|s| !s.is_empty())
    }

    fn stderr(&self) -> Option<super::process::StderrKept> {
        Some(self.process.stderr_kept())
    }

    fn looks_after(&self, tool: NeutralTool) -> bool {
        self.description.looks_after.contains(&tool)
    }

    fn stray_lines(&self) -> Vec<String> {
        self.stray.take()
    }

    fn supports(&self, tool: NeutralTool) -> bool {
        self.description.tool(tool).is_some_and(|m| m.calls().all(|c| self.offered.contains(c)))
    }

    fn takes(&self, tool: NeutralTool, args: &Value) -> bool {
        self.description.tool(tool).is_some_and(|m| m.takes(args))
    }

    async fn call(&mut self, tool: NeutralTool, args: &Value) -> Answer {
        let started = Instant::now();
        let mut answer = answer_steps(&self.description, tool, args, |step| {
            let filled = if step.each.is_empty() { step.fill(args) } else { step.fill(&with_roles(args, &self.roles)) };
            self.call_tool_text(CallToolRequestParams::new(step.call.clone()).with_arguments(filled))
        })
        .await;
        if answer.broken
            && let Some(failure) = answer.failure.as_mut()
        {
            self.process.stderr_read(STDERR_GRACE).await;
            failure.message.push_str(&self.process.stderr_tail());
        }
        answer.took = started.elapsed();
        for element in answer.elements.iter().flatten() {
            self.roles.insert(element.reference.clone(), element.role.clone());
        }
        answer
    }

    async fn close(self: Box<Self>) {
        self.end().await;
    }
}

#[cfg(test)]
mod tests {
    use super::{Description, NotMessage, keep, not_json_rpc, read, with_roles};
    use crate::under_test::{Answer, ElementSeen, FailureClass, NeutralTool};

    /// A real answer of a built-in agent's, recorded on Debian's Chromium 156
    /// (`harness/tests/recorded/<agent>/<name>.txt`).
    fn recorded(agent: &str, name: &str) -> String {
        let path = format!("{}/tests/recorded/{agent}/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The answer `agent`'s description reads from one call made of `steps`: each a recorded
    /// answer and the step's `keep_as`, in order, as the MCP agent joins them.
    fn answer(agent: &str, steps: &[(&str, Option<&str>)]) -> Answer {
        let description = Description::find(agent).unwrap();
        let mut kept = String::new();
        for (name, label) in steps {
            let text = recorded(agent, name);
            match label {
                Some(label) => keep(&mut kept, label, &text),
                None => kept.push_str(&text),
            }
        }
        read(&description, kept, false)
    }

    fn element(reference: &str, role: &str, name: &str) -> ElementSeen {
        ElementSeen { reference: reference.into(), role: role.into(), name: name.into() }
    }

    #[test]
    fn agent_browser_s_recorded_answers_are_read() {
        let a = answer(
            "agent-browser",
            &[("snapshot", Some("Snapshot")), ("get_url", Some("URL")), ("get_title", Some("Title"))],
        );
        assert!(a.succeeded(), "{a:?}");
        let page = a.page.unwrap();
        assert_eq!(page.url, "http://127.0.0.1:36963/page?title=Home&blank=/slow?delay=300%26title=Opened");
        assert_eq!(page.title, "Home");
        let elements = a.elements.unwrap();
        assert_eq!(elements[0], element("e1", "heading", "Home"));
        assert_eq!(elements[1], element("e3", "link", "go"));
        assert_eq!(elements[3], element("e5", "textbox", ""));
        assert_eq!(elements.len(), 6);
        let tabs = answer("agent-browser", &[("tab_list", None)]).tabs.unwrap();
        assert_eq!(tabs.len(), 2);
        assert!(!tabs[0].current && tabs[1].current);
        assert_eq!(tabs[1].url, "http://127.0.0.1:36963/slow?delay=300&title=Opened");
        assert_eq!(tabs[1].title, "127.0.0.1:36963/slow?delay=300&title=Opened");
        // A click answers no page; one that opened a dialog says so in a warning.
        let click = answer("agent-browser", &[("click", None)]);
        assert!(click.succeeded() && click.page.is_none() && click.dialog.is_none(), "{click:?}");
        let dialog = answer("agent-browser", &[("click_dialog", None)]);
        assert_eq!(dialog.dialog.as_deref(), Some("beforeunload dialog is blocking the page: \"\""));
        let description = Description::find("agent-browser").unwrap();
        let refused = read(&description, recorded("agent-browser", "click_unknown_ref"), true);
        assert_eq!(refused.failure.unwrap().class, FailureClass::StaleRef);
        let blocked = read(&description, recorded("agent-browser", "navigate_dialog_error"), true);
        assert_eq!(blocked.failure.unwrap().class, FailureClass::Dialog);
    }

    #[test]
    fn browser_use_s_recorded_answers_are_read() {
        let state = answer("browser-use", &[("get_state", None)]);
        assert!(state.succeeded());
        let page = state.page.unwrap();
        let url = "http://127.0.0.1:8931/page?title=Start&go=http://127.0.0.1:8931/page?title=Next";
        assert_eq!(page.url, url);
        // Its title holds the URL for a while after a navigation: read as it said it.
        assert_eq!(page.title, url.trim_start_matches("http://"));
        let elements = state.elements.unwrap();
        assert_eq!(
            elements,
            [
                element("60", "a", "go"),
                element("63", "a", "new tab"),
                element("44", "input", ""),
                element("68", "button", "send"),
                element("46", "button", "open a window"),
            ]
        );
        let tabs = answer("browser-use", &[("list_tabs", None)]).tabs.unwrap();
        assert_eq!(tabs.len(), 3);
        assert_eq!(
            (tabs[1].title.as_str(), tabs[1].url.as_str()),
            ("Second", "http://127.0.0.1:8931/page?title=Second")
        );
        assert!(tabs.iter().all(|t| !t.current));
        let navigated = answer("browser-use", &[("navigate", None)]);
        assert_eq!(navigated.page.unwrap().url, url);
        let opened = answer("browser-use", &[("new_tab", None)]);
        assert_eq!(opened.page.unwrap().url, "http://127.0.0.1:8931/page?title=Second");
        // Not flagged as an error, yet a failure.
        let missing = answer("browser-use", &[("click_missing_index", None)]);
        assert_eq!(missing.failure.unwrap().class, FailureClass::StaleRef);
    }

    #[test]
    fn vibium_s_recorded_answers_are_read() {
        let snapshot = answer("vibium", &[("get_url", Some("URL")), ("get_title", Some("Title")), ("find_all", None)]);
        let page = snapshot.page.unwrap();
        assert_eq!(page.url, "http://127.0.0.1:8931/page?title=Start&go=http://127.0.0.1:8931/page?title=Next");
        assert_eq!(page.title, "Start");
        let elements = snapshot.elements.unwrap();
        assert_eq!(elements[0], element("0", "a", "go"));
        assert_eq!(elements[4], element("4", "button", "open a window"));
        let navigated = answer("vibium", &[("navigate", Some("Answer")), ("get_title", Some("Title"))]);
        assert_eq!(
            navigated.page.unwrap(),
            crate::under_test::PageSeen {
                url: "http://127.0.0.1:8931/page?title=Start&go=http://127.0.0.1:8931/page?title=Next".into(),
                title: "Start".into()
            }
        );
        let opened = answer("vibium", &[("new_tab", Some("Answer")), ("get_title", Some("Title"))]);
        assert_eq!(opened.page.unwrap().url, "http://127.0.0.1:8931/page?title=Second");
        let tabs = answer("vibium", &[("list_tabs", None)]).tabs.unwrap();
        assert_eq!(
            tabs.iter().map(|t| t.url.as_str()).collect::<Vec<_>>()[1],
            "http://127.0.0.1:8931/page?title=Second"
        );
        assert!(tabs.iter().all(|t| t.title.is_empty() && !t.current));
        let description = Description::find("vibium").unwrap();
        let refused = read(&description, recorded("vibium", "navigate_refused"), true);
        assert_eq!(refused.failure.unwrap().class, FailureClass::Navigation);
        // Its scroll answers a line, no page: the harness looks next.
        let scrolled = read(&description, recorded("vibium", "scroll"), false);
        assert!(scrolled.succeeded() && scrolled.page.is_none(), "{scrolled:?}");
        assert!(description.looks_after.contains(&NeutralTool::Scroll));
        // Its page text, the extract of a whole page, is read as it came.
        let text = read(&description, recorded("vibium", "get_text"), false);
        assert!(text.succeeded() && text.text.contains("Items: 10\n\nItem 1\n"), "{text:?}");
    }

    #[test]
    fn agent_browser_s_recorded_select_answers_are_read() {
        let description = Description::find("agent-browser").unwrap();
        // It answers the option it chose, with no page: the harness looks next.
        let chosen = read(&description, recorded("agent-browser", "select"), false);
        assert!(chosen.succeeded(), "{chosen:?}");
        assert!(chosen.page.is_none() && chosen.text.contains("\"selected\""), "{chosen:?}");
        assert!(description.looks_after.contains(&NeutralTool::SelectOption));
        let missing = read(&description, recorded("agent-browser", "select_no_option"), true);
        assert_eq!(missing.failure.unwrap().class, FailureClass::Other);
    }

    #[test]
    fn agent_browser_s_recorded_pointer_upload_and_scroll_answers_are_read() {
        let description = Description::find("agent-browser").unwrap();
        let answers = [
            ("hover", NeutralTool::Hover),
            ("drag", NeutralTool::Drag),
            ("upload", NeutralTool::UploadFile),
            ("scroll_into_view", NeutralTool::Scroll),
            ("scroll", NeutralTool::Scroll),
        ];
        for (name, tool) in answers {
            let answer = read(&description, recorded("agent-browser", name), false);
            // Success with no page: the harness takes its next look, as its model would.
            assert!(answer.succeeded() && answer.page.is_none(), "{name}: {answer:?}");
            assert!(description.looks_after.contains(&tool), "{name}");
        }
        // Its drag says "dragged" whatever received the drop, and its upload counts files
        // without naming them: read as said, judged by the page.
        assert!(recorded("agent-browser", "drag").contains("\"dragged\": true"));
        assert!(recorded("agent-browser", "upload").contains("\"uploaded\": 1"));
    }

    #[test]
    fn browser_use_s_recorded_scroll_screenshot_and_html_answers_are_read() {
        let description = Description::find("browser-use").unwrap();
        let scrolled = read(&description, recorded("browser-use", "scroll"), false);
        assert!(scrolled.succeeded() && scrolled.page.is_none(), "{scrolled:?}");
        assert!(description.looks_after.contains(&NeutralTool::Scroll));
        // Its screenshot's text is the picture's size and the viewport (the picture itself is
        // the answer's image content).
        let shot = read(&description, recorded("browser-use", "screenshot"), false);
        assert!(shot.succeeded() && shot.text.contains("\"viewport\""), "{shot:?}");
        // Its HTML is the page as it holds it now, and no page's URL or title is read from it.
        let html = read(&description, recorded("browser-use", "get_html"), false);
        assert!(html.succeeded() && html.text.contains("Picked: one") && html.page.is_none(), "{html:?}");
    }

    #[test]
    fn firefox_devtools_mcp_s_recorded_answers_are_read() {
        let agent = "firefox-devtools-mcp";
        // Its look: its tab list (the selected tab's title and URL), then its snapshot.
        let look = answer(agent, &[("list_pages_second", Some("Pages")), ("take_snapshot", None)]);
        assert!(look.succeeded(), "{look:?}");
        let page = look.page.unwrap();
        assert_eq!(
            (page.title.as_str(), page.url.as_str()),
            ("Opened", "http://127.0.0.1:40715/slow?delay=300&title=Opened")
        );
        let elements = look.elements.unwrap();
        assert_eq!(elements.len(), 9, "{elements:?}");
        assert_eq!(elements[1], element("e9", "h1", "Opened"));
        assert_eq!(elements[3], element("e10", "a", "go"));
        assert_eq!(elements[6], element("e13", "input", ""));
        assert_eq!(elements[7], element("e14", "button", "send"));
        let tabs = look.tabs.unwrap();
        assert_eq!(tabs.len(), 2, "{tabs:?}");
        assert!(!tabs[0].current && tabs[1].current, "{tabs:?}");
        // The selected tab is found by its mark, the first of two as well.
        let first = answer(agent, &[("list_pages", None)]).page.unwrap();
        assert_eq!(first.title, "Home");
        // A control shares its name with the heading above it: its role is its own.
        let editor = answer(agent, &[("take_snapshot_editor", None)]).elements.unwrap();
        assert_eq!(editor[2], element("e1", "textbox", "Editor"));
        let description = Description::find(agent).unwrap();
        // Its actions answer without the page (navigate names the URL asked for, not the page's):
        // the harness takes its next look.
        for (name, tool) in [
            ("click", NeutralTool::Click),
            ("navigate_page", NeutralTool::Navigate),
            ("navigate_history", NeutralTool::GoBack),
            ("select_page", NeutralTool::SelectTab),
            ("accept_dialog", NeutralTool::HandleDialog),
        ] {
            let answer = read(&description, recorded(agent, name), false);
            assert!(answer.succeeded() && answer.page.is_none(), "{name}: {answer:?}");
            assert!(description.looks_after.contains(&tool), "{name}");
        }
        let stale = read(&description, recorded(agent, "click_stale"), true);
        assert_eq!(stale.failure.unwrap().class, FailureClass::StaleRef);
        // While an alert is open its snapshot fails naming the dialog.
        let mut blocked = String::new();
        keep(&mut blocked, "Pages", "1 pages (selected: 0)\n>[0] Current Tab (URL unavailable)");
        blocked.push_str(&recorded(agent, "take_snapshot_dialog"));
        let blocked = read(&description, blocked, true);
        assert_eq!(blocked.failure.unwrap().class, FailureClass::Dialog);
        // Its page text is the page's, with no page read from it.
        let text = read(&description, recorded(agent, "get_page_text"), false);
        assert!(text.succeeded() && text.page.is_none() && text.text.contains("open a window"), "{text:?}");
    }

    #[test]
    fn puppeteer_mcp_s_recorded_answers_are_read() {
        let agent = "puppeteer-mcp";
        // Its look is its evaluate of the description's script: the page, and its controls with
        // a selector each (the ref).
        let look = answer(agent, &[("evaluate_look", None)]);
        assert!(look.succeeded(), "{look:?}");
        let page = look.page.unwrap();
        assert_eq!(
            (page.title.as_str(), page.url.as_str()),
            ("One", "http://127.0.0.1:39927/page?title=One&go=/page?title=Two")
        );
        let elements = look.elements.unwrap();
        assert_eq!(elements.len(), 5, "{elements:?}");
        let go = "html > body:nth-of-type(1) > p:nth-of-type(1) > a:nth-of-type(1)";
        assert_eq!(elements[0], element(go, "a", "go"));
        assert_eq!(elements[3].name, "send");
        let description = Description::find(agent).unwrap();
        // Its actions answer without the page: navigate names the URL asked for.
        for (name, tool) in [("click", NeutralTool::Click), ("navigate", NeutralTool::Navigate)] {
            let answer = read(&description, recorded(agent, name), false);
            assert!(answer.succeeded() && answer.page.is_none(), "{name}: {answer:?}");
            assert!(description.looks_after.contains(&tool), "{name}");
        }
        // A script cut off by a navigation (its go_back is history.back() through evaluate).
        let cut = read(&description, recorded(agent, "evaluate_navigated"), true);
        assert_eq!(cut.failure.unwrap().class, FailureClass::Navigation);
    }

    #[test]
    fn executeautomation_s_recorded_answers_are_read() {
        let agent = "executeautomation";
        // Its evaluate answers the script it ran, then its result: only the result is read.
        let look = answer(agent, &[("evaluate_look", None)]);
        assert!(look.succeeded(), "{look:?}");
        let page = look.page.unwrap();
        assert_eq!(page.title, "One");
        let elements = look.elements.unwrap();
        assert_eq!(elements.len(), 5, "{elements:?}");
        assert_eq!(elements[0].reference, "html > body:nth-of-type(1) > p:nth-of-type(1) > a:nth-of-type(1)");
        assert_eq!((elements[4].role.as_str(), elements[4].name.as_str()), ("button", "open a window"));
        let description = Description::find(agent).unwrap();
        let click = read(&description, recorded(agent, "click"), false);
        assert!(click.succeeded() && click.page.is_none(), "{click:?}");
        assert!(description.looks_after.contains(&NeutralTool::Click));
        // It launches its browser itself: the harness reads none of its pages.
        assert!(description.has_a_browser_of_its_own() && !description.attaches());
    }

    #[test]
    fn agent_infra_s_recorded_answers_are_read() {
        // Its look: the tab list (the current tab's title and URL), then the clickable elements.
        let look = answer("agent-infra", &[("tab_list", Some("Tabs")), ("clickable_elements", None)]);
        assert!(look.succeeded(), "{look:?}");
        let page = look.page.unwrap();
        assert_eq!((page.title.as_str(), page.url.as_str()), ("Next", "http://127.0.0.1:40481/page?title=Next"));
        let elements = look.elements.unwrap();
        assert_eq!(elements.len(), 5, "{elements:?}");
        assert_eq!(elements[0], element("0", "a", "go"));
        assert_eq!(elements[2], element("2", "input", "[input]"));
        assert_eq!(elements[3], element("3", "button", "send"));
        // The current tab is found by its index among several.
        let tabs = answer("agent-infra", &[("tab_list_second", None)]);
        let page = tabs.page.unwrap();
        assert_eq!(
            (page.title.as_str(), page.url.as_str()),
            ("Opened", "http://127.0.0.1:43715/slow?delay=300&title=Opened")
        );
        assert_eq!(tabs.tabs.unwrap().len(), 2);
        let description = Description::find("agent-infra").unwrap();
        // Its actions answer without the page: the harness takes its next look.
        for (name, tool) in [("click", NeutralTool::Click), ("go_back", NeutralTool::GoBack)] {
            let answer = read(&description, recorded("agent-infra", name), false);
            assert!(answer.succeeded() && answer.page.is_none(), "{name}: {answer:?}");
            assert!(description.looks_after.contains(&tool), "{name}");
        }
        let refused = read(&description, recorded("agent-infra", "click_unknown_ref"), true);
        assert_eq!(refused.failure.unwrap().class, FailureClass::StaleRef);
        // Its markdown is the page's text, with no page read from it.
        let text = read(&description, recorded("agent-infra", "markdown"), false);
        assert!(text.succeeded() && text.page.is_none() && text.text.contains("[go](/page?title=Next)"), "{text:?}");
        let shot = read(&description, recorded("agent-infra", "screenshot"), false);
        assert!(shot.succeeded() && shot.text.starts_with("Screenshot"), "{shot:?}");
        // Its answers in its own words that are failures without its error flag, its look's
        // second part among them.
        let maybe = read(&description, "Maybe failed filled index 2 with: \"hi\"".into(), false);
        assert!(!maybe.succeeded(), "{maybe:?}");
        let mut look = String::new();
        keep(&mut look, "Tabs", &recorded("agent-infra", "tab_list"));
        let unread = read(&description, format!("{look}Failed to parse DOM tree"), false);
        assert!(!unread.succeeded(), "{unread:?}");
        // A URL holding a parenthesis is read whole, and from the current tab's own line.
        let tabs =
            "Current Tab: [1] B\nAll Tabs: \n[0] Title: A (URL: http://h/a_(x))\n[1] Title: B (URL: http://h/b_(y))";
        let answer = read(&description, tabs.into(), false);
        assert_eq!(answer.page.unwrap().url, "http://h/b_(y)");
        let listed = answer.tabs.unwrap();
        assert_eq!((listed[0].url.as_str(), listed[0].title.as_str()), ("http://h/a_(x)", "A"));
    }

    #[test]
    fn playwright_cli_s_recorded_answers_are_read() {
        let snapshot = answer("playwright-cli", &[("snapshot", None)]);
        assert!(snapshot.succeeded(), "{snapshot:?}");
        assert_eq!(snapshot.page.unwrap().title, "Home");
        let elements = snapshot.elements.unwrap();
        assert!(elements.contains(&element("e4", "link", "go")) && elements.contains(&element("e8", "button", "send")));
        // Its click answers the page it left the tab on, without the elements (they went to a file).
        let clicked = answer("playwright-cli", &[("click", None)]);
        assert_eq!(clicked.page.unwrap().title, "Next");
        assert!(clicked.elements.is_none());
        let tabs = answer("playwright-cli", &[("tab_list", None)]).tabs.unwrap();
        assert!(tabs.len() == 1 && tabs[0].current && tabs[0].title == "Next");
        let description = Description::find("playwright-cli").unwrap();
        let refused = read(&description, recorded("playwright-cli", "click_unknown_ref"), true);
        assert_eq!(refused.failure.unwrap().class, FailureClass::StaleRef);
        let blocked = read(&description, recorded("playwright-cli", "snapshot_dialog"), true);
        assert_eq!(blocked.failure.unwrap().class, FailureClass::Dialog);
        assert_eq!(blocked.dialog.as_deref(), Some("\"alert\" dialog with message \"Dialog: alert\""));
        assert!(answer("playwright-cli", &[("dialog_accept", None)]).succeeded());
        // Its screenshot names the file it wrote, relative to its working folder.
        let shot = recorded("playwright-cli", "screenshot");
        let path = description.answer.picture_in(&shot).unwrap();
        assert!(path.starts_with(".playwright-cli/page-") && path.ends_with(".png"), "{path}");
    }

    #[test]
    fn playwright_mcp_s_recorded_interaction_answers_are_read() {
        let description = Description::find("playwright-mcp").unwrap();
        // Its select on an ARIA combobox: flagged as an error, which is no timeout or dialog.
        let refused = read(&description, recorded("playwright-mcp", "select_option_combobox"), true);
        let failure = refused.failure.unwrap();
        assert_eq!(failure.class, FailureClass::Other);
        assert!(failure.message.contains("Element is not a <select> element"), "{failure:?}");
        // Its upload answers with the page, and names no file.
        let uploaded = read(&description, recorded("playwright-mcp", "file_upload"), false);
        assert!(uploaded.succeeded(), "{uploaded:?}");
        assert_eq!(uploaded.page.unwrap().title, "Upload");
        assert!(!uploaded.text.contains(".csv"));
    }

    #[test]
    fn a_banner_or_an_echo_is_not_an_mcp_server() {
        let why = |line: &str| not_json_rpc(line).map(NotMessage::why);
        assert!(why("Usage: agent [options]\n").is_some_and(|w| w.contains("not JSON-RPC")));
        assert!(
            why("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}").is_some_and(|w| w.contains("sent back"))
        );
        assert!(not_json_rpc("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}").is_none());
        assert!(not_json_rpc("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}").is_none());
    }

    #[test]
    fn list_items_get_the_role_the_agents_snapshot_gave_their_ref() {
        use serde_json::json;
        let roles = [("e3".to_owned(), "combobox".to_owned())].into_iter().collect();
        let args = json!({"fields": [{"ref": "e3", "value": "Blue"}, {"ref": "e9", "value": "x"}], "ref": "e3"});
        assert_eq!(
            with_roles(&args, &roles),
            json!({"fields": [{"ref": "e3", "value": "Blue", "role": "combobox"}, {"ref": "e9", "value": "x"}], "ref": "e3"})
        );
    }
}
