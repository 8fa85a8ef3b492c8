//! navguard's conformance harness: the fixture site, the step definitions and the runner, the
//! reports, the timeline, the gate and validate, the agents under test, and the `navguard`
//! command's commands ([`cli`]). `cargo test --test features` and the `navguard` command both
//! link this crate, so both run the same steps and the same code.
//!
//! Step definitions are one file per domain: `browser_steps` (tabs, navigation, events),
//! `site_steps` (the fixture site), `user_steps` (what a person does to the browser),
//! `agent_steps` and `conversation_steps` (the agent core). The language is documented in
//! `docs/gherkin-language.md`.

mod agent_state;
mod agent_steps;
pub mod artifacts;
pub mod bench;
mod browser_steps;
pub mod builtin;
pub mod cli;
mod conformance_steps;
mod conversation_steps;
pub mod error;
pub mod fixtures;
pub mod gate;
pub mod libtest;
mod loop_steps;
mod parameters;
pub mod progress;
mod reliability_steps;
pub mod replay;
pub mod report;
mod round_hook;
pub mod run_context;
pub mod runner;
mod site_steps;
pub mod summary;
pub mod timeline;
pub mod under_test;
mod user_action;
mod user_steps;
pub mod validate;
pub mod world;

/// The agents under test, by the module's old name: the step definitions (restructured apart)
/// still name it so; new code names [`under_test`].
#[doc(hidden)]
pub use under_test as agents;

pub use parameters::Switch;
pub use runner::run_features;

/// Logs to stderr, filtered by `RUST_LOG` (default: warnings, and the progress of calls that wait,
/// so that a long wait shows live as what it waits for). A scenario's progress is printed after
/// its name, and only when its run shows progress live ([`progress`]).
pub fn init_tracing() {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("warn,{}=info", progress::TARGET)));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let log = tracing_subscriber::fmt::layer().with_ansi(ansi).with_writer(std::io::stderr);
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(log.with_filter(progress::outside_scenarios()))
        .with(progress::ScenarioProgress)
        .try_init();
}
