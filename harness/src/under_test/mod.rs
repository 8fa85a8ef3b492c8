//! The agents under test: anything that stands where navguard's own core stands, driven through
//! the neutral tools of the conformance profile (`docs/agent-conformance.md`). Not the core's
//! agent (`navguard::agent`): what the harness drives and judges. An agent is described by a
//! file (`agents/<name>.toml`); its [`kind::Kind`] says how it is driven:
//! - [`core`]: navguard's core, in process (the tool layer of [`navguard::agent::Session`]);
//! - [`mcp`]: a Model Context Protocol server started as a child process over stdio;
//! - [`jsonl`]: any program that speaks the JSON-lines protocol over stdio.
//!
//! Every kind answers a call with an [`Answer`]: success or a failure of a [`FailureClass`],
//! and what the answer shows of the page (its URL and title, its elements with refs, its tabs).

pub mod cli;
pub mod core;
pub mod description;
pub mod jsonl;
pub mod kind;
mod lines;
pub mod mcp;
pub mod preflight;
pub mod process;
mod start;

pub use start::start;
pub(crate) use start::start_kind;

use async_trait::async_trait;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

navguard::closed_set! {
    /// A neutral tool: what a scenario calls, whatever the agent calls it.
    pub enum NeutralTool("neutral tool") {
        Navigate = "navigate",
        NewTab = "new_tab",
        Snapshot = "snapshot",
        Click = "click",
        Type = "type",
        PressKey = "press_key",
        GoBack = "go_back",
        WaitFor = "wait_for",
        ListTabs = "list_tabs",
        SelectTab = "select_tab",
        CloseTab = "close_tab",
        HandleDialog = "handle_dialog",
        /// The interaction tools (`docs/interaction.md`), with the core's own arguments.
        Scroll = "scroll",
        Extract = "extract",
        Screenshot = "screenshot",
        SelectOption = "select_option",
        Hover = "hover",
        Drag = "drag",
        UploadFile = "upload_file",
        FillForm = "fill_form",
    }
}

navguard::closed_set! {
    /// Why a call failed, in the profile's words.
    pub enum FailureClass("failure class") {
        StaleRef = "stale-ref",
        NotFound = "not-found",
        /// The element is there but covered, hidden or disabled (the orchestrator's
        /// `TARGET_NOT_INTERACTABLE`).
        NotInteractable = "not-interactable",
        Timeout = "timeout",
        Navigation = "navigation",
        Dialog = "dialog",
        /// The action ran and the page does not hold its effect (a value put back, no drop).
        NotApplied = "not-applied",
        /// The element is there, but the agent cannot act on it (a closed shadow root).
        NotSupported = "not-supported",
        Other = "other",
    }
}

/// The page an answer shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PageSeen {
    pub url: String,
    pub title: String,
}

/// An element of an answer's snapshot.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ElementSeen {
    #[serde(rename = "ref")]
    pub reference: String,
    pub role: String,
    pub name: String,
}

/// A tab of a `list_tabs` answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TabSeen {
    pub title: String,
    pub url: String,
    pub current: bool,
}

/// A failed call: its class and the agent's words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Failure {
    pub class: FailureClass,
    pub message: String,
}

/// What one call answered.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Answer {
    /// `None`: the call succeeded.
    pub failure: Option<Failure>,
    pub page: Option<PageSeen>,
    /// The snapshot's elements, when the answer holds a snapshot.
    pub elements: Option<Vec<ElementSeen>>,
    pub tabs: Option<Vec<TabSeen>>,
    /// The dialog the answer says the page has open (its words), when it says one is.
    pub dialog: Option<String>,
    /// The answer as the agent gave it (its text), for the reports.
    pub text: String,
    /// How long the call took, from sending it to its answer.
    #[serde(serialize_with = "as_ms")]
    pub took: Duration,
    /// Not the agent's answer: its process broke off (it closed its output, wrote what its
    /// protocol does not allow, or could not be written to). Nothing it did can be waited for.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub broken: bool,
    /// The size of the PNG the answer held (a screenshot's), in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<usize>,
    /// The answer carried no page, and its page (and elements, where it had none) are those
    /// of the agent's next look, taken at once after it (its description's `looks_after`);
    /// `took` counts both calls.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub looked: bool,
    /// The lines it wrote on stdout during the call that are not its protocol, skipped (the
    /// answer is what it answered besides them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stray: Vec<String>,
}

/// The size of `bytes` when they are a PNG.
pub(crate) fn png_size(bytes: &[u8]) -> Option<usize> {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n").then_some(bytes.len())
}

fn as_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

impl Answer {
    /// A failure of `class`.
    pub fn failed(class: FailureClass, message: impl Into<String>) -> Self {
        Self { failure: Some(Failure { class, message: message.into() }), ..Self::default() }
    }

    /// The agent's process broke off: `what` it did, after its name.
    pub fn broken(agent: &str, what: impl std::fmt::Display) -> Self {
        Self { broken: true, ..Self::failed(FailureClass::Other, format!("agent {agent} {what}")) }
    }

    pub fn succeeded(&self) -> bool {
        self.failure.is_none()
    }

    /// It told of a dialog that blocks the page: it failed as `dialog`, or it shows one open.
    pub fn reported_dialog(&self) -> bool {
        self.dialog.is_some() || self.failure.as_ref().is_some_and(|f| f.class == FailureClass::Dialog)
    }
}

