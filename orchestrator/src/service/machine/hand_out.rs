//! Handing actions out: `next` (the action in flight again, with the same id, or the next planned
//! one, judged on the page last observed; a high one waits for the user) and `confirm` (the
//! user's answer to one that waits).

use super::permissions::Permission;
use super::{Machine, status_of};
use crate::audit::{AuditEvent, AuditLine, Confirmation};
use crate::model::{Action, Risk, TaskStatus};
use crate::service::store::{self, ActionRow, ActionState};
use crate::service::{PLAN_ENDED, ServiceError, shown};
use rusqlite::Transaction;

impl Machine {
    /// `next`, passing over the tasks in `except` when no task is named (an executor asks for
    /// new tasks while its runners poll their own): the task's action in flight (the same until
    /// reported), or its next one; `None` while it waits for a confirmation, or once it ended.
    pub(crate) fn next_except(
        &self,
        task_id: Option<&str>,
        except: &[String],
    ) -> Result<(Option<Action>, Option<TaskStatus>), ServiceError> {
        self.store.write(|tx| {
            let ids: Vec<String> = match task_id {
                Some(id) => vec![id.to_owned()],
                None => store::live_tasks(tx)?.into_iter().filter(|id| !except.contains(id)).collect(),
            };
            let mut last = None;
            for id in ids {
                let (action, status) = self.next_of(tx, &id)?;
                last = Some(status);
                if action.is_some() {
                    return Ok((action, Some(status)));
                }
            }
            Ok((None, last))
        })
    }

    fn next_of(&self, tx: &Transaction<'_>, task_id: &str) -> Result<(Option<Action>, TaskStatus), ServiceError> {
        let status = status_of(tx, task_id)?;
        if status.is_final() || status == TaskStatus::WaitingConfirmation {
            return Ok((None, status));
        }
        let Some(ActionRow { mut action, state }) = store::first_open(tx, task_id)? else {
            if store::is_model_task(tx, task_id)? {
                // The model's next step is being planned.
                return Ok((None, status));
            }
            // Only a done the executor verified on the page ends a task SUCCEEDED.
            self.mark_failed(tx, task_id, PLAN_ENDED)?;
            return Ok((None, TaskStatus::Failed));
        };
        action.task_url = store::task_url(tx, task_id)?;
        if state == ActionState::Planned {
            let observed = store::last_observation(tx, task_id)?;
            match self.permission(tx, &mut action, observed.as_ref())? {
                Permission::Go => {}
                Permission::Waiting => return Ok((None, TaskStatus::WaitingConfirmation)),
                // Dropped: the task's next action, if it has one.
                Permission::Refused => return self.next_of(tx, task_id),
            }
            let risk = self.risk_on(super::page_url(observed.as_ref(), action.task_url.as_deref()));
            action.risk = risk.classify(action.kind, action.target.as_ref(), &action.params, observed.as_ref());
            action.requires_confirmation |= action.risk == Risk::High;
            if action.requires_confirmation && !action.confirmed {
                self.await_confirmation(tx, &action)?;
                return Ok((None, TaskStatus::WaitingConfirmation));
            }
            store::set_delivered(tx, &action)?;
            self.append(&AuditLine {
                action: Some(shown::audited_action(&action, observed.as_ref())),
                risk: Some(action.risk),
                ..AuditLine::new(AuditEvent::Dispatched, task_id, Some(&action.action_id))
            })?;
        } else {
            self.carry_grant(tx, &mut action)?;
        }
        Ok((Some(action), status))
    }

    /// The action waits for the user (it is high risk, or the executor refused it unconfirmed).
    pub(super) fn await_confirmation(&self, tx: &Transaction<'_>, action: &Action) -> Result<(), ServiceError> {
        store::set_awaiting_confirmation(tx, action)?;
        store::set_status(tx, &action.task_id, TaskStatus::WaitingConfirmation)?;
        let observed = store::last_observation(tx, &action.task_id)?;
        self.append(&AuditLine {
            action: Some(shown::audited_action(action, observed.as_ref())),
            risk: Some(action.risk),
            ..AuditLine::new(AuditEvent::ConfirmationRequested, &action.task_id, Some(&action.action_id))
        })?;
        Ok(())
    }

    /// `confirm`: approves (handed out next, `confirmed: true`) or denies (dropped; the task goes
    /// on) an action that awaits confirmation.
    pub(crate) fn confirm(
        &self,
        task_id: &str,
        action_id: &str,
        approved: bool,
        reason: Option<&str>,
    ) -> Result<TaskStatus, ServiceError> {
        self.store.write(|tx| {
            let status = status_of(tx, task_id)?;
            if status.is_final() {
                return Err(ServiceError::Conflict(format!("taskId: task {task_id} has ended ({status})")));
            }
            let row = store::action_row(tx, task_id, action_id)?.ok_or_else(|| {
                ServiceError::Conflict(format!("actionId: {action_id} is no action of task {task_id}"))
            })?;
            if row.state != ActionState::AwaitingConfirmation {
                return Err(ServiceError::Conflict(format!(
                    "actionId: {action_id} does not await a confirmation ({})",
                    row.state
                )));
            }
            store::set_confirmation(tx, action_id, approved)?;
            store::set_status(tx, task_id, TaskStatus::Running)?;
            let event = if approved { AuditEvent::Confirmed } else { AuditEvent::Denied };
            self.append(&AuditLine {
                confirmation: Some(Confirmation { approved, reason: reason.map(str::to_owned) }),
                ..AuditLine::new(event, task_id, Some(action_id))
            })?;
            Ok(TaskStatus::Running)
        })
    }
}
