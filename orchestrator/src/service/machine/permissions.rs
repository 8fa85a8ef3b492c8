//! Site permissions (`--permissions ask`): an action that changes a page is handed out only on
//! an origin the user granted; it waits for their word on any other (the task shows
//! `pendingPermission`); a refused origin drops it, as a denied confirmation does. The user's
//! word moves every task waiting on that origin at once, and is kept across restarts.

use super::{Machine, status_of};
use crate::audit::{AuditEvent, AuditLine};
use crate::model::{Action, Observation, TaskStatus};
use crate::permissions::{PermissionMode, needs_grant, origin_of};
use crate::service::store::{self, ActionState, Grant};
use crate::service::{ServiceError, shown};
use rusqlite::{Connection, Transaction};

/// Whether an action may be handed out, as far as site permissions go.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Permission {
    /// It needs no grant, or its origin is granted (the action carries it).
    Go,
    /// It waits for the user's word on its origin.
    Waiting,
    /// The user refused its origin: it was dropped.
    Refused,
}

impl Machine {
    /// The origin of the page `action` acts on: the one it waited for the user's word on (the
    /// executor may have found the page moved there), else the page last reported (`observed`),
    /// else the task's url the action carries (the executor opens it first), else none (`null`).
    fn page_origin(conn: &Connection, action: &Action, observed: Option<&Observation>) -> Result<String, ServiceError> {
        if let Some(origin) = store::waited_origin(conn, &action.action_id)? {
            return Ok(origin);
        }
        Ok(super::page_url(observed, action.task_url.as_deref()).map_or_else(|| "null".to_owned(), origin_of))
    }

    /// Judges `action` (about to be handed out, on the page last reported: `observed`) by the
    /// user's word on its page's origin; a granted one carries the origin, for the executor's
    /// last check.
    pub(super) fn permission(
        &self,
        tx: &Transaction<'_>,
        action: &mut Action,
        observed: Option<&Observation>,
    ) -> Result<Permission, ServiceError> {
        if self.permissions == PermissionMode::Open || !needs_grant(action.kind) {
            return Ok(Permission::Go);
        }
        let origin = Self::page_origin(tx, action, observed)?;
        self.permission_on(tx, action, origin)
    }

    /// An action handed out again (in flight) carries its grant again: nothing was reported
    /// since, so its page is the one it was granted on.
    pub(super) fn carry_grant(&self, conn: &Connection, action: &mut Action) -> Result<(), ServiceError> {
        if self.permissions == PermissionMode::Ask && needs_grant(action.kind) {
            let observed = store::last_observation(conn, &action.task_id)?;
            action.granted_origin = Some(Self::page_origin(conn, action, observed.as_ref())?);
        }
        Ok(())
    }

    /// The origin the executor refused `action` on, if its `PERMISSION_DENIED` report is that
    /// refusal: the page was on `url` when it was about to run, an origin not granted, so the
    /// action did not run. `None` if the report is no such refusal (the service does not ask,
    /// the tool needs no grant, or the origin is granted: a failure of the action itself).
    pub(super) fn refused_origin(
        &self,
        conn: &Connection,
        action: &Action,
        url: &str,
    ) -> Result<Option<String>, ServiceError> {
        if self.permissions == PermissionMode::Open || !needs_grant(action.kind) {
            return Ok(None);
        }
        let origin = origin_of(url);
        Ok((store::grant_of(conn, &origin)? != Some(true)).then_some(origin))
    }

    /// The action the executor refused on `origin` waits for the user's word on it (or is
    /// dropped, if they refused it already).
    pub(super) fn await_origin(
        &self,
        tx: &Transaction<'_>,
        action: &Action,
        origin: String,
    ) -> Result<TaskStatus, ServiceError> {
        let mut action = action.clone();
        Ok(match self.permission_on(tx, &mut action, origin)? {
            Permission::Waiting => TaskStatus::WaitingConfirmation,
            Permission::Go | Permission::Refused => {
                store::set_status(tx, &action.task_id, TaskStatus::Running)?;
                TaskStatus::Running
            }
        })
    }

    /// Judges `action` by the user's word on `origin`.
    pub(super) fn permission_on(
        &self,
        tx: &Transaction<'_>,
        action: &mut Action,
        origin: String,
    ) -> Result<Permission, ServiceError> {
        match store::grant_of(tx, &origin)? {
            Some(true) => {
                action.granted_origin = Some(origin);
                Ok(Permission::Go)
            }
            Some(false) => {
                store::set_state(tx, &action.action_id, ActionState::NotPermitted)?;
                self.append(&AuditLine {
                    origin: Some(origin),
                    ..AuditLine::new(AuditEvent::PermissionRefused, &action.task_id, Some(&action.action_id))
                })?;
                Ok(Permission::Refused)
            }
            None => {
                store::set_awaiting_permission(tx, &action.task_id, &action.action_id, &origin)?;
                store::set_status(tx, &action.task_id, TaskStatus::WaitingConfirmation)?;
                let observed = store::last_observation(tx, &action.task_id)?;
                self.append(&AuditLine {
                    action: Some(shown::audited_action(action, observed.as_ref())),
                    origin: Some(origin),
                    ..AuditLine::new(AuditEvent::PermissionRequested, &action.task_id, Some(&action.action_id))
                })?;
                Ok(Permission::Waiting)
            }
        }
    }

