//! A tool call's failure. It fails the call, never the task: the loop goes on and the model
//! sees the message, which names the tool first ("{tool}: …").

use super::settle::SettleKind;
use super::tools::{ToolName, ToolSet};
use super::verify::ExpectError;
use crate::browser::{BrowserError, Dialog, ElementRef, MalformedRef, TabId};
use std::time::Duration;

/// Why a tool call failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolError {
    /// The model named a tool that does not exist.
    UnknownTool { name: String },
    /// A call of a known tool failed.
    Call { tool: ToolName, kind: ToolFailure },
}

/// How a call of a known tool failed; [`ToolError::Call`] names the tool.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolFailure {
    /// The tool exists but is not offered in this turn (a task with a tab is not offered
    /// open_url).
    #[error("not offered in this turn; the tools offered are {offered}")]
    NotOffered { offered: ToolSet },
    #[error("args must be a JSON object, got {got}")]
    ArgsNotObject {
        /// The args as they came, as JSON.
        got: String,
    },
    #[error("missing argument {arg:?}")]
    MissingArg { arg: &'static str },
    /// An argument has the wrong type or value.
    #[error("argument {arg:?} must be {expected}, got {got}")]
    BadArg {
        arg: &'static str,
        expected: &'static str,
        /// The value as it came, as JSON.
        got: String,
    },
    /// `click` / `type` were given neither a ref nor a selector.
    #[error("missing argument \"ref\" or \"selector\"")]
    NoTarget,
    #[error("pass either \"ref\" or \"selector\", not both")]
    RefAndSelector,
    #[error("argument \"ref\": {source}")]
    MalformedRef {
        #[source]
        source: MalformedRef,
    },
    /// A ref from an observation of another tab than the focused one.
    #[error(
        "ref {reference} belongs to tab {owner}, not to the focused tab {focused}; focus that tab or use a ref of \
         this one"
    )]
    RefOfAnotherTab { reference: ElementRef, owner: TabId, focused: TabId },
    #[error("{source}")]
    BadExpect {
        #[source]
        source: ExpectError,
    },
    /// The action ran, and what the model expected of the page did not hold by the deadline.
    #[error("failed verification: {misses}")]
    FailedVerification { misses: String },
    /// `done` was not accepted; the task goes on.
    #[error("refused: {why}")]
    DoneRefused { why: Refusal },
    /// A tab reference names no tab of the task.
    #[error("unknown tab reference {reference:?}")]
    UnknownTab { reference: String },
    #[error("{url:?} is not a URL ({reason})")]
    BadUrl {
        url: String,
        #[source]
        reason: url::ParseError,
    },
    /// A URL the agent must not open.
    #[error("{url} is a restricted URL")]
    Restricted { url: String },
    /// `ask_user` in an agent that runs without a user.
    #[error("nobody can answer: this agent runs without a user")]
    NobodyToAsk,
    /// `wait_for` was given nothing to wait for.
    #[error("give \"selector\", \"text\" or \"url\" to wait for")]
    NothingToWaitFor,
    /// The watchdog cut the call off at its deadline; the loop goes on.
    #[error("timed out after {} ms (the tool's deadline); the page may still be busy", after.as_millis())]
    TimedOut { after: Duration },
    /// `wait_for`'s condition did not hold within its timeout.
    #[error("timed out after {} ms: {misses}", after.as_millis())]
    WaitTimedOut { after: Duration, misses: String },
    /// The page's requests did not go quiet within the timeout.
    #[error("timed out after {} ms: still in flight: {}", after.as_millis(), busy.join(", "))]
    NetworkBusy { after: Duration, busy: Vec<String> },
    /// The target of a click or a typing did not appear (present and visible) in time.
    #[error("not found: no element matches {selector:?} (waited {} ms for it to be present and visible)", waited.as_millis())]
    TargetNotFound { selector: String, waited: Duration },
    /// The tool needs a focused tab and the task has none.
    #[error("no tab is focused")]
    NoFocusedTab,
    /// open_url's tab did not commit on its origin (the seed's text, exactly).
    #[error(
        "tab {tab} created but navigation did not commit to {origin} within {}s ({outcome}).",
        timeout.as_secs_f64()
    )]
    NotCommitted {
        /// The tab (left open for the model to close).
        tab: TabId,
        /// The origin it was to commit on.
        origin: String,
        timeout: Duration,
        /// How the settle ended (never `committed`).
        outcome: SettleKind,
    },
    /// The focused tab's page has a dialog open: it takes nothing until the dialog is
    /// answered (or a dialog opened while the call waited on the page).
    #[error("{dialog}; answer it with handle_dialog")]
    DialogOpen { dialog: Dialog },
    /// The browser failed the call.
    #[error(transparent)]
    Browser(BrowserError),
}

impl ToolFailure {
    /// This failure, as a call of `tool`.
    pub fn of(self, tool: ToolName) -> ToolError {
        ToolError::Call { tool, kind: self }
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownTool { name } => write!(f, "unknown tool {name:?}: the tools are {}", ToolName::list()),
            Self::Call { tool, kind } => write!(f, "{tool}: {kind}"),
        }
    }
}

/// The browser's error, when the browser failed the call; the other failures are the
/// message's whole story.
impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Call { kind: ToolFailure::Browser(e), .. } => Some(e),
            Self::Call { kind: ToolFailure::BadUrl { reason, .. }, .. } => Some(reason),
            _ => None,
        }
    }
}

