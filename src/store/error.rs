//! The store's errors.

use std::path::PathBuf;

/// What can go wrong with the task store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No task has that id (nothing was created).
    #[error("no such task: {0}")]
    NoSuchTask(String),
    #[error("task {0} exists already")]
    TaskExists(String),
    /// The file is not a task store (or is damaged); it was left as it is.
    #[error("{path} is not a readable task store ({source}); the file was left untouched")]
    Corrupt { path: PathBuf, source: rusqlite::Error },
    /// The file has a schema version but no tasks table; it was left as it is.
    #[error(
        "{path} is not a readable task store (schema version {version} without its tasks table); the file was left \
         untouched"
    )]
    NoTasksTable { path: PathBuf, version: i64 },
    /// The file was written by a newer navguard; it was left as it is.
    #[error(
        "{path} has store schema version {found}, newer than this navguard's {supported}; the file was left untouched"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        /// The newest this build reads.
        supported: i64,
    },
    /// A task's checkpoint could not be written or read back as JSON.
    #[error("the checkpoint of task {task_id} is unreadable: {source}")]
    BadCheckpoint {
        task_id: String,
        #[source]
        source: serde_json::Error,
    },
    /// Any other SQLite failure.
    #[error("task store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The failure of another store than this SQLite one (an embedder's own
    /// [`Checkpoints`](crate::agent::Checkpoints)), with its own error as the source.
    #[error("{store}: {source}")]
    Other {
        /// What the store is, for the message ("checkpoint store in Redis").
        store: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl StoreError {
    /// Another store's failure: `store` says which, `source` is its own error.
    pub fn other(store: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Other { store: store.into(), source: source.into() }
    }

    /// The task does not exist.
    pub fn is_no_such_task(&self) -> bool {
        matches!(self, Self::NoSuchTask(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_store_s_failure_keeps_its_own_error_as_the_source() {
        let own = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let err = StoreError::other("checkpoint store at 127.0.0.1:6379", own);
        assert_eq!(err.to_string(), "checkpoint store at 127.0.0.1:6379: refused");
        let source = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(source.map(std::io::Error::kind), Some(std::io::ErrorKind::ConnectionRefused));
    }
}
