//! Conversation turns on a task (docs/design/tab-reuse.md): a turn is one user message with the URL it needs.
//! No tab yet → a new tab, settled with the open_url guard, and the task-creation tool set; a
//! tab exists → it is navigated (settled) and only the tab-operation tools are offered. Then the
//! agent loop runs the turn. The task's record lives in the [`crate::store::TaskStore`].

mod clients;
mod error;
mod turn;

pub use clients::Clients;
pub use error::TurnError;
pub use turn::{Conversation, TurnOutcome};
