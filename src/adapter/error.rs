//! Errors of starting a browser, and the mapping of BiDi errors onto the port's.

use crate::bidi::{BidiError, ErrorCode};
use crate::browser::{BrowserError, TabId};

/// What can go wrong while starting or stopping a browser session.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A binary the run needs is not installed.
    #[error("{name} not found: {hint}")]
    MissingBinary {
        /// The binary.
        name: &'static str,
        /// How to get it.
        hint: String,
    },
    /// The WebDriver server did not start.
    #[error("{name} did not start: {detail}")]
    DriverStart {
        /// The binary.
        name: String,
        /// Why.
        detail: String,
    },
    /// The WebDriver session could not be opened.
    #[error("cannot open a WebDriver session at {url}: {detail}")]
    Session {
        /// The WebDriver URL.
        url: String,
        /// Why.
        detail: String,
    },
    /// The remote end did not offer a BiDi websocket.
    #[error("the WebDriver session at {0} has no webSocketUrl: the remote end does not speak BiDi")]
    NoBidi(String),
    /// The BiDi connection failed.
    #[error(transparent)]
    Bidi(#[from] BidiError),
}

impl LaunchError {
    /// A binary is missing (the run cannot start on this machine as it is).
    pub fn is_missing_binary(&self) -> bool {
        matches!(self, Self::MissingBinary { .. })
    }
}

/// Maps a BiDi error of an operation on `tab` onto the port's error.
pub(crate) fn on_tab(tab: &TabId, op: &str, err: BidiError) -> BrowserError {
    match err {
        BidiError::Remote { code: ErrorCode::NoSuchFrame, .. } => BrowserError::TabGone(tab.clone()),
        other => general(op, other),
    }
}

/// Maps a BiDi error of an operation that names no tab.
pub(crate) fn general(op: &str, err: BidiError) -> BrowserError {
    match err {
        BidiError::Disconnected => BrowserError::Disconnected,
        BidiError::Timeout { after, .. } => BrowserError::Timeout { op: op.to_owned(), after },
        BidiError::Remote { code: ErrorCode::InvalidArgument, message, .. } => BrowserError::InvalidArgument(message),
        BidiError::Remote { code, message, .. } => {
            BrowserError::Browser { op: op.to_owned(), message: format!("{code:?}: {message}") }
        }
        other => BrowserError::Browser { op: op.to_owned(), message: other.to_string() },
    }
}
