//! The port's error type: one variant per thing a caller must tell apart.

use super::types::{Dialog, ElementRef, FrameId, Staleness, TabId};
use std::time::Duration;

/// What can go wrong in a call to the browser port.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// The call did not finish within its deadline.
    #[error("{op} timed out after {} ms", after.as_millis())]
    Timeout { op: String, after: Duration },
    /// The tab no longer exists (closed by the user, the page or the agent).
    #[error("tab {0} is gone")]
    TabGone(TabId),
    /// The frame is no longer in the tab's page (its iframe was removed, or the page around it
    /// replaced).
    #[error("frame {frame} of tab {tab} is gone")]
    FrameGone { tab: TabId, frame: FrameId },
    /// The connection to the browser is gone; nothing more can be done with it.
    #[error("browser disconnected")]
    Disconnected,
    #[error("no element matches {selector:?} in tab {tab}")]
    NoSuchElement { tab: TabId, selector: String },
    /// The element is there but a click would not reach it: covered by another element (an
    /// overlay, a banner), hidden or disabled. Nothing was clicked.
    #[error("{target} is not interactable: {why}")]
    NotInteractable { target: String, why: String },
    /// A ref that no longer names an element; nothing was done with it.
    #[error("stale ref {reference}: {}; observe the page again for fresh refs", .why.words())]
    StaleRef { reference: ElementRef, why: Staleness },
    /// The browser found the caller's input unusable; its message.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A key name that is not a [`super::Key`].
    #[error("invalid argument: unknown key {0:?}")]
    UnknownKey(String),
    #[error("invalid argument: {url:?} is not a URL: {source}")]
    InvalidUrl { url: String, source: url::ParseError },
    /// The page could not use the selector; its exception's text.
    #[error("invalid argument: selector {selector:?}: {reason}")]
    InvalidSelector { selector: String, reason: String },
    /// The page has a dialog open: it takes no script and no input until the dialog is
    /// answered, so nothing was sent (or what was sent waits behind the dialog).
    #[error("tab {tab}: {dialog}")]
    DialogOpen { tab: TabId, dialog: Dialog },
    /// There is no dialog to answer in the tab.
    #[error("no dialog is open in tab {0}")]
    NoDialog(TabId),
    /// The browser refused a navigation before it started.
    #[error("navigation to {url} failed: {reason}")]
    NavigationFailed { url: String, reason: String },
    /// The page's script threw; its exception's text.
    #[error("script error: {0}")]
    Script(String),
    /// The page's script returned something that is not JSON.
    #[error("script error: {0}")]
    ScriptValue(#[source] serde_json::Error),
    /// Any other error the browser reported, with the operation it broke. The source is the
    /// port's own (a BiDi error for the real port), boxed so that its types stay out of the
    /// agent.
    #[error("{op} failed: {source}")]
    Browser { op: String, source: Box<dyn std::error::Error + Send + Sync> },
}

impl BrowserError {
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }

    pub fn is_stale_ref(&self) -> bool {
        matches!(self, Self::StaleRef { .. })
    }

    pub fn is_tab_gone(&self) -> bool {
        matches!(self, Self::TabGone(_))
    }

    pub fn is_frame_gone(&self) -> bool {
        matches!(self, Self::FrameGone { .. })
    }

    /// A dialog blocks the page.
    pub fn is_dialog_open(&self) -> bool {
        matches!(self, Self::DialogOpen { .. })
    }

    /// The browser connection is gone: nothing more can be done with it.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected)
    }
}
