//! The port's error type: one variant per thing a caller must tell apart.

use super::types::TabId;
use std::time::Duration;

/// What can go wrong in a call to the browser port.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BrowserError {
    /// The call did not finish within its deadline.
    #[error("{op} timed out after {} ms", after.as_millis())]
    Timeout {
        /// The call.
        op: String,
        /// Its deadline.
        after: Duration,
    },
    /// The tab no longer exists (closed by the user, the page or the agent).
    #[error("tab {0} is gone")]
    TabGone(TabId),
    /// The connection to the browser is gone; nothing more can be done with it.
    #[error("browser disconnected")]
    Disconnected,
    /// No element matched the selector.
    #[error("no element matches {selector:?} in tab {tab}")]
    NoSuchElement {
        /// The tab searched.
        tab: TabId,
        /// The CSS selector.
        selector: String,
    },
    /// The caller's input cannot be used (a malformed URL, an unknown key…).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The browser refused a navigation before it started.
    #[error("navigation to {url} failed: {reason}")]
    NavigationFailed {
        /// The URL.
        url: String,
        /// The browser's reason.
        reason: String,
    },
    /// The page's script threw.
    #[error("script error: {0}")]
    Script(String),
    /// Any other error the browser reported, with the operation it broke.
    #[error("{op} failed: {message}")]
    Browser {
        /// The call.
        op: String,
        /// What the browser said.
        message: String,
    },
}

impl BrowserError {
    /// The call ran out of time.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }

    /// The tab is gone.
    pub fn is_tab_gone(&self) -> bool {
        matches!(self, Self::TabGone(_))
    }

    /// The browser connection is gone.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected)
    }
}
