//! The SQLite task store: versioned schema, migrations, one statement per update.

use super::error::StoreError;
use super::record::{Field, KnownStatus, TaskRecord, TaskStatus, TaskUpdate};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, params};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The schema version this build writes. Version 1 lacked the client, group and window;
/// version 2 the checkpoints.
pub(super) const SCHEMA_VERSION: i64 = 3;

const CREATE_V2: &str = "CREATE TABLE tasks (
    task_id TEXT PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, client_id TEXT,
    current_url TEXT, tab_id TEXT, group_id TEXT, window_id TEXT)";

const MIGRATE_V1_TO_V2: &str = "ALTER TABLE tasks ADD COLUMN client_id TEXT;
    ALTER TABLE tasks ADD COLUMN group_id TEXT;
    ALTER TABLE tasks ADD COLUMN window_id TEXT;";

/// A paused task's checkpoint (docs/design/reliability-layer.md): the latest one per task, as JSON.
const CREATE_CHECKPOINTS: &str = "CREATE TABLE checkpoints (
    task_id TEXT PRIMARY KEY, round INTEGER NOT NULL, saved_at INTEGER NOT NULL, body TEXT NOT NULL)";

const COLUMNS: &str =
    "task_id, title, status, created_at, updated_at, client_id, current_url, tab_id, group_id, window_id";

