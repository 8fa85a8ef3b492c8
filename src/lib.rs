//! navguard: a browser agent's core that does not trip over a page that is still navigating,
//! and the pieces of the harness that proves it on a real browser.
//!
//! - [`browser`]: the browser port (a trait) and its event log;
//! - [`bidi`]: a WebDriver BiDi client (typed commands, replies by id, deadlines);
//! - [`adapter`]: the real port, over BiDi, with the WebDriver session opened by fantoccini;
//! - [`fixtures`]: the fixture web site on two loopback origins.

pub mod adapter;
pub mod agent;
pub mod bidi;
pub mod browser;
pub mod conversation;
pub mod fixtures;
pub mod store;
