//! Errors of starting a browser, and the mapping of BiDi errors onto the port's.

use crate::bidi::{BidiError, ErrorCode, RemoteError};
use crate::browser::{BrowserError, TabId};
use fantoccini::error::NewSessionError;
use std::io;
use std::time::Duration;

/// What can go wrong while starting or stopping a browser session.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchError {
    /// A binary the run needs is not installed.
    #[error("{name} not found: {hint}")]
    MissingBinary {
        name: &'static str,
        /// How to get it.
        hint: String,
    },
    /// The WebDriver server did not start.
    #[error("{name} did not start: {source}")]
    DriverStart {
        /// The binary (or the browser, for its profile).
        name: String,
        source: DriverStartError,
    },
    /// The WebDriver remote end did not answer the new session within the deadline.
    #[error("cannot open a WebDriver session at {url}: no answer within {} ms", after.as_millis())]
    SessionTimeout { url: String, after: Duration },
    /// The WebDriver session could not be opened.
    #[error("cannot open a WebDriver session at {url}: {source}")]
    Session { url: String, source: Box<NewSessionError> },
    /// The remote end did not offer a BiDi websocket.
    #[error("the WebDriver session at {0} has no webSocketUrl: the remote end does not speak BiDi")]
    NoBidi(String),
    /// The BiDi connection failed.
    #[error(transparent)]
    Bidi(#[from] BidiError),
}

/// Why a WebDriver server did not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriverStartError {
    #[error("cannot make a temp profile: {0}")]
    Profile(#[source] io::Error),
    /// No free loopback port, or the process could not be spawned or read.
    #[error("{0}")]
    Io(#[source] io::Error),
    #[error("no stdout")]
    NoStdout,
    /// It did not print its ready line within the deadline.
    #[error("not listening after {} ms", .0.as_millis())]
    NotListening(Duration),
    /// It exited before printing its ready line.
    #[error("it exited")]
    Exited,
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
        e if e.is_no_such_frame() => BrowserError::TabGone(tab.clone()),
        other => general(op, other),
    }
}

/// Maps a BiDi error of an operation that names no tab.
pub(crate) fn general(op: &str, err: BidiError) -> BrowserError {
    match err {
        BidiError::Disconnected => BrowserError::Disconnected,
        BidiError::Timeout { after, .. } => BrowserError::Timeout { op: op.to_owned(), after },
        BidiError::Remote { error: RemoteError { code: ErrorCode::InvalidArgument, message }, .. } => {
            BrowserError::InvalidArgument(message)
        }
        BidiError::Remote { error, .. } => BrowserError::Browser { op: op.to_owned(), source: Box::new(error) },
        other => BrowserError::Browser { op: op.to_owned(), source: Box::new(other) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(code: ErrorCode, message: &str) -> BidiError {
        BidiError::Remote { method: "browsingContext.navigate", error: RemoteError { code, message: message.into() } }
    }

    #[test]
    fn a_gone_context_is_a_gone_tab() {
        let err = on_tab(&TabId::from("t"), "op", remote(ErrorCode::NoSuchFrame, "x"));
        assert!(err.is_tab_gone(), "{err}");
    }

    #[test]
    fn the_port_error_keeps_the_browser_words_and_its_source() {
        let err = general("op", remote(ErrorCode::Unknown("odd code".into()), "it broke"));
        assert_eq!(err.to_string(), "op failed: Unknown(\"odd code\"): it broke");
        let source = std::error::Error::source(&err).unwrap();
        assert!(source.downcast_ref::<RemoteError>().is_some());
        let err = general("op", remote(ErrorCode::InvalidArgument, "bad"));
        assert_eq!(err.to_string(), "invalid argument: bad");
        let err = general("op", BidiError::Timeout { method: "m", after: Duration::from_millis(1500) });
        assert!(err.is_timeout());
        assert_eq!(err.to_string(), "op timed out after 1500 ms");
        assert!(general("op", BidiError::Disconnected).is_disconnected());
    }
}