/// How long a write waits for another process's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The task store.
#[derive(Debug)]
pub struct TaskStore {
    conn: Mutex<Connection>,
    path: Option<PathBuf>,
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl TaskStore {
    /// Opens (or creates) the store at `path`. A file that is not a store, or is from a newer
    /// schema, is an error naming it, and is left untouched; an older one is migrated.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
            .map_err(|e| corrupt(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let store = Self { conn: Mutex::new(conn), path: Some(path.to_owned()) };
        store.prepare_schema()?;
        Ok(store)
    }

    /// A store in memory (unit tests).
    pub fn in_memory() -> Result<Self, StoreError> {
        let store = Self { conn: Mutex::new(Connection::open_in_memory()?), path: None };
        store.prepare_schema()?;
        Ok(store)
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn path(&self) -> PathBuf {
        self.path.clone().unwrap_or_else(|| PathBuf::from(":memory:"))
    }

    /// Reads the version before writing anything, so a bad file is never changed.
    fn prepare_schema(&self) -> Result<(), StoreError> {
        let conn = self.lock();
        let version: i64 =
            conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| corrupt(&self.path(), e))?;
        let has_table: bool = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tasks'", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(|e| corrupt(&self.path(), e))?
            > 0;
        match (version, has_table) {
            (v, _) if v > SCHEMA_VERSION => {
                Err(StoreError::NewerSchema { path: self.path(), found: v, supported: SCHEMA_VERSION })
            }
            (0, false) => Ok(conn.execute_batch(&format!(
                "BEGIN; {CREATE_V2}; {CREATE_CHECKPOINTS}; PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))?),
            (1, true) => Ok(conn.execute_batch(&format!(
                "BEGIN; {MIGRATE_V1_TO_V2} {CREATE_CHECKPOINTS}; PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))?),
            (2, true) => Ok(conn.execute_batch(&format!(
                "BEGIN; {CREATE_CHECKPOINTS}; PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))?),
            (SCHEMA_VERSION, true) => Ok(()),
            (v, _) => Err(StoreError::NoTasksTable { path: self.path(), version: v }),
        }
    }

    /// Creates a task; an existing id is an error.
    pub fn create(&self, task_id: &str, title: &str) -> Result<TaskRecord, StoreError> {
        let now = now_ms();
        let inserted = self.lock().execute(
            "INSERT INTO tasks (task_id, title, status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT(task_id) DO NOTHING",
            params![task_id, title, KnownStatus::Created.name(), now],
        )?;
        if inserted == 0 {
            return Err(StoreError::TaskExists(task_id.to_owned()));
        }
        self.get(task_id)
    }

    /// Saves a task's checkpoint (JSON), replacing the one before; durable when it returns.
    pub fn save_checkpoint(&self, task_id: &str, round: u32, body: &str) -> Result<(), StoreError> {
        self.lock().execute(
            "INSERT INTO checkpoints (task_id, round, saved_at, body) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(task_id) DO UPDATE SET round = ?2, saved_at = ?3, body = ?4",
            params![task_id, round, now_ms(), body],
        )?;
        Ok(())
    }

    /// A task's latest checkpoint (JSON), if it has one.
    pub fn checkpoint(&self, task_id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .lock()
            .query_row("SELECT body FROM checkpoints WHERE task_id = ?1", [task_id], |r| r.get(0))
            .optional()?)
    }

    /// The task's record.
    pub fn get(&self, task_id: &str) -> Result<TaskRecord, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM tasks WHERE task_id = ?1");
        self.lock()
            .query_row(&sql, [task_id], read_record)
            .optional()?
            .ok_or_else(|| StoreError::NoSuchTask(task_id.to_owned()))
    }

    /// Applies a partial update in one statement (so concurrent updates of different fields
    /// all survive); an unknown task is an error and nothing is created.
    pub fn update(&self, task_id: &str, update: &TaskUpdate) -> Result<TaskRecord, StoreError> {
        let f = |field: &Field<String>| {
            let (mode, value) = field.parts();
            (mode, value.cloned())
        };
        let (client, url, tab, group, window) = (
            f(&update.client_id),
            f(&update.current_url),
            f(&update.tab_id),
            f(&update.group_id),
            f(&update.window_id),
        );
        let changed = self.lock().execute(
            "UPDATE tasks SET
               title = COALESCE(?2, title), status = COALESCE(?3, status), updated_at = ?4,
               client_id = CASE ?5 WHEN 1 THEN ?6 WHEN 2 THEN NULL ELSE client_id END,
               current_url = CASE ?7 WHEN 1 THEN ?8 WHEN 2 THEN NULL ELSE current_url END,
               tab_id = CASE ?9 WHEN 1 THEN ?10 WHEN 2 THEN NULL ELSE tab_id END,
               group_id = CASE ?11 WHEN 1 THEN ?12 WHEN 2 THEN NULL ELSE group_id END,
               window_id = CASE ?13 WHEN 1 THEN ?14 WHEN 2 THEN NULL ELSE window_id END
             WHERE task_id = ?1",
            params![
                task_id,
                update.title,
                update.status.as_ref().map(TaskStatus::as_str),
                now_ms(),
                client.0,
                client.1,
                url.0,
                url.1,
                tab.0,
                tab.1,
                group.0,
                group.1,
                window.0,
                window.1
            ],
        )?;
        if changed == 0 {
            return Err(StoreError::NoSuchTask(task_id.to_owned()));
        }
        self.get(task_id)
    }
}

fn read_record(row: &Row<'_>) -> rusqlite::Result<TaskRecord> {
    Ok(TaskRecord {
        task_id: row.get(0)?,
        title: row.get(1)?,
        status: TaskStatus::parse(&row.get::<_, String>(2)?),
        created_at: row.get(3)?,
        updated_at: row.get(4)?,
        client_id: row.get(5)?,
        current_url: row.get(6)?,
        tab_id: row.get(7)?,
        group_id: row.get(8)?,
        window_id: row.get(9)?,
    })
}

fn corrupt(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Corrupt { path: path.to_owned(), source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn set(v: &str) -> Field<String> {
        Field::Set(v.to_owned())
    }

    #[test]
    fn a_partial_update_keeps_every_field_it_leaves_out() {
        let store = TaskStore::in_memory().unwrap();
        store.create("t1", "Research").unwrap();
        store
            .update(
                "t1",
                &TaskUpdate { tab_id: set("42"), group_id: set("7"), window_id: set("1"), ..Default::default() },
            )
            .unwrap();
        let after =
            store.update("t1", &TaskUpdate { current_url: set("https://a.test/"), ..Default::default() }).unwrap();
        assert_eq!(
            (after.tab_id.as_deref(), after.group_id.as_deref(), after.window_id.as_deref()),
            (Some("42"), Some("7"), Some("1"))
        );
        assert_eq!(after.title, "Research");
        assert_eq!(after.current_url.as_deref(), Some("https://a.test/"));
    }

    #[test]
    fn only_an_explicit_clear_empties_a_field() {
        let store = TaskStore::in_memory().unwrap();
        store.create("t1", "x").unwrap();
        store.update("t1", &TaskUpdate { tab_id: set("42"), ..Default::default() }).unwrap();
        let after = store.update("t1", &TaskUpdate { tab_id: Field::Clear, ..Default::default() }).unwrap();
        assert_eq!(after.tab_id, None);
    }

    #[test]
    fn an_unknown_task_is_no_such_task_and_nothing_is_created() {
        let store = TaskStore::in_memory().unwrap();
        let err = store.update("ghost", &TaskUpdate { tab_id: set("1"), ..Default::default() }).unwrap_err();
        assert!(err.is_no_such_task());
        assert!(store.get("ghost").unwrap_err().is_no_such_task());
    }

    #[test]
    fn concurrent_updates_of_one_task_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        TaskStore::open(&path).unwrap().create("t1", "x").unwrap();
        let writers: Vec<_> = (0..4)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let store = Arc::new(TaskStore::open(&path).unwrap());
                    for n in 0..25 {
                        let value = set(&format!("{i}-{n}"));
                        let update = match i {
                            0 => TaskUpdate { tab_id: value, ..Default::default() },
                            1 => TaskUpdate { group_id: value, ..Default::default() },
                            2 => TaskUpdate { window_id: value, ..Default::default() },
                            _ => TaskUpdate { current_url: value, ..Default::default() },
                        };
                        store.update("t1", &update).unwrap();
                    }
                })
            })
            .collect();
        writers.into_iter().for_each(|w| w.join().unwrap());
        let r = TaskStore::open(&path).unwrap().get("t1").unwrap();
        let fields = (r.tab_id.as_deref(), r.group_id.as_deref(), r.window_id.as_deref(), r.current_url.as_deref());
        assert_eq!(fields, (Some("0-24"), Some("1-24"), Some("2-24"), Some("3-24")));
    }

    #[test]
    fn the_record_survives_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        let store = TaskStore::open(&path).unwrap();
        store.create("t1", "x").unwrap();
        store.update("t1", &TaskUpdate { tab_id: set("42"), ..Default::default() }).unwrap();
        drop(store);
        assert_eq!(TaskStore::open(&path).unwrap().get("t1").unwrap().tab_id.as_deref(), Some("42"));
    }

    #[test]
    fn an_older_schema_is_migrated_with_its_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let old = Connection::open(&path).unwrap();
        old.execute_batch(
            "CREATE TABLE tasks (task_id TEXT PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL,
               created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, current_url TEXT, tab_id TEXT);
             INSERT INTO tasks VALUES ('t1', 'Old', 'ongoing', 1, 2, 'https://a.test/', '42');
             PRAGMA user_version = 1;",
        )
        .unwrap();
        drop(old);
        let r = TaskStore::open(&path).unwrap().get("t1").unwrap();
        assert_eq!((r.title.as_str(), r.tab_id.as_deref(), r.window_id), ("Old", Some("42"), None));
    }

    #[test]
    fn a_corrupt_file_is_named_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junk.db");
        let junk = b"this is not a database, it is a shopping list".repeat(100);
        std::fs::write(&path, &junk).unwrap();
        let err = TaskStore::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("junk.db"));
        assert_eq!(std::fs::read(&path).unwrap(), junk);
    }

    #[test]
    fn a_versioned_file_without_its_table_is_named_and_its_cause_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.db");
        Connection::open(&path).unwrap().execute_batch("PRAGMA user_version = 2;").unwrap();
        let err = TaskStore::open(&path).unwrap_err();
        let expected = format!(
            "{} is not a readable task store (schema version 2 without its tasks table); the file was left untouched",
            path.display()
        );
        assert_eq!(err.to_string(), expected);
        let junk = dir.path().join("junk.db");
        std::fs::write(&junk, b"not a database".repeat(100)).unwrap();
        let err = TaskStore::open(&junk).unwrap_err();
        let source = std::error::Error::source(&err);
        assert!(source.and_then(|e| e.downcast_ref::<rusqlite::Error>()).is_some(), "{err:?}");
    }

    #[test]
    fn a_newer_schema_is_refused_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.db");
        Connection::open(&path).unwrap().execute_batch("CREATE TABLE tasks (x); PRAGMA user_version = 9;").unwrap();
        let before = std::fs::read(&path).unwrap();
        let err = TaskStore::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::NewerSchema { found: 9, .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
}
