//! The browser port: the `chrome.tabs` / `webNavigation` surface that the designs (docs/design/) program
//! against, in browser-neutral terms.
//!
//! A tab is a top-level browsing context. [`BrowserPort::create_tab`] returns before the new tab's
//! navigation commits (like `chrome.tabs.create`); [`BrowserPort::tab`] reads the committed URL,
//! the pending URL and whether the tab is loading; [`BrowserPort::subscribe`] opens a lossless
//! stream of [`NavEvent`]s, each stamped with a local monotonic time and the browser's timestamp.
//! Every call carries a deadline: a timeout and a vanished tab are their own [`BrowserError`]
//! variants, never strings to parse.

mod error;
mod event;
mod event_log;
mod network;
mod port;
mod script;
#[cfg(any(test, feature = "test-util"))]
mod sim;
mod tab_state;
mod types;

pub use error::BrowserError;
pub use event::{NavEvent, NavEventKind};
pub use event_log::{EventLog, EventStream, LogClosed, Sequenced};
pub use network::{RequestEvent, RequestEventKind, RequestId, RequestLog, RequestStream};
pub use port::{BrowserPort, Key, PortDiagnostics};
pub use script::PageScript;
pub(crate) use script::page_script_finding;
#[cfg(any(test, feature = "test-util"))]
pub use sim::SimPort;
pub(crate) use tab_state::TabTracker;
pub use types::{
    Dialog, DialogKind, ElementRef, FrameId, FrameInfo, Gesture, MalformedRef, NavigationId, PressLanded, Shot,
    Staleness, TabId, TabInfo, Target,
};
