//! Transport and protocol errors of the BiDi client.

use std::time::Duration;

/// A BiDi error code (spec §"Errors"). Closed set with an escape hatch for new codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// `invalid argument`
    InvalidArgument,
    /// `no such frame`: the browsing context is gone.
    NoSuchFrame,
    /// `no such node`
    NoSuchNode,
    /// `no such user context`
    NoSuchUserContext,
    /// `no such history entry`
    NoSuchHistoryEntry,
    /// `unknown command`
    UnknownCommand,
    /// `unknown error`
    UnknownError,
    /// `unsupported operation`
    UnsupportedOperation,
    /// `move target out of bounds`
    MoveTargetOutOfBounds,
    /// Any other code.
    Unknown(String),
}

impl ErrorCode {
    /// Parses the wire string.
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
            other => Self::Unknown(other.to_owned()),
        }
    }
}

/// What can go wrong with a BiDi command.
#[derive(Clone, Debug, thiserror::Error)]
pub enum BidiError {
    /// No reply within the command's deadline.
    #[error("{method} got no reply within {} ms", after.as_millis())]
    Timeout {
        /// The command.
        method: &'static str,
        /// Its deadline.
        after: Duration,
    },
    /// The socket is closed: the browser or its driver went away.
    #[error("browser disconnected")]
    Disconnected,
    /// The remote end answered with an error.
    #[error("{method} failed: {code:?}: {message}")]
    Remote {
        /// The command.
        method: &'static str,
        /// The error code.
        code: ErrorCode,
        /// The remote end's message.
        message: String,
    },
    /// A reply did not have the shape the command expects.
    #[error("{method}: unexpected reply: {detail}")]
    Decode {
        /// The command.
        method: &'static str,
        /// What did not fit.
        detail: String,
    },
    /// The websocket could not be opened.
    #[error("cannot connect to {url}: {detail}")]
    Connect {
        /// The websocket URL.
        url: String,
        /// Why.
        detail: String,
    },
}

impl BidiError {
    /// The target browsing context no longer exists.
    pub fn is_no_such_frame(&self) -> bool {
        matches!(self, Self::Remote { code: ErrorCode::NoSuchFrame, .. })
    }

    /// The connection is gone.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected)
    }

    /// The command ran out of time.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }

    /// The remote end's error code, if it answered with one.
    pub fn code(&self) -> Option<&ErrorCode> {
        match self {
            Self::Remote { code, .. } => Some(code),
            _ => None,
        }
    }
}
