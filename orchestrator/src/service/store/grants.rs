//! The user's word on sites (`--permissions ask`): a grant or a refusal per origin, kept across
//! restarts, and the actions that wait for one.

use super::{ActionState, StoreError, now_ms};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

/// The user's word on one origin, and when they gave it (ms since the epoch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub origin: String,
    pub granted: bool,
    pub ts: i64,
}

/// Grants or refuses `origin` from now on (a later word replaces an earlier one).
pub(crate) fn set_grant(tx: &Transaction<'_>, origin: &str, granted: bool) -> Result<Grant, StoreError> {
    let ts = now_ms();
    tx.execute(
        "INSERT INTO grants (origin, granted, ts) VALUES (?1, ?2, ?3)
         ON CONFLICT (origin) DO UPDATE SET granted = excluded.granted, ts = excluded.ts",
        params![origin, granted, ts],
    )?;
    Ok(Grant { origin: origin.to_owned(), granted, ts })
}

/// The user's word on `origin`: `None` if they gave none.
pub(crate) fn grant_of(conn: &Connection, origin: &str) -> Result<Option<bool>, StoreError> {
    Ok(conn.query_row("SELECT granted FROM grants WHERE origin = ?1", [origin], |r| r.get(0)).optional()?)
}

/// Every origin the user gave their word on, in the order of the origins' names.
pub(crate) fn grants(conn: &Connection) -> Result<Vec<Grant>, StoreError> {
    let mut stmt = conn.prepare("SELECT origin, granted, ts FROM grants ORDER BY origin")?;
    let rows = stmt
        .query_map([], |r| Ok(Grant { origin: r.get(0)?, granted: r.get(1)?, ts: r.get(2)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The action waits for the user's word on `origin`.
pub(crate) fn set_awaiting_permission(
    tx: &Transaction<'_>,
    task_id: &str,
    action_id: &str,
    origin: &str,
) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE actions SET state = ?2 WHERE action_id = ?1",
        params![action_id, ActionState::AwaitingPermission.name()],
    )?;
    tx.execute(
        "INSERT INTO permission_waits (action_id, task_id, origin) VALUES (?1, ?2, ?3)
         ON CONFLICT (action_id) DO UPDATE SET origin = excluded.origin",
        params![action_id, task_id, origin],
    )?;
    Ok(())
}

/// The actions (task, action) that wait for the user's word on `origin`, oldest task first.
pub(crate) fn awaiting_permission(conn: &Connection, origin: &str) -> Result<Vec<(String, String)>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT w.task_id, w.action_id FROM permission_waits w JOIN actions a ON a.action_id = w.action_id
         WHERE w.origin = ?1 AND a.state = ?2 ORDER BY w.task_id, w.action_id",
    )?;
    let rows = stmt
        .query_map(params![origin, ActionState::AwaitingPermission.name()], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The origin the action last waited for the user's word on, if it ever did.
pub(crate) fn waited_origin(conn: &Connection, action_id: &str) -> Result<Option<String>, StoreError> {
    Ok(conn
        .query_row("SELECT origin FROM permission_waits WHERE action_id = ?1", [action_id], |r| r.get(0))
        .optional()?)
}

/// The origin the task's action waits for the user's word on, if one does.
pub(crate) fn pending_permission(conn: &Connection, task_id: &str) -> Result<Option<String>, StoreError> {
    let origin = conn
        .query_row(
            "SELECT w.origin FROM permission_waits w JOIN actions a ON a.action_id = w.action_id
             WHERE w.task_id = ?1 AND a.state = ?2",
            params![task_id, ActionState::AwaitingPermission.name()],
            |r| r.get(0),
        )
        .optional()?;
    Ok(origin)
}
