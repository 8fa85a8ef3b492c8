//! A WebDriver BiDi client: typed commands (one file per BiDi module, under [`modules`]),
//! replies matched by id, a deadline on every command, events handed in arrival order to an
//! [`EventSink`], and every pending call failed with [`BidiError::Disconnected`] when the socket
//! closes.
//!
//! Spec: <https://w3c.github.io/webdriver-bidi/>.
//!
//! What the browser sends (command results, event parameters) and the error sets are
//! `#[non_exhaustive]`: the protocol grows, and a field or a case it gains is no breaking change
//! for code that reads them. The commands are plain structs, built by their callers.

mod client;
mod command;
mod error;
pub mod modules;

pub use client::{BidiClient, EventSink};
pub use command::Command;
pub use error::{BidiError, ErrorCode, RemoteError, SocketClosed};
