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
    /// The WebDriver remote end did not answer the new session within the deadline (a Selenium
    /// Grid queues a request while its slots are busy).
    #[error(
        "cannot open a WebDriver session at {url}: no answer within {} ms; a Selenium Grid queues the \
         request while every slot is busy: give it more nodes or slots, or run fewer --sessions",
        after.as_millis()
    )]
    SessionTimeout { url: String, after: Duration },
    /// The remote end given with `--webdriver-url` cannot serve a session: unreachable, not a
    /// WebDriver end, or a Grid with no node for the browser.
    #[error("{}", problem.explain(url))]
    Remote { url: String, problem: RemoteProblem },
    /// The WebDriver session could not be opened.
    #[error("cannot open a WebDriver session at {url}: {source}")]
    Session { url: String, source: Box<NewSessionError> },
    /// The remote end did not offer a BiDi websocket (the session it opened was ended).
    #[error("{}", why.explain(url))]
    NoBidi { url: String, why: NoBidi },
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

/// Why a remote WebDriver end cannot serve a session; [`RemoteProblem::explain`] says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteProblem {
    #[error("{0}")]
    BadUrl(String),
    #[error("{0}")]
    Connect(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("no answer within {} ms", .0.as_millis())]
    NoAnswer(Duration),
    /// Its `/status` did not answer as a WebDriver end does.
    #[error("{0}")]
    NotWebDriver(String),
    /// A node of a Selenium Grid, not its hub.
    #[error("a Selenium Grid node")]
    GridNode,
    /// A Grid none of whose live nodes offers the browser.
    #[error("no node offers {browser}")]
    NoNode { browser: String, offers: Vec<String> },
}

impl RemoteProblem {
    /// One line: the remote end, what is wrong, and what to do.
    pub fn explain(&self, url: &str) -> String {
        match self {
            Self::BadUrl(why) => format!("--webdriver-url {url} is not usable ({why}): give http://<host>:<port>"),
            Self::Connect(e) => format!(
                "cannot reach the WebDriver remote end at {url} ({}): start the Selenium Grid (or driver) there, \
                 or correct --webdriver-url (docs/grid.md)",
                root_cause(e.as_ref())
            ),
            Self::NoAnswer(after) => format!(
                "the WebDriver remote end at {url} did not answer /status within {} ms: check that a Selenium \
                 Grid or driver listens there and is not overloaded",
                after.as_millis()
            ),
            Self::NotWebDriver(what) => format!(
                "{url} is not a WebDriver remote end ({what}): point --webdriver-url at the Selenium Grid's \
                 (or the driver's) base URL"
            ),
            Self::GridNode => format!(
                "{url} is a Selenium Grid node, which takes sessions only from its hub: point --webdriver-url at \
                 the hub (the URL the nodes were given with --grid-url)"
            ),
            Self::NoNode { browser, offers } => {
                let offered = if offers.is_empty() { "no browser at all".to_owned() } else { offers.join(", ") };
                format!(
                    "the Selenium Grid at {url} has no node offering {browser} (it offers {offered}): start a node \
                     with a {browser} driver configuration (docs/grid.md), or run with \
                     --browser set to one it offers"
                )
            }
        }
    }
}

/// The innermost error of a chain (hyper's outer ones say only "client error (Connect)").
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut e = e;
    while let Some(source) = e.source() {
        e = source;
    }
    e.to_string()
}

/// Why a session came without a BiDi websocket (`webSocketUrl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoBidi {
    /// A Selenium Grid node with BiDi proxying off (`se:bidiEnabled: false`).
    GridBidiOff,
    /// The remote end does not offer it (a driver without BiDi).
    NotOffered,
}

impl NoBidi {
    /// One line: the remote end, what is wrong, and what to do.
    pub fn explain(self, url: &str) -> String {
        match self {
            Self::GridBidiOff => format!(
                "the Selenium Grid at {url} gave a session without BiDi (its node runs with BiDi off): start \
                 its nodes with `--enable-bidi true` (the default; `enable-bidi = true` under [node])"
            ),
            Self::NotOffered => format!(
                "the WebDriver session at {url} has no webSocketUrl: the remote end does not speak BiDi; use a \
                 driver that does (chromedriver, geckodriver), on a Selenium Grid 4 node with BiDi on"
            ),
        }
    }
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

/// Maps a BiDi error of a navigation command of `tab`: the browser's unknown error is the
/// navigation failing.
pub(crate) fn navigation_error(tab: &TabId, method: &str, err: BidiError) -> BrowserError {
    match err {
        BidiError::Remote { error: RemoteError { code: ErrorCode::UnknownError, message }, .. } => {
            BrowserError::NavigationFailed { url: String::new(), reason: message }
        }
        other => on_tab(tab, method, other),
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
