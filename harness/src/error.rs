//! How a step fails: a browser error, an unmet expectation, or a wait that ran out.

use navguard::adapter::LaunchError;
use navguard::browser::BrowserError;
use std::sync::Arc;

/// A step's failure; its text is what the report shows.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// The browser refused or failed a call.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    #[error("{0}")]
    Expectation(String),
    #[error("waited {} ms for {what}, in vain", .after.as_millis())]
    Timeout { what: String, after: std::time::Duration },
    /// The scenario is not set up for the step (no tab yet, …).
    #[error("{0}")]
    Setup(String),
    /// The scenario calls a tool the agent under test has no counterpart for: it does not
    /// apply to that agent (reported as such, never as passed).
    #[error("{0}")]
    NotApplicable(String),
}

/// Why a scenario could not be given its tabs and its site; the before hook fails the scenario
/// with it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// Shared: the run starts its browser once, and a failed start fails every scenario alike.
    #[error("cannot start the browser: {0}")]
    Browser(#[source] Arc<LaunchError>),
    /// Every session of the run has disconnected (none is restarted).
    #[error("browser disconnected: every session of the run is gone")]
    Disconnected,
    #[error("cannot open the scenario's tabs: {0}")]
    Tabs(#[source] BrowserError),
    #[error("cannot start the fixture site: {0}")]
    Site(#[source] std::io::Error),
    #[error("cannot write the scenario's files: {0}")]
    Files(#[source] std::io::Error),
}

pub type StepResult<T = ()> = Result<T, StepError>;

/// Fails unless `expected == actual`, naming `what`.
pub fn expect_eq<T: PartialEq + std::fmt::Debug>(what: &str, expected: T, actual: T) -> StepResult {
    if expected == actual {
        Ok(())
    } else {
        Err(StepError::Expectation(format!("{what}: expected {expected:?}, got {actual:?}")))
    }
}

/// Fails unless the task (or turn) named `what` succeeded, saying how it stopped instead.
pub fn expect_success(what: &str, stop: &navguard::agent::StopReason) -> StepResult {
    if stop.is_success() {
        return Ok(());
    }
    Err(StepError::Expectation(format!(
        "{what} stopped with {:?} ({})",
        stop.message(),
        stop.detail().unwrap_or_else(|| "no detail".into())
    )))
}
