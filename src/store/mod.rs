//! The task store: a task's record (its tab, group, window, current URL, status, title, its
//! browser client) kept across conversation turns and restarts.
//!
//! The default store is SQLite through rusqlite's bundled build: a file path, or in memory for
//! unit tests; no server. An update is a partial upsert of an existing task: a field it leaves
//! out keeps its stored value; only an explicit [`Field::Clear`] empties one.

mod error;
mod record;
mod sqlite;

pub use error::StoreError;
pub use record::{Field, KnownStatus, TaskRecord, TaskStatus, TaskUpdate};
pub use sqlite::TaskStore;
