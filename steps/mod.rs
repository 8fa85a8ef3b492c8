//! The harness's step definitions and runner, shared by `cargo test --test features` and the
//! `navguard` command (both include this module, so both run the same steps and the same code).
//!
//! One file per domain: `browser_steps` (tabs, navigation, events), `site_steps` (the fixture
//! site), `user_steps` (what a person does to the browser). The language is documented in
//! `docs/gherkin-language.md`.

pub mod agent_state;
pub mod agent_steps;
pub mod artifacts;
pub mod browser_steps;
pub mod conversation_steps;
pub mod error;
pub mod gate;
pub mod report;
pub mod round_hook;
pub mod run_context;
pub mod runner;
pub mod site_steps;
pub mod summary;
pub mod timeline;
pub mod user_action;
pub mod user_steps;
pub mod validate;
pub mod world;

pub use runner::run_features;

/// Logs to stderr, filtered by `RUST_LOG` (default: warnings).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