    /// `POST /api/agent/permissions`: the user's word on `origin` (already in browsers' form),
    /// kept from now on. Every action waiting on it moves: granted, it is handed out next (its
    /// risk still judged); refused, it is dropped and its task goes on.
    pub(crate) fn set_permission(&self, origin: &str, granted: bool) -> Result<Grant, ServiceError> {
        self.store.write(|tx| {
            let grant = store::set_grant(tx, origin, granted)?;
            for (task_id, action_id) in store::awaiting_permission(tx, origin)? {
                if status_of(tx, &task_id)?.is_final() {
                    continue;
                }
                let event = if granted {
                    store::set_state(tx, &action_id, ActionState::Planned)?;
                    AuditEvent::PermissionGranted
                } else {
                    store::set_state(tx, &action_id, ActionState::NotPermitted)?;
                    AuditEvent::PermissionRefused
                };
                store::set_status(tx, &task_id, TaskStatus::Running)?;
                self.append(&AuditLine {
                    origin: Some(origin.to_owned()),
                    ..AuditLine::new(event, &task_id, Some(&action_id))
                })?;
            }
            Ok(grant)
        })
    }

    /// `GET /api/agent/permissions`: every origin the user gave their word on.
    pub(crate) fn permissions(&self) -> Result<Vec<Grant>, ServiceError> {
        Ok(self.store.read(store::grants)?)
    }
}

#[cfg(test)]
mod tests {
    //! Site permissions without HTTP: an action that changes a page waits for its origin's grant;
    //! the user's word moves every task waiting on it and outlives a restart.
    use super::*;
    use crate::model::{Observation, ObservationCode, PlanStep, ReportedError, ToolName};
    use crate::service::ServiceOptions;
    use crate::service::store::ActionState;
    use serde_json::{Value, json};

    const SHOP: &str = "http://127.0.0.1:1";

    fn asking(dir: &std::path::Path) -> Machine {
        let options = ServiceOptions { permissions: PermissionMode::Ask, ..ServiceOptions::default() };
        Machine::open(dir, options).unwrap()
    }

    fn step(round: u32, tool: ToolName, args: Value) -> PlanStep {
        PlanStep { round, tool, args: args.as_object().cloned().unwrap_or_default() }
    }

    /// Navigate (no grant needed), click a plain link (needs one), done.
    fn plan() -> Vec<PlanStep> {
        vec![
            step(1, ToolName::Navigate, json!({"url": format!("{SHOP}/page")})),
            step(2, ToolName::Click, json!({"selector": "#go"})),
            step(3, ToolName::Done, json!({"summary": "went"})),
        ]
    }

    fn page(url: &str) -> Observation {
        Observation { url: url.into(), ..Observation::default() }
    }

    fn next(machine: &Machine, task: &str) -> (Option<Action>, TaskStatus) {
        let (action, status) = machine.next_except(Some(task), &[]).unwrap();
        (action, status.unwrap())
    }

    /// Runs the navigate: the page is on the shop.
    fn navigated(machine: &Machine, task: &str) {
        let (navigate, _) = next(machine, task);
        let navigate = navigate.unwrap();
        assert_eq!((navigate.kind, navigate.granted_origin.as_deref()), (ToolName::Navigate, None));
        machine.report(task, &navigate.action_id, &page(&format!("{SHOP}/page"))).unwrap();
    }

    fn events(machine: &Machine, task: &str) -> Vec<AuditEvent> {
        let log = machine.audit_log(task).unwrap();
        log.lines().map(|l| serde_json::from_str::<AuditLine>(l).unwrap().event).collect()
    }

    #[test]
    fn a_click_waits_for_its_origin_s_grant_and_the_grant_hands_it_out_carrying_the_origin() {
        let dir = tempfile::tempdir().unwrap();
        let machine = asking(dir.path());
        let (task, _) = machine.start("go", None, &plan()).unwrap();
        navigated(&machine, &task);
        assert_eq!(next(&machine, &task), (None, TaskStatus::WaitingConfirmation));
        let view = machine.status(&task).unwrap();
        assert_eq!(view.pending_permission.as_deref(), Some(SHOP));
        assert_eq!(view.pending.map(|a| a.kind), Some(ToolName::Click), "the action it is for is shown beside it");
        assert_eq!(next(&machine, &task), (None, TaskStatus::WaitingConfirmation), "asked once, still waiting");

        let grant = machine.set_permission(SHOP, true).unwrap();
        assert_eq!((grant.origin.as_str(), grant.granted), (SHOP, true));
        assert_eq!(machine.status(&task).unwrap().pending_permission, None);
        let (click, status) = next(&machine, &task);
        let click = click.unwrap();
        assert_eq!(
            (click.kind, click.granted_origin.as_deref(), status),
            (ToolName::Click, Some(SHOP), TaskStatus::Running)
        );
        let (again, _) = next(&machine, &task);
        assert_eq!(again.unwrap().granted_origin.as_deref(), Some(SHOP), "handed out again, still carrying it");
        let ran = &events(&machine, &task);
        let from = ran.iter().position(|e| *e == AuditEvent::PermissionRequested).unwrap();
        assert_eq!(
            &ran[from..],
            [AuditEvent::PermissionRequested, AuditEvent::PermissionGranted, AuditEvent::Dispatched]
        );
    }

