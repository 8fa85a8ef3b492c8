//! What the loop did on its own, told in the trace ([`Note`]). The tools write some (a tab already
//! gone, the focus falling back), the round the rest; it sits with the tools so both can.

use super::tool::ToolName;
use crate::browser::TabId;
use serde::Serialize;

/// Something the loop did on its own, each kind its own variant so that a reader (the timeline,
/// a step) can tell them apart; [`Note`]'s `Display` is its sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "note", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Note {
    /// The pause's checkpoint could not be written (the task goes on paused without one).
    CheckpointNotSaved { error: String },
    /// The quiet wait saw the page begin to leave before it was observed.
    LeftBeforeObserved,
    /// The snapshot was cut off, or overtaken, by the page beginning to leave: observed again.
    LeftWhileObserved {
        /// Where it went, when the browser said.
        to: Option<String>,
        /// The failure that cut the snapshot off, if one did.
        error: Option<String>,
    },
    /// A dialog blocks the page: it is observed as its URL and the dialog.
    PageBlocked { dialog: String },
    /// A failed call the watchdog would retry was kept, because its first attempt may have
    /// had its effect.
    NotRetried { tool: ToolName, why: &'static str },
    /// The task's first tab became its primary and focused tab.
    FirstTab,
    /// A tab to close was already gone.
    TabAlreadyGone { tab: TabId },
    /// The focused tab was closed: the focus fell back to the primary tab.
    FocusFellBack { primary: TabId },
    /// The task's browser client is gone: another is used.
    ClientGone { gone: String, using: String },
    /// The task's tab was closed between turns: a new one is opened.
    TabClosed { tab: TabId },
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::CheckpointNotSaved { error } => write!(f, "the checkpoint was not saved: {error}"),
            Self::LeftBeforeObserved => f.write_str("the page began to leave before it was observed"),
            Self::LeftWhileObserved { to: Some(url), .. } => {
                write!(f, "the page began to leave for {url} while it was observed: observed again")
            }
            Self::LeftWhileObserved { to: None, error } => write!(
                f,
                "the page began to leave while it was observed ({}): observed again",
                error.as_deref().unwrap_or("the snapshot was cut off")
            ),
            Self::PageBlocked { dialog } => write!(f, "the page is blocked: {dialog}"),
            Self::NotRetried { tool, why } => write!(f, "{tool} not retried: {why}"),
            Self::FirstTab => f.write_str("the first tab of the task: primary and focused"),
            Self::TabAlreadyGone { tab } => write!(f, "tab {tab} was already gone"),
            Self::FocusFellBack { primary } => write!(f, "focus fell back to the primary tab {primary}"),
            Self::ClientGone { gone, using } => write!(f, "browser client {gone} is gone; using {using}"),
            Self::TabClosed { tab } => write!(f, "the task's tab {tab} was closed; opening a new tab"),
        }
    }
}
