//! A tool call's failure. It fails the call, never the task: the loop goes on and the model
//! sees the message. Each variant names the problem.

use crate::browser::{BrowserError, TabId};

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The model named a tool that does not exist.
    #[error("unknown tool {name:?}: the tools are {}", super::tools::TOOL_NAMES.join(", "))]
    UnknownTool {
        /// The name it used.
        name: String,
    },
    /// The tool exists but is not offered in this turn (a task with a tab is not offered
    /// open_url).
    #[error("{tool}: not offered in this turn; the tools offered are {offered}")]
    NotOffered {
        /// The tool.
        tool: String,
        /// The offered tools.
        offered: String,
    },
    /// The args are not a JSON object.
    #[error("{tool}: args must be a JSON object, got {got}")]
    ArgsNotObject {
        /// The tool.
        tool: &'static str,
        /// What came.
        got: String,
    },
    /// A required argument is missing.
    #[error("{tool}: missing argument {arg:?}")]
    MissingArg {
        /// The tool.
        tool: &'static str,
        /// The argument.
        arg: &'static str,
    },
    /// An argument has the wrong type or value.
    #[error("{tool}: argument {arg:?} must be {expected}, got {got}")]
    BadArg {
        /// The tool.
        tool: &'static str,
        /// The argument.
        arg: &'static str,
        /// What it must be.
        expected: &'static str,
        /// What came.
        got: String,
    },
    /// A tab reference names no tab of the task.
    #[error("{tool}: unknown tab reference {reference:?}")]
    UnknownTab {
        /// The tool.
        tool: &'static str,
        /// The reference.
        reference: String,
    },
    /// A URL that does not parse.
    #[error("{tool}: {url:?} is not a URL ({reason})")]
    BadUrl {
        /// The tool.
        tool: &'static str,
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// A URL the agent must not open.
    #[error("{tool}: {url} is a restricted URL")]
    Restricted {
        /// The tool.
        tool: &'static str,
        /// The URL.
        url: String,
    },
    /// The tool needs a focused tab and the task has none.
    #[error("{tool}: no tab is focused")]
    NoFocusedTab {
        /// The tool.
        tool: &'static str,
    },
    /// open_url's tab did not commit on its origin (the seed's text, exactly).
    #[error("open_url: tab {tab} created but navigation did not commit to {origin} within {secs}s ({reason}).")]
    NotCommitted {
        /// The tab (left open for the model to close).
        tab: TabId,
        /// The origin it was to commit on.
        origin: String,
        /// The settle timeout, in seconds.
        secs: String,
        /// The settle outcome (timeout, origin-mismatch, tab-gone, aborted).
        reason: &'static str,
    },
    /// The browser failed the call.
    #[error("{tool}: {source}")]
    Browser {
        /// The tool.
        tool: &'static str,
        /// The browser's error.
        source: BrowserError,
    },
}

impl ToolError {
    /// The browser connection is gone: the task cannot go on.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Browser { source, .. } if source.is_disconnected())
    }

    /// The model's input was at fault (not the browser).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, Self::Browser { .. } | Self::NotCommitted { .. })
    }
}
