//! A tool call's failure. It fails the call, never the task: the loop goes on and the model
//! sees the message, which names the tool first ("{tool}: …").

use super::tool::{ToolName, ToolSet};
use crate::agent::closed_loop::ExpectError;
use crate::agent::settle::SettleKind;
use crate::browser::{BrowserError, Dialog, ElementRef, MalformedRef, TabId};
use std::time::Duration;

/// Why a tool call failed.
#[derive(Debug)]
#[non_exhaustive]
pub(crate) enum ToolError {
    /// The model named a tool that does not exist.
    UnknownTool { name: String },
    /// A call of a known tool failed.
    Call { tool: ToolName, kind: ToolFailure },
}

/// How a call of a known tool failed; [`ToolError::Call`] names the tool.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ToolFailure {
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
    /// `scroll` was given neither an element to bring into view nor a move.
    #[error("give \"ref\" or \"selector\" to bring an element into view, or \"by\" (page or end) to move the page")]
    NothingToScroll,
    /// `extract` was given both an element and fields.
    #[error("pass either \"fields\" or one element (\"ref\" or \"selector\"), not both")]
    FieldsAndElement,
    /// `select_option` was given an element that holds no options.
    #[error("{target} is {what}, not a select, combobox or listbox")]
    NotASelect { target: String, what: String },
    /// `select_option` (or a select of `fill_form`) named options the control does not have,
    /// even after waiting for late ones.
    #[error("{target} has no option {}; its options are {}", quoted(missing), quoted(options))]
    NoSuchOption { target: String, missing: Vec<String>, options: Vec<String> },
    /// More than one option for a control that takes one.
    #[error("{target} takes one option, and {given} were given")]
    OneOptionOnly { target: String, given: usize },
    /// `drag` was given one element twice (or one inside the other).
    #[error("\"from\" and \"to\" name the same element: drag it onto another")]
    DragOntoItself,
    /// `upload_file` in a run that allows no folder.
    #[error("no folder is allowed for uploads in this run (start it with --files DIR)")]
    NoFilesAllowed,
    /// `upload_file` was given a path it must not or cannot read.
    #[error("{path:?}: {why}")]
    FileRefused { path: String, why: String },
    /// More than one file for an input that takes one.
    #[error("{target} takes one file, and {given} were given")]
    OneFileOnly { target: String, given: usize },
    /// `upload_file` was given an element that takes no files.
    #[error("{target} is {what}, not a file input")]
    NotAFileInput { target: String, what: String },
    /// `fill_form` was given a value its field cannot take (a radio unchosen, text for a
    /// checkbox).
    #[error("{target}: {why}")]
    FieldValue { target: String, why: String },
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
    /// open_url's tab did not commit on its origin (the design's text, exactly).
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
    /// The action ran and the page does not hold its effect; `holds` says what it holds.
    #[error("not applied: {holds}")]
    NotApplied { holds: String },
    /// The tool cannot act on this element here; `why` says why.
    #[error("not supported: {why}")]
    NotSupported { why: String },
    /// The browser failed the call.
    #[error(transparent)]
    Browser(BrowserError),
}

/// Texts as a message lists them: each quoted, comma-separated.
fn quoted(texts: &[String]) -> String {
    let quoted: Vec<String> = texts.iter().map(|t| format!("{t:?}")).collect();
    if quoted.is_empty() { "none".to_owned() } else { quoted.join(", ") }
}

