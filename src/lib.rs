//! navguard: a browser agent's core that does not trip over a page that is still navigating.
//!
//! - [`agent`]: the round (guard → observe → model turn → tools), its guards, the settle waiter,
//!   the tools, the planner seam and the trace;
//! - [`conversation`]: turns on a stored task that reuse its tab;
//! - [`store`]: the task store (SQLite);
//! - [`browser`]: the browser port (a trait) and its event log;
//! - [`bidi`]: a WebDriver BiDi client (typed commands, replies by id, deadlines);
//! - [`adapter`]: the real port, over BiDi, with the WebDriver session opened by fantoccini;
//! - [`names`]: closed sets of names (`closed_set!`), one table each;
//! - [`prelude`]: what an embedder needs, in one `use`.
//!
//! The conformance harness that proves it on real browsers is the `navguard-harness` crate
//! (`harness/`).

// Every type in a public signature can be named by its user: one reachable only through a
// field or a return type, and never exported, is a warning.
#![warn(unnameable_types)]

pub mod adapter;
pub mod agent;
pub mod bidi;
pub mod browser;
pub mod conversation;
pub mod names;
pub mod prelude;
pub mod store;

/// What the workspace's other crates use of the core's insides and no embedder may rely on (it
/// changes in any release, and is not in the docs): the agent's own steps, which the harness's
/// benchmarks and tests time and check alone on a real browser (an embedder runs them through
/// `Agent::run`), and the process-group guard the adapter keeps around the WebDriver server,
/// under which the harness also puts the agents it tests.
#[doc(hidden)]
pub mod __private {
    pub use crate::adapter::launch::{GroupGuard, scratch_dir};
    pub use crate::agent::round::{GuardRead, GuardResult, loop_top_guard};
    pub use crate::agent::settle::{IdleOutcome, PageState, is_transient, wait_for_network_idle, wait_for_quiet_page};
}
