//! Why a turn could not run.

use crate::agent::SettleOutcome;
use crate::browser::BrowserError;
use crate::store::StoreError;

/// A turn's failure before the agent loop could start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TurnError {
    /// The task store failed (or has no such task).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No browser client is registered.
    #[error("no browser client available")]
    NoClient,
    /// The URL cannot be opened by an agent.
    #[error("{0} is a restricted URL")]
    Restricted(String),
    /// The page did not settle on its origin.
    #[error("the page for {url} did not settle ({}{})", outcome.name(), match outcome { SettleOutcome::OriginMismatch { observed_url } => format!(": committed on {observed_url}"), _ => String::new() })]
    PageNotReady { url: String, outcome: SettleOutcome },
    /// The browser failed.
    #[error(transparent)]
    Browser(#[from] BrowserError),
}

impl TurnError {
    /// The task does not exist.
    pub fn is_no_such_task(&self) -> bool {
        matches!(self, Self::Store(e) if e.is_no_such_task())
    }
}
