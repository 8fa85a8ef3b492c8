//! What the executor reports after an action: the observation is kept (redacted), the task goes
//! on, waits (for the page, or for the user when the executor refused an unconfirmed action), or
//! ends with a `done` the executor verified (or refused).

use super::{Machine, status_of};
use crate::audit::{AuditError, AuditEvent, AuditLine, Evidence};
use crate::model::{Action, Observation, ObservationCode, TaskStatus, ToolName};
use crate::service::ServiceError;
use crate::service::store::{self, ActionState};
use rusqlite::Transaction;
use serde_json::Value;

impl Machine {
    /// `report`: the observation after an action; `true` if it was a duplicate (nothing changed).
    pub(crate) fn report(
        &self,
        task_id: &str,
        action_id: &str,
        observation: &Observation,
    ) -> Result<(TaskStatus, bool), ServiceError> {
        self.store.write(|tx| {
            let status = status_of(tx, task_id)?;
            let row = store::action_row(tx, task_id, action_id)?.ok_or_else(|| {
                ServiceError::Conflict(format!("actionId: {action_id} was never handed out for task {task_id}"))
            })?;
            match row.state {
                ActionState::Reported | ActionState::Denied | ActionState::NotPermitted => return Ok((status, true)),
                ActionState::Planned | ActionState::AwaitingConfirmation | ActionState::AwaitingPermission => {
                    return Err(ServiceError::Conflict(format!(
                        "actionId: {action_id} is not in flight ({})",
                        row.state
                    )));
                }
                ActionState::Delivered => {}
            }
            if status.is_final() {
                return Err(ServiceError::Conflict(format!("taskId: task {task_id} has ended ({status})")));
            }
            Ok((self.record_report(tx, &row.action, observation)?, false))
        })
    }

    fn record_report(
        &self,
        tx: &Transaction<'_>,
        action: &Action,
        observation: &Observation,
    ) -> Result<TaskStatus, ServiceError> {
        let task_id = &action.task_id;
        let screenshots = self.audit.screenshots(task_id, &action.action_id, &observation.artifacts.screenshots)?;
        // Kept redacted: what the model is given later is read back from the store.
        let stored = Observation { artifacts: Default::default(), ..observation.clone() };
        let stored = self.audit.redactor().redacted(&stored).map_err(AuditError::Encode)?;
        let seen = |event| AuditLine {
            observation: Some(stored.clone()),
            screenshots: Some(screenshots.clone()),
            ..AuditLine::new(event, task_id, Some(&action.action_id))
        };
        if observation.has(ObservationCode::PermissionDenied)
            && let Some(origin) = self.refused_origin(tx, action, &observation.url)?
        {
            self.append(&seen(AuditEvent::RefusedNotPermitted))?;
            return self.await_origin(tx, action, origin);
        }
        if observation.has(ObservationCode::ConfirmationRequired) {
            self.append(&seen(AuditEvent::RefusedUnconfirmed))?;
            self.await_confirmation(tx, action)?;
            return Ok(TaskStatus::WaitingConfirmation);
        }
        if observation.has(ObservationCode::NavigationInProgress) {
            // The action did not run: it is handed out again once the page has settled.
            store::set_status(tx, task_id, TaskStatus::WaitingPage)?;
            self.append(&seen(AuditEvent::WaitingPage))?;
            return Ok(TaskStatus::WaitingPage);
        }
        store::set_reported(tx, task_id, &action.action_id, &stored)?;
        if action.kind == ToolName::Done {
            return self.record_done(tx, action, observation, Evidence { observation: stored, screenshots });
        }
        self.append(&seen(AuditEvent::Reported))?;
        Ok(TaskStatus::Running)
    }

    /// A reported `done`: the executor ran it through the core's closed loop. Verified (no
    /// error), the task succeeds, the audit keeps the evidence (the page it was verified on);
    /// refused, a model is told why and plans on, a scripted plan fails with the reason.
    fn record_done(
        &self,
        tx: &Transaction<'_>,
        action: &Action,
        observation: &Observation,
        evidence: Evidence,
    ) -> Result<TaskStatus, ServiceError> {
        let task_id = &action.task_id;
        let Some(refusal) = observation.errors.first() else {
            let summary = action.params.get("summary").and_then(Value::as_str).unwrap_or_default();
            store::set_succeeded(tx, task_id, summary)?;
            self.append(&AuditLine {
                summary: Some(summary.to_owned()),
                verified: Some(evidence),
                ..AuditLine::new(AuditEvent::Succeeded, task_id, Some(&action.action_id))
            })?;
            return Ok(TaskStatus::Succeeded);
        };
        self.append(&AuditLine {
            observation: Some(evidence.observation),
            screenshots: Some(evidence.screenshots),
            ..AuditLine::new(AuditEvent::DoneRefused, task_id, Some(&action.action_id))
        })?;
        if store::is_model_task(tx, task_id)? {
            return Ok(TaskStatus::Running);
        }
        // The executor's reason as it gave it (ours: `done: refused: verification failed: …`).
        let error = match self.audit.redactor().text(&refusal.message) {
            reason if reason.trim().is_empty() => "done was refused (the executor gave no reason)".to_owned(),
            reason => reason,
        };
        self.mark_failed(tx, task_id, &error)?;
        Ok(TaskStatus::Failed)
    }
}
