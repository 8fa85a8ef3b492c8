//! The executor's journal: what it started and what it finished, on disk (SQLite, synchronous
//! FULL) before it acts on either. Restarted, it never runs an action twice: a finished action's
//! recorded observation is reported again; one that was started and never finished (the
//! executor died under it) is not run again, since it may have had its effect.

use crate::model::Observation;
use rusqlite::{Connection, OptionalExtension, params};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The journal could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JournalError {
    #[error("cannot make the executor's folder {path}: {source}")]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("executor journal: {0}")]
    Store(#[from] rusqlite::Error),
}

/// What the journal knows of an action.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// Started; the executor died before it finished.
    Started,
    /// Finished, with the observation it reported (or was about to).
    Finished(Box<Observation>),
}

/// The journal file.
#[derive(Debug)]
pub struct Journal {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS journal (
    action_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, observation TEXT, started_at INTEGER NOT NULL)";

impl Journal {
    /// Opens (or makes) `dir/executor.db`.
    pub fn open(dir: &Path) -> Result<Self, JournalError> {
        std::fs::create_dir_all(dir).map_err(|source| JournalError::Folder { path: dir.to_owned(), source })?;
        let conn = Connection::open(dir.join("executor.db"))?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;")?;
        conn.execute_batch(SCHEMA)?;
        Ok(Self { conn: Mutex::new(conn) })
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What is known of `action_id`, if anything.
    pub fn entry(&self, action_id: &str) -> Result<Option<Entry>, JournalError> {
        let row: Option<Option<String>> = self
            .lock()
            .query_row("SELECT observation FROM journal WHERE action_id = ?1", [action_id], |r| r.get(0))
            .optional()?;
        Ok(row.map(|observation| match observation.and_then(|o| serde_json::from_str(&o).ok()) {
            Some(observation) => Entry::Finished(Box::new(observation)),
            None => Entry::Started,
        }))
    }

    /// Records that `action_id` is about to run (on disk before it does).
    pub fn started(&self, task_id: &str, action_id: &str) -> Result<(), JournalError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.lock().execute(
            "INSERT OR IGNORE INTO journal (action_id, task_id, started_at) VALUES (?1, ?2, ?3)",
            params![action_id, task_id, now],
        )?;
        Ok(())
    }

    /// Records what `action_id` did (on disk before it is reported).
    pub fn finished(&self, action_id: &str, observation: &Observation) -> Result<(), JournalError> {
        let text = serde_json::to_string(observation).unwrap_or_default();
        self.lock().execute("UPDATE journal SET observation = ?2 WHERE action_id = ?1", params![action_id, text])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn started_then_finished_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path()).unwrap();
        assert_eq!(journal.entry("a1").unwrap(), None);
        journal.started("t", "a1").unwrap();
        journal.started("t", "a2").unwrap();
        let seen = Observation { url: "http://127.0.0.1/x".into(), ..Observation::default() };
        journal.finished("a1", &seen).unwrap();
        drop(journal);
        let journal = Journal::open(dir.path()).unwrap();
        assert_eq!(journal.entry("a1").unwrap(), Some(Entry::Finished(Box::new(seen))));
        assert_eq!(journal.entry("a2").unwrap(), Some(Entry::Started));
    }
}
