//! navguard's conformance harness: the step definitions and the runner (over the fixture site,
//! the crate `navguard-fixtures`, re-exported as [`fixtures`]), the
//! reports, the timeline, the gate and validate, the agents under test, and the `navguard`
//! command's commands ([`cli`]). `cargo test --test features` and the `navguard` command both
//! link this crate, so both run the same steps and the same code.
//!
//! The steps are in two parts. [`world`] holds what every step shares: the cucumber World
//! (`NavWorld`), the scenario's tabs and fixture site, the agent core's state, the agent under
//! test's state and call log, the user's actions, the typed step parameters, and the interface
//! through which the run gives a scenario its browser and settings (`ScenarioRun`, which the
//! runner's `run_context::RunContext` provides). `steps` has one module per domain of the step
//! language: `browser`, `site`, `user`, `agent_core` (navguard's agent core in process),
//! `closed_loop`, `reliability`, `conversation`, and `conformance` (the agent under test). A
//! step module uses only the world, the core, `error` and `agents`; none imports another, and
//! nothing outside `steps` imports one. The arrows point one way: runner → world → steps →
//! core and agents under test. The language is documented in `docs/gherkin-language.md`.

pub mod artifacts;
pub mod bench;
pub mod builtin;
pub mod cli;
pub mod error;
// The fixture site is a crate of its own; `crate::fixtures::…` paths keep working through this.
pub use navguard_fixtures as fixtures;
pub mod gate;
pub mod libtest;
pub mod progress;
pub mod report;
pub mod run_context;
pub mod runner;
mod steps;
pub mod summary;
pub mod timeline;
pub mod under_test;
pub mod validate;
pub mod world;

pub use runner::run_features;
pub use world::Switch;

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
