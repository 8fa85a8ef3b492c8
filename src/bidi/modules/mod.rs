//! Typed BiDi commands and events, one file per BiDi module.

pub mod browser;
pub mod browsing_context;
pub mod goog_cdp;
pub mod input;
pub mod network;
pub mod script;
pub mod session;

pub use crate::bidi::command::Empty;
