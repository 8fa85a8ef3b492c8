//! Transport and protocol errors of the BiDi client.

use std::time::Duration;
use tokio_tungstenite::tungstenite;

/// A BiDi error code. Closed set with an escape hatch for new codes.
/// <https://w3c.github.io/webdriver-bidi/#errors>
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorCode {
    InvalidArgument,
    /// `no such frame`: the browsing context is gone.
    NoSuchFrame,
    NoSuchNode,
    NoSuchUserContext,
    NoSuchHistoryEntry,
    UnknownCommand,
    UnknownError,
    UnsupportedOperation,
    MoveTargetOutOfBounds,
    /// `no such alert`: the context has no dialog to answer.
    NoSuchAlert,
    /// A code this list does not know, as the remote end spelled it.
    Unknown(String),
}

impl ErrorCode {
    pub fn parse(code: &str) -> Self {
        match code {
            "invalid argument" => Self::InvalidArgument,
            "no such frame" => Self::NoSuchFrame,
            "no such node" => Self::NoSuchNode,
            "no such user context" => Self::NoSuchUserContext,
            "no such history entry" => Self::NoSuchHistoryEntry,
            "unknown command" => Self::UnknownCommand,
            "unknown error" => Self::UnknownError,
            "unsupported operation" => Self::UnsupportedOperation,
            "move target out of bounds" => Self::MoveTargetOutOfBounds,
            "no such alert" => Self::NoSuchAlert,
            other => Self::Unknown(other.to_owned()),
        }
    }
}

/// An error the remote end answered a command with (its `error` and `message`).
/// <https://w3c.github.io/webdriver-bidi/#protocol-definition> (`ErrorResponse`)
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct RemoteError {
    pub code: ErrorCode,
    /// The remote end's own words.
    pub message: String,
}

/// Why the websocket closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SocketClosed {
    /// The stream ended without a close frame.
    #[error("the socket closed")]
    Ended,
    #[error("the socket failed: {0}")]
    Failed(#[source] Box<tungstenite::Error>),
    #[error("the remote end closed the socket")]
    ByRemote,
    /// We gave it up: the remote end stopped answering (a Selenium Grid keeps a lost node's
    /// socket open).
    #[error("no answer for {} ms: the remote end is gone", .0.as_millis())]
    Unresponsive(std::time::Duration),
}

/// What can go wrong with a BiDi command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BidiError {
    /// No reply within the command's deadline.
    #[error("{method} got no reply within {} ms", after.as_millis())]
    Timeout { method: &'static str, after: Duration },
    /// The socket is closed: the browser or its driver went away.
    #[error("browser disconnected")]
    Disconnected,
    /// The remote end answered with an error.
    #[error("{method} failed: {error}")]
    Remote {
        method: &'static str,
        #[source]
        error: RemoteError,
    },
    /// The command's params do not serialize.
    #[error("{method}: unexpected reply: params do not serialize: {source}")]
    Encode { method: &'static str, source: serde_json::Error },
    /// A reply did not have the shape the command expects.
    #[error("{method}: unexpected reply: {source}")]
    Decode { method: &'static str, source: serde_json::Error },
    /// The websocket did not open within the deadline.
    #[error("cannot connect to {url}: no answer within {} ms", after.as_millis())]
    ConnectTimeout { url: String, after: Duration },
    /// The websocket could not be opened.
    #[error("cannot connect to {url}: {source}")]
    Connect { url: String, source: Box<tungstenite::Error> },
}

impl BidiError {
    /// The target browsing context no longer exists.
    pub fn is_no_such_frame(&self) -> bool {
        matches!(self, Self::Remote { error: RemoteError { code: ErrorCode::NoSuchFrame, .. }, .. })
    }

    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected)
    }

    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }

    /// The remote end's error code, if it answered with one.
    pub fn code(&self) -> Option<&ErrorCode> {
        match self {
            Self::Remote { error, .. } => Some(&error.code),
            _ => None,
        }
    }
}