impl ToolFailure {
    /// This failure, as a call of `tool`.
    pub(crate) fn of(self, tool: ToolName) -> ToolError {
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
    /// What kind of failure a call had: the one classification of a tool failure
    /// ([`ToolError::kind`]). What others need to know of a failure derives from it: whether
    /// the watchdog may try the call again ([`FailureKind::may_pass`], with the tool's
    /// [`Repeat`](super::Repeat) rule), whether the model's input was at fault, the executor's
    /// observation codes, a conformance profile's failure class. Typed, so nobody reads it off
    /// the message.
    ///
    /// ```
    /// use navguard::prelude::*;
    ///
    /// // A target that has not appeared yet may still appear: the call is worth another try.
    /// assert!(FailureKind::NotFound.may_pass());
    /// // Bad arguments stay bad: the model is told, and nothing is tried again.
    /// assert!(!FailureKind::BadInput.may_pass());
    ///
    /// // Kinds travel by name (the executor's codes, a conformance profile's classes).
    /// assert_eq!("stale-ref".parse::<FailureKind>()?, FailureKind::StaleRef);
    /// assert_eq!(FailureKind::WaitExpired.to_string(), "wait-expired");
    /// # Ok::<(), navguard::names::UnknownName>(())
    /// ```
    pub enum FailureKind("failure kind") {
        /// The call's arguments were at fault: an unknown tool or one not offered, a missing or
        /// bad argument, a selector, key or URL the browser could not use, no tab to act on.
        BadInput = "bad-input",
        /// The target did not appear.
        NotFound = "not-found",
        /// There is no dialog to answer.
        NoDialog = "no-dialog",
        /// The ref's document or element is gone.
        StaleRef = "stale-ref",
        /// The target is there, but covered by another element, hidden or disabled: a click
        /// would land elsewhere, so nothing was done.
        NotInteractable = "not-interactable",
        /// The call was cut off at its deadline, or the browser did not answer in time.
        Timeout = "timeout",
        /// What a wait waited for did not come within the wait's own timeout: that is the
        /// wait's answer, not a failure to get one.
        WaitExpired = "wait-expired",
        /// A URL the agent must not open.
        Restricted = "restricted",
        /// The action ran and the expectation did not hold.
        FailedVerification = "failed-verification",
        /// `done` was refused.
        Refused = "refused",
        /// The browser failed a navigation.
        NavigationFailed = "navigation-failed",
        /// open_url's tab did not commit on its origin (the tab stays open for the model).
        NotCommitted = "not-committed",
        /// A dialog blocks the page: the call did nothing to it.
        Dialog = "dialog",
        /// The browser failed the call otherwise.
        Browser = "browser",
        /// The action ran, and the page does not hold its effect (a select's value put back, a
        /// field that holds other than what was typed, a drop nobody received): the message
        /// names what the page holds instead.
        NotApplied = "not-applied",
        /// The element is there, but the tool cannot act on it here (inside a closed shadow
        /// root, a drag between two frames).
        NotSupported = "not-supported",
    }
}

impl FailureKind {
    /// The failure may pass by itself, so the call is worth another try (if the tool's
    /// [`Repeat`](super::Repeat) rule allows one): a target still loading, a browser or page
    /// busy for a moment, a navigation the network failed. The design's retry classes
    /// (docs/design/reliability-layer.md): timeout, not found, network.
    pub const fn may_pass(self) -> bool {
        matches!(self, Self::Timeout | Self::NotFound | Self::NavigationFailed)
    }