/// Why an agent could not be started or spoken to: one line naming it and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    #[error("agent {agent}: {path}: {why}")]
    Description { agent: String, path: String, why: String },
    /// A built-in agent's npm package is not in the folder navguard looks in.
    #[error("agent {agent}: its npm package {package} is not installed in {}: {what_to_do}", .dir.display())]
    NotInstalled { agent: String, package: String, dir: std::path::PathBuf, what_to_do: String },
    /// A built-in agent's program (in its folder) is not there or cannot be run.
    #[error("agent {agent}: {} is not installed or not executable: {what_to_do}", .program.display())]
    NotRunnable { agent: String, program: std::path::PathBuf, what_to_do: String },
    #[error("agent {agent}: cannot start {command}: {source}; {hint}")]
    Spawn {
        agent: String,
        command: String,
        hint: String,
        #[source]
        source: std::io::Error,
    },
    /// It did not answer its start in time; `stderr` is the end of what it wrote meanwhile
    /// (a slow start says where it was).
    #[error("agent {agent} did not answer the {what} within {} s: is `{command}` {expected}?{stderr}", seconds(*.after))]
    NoHandshake {
        agent: String,
        what: &'static str,
        command: String,
        expected: &'static str,
        after: Duration,
        stderr: String,
    },
    #[error("agent {agent} is not {expected}: {why}{stderr}")]
    Protocol { agent: String, expected: &'static str, why: String, stderr: String },
    /// A call the description makes once after its start failed.
    #[error("agent {agent}: its call {call} after start failed: {why}")]
    AfterStart { agent: String, call: String, why: String },
    #[error("agent {agent} lacks {missing}, which every scenario here needs: {what_to_do}")]
    MissingTool { agent: String, missing: String, what_to_do: String },
    #[error("agent {agent} drives {supported} only, not {browser}: run it with --browser {supported}")]
    Browser { agent: String, browser: String, supported: String },
}

/// Where an agent is started: the scenario's browser, its tabs, and how an agent reaches it.
#[allow(missing_debug_implementations, reason = "the port is a trait object without Debug")]
pub struct StartAt<'a> {
    /// The scenario's own tabs, for an in-process agent.
    pub port: Arc<dyn navguard::browser::BrowserPort>,
    /// The Chromium binary (`{chromium}`).
    pub chromium: &'a str,
    /// How an agent that attaches reaches the scenario's browser, and the folder of files.
    pub browser: BrowserAt<'a>,
}

/// Where an agent that attaches can reach the harness's browser.
#[derive(Clone, Copy, Debug, Default)]
pub struct BrowserAt<'a> {
    /// Chromium's DevTools endpoint (`{cdp_endpoint}`).
    pub cdp: Option<&'a str>,
    /// The BiDi session's WebSocket URL (`{bidi_session}`): another BiDi client joins it.
    pub bidi: Option<&'a str>,
    /// The same session's WebDriver URL (`{webdriver_session}`, `http://127.0.0.1:PORT/session/ID`):
    /// a WebDriver client sends classic commands to it.
    pub webdriver: Option<&'a str>,
    /// The scenario's folder of files to upload (`{files}`; the agent's own `{scratch}` when
    /// it is started without a scenario).
    pub files: Option<&'a str>,
}

/// The `navguard` command (`{navguard}`): `NAVGUARD_COMMAND` when set, else this program when it
/// is navguard, else the `navguard` beside it (a test binary's, in the folder above), else the
/// one on PATH.
pub(crate) fn navguard_command() -> std::path::PathBuf {
    if let Some(set) = std::env::var_os("NAVGUARD_COMMAND") {
        return set.into();
    }
    let me = std::env::current_exe().unwrap_or_default();
    if me.file_name().is_some_and(|n| n == "navguard") {
        return me;
    }
    let beside = me.ancestors().skip(1).take(2).map(|dir| dir.join("navguard")).find(|p| p.is_file());
    beside.unwrap_or_else(|| "navguard".into())
}

/// A duration in seconds as a person writes it: `30`, `0.5`.
fn seconds(d: Duration) -> String {
    match d.subsec_millis() {
        0 => d.as_secs().to_string(),
        _ => format!("{:.1}", d.as_secs_f64()),
    }
}

/// An agent under test, started for one scenario.
#[async_trait]
pub trait AgentUnderTest: Send {
    /// Whether the agent has a counterpart of `tool` (without one, a scenario that calls it is
    /// not applicable to this agent).
    fn supports(&self, tool: NeutralTool) -> bool;

    /// Whether it takes a call of `tool` in the form these `args` give (browser-use's scroll
    /// moves by a page, never to an element): a call it does not take is not applicable to it.
    fn takes(&self, _tool: NeutralTool, _args: &Value) -> bool {
        true
    }

    /// Calls `tool` with the scenario's `args` (refs already resolved); the caller puts the
    /// deadline on it.
    async fn call(&mut self, tool: NeutralTool, args: &Value) -> Answer;

    /// Whether its answers to `tool` carry no page, so that its next look, taken at once, is
    /// what tells where the call left the page (its description's `looks_after`).
    fn looks_after(&self, _tool: NeutralTool) -> bool {
        false
    }

    /// The lines it wrote on stdout since this was last asked that are not its protocol (a
    /// log line on the wrong stream), each already skipped: the answer of the call they came
    /// during names them.
    fn stray_lines(&self) -> Vec<String> {
        Vec::new()
    }

    /// Ends the agent: its process (and anything it started) is gone when this returns.
    async fn close(self: Box<Self>);

    /// Its name and version as it gives them (an MCP server's in its handshake), for the
    /// reports.
    fn version(&self) -> Option<String> {
        None
    }

    /// The tab it acts on, when it can say (navguard's core can); others' is found from the
    /// page their answers show.
    fn focused_tab(&self) -> Option<navguard::browser::TabId> {
        None
    }

    /// What its process writes to stderr, its end kept, readable after it closed (a failed
    /// scenario's artifacts keep it); `None` for an agent without a process of its own.
    fn stderr(&self) -> Option<process::StderrKept> {
        None
    }
}
