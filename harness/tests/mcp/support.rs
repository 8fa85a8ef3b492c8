//! `navguard mcp` started as an MCP client starts it (a child over stdio), with the official
//! Rust SDK as its client, and the processes it starts watched.

use super::processes::Watch;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion, Tool,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::Value;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::process::Child;

/// The handshake and `tools/list`: no browser starts for them.
pub(crate) const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(20);
/// One tool call, the first included (it starts the browser), on a loaded 2-core machine.
pub(crate) const CALL_DEADLINE: Duration = Duration::from_secs(90);

/// A running `navguard mcp` and its client.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) pid: u32,
    pub(crate) client: RunningService<RoleClient, ClientConfig>,
    /// The processes the server started (and the server itself).
    pub(crate) watch: Watch,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `navguard mcp <args>` in a process group of its own (so the processes of other
    /// tests, which share the test's group, are never counted as its) and does the handshake.
    pub(crate) async fn start(args: &[&str]) -> Self {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_navguard"))
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            // A test that panics leaves no server: its guardian then ends the driver and browser.
            .kill_on_drop(true)
            .spawn()
            .expect("navguard mcp starts");
        let pid = child.id().expect("a running child has a pid");
        let watch = Watch::new(pid);
        let stderr = record(child.stderr.take().expect("its stderr, piped"));
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            panic!("the child's stdio, piped");
        };
        let config = ClientConfig::new(ClientCapabilities::default(), Implementation::new("navguard-mcp-test", "0"))
            // What the clients of today speak (the SDK's newest version has no `initialize`).
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
        let transport = AsyncRwTransport::new_client(stdout, stdin);
        let client = tokio::time::timeout(HANDSHAKE_DEADLINE, config.serve(transport))
            .await
            .expect("the handshake within its deadline")
            .expect("the MCP handshake");
        Self { child, pid, client, watch, stderr }
    }

    /// What the server wrote on its stderr so far (its log), for a failure's message.
    pub(crate) fn stderr(&self) -> String {
        text(&self.stderr)
    }

    /// `tools/call` of `tool` with `args` (a JSON object), as the SDK answers it.
    pub(crate) async fn try_call(&self, tool: &str, args: Value) -> Result<CallToolResult, ServiceError> {
        let Value::Object(args) = args else { panic!("a call's arguments are an object: {args}") };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        tokio::time::timeout(CALL_DEADLINE, self.client.call_tool(params))
            .await
            .unwrap_or_else(|_| panic!("{tool}: no answer within {CALL_DEADLINE:?}; stderr:\n{}", self.stderr()))
    }

    /// A call the tool answered (worked or failed), with its structured content.
    pub(crate) async fn call(&self, tool: &str, args: Value) -> Answer {
        let result = self
            .try_call(tool, args)
            .await
            .unwrap_or_else(|e| panic!("{tool}: a JSON-RPC error ({e}); stderr:\n{}", self.stderr()));
        Answer::of(result)
    }

    /// The tools `tools/list` answers.
    pub(crate) async fn tools(&self) -> Vec<Tool> {
        tokio::time::timeout(HANDSHAKE_DEADLINE, self.client.list_all_tools())
            .await
            .expect("tools/list within its deadline")
            .expect("tools/list answered")
    }

    /// The names of the tools `tools/list` answers.
    pub(crate) async fn tool_names(&self) -> Vec<String> {
        self.tools().await.into_iter().map(|t| t.name.to_string()).collect()
    }
}

/// What a child writes on `from`, recorded as it comes (a pipe read to its end, so the child
/// never blocks on it).
pub(crate) fn record(mut from: impl AsyncRead + Unpin + Send + 'static) -> Arc<Mutex<String>> {
    let recorded = Arc::new(Mutex::new(String::new()));
    let record = Arc::clone(&recorded);
    tokio::spawn(async move {
        let mut chunk = [0_u8; 4096];
        while let Ok(n @ 1..) = from.read(&mut chunk).await {
            record.lock().expect("the record").push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    });
    recorded
}

/// What has been recorded so far.
pub(crate) fn text(recorded: &Mutex<String>) -> String {
    recorded.lock().expect("the record").clone()
}

/// `child`'s exit status, at most `deadline` after now; panics when it is still running.
pub(crate) async fn exit_within(child: &mut Child, deadline: Duration) -> ExitStatus {
    tokio::time::timeout(deadline, child.wait())
        .await
        .unwrap_or_else(|_| panic!("it still ran {deadline:?} later"))
        .expect("its exit status")
}

/// A tool's answer: its text, whether it is flagged as an error, and its structured content.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) text: String,
    pub(crate) is_error: bool,
    pub(crate) structured: Value,
    /// Each image content: its MIME type and its base64 data.
    pub(crate) images: Vec<(String, String)>,
}

impl Answer {
    fn of(result: CallToolResult) -> Self {
        let text: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
        let images =
            result.content.iter().filter_map(|c| c.as_image()).map(|i| (i.mime_type.clone(), i.data.clone())).collect();
        Self {
            text: text.join("\n"),
            is_error: result.is_error == Some(true),
            structured: result.structured_content.unwrap_or(Value::Null),
            images,
        }
    }

    /// The failure's kind (`stale-ref`, `bad-input`, ...), when the call failed.
    pub(crate) fn failure_kind(&self) -> Option<&str> {
        self.structured["failure"]["kind"].as_str()
    }

    /// The ref of the page's element called `name` and of role `role`.
    pub(crate) fn element(&self, role: &str, name: &str) -> String {
        let elements = self.structured["page"]["elements"].as_array().cloned().unwrap_or_default();
        elements
            .iter()
            .find(|e| e["role"] == role && e["name"] == name)
            .and_then(|e| e["ref"].as_str())
            .unwrap_or_else(|| panic!("no {role} {name:?} on the page: {}", self.text))
            .to_owned()
    }

    pub(crate) fn title(&self) -> &str {
        self.structured["page"]["title"].as_str().unwrap_or_default()
    }
}
