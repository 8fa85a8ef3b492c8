//! The task store: SQLite under the data folder (WAL, synchronous FULL, so a committed
//! transaction is on disk), its schema, and every statement the service runs, each a small named
//! function on a connection or a transaction. The rules of what to write when are not here: they
//! are the state machine's ([`super::machine`]).

mod grants;

pub use grants::Grant;
pub(crate) use grants::{
    awaiting_permission, grant_of, grants, pending_permission, set_awaiting_permission, set_grant, waited_origin,
};

use crate::model::{Action, Observation, Risk, Target, TaskStatus, ToolName};
use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

/// Why the store could not be read or written: never the caller's mistake.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("task store: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("task store {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("task store: a call panicked while it held the store (its transaction was rolled back)")]
    Poisoned,
}

navguard::closed_set! {
    /// Where an action stands (the store's own names, not the wire's).
    pub enum ActionState("action state") {
        /// Planned, not handed out yet.
        Planned = "planned",
        /// Handed out; handed out again (same id) until reported.
        Delivered = "delivered",
        /// High risk: waits for `confirm`.
        AwaitingConfirmation = "awaiting-confirmation",
        Reported = "reported",
        /// The user denied it; it will never run.
        Denied = "denied",
        /// It changes a page on an origin the user has not granted: waits for their word.
        AwaitingPermission = "awaiting-permission",
        /// The user refused its origin; it will never run.
        NotPermitted = "not-permitted",
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY, goal TEXT NOT NULL, url TEXT, status TEXT NOT NULL, summary TEXT, error TEXT,
    steps INTEGER NOT NULL DEFAULT 0, observation TEXT, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS actions (
    action_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, target TEXT,
    params TEXT NOT NULL, risk TEXT NOT NULL, requires_confirmation INTEGER NOT NULL, confirmed INTEGER NOT NULL,
    state TEXT NOT NULL, observation TEXT, UNIQUE (task_id, seq));
CREATE TABLE IF NOT EXISTS model_tasks (task_id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS grants (origin TEXT PRIMARY KEY, granted INTEGER NOT NULL, ts INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS permission_waits (
    action_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, origin TEXT NOT NULL);";

/// The store: one connection, one caller at a time. Its calls block (SQLite syncs to disk): the
/// service runs them off the async runtime.
#[derive(Debug)]
pub(crate) struct Store {
    conn: Mutex<Connection>,
}

impl Store {
    /// Opens (or makes) `dir/orchestrator.db`.
    pub(crate) fn open(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Io { path: dir.to_owned(), source })?;
        let conn = Connection::open(dir.join("orchestrator.db"))?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;")?;
        conn.execute_batch(SCHEMA)?;
        Ok(Self { conn: Mutex::new(conn) })
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn.lock().map_err(|_| {
            // The call that panicked dropped its transaction as it unwound, which rolled it
            // back: the connection is sound. This call is answered as failed (the service cannot
            // tell what the panic left undone elsewhere), and the next one goes on.
            self.conn.clear_poison();
            StoreError::Poisoned
        })
    }

    /// Runs `work` in one transaction, committed (synced to disk) only if it succeeds; an error
    /// rolls everything it wrote back.
    pub(crate) fn write<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(StoreError::from)?;
        let done = work(&tx)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(done)
    }

    /// Runs `work`, which only reads.
    pub(crate) fn read<T, E: From<StoreError>>(&self, work: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        let conn = self.lock()?;
        work(&conn)
    }
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// One action row: the action and where it stands.
#[derive(Debug)]
pub(crate) struct ActionRow {
    pub(crate) action: Action,
    pub(crate) state: ActionState,
}

/// A task as `status` shows it, less its pending action.
#[derive(Debug)]
pub(crate) struct TaskRow {
    pub(crate) status: TaskStatus,
    pub(crate) steps: u64,
    pub(crate) summary: Option<String>,
    pub(crate) error: Option<String>,
}

// Tasks.

pub(crate) fn insert_task(
    tx: &Transaction<'_>,
    task_id: &str,
    goal: &str,
    url: Option<&str>,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO tasks (task_id, goal, url, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![task_id, goal, url, TaskStatus::Running.name(), now_ms()],
    )?;
    Ok(())
}

/// The task is planned by the model, a step at a time.
pub(crate) fn insert_model_task(tx: &Transaction<'_>, task_id: &str) -> Result<(), StoreError> {
    tx.execute("INSERT INTO model_tasks (task_id) VALUES (?1)", [task_id])?;
    Ok(())
}

/// `None` if there is no such task.
pub(crate) fn task_status(conn: &Connection, task_id: &str) -> Result<Option<TaskStatus>, StoreError> {
    let status: Option<String> =
        conn.query_row("SELECT status FROM tasks WHERE task_id = ?1", [task_id], |r| r.get(0)).optional()?;
    Ok(status.map(|s| parse_status(&s)))
}

/// A status this version does not know (a newer one wrote it) reads as ended: nothing more is
/// handed out for it.
fn parse_status(text: &str) -> TaskStatus {
    text.parse().unwrap_or(TaskStatus::Failed)
}

pub(crate) fn task_row(conn: &Connection, task_id: &str) -> Result<Option<TaskRow>, StoreError> {
    let row = conn
        .query_row("SELECT status, steps, summary, error FROM tasks WHERE task_id = ?1", [task_id], |r| {
            let status: String = r.get(0)?;
            let steps: i64 = r.get(1)?;
            Ok(TaskRow {
                status: parse_status(&status),
                steps: u64::try_from(steps).unwrap_or_default(),
                summary: r.get(2)?,
                error: r.get(3)?,
            })
        })
        .optional()?;
    Ok(row)
}

/// The task's goal and url; `None` if there is no such task.
pub(crate) fn task_goal(conn: &Connection, task_id: &str) -> Result<Option<(String, Option<String>)>, StoreError> {
    let goal = conn
        .query_row("SELECT goal, url FROM tasks WHERE task_id = ?1", [task_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(goal)
}

pub(crate) fn is_model_task(conn: &Connection, task_id: &str) -> Result<bool, StoreError> {
    Ok(conn.query_row("SELECT 1 FROM model_tasks WHERE task_id = ?1", [task_id], |_| Ok(())).optional()?.is_some())
}

pub(crate) fn task_url(conn: &Connection, task_id: &str) -> Result<Option<String>, StoreError> {
    let url: Option<Option<String>> =
        conn.query_row("SELECT url FROM tasks WHERE task_id = ?1", [task_id], |r| r.get(0)).optional()?;
    Ok(url.flatten())
}

pub(crate) fn set_status(tx: &Transaction<'_>, task_id: &str, status: TaskStatus) -> Result<(), StoreError> {
    tx.execute("UPDATE tasks SET status = ?2 WHERE task_id = ?1", params![task_id, status.name()])?;
    Ok(())
}

pub(crate) fn set_failed(tx: &Transaction<'_>, task_id: &str, error: &str) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE tasks SET status = ?2, error = ?3 WHERE task_id = ?1",
        params![task_id, TaskStatus::Failed.name(), error],
    )?;
    Ok(())
}

pub(crate) fn set_succeeded(tx: &Transaction<'_>, task_id: &str, summary: &str) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE tasks SET status = ?2, summary = ?3 WHERE task_id = ?1",
        params![task_id, TaskStatus::Succeeded.name(), summary],
    )?;
    Ok(())
}

/// The tasks `next` may hand out an action of, oldest first.
pub(crate) fn live_tasks(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT task_id FROM tasks WHERE status IN (?1, ?2) ORDER BY created_at, task_id")?;
    let ids = stmt
        .query_map([TaskStatus::Running.name(), TaskStatus::WaitingPage.name()], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

/// The `limit` tasks started last, newest first.
pub(crate) fn recent_tasks(conn: &Connection, limit: usize) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT task_id FROM tasks ORDER BY created_at DESC, task_id DESC LIMIT ?1")?;
    let ids = stmt.query_map([limit as i64], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

/// The model's live tasks with no action open, oldest first: each needs the model's next step.
pub(crate) fn model_tasks_without_a_step(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT t.task_id FROM tasks t JOIN model_tasks m ON m.task_id = t.task_id
         WHERE t.status IN (?1, ?2) AND NOT EXISTS (
           SELECT 1 FROM actions a WHERE a.task_id = t.task_id AND a.state IN (?3, ?4, ?5, ?6))
         ORDER BY t.created_at, t.task_id",
    )?;
    let ids = stmt
        .query_map(
            params![
                TaskStatus::Running.name(),
                TaskStatus::WaitingPage.name(),
                ActionState::Planned.name(),
                ActionState::Delivered.name(),
                ActionState::AwaitingConfirmation.name(),
                ActionState::AwaitingPermission.name()
            ],
            |r| r.get::<_, String>(0),
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ids)
}

/// The page after the task's last reported action (as stored: redacted).
pub(crate) fn last_observation(conn: &Connection, task_id: &str) -> Result<Option<Observation>, StoreError> {
    let text: Option<Option<String>> =
        conn.query_row("SELECT observation FROM tasks WHERE task_id = ?1", [task_id], |r| r.get(0)).optional()?;
    Ok(text.flatten().and_then(|t| serde_json::from_str(&t).ok()))
}

// Actions.

/// A new action, the task's `seq`th, as planned: low risk until it is judged on the page, not
/// confirmed.
pub(crate) fn insert_action(
    tx: &Transaction<'_>,
    task_id: &str,
    seq: usize,
    kind: ToolName,
    target: Option<&Target>,
    params: Map<String, Value>,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO actions (action_id, task_id, seq, kind, target, params, risk, requires_confirmation, confirmed, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0, ?8)",
        params![
            super::ids::action_id(task_id, seq),
            task_id,
            seq as i64,
            kind.name(),
            target.map(|t| serde_json::to_string(t).unwrap_or_default()),
            Value::Object(params).to_string(),
            Risk::Low.name(),
            ActionState::Planned.name()
        ],
    )?;
    Ok(())
}

/// How many actions the task has (the next one's sequence number).
pub(crate) fn count_actions(conn: &Connection, task_id: &str) -> Result<usize, StoreError> {
    let n: i64 = conn.query_row("SELECT COUNT(*) FROM actions WHERE task_id = ?1", [task_id], |r| r.get(0))?;
    Ok(usize::try_from(n).unwrap_or_default())
}

/// The action is handed out, judged `risk`.
pub(crate) fn set_delivered(tx: &Transaction<'_>, action: &Action) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE actions SET state = ?2, risk = ?3, requires_confirmation = ?4 WHERE action_id = ?1",
        params![action.action_id, ActionState::Delivered.name(), action.risk.name(), action.requires_confirmation],
    )?;
    Ok(())
}

/// The action waits for the user, judged `risk`.
pub(crate) fn set_awaiting_confirmation(tx: &Transaction<'_>, action: &Action) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE actions SET state = ?2, risk = ?3, requires_confirmation = 1 WHERE action_id = ?1",
        params![action.action_id, ActionState::AwaitingConfirmation.name(), action.risk.name()],
    )?;
    Ok(())
}

/// The user's answer: approved, the action is planned again (confirmed); denied, it never runs.
pub(crate) fn set_confirmation(tx: &Transaction<'_>, action_id: &str, approved: bool) -> Result<(), StoreError> {
    let state = if approved { ActionState::Planned } else { ActionState::Denied };
    tx.execute(
        "UPDATE actions SET state = ?2, confirmed = ?3 WHERE action_id = ?1",
        params![action_id, state.name(), approved],
    )?;
    Ok(())
}

/// The action is now in `state` (planned again once its origin is granted, never run once it
/// is refused), nothing else of it changed.
pub(crate) fn set_state(tx: &Transaction<'_>, action_id: &str, state: ActionState) -> Result<(), StoreError> {
    tx.execute("UPDATE actions SET state = ?2 WHERE action_id = ?1", params![action_id, state.name()])?;
    Ok(())
}

/// The action ran: its observation (already redacted) is kept on it and on its task, which
/// counts one more step and runs on.
pub(crate) fn set_reported(
    tx: &Transaction<'_>,
    task_id: &str,
    action_id: &str,
    observation: &Observation,
) -> Result<(), StoreError> {
    let stored = serde_json::to_string(observation).unwrap_or_else(|_| "null".into());
    tx.execute(
        "UPDATE actions SET state = ?2, observation = ?3 WHERE action_id = ?1",
        params![action_id, ActionState::Reported.name(), stored],
    )?;
    tx.execute(
        "UPDATE tasks SET status = ?2, steps = steps + 1, observation = ?3 WHERE task_id = ?1",
        params![task_id, TaskStatus::Running.name(), stored],
    )?;
    Ok(())
}

const ACTION_COLUMNS: &str = "action_id, task_id, kind, target, params, risk, requires_confirmation, confirmed, state";

/// A name column, strictly: a row whose tool this version does not know cannot become an action.
fn name_column<T>(r: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<T>
where
    T: FromStr<Err = navguard::names::UnknownName>,
{
    let text: String = r.get(index)?;
    text.parse().map_err(|e| rusqlite::Error::FromSqlConversionFailure(index, Type::Text, Box::new(e)))
}

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ActionRow> {
    let target: Option<String> = r.get(3)?;
    let params: String = r.get(4)?;
    let risk: String = r.get(5)?;
    let state: String = r.get(8)?;
    Ok(ActionRow {
        action: Action {
            action_id: r.get(0)?,
            task_id: r.get(1)?,
            kind: name_column(r, 2)?,
            target: target.and_then(|t| serde_json::from_str(&t).ok()),
            params: serde_json::from_str(&params).unwrap_or_default(),
            // Unreadable, the safe reading: judged high, and never handed out again.
            risk: risk.parse().unwrap_or(Risk::High),
            requires_confirmation: r.get(6)?,
            confirmed: r.get(7)?,
            task_url: None,
            granted_origin: None,
        },
        state: state.parse().unwrap_or(ActionState::Denied),
    })
}

/// The task's first action in one of `states`, in plan order.
fn first_in(conn: &Connection, task_id: &str, states: &[ActionState]) -> Result<Option<ActionRow>, StoreError> {
    let names: Vec<String> = states.iter().map(|s| format!("'{}'", s.name())).collect();
    // The names are the closed set's own constants, never a caller's text.
    let sql = format!(
        "SELECT {ACTION_COLUMNS} FROM actions WHERE task_id = ?1 AND state IN ({}) ORDER BY seq LIMIT 1",
        names.join(", ")
    );
    Ok(conn.query_row(&sql, [task_id], read_row).optional()?)
}

/// The action `next` hands out: the one in flight, or else the next planned one.
pub(crate) fn first_open(conn: &Connection, task_id: &str) -> Result<Option<ActionRow>, StoreError> {
    first_in(conn, task_id, &[ActionState::Planned, ActionState::Delivered])
}

/// The action `status` shows as pending: in flight, or awaiting the user's confirmation or
/// permission.
pub(crate) fn pending_action(conn: &Connection, task_id: &str) -> Result<Option<Action>, StoreError> {
    let states = [ActionState::Delivered, ActionState::AwaitingConfirmation, ActionState::AwaitingPermission];
    Ok(first_in(conn, task_id, &states)?.map(|r| r.action))
}

pub(crate) fn action_row(conn: &Connection, task_id: &str, action_id: &str) -> Result<Option<ActionRow>, StoreError> {
    let sql = format!("SELECT {ACTION_COLUMNS} FROM actions WHERE task_id = ?1 AND action_id = ?2");
    Ok(conn.query_row(&sql, params![task_id, action_id], read_row).optional()?)
}

/// Every action of the task in plan order, each with the observation reported after it.
pub(crate) fn actions_with_observations(
    conn: &Connection,
    task_id: &str,
) -> Result<Vec<(ActionRow, Option<Observation>)>, StoreError> {
    let sql = format!("SELECT {ACTION_COLUMNS}, observation FROM actions WHERE task_id = ?1 ORDER BY seq");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map([task_id], |r| {
            let seen: Option<String> = r.get(9)?;
            Ok((read_row(r)?, seen.and_then(|s| serde_json::from_str::<Observation>(&s).ok())))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