    #[test]
    fn a_refused_origin_drops_the_action_and_every_later_one_on_it_and_the_task_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let machine = asking(dir.path());
        let mut twice = plan();
        twice.insert(2, step(3, ToolName::PressKey, json!({"key": "Enter"})));
        twice[3].round = 4;
        let (task, _) = machine.start("go", None, &twice).unwrap();
        navigated(&machine, &task);
        assert_eq!(next(&machine, &task), (None, TaskStatus::WaitingConfirmation));
        machine.set_permission(SHOP, false).unwrap();
        // The click is dropped; the key press on the same refused origin is dropped at once.
        let (done, status) = next(&machine, &task);
        assert_eq!((done.map(|a| a.kind), status), (Some(ToolName::Done), TaskStatus::Running));
        let states: Vec<ActionState> = machine
            .store
            .read(|c| store::actions_with_observations(c, &task))
            .unwrap()
            .into_iter()
            .map(|(row, _)| row.state)
            .collect();
        assert_eq!(states[1..3], [ActionState::NotPermitted, ActionState::NotPermitted]);
        let refused = events(&machine, &task).iter().filter(|e| **e == AuditEvent::PermissionRefused).count();
        assert_eq!(refused, 2);
    }

    #[test]
    fn the_user_s_word_outlives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        {
            let machine = asking(dir.path());
            machine.set_permission(SHOP, true).unwrap();
            machine.set_permission("http://127.0.0.2:1", false).unwrap();
        }
        let machine = asking(dir.path());
        let kept: Vec<(String, bool)> =
            machine.permissions().unwrap().into_iter().map(|g| (g.origin, g.granted)).collect();
        assert_eq!(kept, [(SHOP.to_owned(), true), ("http://127.0.0.2:1".to_owned(), false)]);
        let (task, _) = machine.start("go", None, &plan()).unwrap();
        navigated(&machine, &task);
        let (click, _) = next(&machine, &task);
        assert_eq!(click.unwrap().granted_origin.as_deref(), Some(SHOP), "granted before the restart: no wait");
    }

    #[test]
    fn the_executor_s_last_moment_refusal_waits_on_the_origin_the_page_moved_to() {
        let dir = tempfile::tempdir().unwrap();
        let machine = asking(dir.path());
        machine.set_permission(SHOP, true).unwrap();
        let (task, _) = machine.start("go", None, &plan()).unwrap();
        navigated(&machine, &task);
        let (click, _) = next(&machine, &task);
        let click = click.unwrap();
        let moved = Observation {
            errors: vec![ReportedError { code: ObservationCode::PermissionDenied.into(), message: "moved".into() }],
            ..page("http://127.0.0.2:1/elsewhere")
        };
        assert_eq!(machine.report(&task, &click.action_id, &moved).unwrap(), (TaskStatus::WaitingConfirmation, false));
        assert_eq!(machine.status(&task).unwrap().pending_permission.as_deref(), Some("http://127.0.0.2:1"));
        machine.set_permission("http://127.0.0.2:1", true).unwrap();
        let (again, _) = next(&machine, &task);
        let again = again.unwrap();
        assert_eq!(
            (again.action_id.as_str(), again.granted_origin.as_deref()),
            (click.action_id.as_str(), Some("http://127.0.0.2:1"))
        );
        // A PERMISSION_DENIED on a granted origin is the action's own failure (a restricted URL):
        // reported as any other.
        let restricted = Observation { url: format!("{SHOP}/page"), ..moved };
        assert_eq!(machine.report(&task, &again.action_id, &restricted).unwrap(), (TaskStatus::Running, false));
        let ran = events(&machine, &task);
        assert!(ran.contains(&AuditEvent::RefusedNotPermitted) && ran.ends_with(&[AuditEvent::Reported]), "{ran:?}");
    }

    #[test]
    fn with_permissions_open_nothing_waits_and_no_action_carries_a_grant() {
        let dir = tempfile::tempdir().unwrap();
        let machine = Machine::open(dir.path(), ServiceOptions::default()).unwrap();
        let (task, _) = machine.start("go", None, &plan()).unwrap();
        navigated(&machine, &task);
        let (click, status) = next(&machine, &task);
        assert_eq!((click.unwrap().granted_origin, status), (None, TaskStatus::Running));
    }
}
