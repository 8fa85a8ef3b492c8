//! How a step fails: a browser error, an unmet expectation, or a wait that ran out.

use navguard::browser::BrowserError;

/// A step's failure; its text is what the report shows.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// The browser refused or failed a call.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// An expectation was not met.
    #[error("{0}")]
    Expectation(String),
    /// A wait ran out.
    #[error("waited {ms} ms for {what}, in vain")]
    Timeout {
        /// What was awaited.
        what: String,
        /// For how long.
        ms: u128,
    },
    /// The scenario is not set up for the step (no tab yet, …).
    #[error("{0}")]
    Setup(String),
}

/// What a step returns.
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
