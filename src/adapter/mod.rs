//! The real browser port: a WebDriver session opened by fantoccini, driven over WebDriver BiDi.
//!
//! [`BidiBrowser::launch`] starts chromedriver or geckodriver on a free port (or uses a running remote end),
//! opens a session with `webSocketUrl: true` and connects our [`crate::bidi`] client to it.
//! [`BidiBrowser::open_port`] gives a [`BidiPort`]: a set of tabs in its own user context that
//! sees only its own tabs' events, so concurrent users of one browser never see each other.

mod browser;
mod create;
mod error;
mod focus;
mod http;
mod kind;
pub(crate) mod launch;
mod port;
mod realms;
mod remote;
mod restore;
mod router;
mod session;
mod subscribe;
mod target;

pub use browser::{BidiBrowser, BrowserConfig, check_local_binaries};
pub use error::{DriverStartError, LaunchError, NoBidi, RemoteProblem};
pub use kind::{BrowserKind, UnknownBrowser};
pub use port::BidiPort;
