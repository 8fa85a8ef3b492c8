//! The runner's errors: why a run could not start.

use navguard::adapter::LaunchError;
use std::sync::Arc;

/// Why a run could not start: nothing ran, so nothing was measured.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    #[error("no such feature file or folder: {}", .0.display())]
    NoInput(std::path::PathBuf),
    /// A driver or browser binary is missing; the message names it and its install command.
    #[error(transparent)]
    Binary(LaunchError),
    #[error("cannot write reports to {}: {source}", .dir.display())]
    Reports {
        dir: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The first scenario's hook could not start the browser.
    #[error("cannot start the browser: {0}")]
    Browser(#[source] Arc<LaunchError>),
    /// `--agent` names no usable agent (an unknown name, a bad description, another browser).
    #[error(transparent)]
    Agent(#[from] crate::under_test::AgentError),
}