crate::closed_set! {
    /// What kind of failure a call had, for those who report it in their own words (the
    /// executor's observation codes): typed, so nobody reads it off the message.
    pub enum FailureKind("failure kind") {
        /// The call's arguments were at fault (an unknown tool, a missing or bad argument).
        BadInput = "bad-input",
        /// The target did not appear.
        NotFound = "not-found",
        /// The ref's document or element is gone.
        StaleRef = "stale-ref",
        Timeout = "timeout",
        /// A URL the agent must not open.
        Restricted = "restricted",
        /// The action ran and the expectation did not hold.
        FailedVerification = "failed-verification",
        /// `done` was refused.
        Refused = "refused",
        /// A navigation failed or did not commit on its origin.
        NavigationFailed = "navigation-failed",
        /// A dialog blocks the page: the call did nothing to it.
        Dialog = "dialog",
        /// The browser failed the call otherwise.
        Browser = "browser",
    }
}

impl ToolError {
    /// What kind of failure this is.
    pub fn kind(&self) -> FailureKind {
        let Self::Call { kind, .. } = self else { return FailureKind::BadInput };
        match kind {
            ToolFailure::TargetNotFound { .. } => FailureKind::NotFound,
            ToolFailure::TimedOut { .. } | ToolFailure::WaitTimedOut { .. } | ToolFailure::NetworkBusy { .. } => {
                FailureKind::Timeout
            }
            ToolFailure::Restricted { .. } => FailureKind::Restricted,
            ToolFailure::FailedVerification { .. } => FailureKind::FailedVerification,
            ToolFailure::DoneRefused { .. } => FailureKind::Refused,
            ToolFailure::NotCommitted { .. } => FailureKind::NavigationFailed,
            ToolFailure::DialogOpen { .. } => FailureKind::Dialog,
            ToolFailure::Browser(e) => match e {
                BrowserError::DialogOpen { .. } => FailureKind::Dialog,
                BrowserError::NoSuchElement { .. } | BrowserError::NoDialog(_) => FailureKind::NotFound,
                BrowserError::StaleRef { .. } => FailureKind::StaleRef,
                BrowserError::Timeout { .. } => FailureKind::Timeout,
                BrowserError::NavigationFailed { .. } => FailureKind::NavigationFailed,
                BrowserError::InvalidArgument(_)
                | BrowserError::UnknownKey(_)
                | BrowserError::InvalidUrl { .. }
                | BrowserError::InvalidSelector { .. } => FailureKind::BadInput,
                _ => FailureKind::Browser,
            },
            _ => FailureKind::BadInput,
        }
    }

    /// The tool the call named, if it exists.
    pub fn tool(&self) -> Option<ToolName> {
        match self {
            Self::Call { tool, .. } => Some(*tool),
            Self::UnknownTool { .. } => None,
        }
    }

    /// The browser's error, if the browser failed the call.
    pub fn browser_error(&self) -> Option<&BrowserError> {
        match self {
            Self::Call { kind: ToolFailure::Browser(e), .. } => Some(e),
            _ => None,
        }
    }

    /// The browser connection is gone: the task cannot go on.
    pub fn is_disconnected(&self) -> bool {
        self.browser_error().is_some_and(BrowserError::is_disconnected)
    }

    /// The model's input was at fault (not the browser).
    pub fn is_bad_input(&self) -> bool {
        !matches!(
            self,
            Self::Call {
                kind: ToolFailure::Browser(_) | ToolFailure::NotCommitted { .. } | ToolFailure::DialogOpen { .. },
                ..
            }
        )
    }
}

/// Why `done` was refused (the contract's words are in each message).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// `done needs a verification` is on and `done` came without `expect`.
    NoVerification,
    /// The page is no longer the document the model observed, or has begun to leave.
    PageChanged { how: String },
    /// `expect` did not hold by the deadline.
    VerificationFailed { misses: String },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoVerification => f.write_str("no verification given: pass \"expect\" with what the page must show"),
            Self::PageChanged { how } => {
                write!(f, "the page changed since it was observed ({how}); observe it again before calling done")
            }
            Self::VerificationFailed { misses } => write!(f, "verification failed: {misses}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::DialogKind;

    #[test]
    fn a_dialog_that_blocks_the_page_is_its_own_kind_of_failure_and_says_what_to_do() {
        let dialog = Dialog { kind: DialogKind::Confirm, message: "Delete?".into() };
        let refused = ToolFailure::DialogOpen { dialog: dialog.clone() }.of(ToolName::Click);
        assert_eq!(refused.kind(), FailureKind::Dialog);
        assert_eq!(refused.to_string(), "click: a confirm dialog is open: \"Delete?\"; answer it with handle_dialog");
        assert!(!refused.is_bad_input());
        let held =
            ToolFailure::Browser(BrowserError::DialogOpen { tab: TabId::from("t"), dialog }).of(ToolName::WaitFor);
        assert_eq!(held.kind(), FailureKind::Dialog);
        let nothing = ToolFailure::Browser(BrowserError::NoDialog(TabId::from("t"))).of(ToolName::HandleDialog);
        assert_eq!(nothing.kind(), FailureKind::NotFound);
    }
}
