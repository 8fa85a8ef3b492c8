//! How an agent under test is driven, and every fact that depends on it. Each fact is an
//! exhaustive `match`: a new kind is one more member of [`Kind`], and the compiler names every
//! place that must say what it does.

use super::BrowserAt;

navguard::closed_set! {
    /// How an agent is driven (its description's `kind`).
    pub enum Kind("agent kind") {
        /// navguard's own core, in process.
        InProcess = "in-process",
        /// A Model Context Protocol server, a child process over stdio.
        Mcp = "mcp",
        /// A program that speaks the JSON-lines protocol over stdio.
        Jsonl = "jsonl",
        /// A command line per call (a tool layer made for agents that script it through a
        /// shell): its output is the answer, its exit status says whether it failed.
        Cli = "cli",
    }
}

/// The discard port on loopback, where nothing listens: the check before a run points an MCP
/// server there, because starting it and listing its tools must not need a browser.
const NOWHERE: &str = "http://127.0.0.1:9";
/// The same port as a BiDi session's WebSocket URL.
const NOWHERE_WS: &str = "ws://127.0.0.1:9/session/none";
const NOWHERE_SESSION: &str = "http://127.0.0.1:9/session/none";

impl Kind {
    /// Whether its description must say how to start it: a child process needs a command;
    /// navguard's core runs inside the harness.
    pub const fn needs_start_command(self) -> bool {
        match self {
            Self::InProcess => false,
            Self::Mcp | Self::Jsonl | Self::Cli => true,
        }
    }

    /// Whether its description maps calls onto the agent's own tools, so that it can also have
    /// calls after its start and before its end: a jsonl agent's adapter does its own.
    pub const fn has_tool_calls(self) -> bool {
        match self {
            Self::Mcp | Self::Cli => true,
            Self::InProcess | Self::Jsonl => false,
        }
    }

    /// Whether every agent of this kind attaches to the harness's browser, whatever its
    /// command line says: a jsonl agent's start line always carries the endpoint; navguard's
    /// core, named as the agent under test, gets what every other agent gets, a browser of the
    /// scenario's own, so that a comparison times every agent under the same conditions (the
    /// scenarios of a run without an agent share a browser, whose one BiDi session serves the
    /// commands of all of them).
    pub const fn always_attaches(self) -> bool {
        match self {
            Self::Jsonl | Self::InProcess => true,
            Self::Mcp | Self::Cli => false,
        }
    }

    /// The endpoints the check before a run gives an agent of this kind, which has no browser
    /// to point it at.
    pub(crate) const fn endpoint_without_browser(self) -> BrowserAt<'static> {
        match self {
            // Never started by the check: it needs a scenario's tabs.
            Self::InProcess => BrowserAt { cdp: None, bidi: None, webdriver: None, files: None },
            Self::Mcp | Self::Cli => {
                BrowserAt { cdp: Some(NOWHERE), bidi: Some(NOWHERE_WS), webdriver: Some(NOWHERE_SESSION), files: None }
            }
            // Given no endpoint, a jsonl agent starts its own browser: the check must not
            // depend on one it cannot reach.
            Self::Jsonl => BrowserAt { cdp: None, bidi: None, webdriver: None, files: None },
        }
    }

    /// What to do when an agent of this kind lacks a tool every scenario needs; `source` is
    /// its description file.
    pub(crate) fn how_to_add_a_tool(self, source: &str) -> String {
        match self {
            // A jsonl agent says which tools it has itself; its description maps nothing.
            Self::Jsonl => "list it in the `tools` of its answer to the start line".to_owned(),
            Self::InProcess | Self::Mcp => format!("map it to one of the agent's tools in {source}"),
            Self::Cli => format!("map it to one of the agent's commands in {source}"),
        }
    }
}