    /// The kind of a failure the browser reported.
    pub const fn of_browser(error: &BrowserError) -> Self {
        match error {
            BrowserError::Timeout { .. } => Self::Timeout,
            BrowserError::NoSuchElement { .. } => Self::NotFound,
            BrowserError::NoDialog(_) => Self::NoDialog,
            BrowserError::StaleRef { .. } => Self::StaleRef,
            BrowserError::NotInteractable { .. } => Self::NotInteractable,
            BrowserError::DialogOpen { .. } => Self::Dialog,
            BrowserError::NavigationFailed { .. } => Self::NavigationFailed,
            BrowserError::InvalidArgument(_)
            | BrowserError::UnknownKey(_)
            | BrowserError::InvalidUrl { .. }
            | BrowserError::InvalidSelector { .. } => Self::BadInput,
            BrowserError::TabGone(_)
            | BrowserError::FrameGone { .. }
            | BrowserError::Disconnected
            | BrowserError::Script(_)
            | BrowserError::ScriptValue(_)
            | BrowserError::Browser { .. } => Self::Browser,
        }
    }
}

impl ToolFailure {
    /// Its kind.
    pub(crate) const fn kind(&self) -> FailureKind {
        match self {
            Self::NotOffered { .. }
            | Self::ArgsNotObject { .. }
            | Self::MissingArg { .. }
            | Self::BadArg { .. }
            | Self::NoTarget
            | Self::RefAndSelector
            | Self::MalformedRef { .. }
            | Self::RefOfAnotherTab { .. }
            | Self::BadExpect { .. }
            | Self::UnknownTab { .. }
            | Self::BadUrl { .. }
            | Self::NobodyToAsk
            | Self::NothingToWaitFor
            | Self::NothingToScroll
            | Self::FieldsAndElement
            | Self::NotASelect { .. }
            | Self::NoSuchOption { .. }
            | Self::OneOptionOnly { .. }
            | Self::DragOntoItself
            | Self::NoFilesAllowed
            | Self::FileRefused { .. }
            | Self::NotAFileInput { .. }
            | Self::OneFileOnly { .. }
            | Self::FieldValue { .. }
            | Self::NoFocusedTab => FailureKind::BadInput,
            Self::TargetNotFound { .. } => FailureKind::NotFound,
            Self::TimedOut { .. } => FailureKind::Timeout,
            Self::WaitTimedOut { .. } | Self::NetworkBusy { .. } => FailureKind::WaitExpired,
            Self::Restricted { .. } => FailureKind::Restricted,
            Self::FailedVerification { .. } => FailureKind::FailedVerification,
            Self::DoneRefused { .. } => FailureKind::Refused,
            Self::NotCommitted { .. } => FailureKind::NotCommitted,
            Self::DialogOpen { .. } => FailureKind::Dialog,
            Self::NotApplied { .. } => FailureKind::NotApplied,
            Self::NotSupported { .. } => FailureKind::NotSupported,
            Self::Browser(e) => FailureKind::of_browser(e),
        }
    }
}

impl ToolError {
    /// What kind of failure this is: the one classification of a tool failure.
    pub(crate) const fn kind(&self) -> FailureKind {
        match self {
            Self::UnknownTool { .. } => FailureKind::BadInput,
            Self::Call { kind, .. } => kind.kind(),
        }
    }
}

/// Why `done` was refused (the contract's words are in each message).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum Refusal {
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
        let held =
            ToolFailure::Browser(BrowserError::DialogOpen { tab: TabId::from("t"), dialog }).of(ToolName::WaitFor);
        assert_eq!(held.kind(), FailureKind::Dialog);
        let nothing = ToolFailure::Browser(BrowserError::NoDialog(TabId::from("t"))).of(ToolName::HandleDialog);
        assert_eq!(nothing.kind(), FailureKind::NoDialog);
    }

    #[test]
    fn a_call_cut_off_at_its_deadline_is_a_timeout_and_a_wait_that_expired_is_its_answer() {
        let cut_off = ToolFailure::TimedOut { after: Duration::from_secs(15) }.of(ToolName::Navigate);
        assert_eq!(cut_off.kind(), FailureKind::Timeout);
        assert!(cut_off.kind().may_pass());
        let expired =
            ToolFailure::WaitTimedOut { after: Duration::from_secs(1), misses: "#x".into() }.of(ToolName::WaitFor);
        assert_eq!(expired.kind(), FailureKind::WaitExpired);
        assert!(!expired.kind().may_pass());
    }

    #[test]
    fn only_what_the_model_gave_is_bad_input() {
        let selector = BrowserError::InvalidSelector { selector: "##".into(), reason: "syntax".into() };
        let missing = ToolFailure::TargetNotFound { selector: "#x".into(), waited: Duration::from_secs(5) };
        let kinds = [
            ToolError::UnknownTool { name: "fly".into() },
            ToolFailure::MissingArg { arg: "url" }.of(ToolName::Navigate),
            ToolFailure::Browser(selector).of(ToolName::Click),
            missing.of(ToolName::Click),
            ToolFailure::Browser(BrowserError::Disconnected).of(ToolName::Click),
        ]
        .map(|e| e.kind());
        use FailureKind::{BadInput, Browser, NotFound};
        assert_eq!(kinds, [BadInput, BadInput, BadInput, NotFound, Browser]);
    }
}
