//! The rules: tasks and their actions. RUNNING → (WAITING_CONFIRMATION ⇄ RUNNING, WAITING_PAGE →
//! RUNNING)* → SUCCEEDED (a verified done) | FAILED | CANCELED; one action in flight per task,
//! handed out again with the same id until reported; a duplicate report changes nothing.
//!
//! Each call is one store transaction, and the audit lines it writes are synced before that
//! transaction commits: once a call returns, what it did is on disk, so a kill -9 at any moment
//! loses nothing that was answered. Its calls block on the disk: [`super::Service`] runs them off
//! the async runtime.

use super::store::{self, ActionRow, ActionState, Store};
use super::{MODEL_STEP_LIMIT, PLAN_ENDED, ServiceError, TaskView, ids::TaskIds, shown};
use crate::audit::{Audit, AuditError, AuditEvent, AuditLine, Confirmation, Evidence};
use crate::model::{Action, Observation, ObservationCode, PlanStep, Risk, Target, TaskStatus, ToolName};
use crate::planner::{PastStep, PlanningRequest};
use crate::redact::{redact_text, redacted};
use crate::risk::RiskPolicy;
use rusqlite::{Connection, Transaction};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The orchestrator's state and rules, over its store and audit.
#[derive(Debug)]
pub(crate) struct Machine {
    store: Store,
    audit: Audit,
    risk: RiskPolicy,
    ids: TaskIds,
    /// A model plans tasks started without a plan.
    model: bool,
}

/// A plan row as an action to store: its target taken out of its args.
struct Planned {
    round: u32,
    tool: ToolName,
    target: Option<Target>,
    params: Map<String, Value>,
}

/// The plan's rows as actions, in the order given; a row whose target is not the contract's
/// form is refused, named by its place in the request.
fn planned(plan: &[PlanStep]) -> Result<Vec<Planned>, ServiceError> {
    plan.iter()
        .enumerate()
        .map(|(i, step)| {
            let (target, params) = step
                .target_and_params()
                .map_err(|e| ServiceError::BadRequest(format!("plan[{i}].args.target: {e}")))?;
            Ok(Planned { round: step.round, tool: step.tool, target, params })
        })
        .collect()
}

impl Machine {
    /// Opens (or makes) the store and the audit under `dir`.
    pub(crate) fn open(dir: &Path, risk: RiskPolicy, model: bool) -> Result<Self, ServiceError> {
        let store = Store::open(dir)?;
        let audit = Audit::open(dir.join("audit"))?;
        Ok(Self { store, audit, risk, ids: TaskIds::default(), model })
    }

    /// The audit folder's file for a task.
    pub(crate) fn audit_path(&self, task_id: &str) -> PathBuf {
        self.audit.path(task_id)
    }

    /// `start`: a task with its plan; returns its id and status.
    pub(crate) fn start(
        &self,
        goal: &str,
        url: Option<&str>,
        plan: &[PlanStep],
    ) -> Result<(String, TaskStatus), ServiceError> {
        if plan.is_empty() && !self.model {
            return Err(ServiceError::BadRequest("plan: give at least one step (no model is configured)".into()));
        }
        let mut steps = planned(plan)?;
        steps.sort_by_key(|s| s.round);
        let task_id = self.ids.next();
        self.store.write(|tx| {
            store::insert_task(tx, &task_id, goal, url)?;
            for (seq, step) in steps.into_iter().enumerate() {
                store::insert_action(tx, &task_id, seq, step.tool, step.target.as_ref(), step.params)?;
            }
            if plan.is_empty() {
                store::insert_model_task(tx, &task_id)?;
            }
            self.audit.append(&AuditLine {
                goal: Some(goal.to_owned()),
                url: Some(url.map(str::to_owned)),
                plan: Some(shown::plan_as_audited(plan)),
                ..AuditLine::new(AuditEvent::Started, &task_id, None)
            })?;
            Ok((task_id.clone(), TaskStatus::Running))
        })
    }

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
        if state == ActionState::Planned {
            let observed = store::last_observation(tx, task_id)?;
            action.risk = self.risk.classify(action.kind, action.target.as_ref(), &action.params, observed.as_ref());
            action.requires_confirmation |= action.risk == Risk::High;
            if action.requires_confirmation && !action.confirmed {
                self.await_confirmation(tx, &action)?;
                return Ok((None, TaskStatus::WaitingConfirmation));
            }
            store::set_delivered(tx, &action)?;
            self.audit.append(&AuditLine {
                action: Some(shown::audited_action(&action, observed.as_ref())),
                risk: Some(action.risk),
                ..AuditLine::new(AuditEvent::Dispatched, task_id, Some(&action.action_id))
            })?;
        }
        action.task_url = store::task_url(tx, task_id)?;
        Ok((Some(action), status))
    }

    fn await_confirmation(&self, tx: &Transaction<'_>, action: &Action) -> Result<(), ServiceError> {
        store::set_awaiting_confirmation(tx, action)?;
        store::set_status(tx, &action.task_id, TaskStatus::WaitingConfirmation)?;
        let observed = store::last_observation(tx, &action.task_id)?;
        self.audit.append(&AuditLine {
            action: Some(shown::audited_action(action, observed.as_ref())),
            risk: Some(action.risk),
            ..AuditLine::new(AuditEvent::ConfirmationRequested, &action.task_id, Some(&action.action_id))
        })?;
        Ok(())
    }

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
                ActionState::Reported | ActionState::Denied => return Ok((status, true)),
                ActionState::Planned | ActionState::AwaitingConfirmation => {
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
        let stored = redacted(&stored).map_err(AuditError::Encode)?;
        let seen = |event| AuditLine {
            observation: Some(stored.clone()),
            screenshots: Some(screenshots.clone()),
            ..AuditLine::new(event, task_id, Some(&action.action_id))
        };
        if observation.has(ObservationCode::ConfirmationRequired) {
            self.audit.append(&seen(AuditEvent::RefusedUnconfirmed))?;
            self.await_confirmation(tx, action)?;
            return Ok(TaskStatus::WaitingConfirmation);
        }
        if observation.has(ObservationCode::NavigationInProgress) {
            // The action did not run: it is handed out again once the page has settled.
            store::set_status(tx, task_id, TaskStatus::WaitingPage)?;
            self.audit.append(&seen(AuditEvent::WaitingPage))?;
            return Ok(TaskStatus::WaitingPage);
        }
        store::set_reported(tx, task_id, &action.action_id, &stored)?;
        if action.kind == ToolName::Done {
            return self.record_done(tx, action, observation, Evidence { observation: stored, screenshots });
        }
        self.audit.append(&seen(AuditEvent::Reported))?;
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
            self.audit.append(&AuditLine {
                summary: Some(summary.to_owned()),
                verified: Some(evidence),
                ..AuditLine::new(AuditEvent::Succeeded, task_id, Some(&action.action_id))
            })?;
            return Ok(TaskStatus::Succeeded);
        };
        self.audit.append(&AuditLine {
            observation: Some(evidence.observation),
            screenshots: Some(evidence.screenshots),
            ..AuditLine::new(AuditEvent::DoneRefused, task_id, Some(&action.action_id))
        })?;
        if store::is_model_task(tx, task_id)? {
            return Ok(TaskStatus::Running);
        }
        // The executor's reason as it gave it (ours: `done: refused: verification failed: …`).
        let error = match redact_text(&refusal.message) {
            reason if reason.trim().is_empty() => "done was refused (the executor gave no reason)".to_owned(),
            reason => reason,
        };
        self.mark_failed(tx, task_id, &error)?;
        Ok(TaskStatus::Failed)
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
            self.audit.append(&AuditLine {
                confirmation: Some(Confirmation { approved, reason: reason.map(str::to_owned) }),
                ..AuditLine::new(event, task_id, Some(action_id))
            })?;
            Ok(TaskStatus::Running)
        })
    }

    /// `cancel`.
    pub(crate) fn cancel(&self, task_id: &str) -> Result<TaskStatus, ServiceError> {
        self.store.write(|tx| {
            let status = status_of(tx, task_id)?;
            if status.is_final() && status != TaskStatus::Canceled {
                return Err(ServiceError::Conflict(format!("taskId: task {task_id} has ended ({status})")));
            }
            store::set_status(tx, task_id, TaskStatus::Canceled)?;
            self.audit.append(&AuditLine::new(AuditEvent::Canceled, task_id, None))?;
            Ok(TaskStatus::Canceled)
        })
    }

    /// `status`.
    pub(crate) fn status(&self, task_id: &str) -> Result<TaskView, ServiceError> {
        self.store.read(|conn| {
            let row = store::task_row(conn, task_id)?.ok_or_else(|| ServiceError::NoSuchTask(task_id.to_owned()))?;
            let pending = store::pending_action(conn, task_id)?;
            Ok(TaskView {
                task_id: task_id.to_owned(),
                status: row.status,
                pending,
                steps: row.steps,
                summary: row.summary,
                error: row.error,
            })
        })
    }

    /// The model's tasks (`task_id`, or any not in `except`) that are live and have no action
    /// open: each needs the model's next step.
    pub(crate) fn needing_a_step(&self, task_id: Option<&str>, except: &[String]) -> Result<Vec<String>, ServiceError> {
        let ids = self.store.read(store::model_tasks_without_a_step)?;
        Ok(ids.into_iter().filter(|id| task_id.is_none_or(|t| t == id) && !except.contains(id)).collect())
    }

    /// What the model is given to plan `task_id`'s next step: the goal, the steps so far with
    /// their outcomes (denials in words), the last observation; all as the audit keeps them.
    pub(crate) fn planning_request(&self, task_id: &str) -> Result<PlanningRequest, ServiceError> {
        self.store.read(|conn| {
            let (goal, url) =
                store::task_goal(conn, task_id)?.ok_or_else(|| ServiceError::NoSuchTask(task_id.to_owned()))?;
            let rows = store::actions_with_observations(conn, task_id)?;
            let mut steps = Vec::with_capacity(rows.len());
            let mut before: Option<Observation> = None;
            for (row, seen) in rows {
                let shown = shown::audited_action(&row.action, before.as_ref());
                let outcome = match row.state {
                    ActionState::Reported => "ran; the page after it was reported",
                    ActionState::Denied => "denied by the user: it did not run and must not be tried again",
                    ActionState::AwaitingConfirmation => "awaiting the user's confirmation",
                    ActionState::Delivered | ActionState::Planned => "not run yet",
                };
                let errors =
                    seen.iter().flat_map(|o| &o.errors).map(|e| format!("{}: {}", e.code, e.message)).collect();
                steps.push(PastStep {
                    tool: shown.kind,
                    args: shown::args_as_told(&shown),
                    outcome: outcome.into(),
                    errors,
                });
                if seen.is_some() {
                    before = seen;
                }
            }
            Ok(PlanningRequest { goal, url, steps, observation: store::last_observation(conn, task_id)? })
        })
    }

    /// The model's step becomes the task's next action, unless one is open already (another
    /// `next` planned it first) or the task ended meanwhile. A step the task cannot take (past
    /// the step limit, or a target not in the contract's form) fails the task, saying why.
    pub(crate) fn add_step(&self, task_id: &str, step: &PlanStep) -> Result<(), ServiceError> {
        self.store.write(|tx| {
            if status_of(tx, task_id)?.is_final() || store::first_open(tx, task_id)?.is_some() {
                return Ok(());
            }
            let seq = store::count_actions(tx, task_id)?;
            if seq >= MODEL_STEP_LIMIT {
                let error = format!("the model planned {MODEL_STEP_LIMIT} steps without reaching the goal");
                return self.mark_failed(tx, task_id, &error);
            }
            let (target, params) = match step.target_and_params() {
                Ok(parts) => parts,
                Err(e) => return self.mark_failed(tx, task_id, &format!("the model's step: args.target: {e}")),
            };
            store::insert_action(tx, task_id, seq, step.tool, target.as_ref(), params)?;
            self.audit.append(&AuditLine {
                step: Some(shown::plan_as_audited(std::slice::from_ref(step))),
                ..AuditLine::new(AuditEvent::Planned, task_id, None)
            })?;
            Ok(())
        })
    }

    /// The task fails with `error` (the model could not plan it).
    pub(crate) fn fail(&self, task_id: &str, error: &str) -> Result<(), ServiceError> {
        self.store.write(|tx| {
            if status_of(tx, task_id)?.is_final() {
                return Ok(());
            }
            self.mark_failed(tx, task_id, error)
        })
    }

    fn mark_failed(&self, tx: &Transaction<'_>, task_id: &str, error: &str) -> Result<(), ServiceError> {
        store::set_failed(tx, task_id, error)?;
        self.audit.append(&AuditLine {
            error: Some(error.to_owned()),
            ..AuditLine::new(AuditEvent::Failed, task_id, None)
        })?;
        Ok(())
    }

    /// The task's audit log (JSONL).
    pub(crate) fn audit_log(&self, task_id: &str) -> Result<String, ServiceError> {
        self.store.read(|conn| status_of(conn, task_id))?;
        let path = self.audit.path(task_id);
        std::fs::read_to_string(&path).map_err(|source| ServiceError::Audit(AuditError::Io { path, source }))
    }
}

#[cfg(test)]
impl Machine {
    /// Cancels the task in a transaction and panics before it commits (a bug, for a test).
    pub(crate) fn panic_in_a_transaction(&self, task_id: &str) -> Result<(), ServiceError> {
        self.store.write(|tx| {
            store::set_status(tx, task_id, TaskStatus::Canceled)?;
            panic!("a bug while the store is held")
        })
    }
}

/// The task's status; a task the store does not have is the caller's `NO_SUCH_TASK`.
fn status_of(conn: &Connection, task_id: &str) -> Result<TaskStatus, ServiceError> {
    store::task_status(conn, task_id)?.ok_or_else(|| ServiceError::NoSuchTask(task_id.to_owned()))
}

#[cfg(test)]
mod tests {
    //! The task state machine, without HTTP: RUNNING → (WAITING_CONFIRMATION ⇄ RUNNING,
    //! WAITING_PAGE → RUNNING)* → SUCCEEDED (a verified done) | FAILED | CANCELED; one action in
    //! flight; duplicates change nothing.
    use super::*;
    use serde_json::json;

    fn step(round: u32, tool: ToolName, args: Value) -> PlanStep {
        PlanStep { round, tool, args: args.as_object().cloned().unwrap_or_default() }
    }

    /// A machine on a fresh folder (kept alive by the returned guard).
    fn service() -> (tempfile::TempDir, Machine) {
        let dir = tempfile::tempdir().unwrap();
        let service = Machine::open(dir.path(), RiskPolicy::default(), false).unwrap();
        (dir, service)
    }

    /// What the executor saw: the shop, whose #buy posts.
    fn shop(errors: &[ObservationCode]) -> Observation {
        let elements = json!([{"selector": "#buy", "role": "button", "tag": "button", "name": "Place order",
            "form": {"method": "post", "action": "/order"}}]);
        Observation {
            url: "http://127.0.0.1:1/shop".into(),
            extracted: json!({ "elements": elements }).as_object().cloned().unwrap(),
            errors: errors.iter().map(|c| ReportedError { code: (*c).into(), message: String::new() }).collect(),
            ..Observation::default()
        }
    }

    fn next_action(service: &Machine, task: &str) -> (Option<Action>, TaskStatus) {
        let (action, status) = service.next_except(Some(task), &[]).unwrap();
        (action, status.unwrap())
    }

    use crate::model::ReportedError;

    #[test]
    fn one_action_in_flight_a_duplicate_report_changes_nothing_and_the_plan_s_done_succeeds() {
        let (_dir, service) = service();
        let plan = [
            step(1, ToolName::Navigate, json!({"url": "http://127.0.0.1:1/"})),
            step(2, ToolName::Done, json!({"summary": "ok"})),
        ];
        let (task, status) = service.start("goal", None, &plan).unwrap();
        assert_eq!(status, TaskStatus::Running);
        let (first, _) = next_action(&service, &task);
        let first = first.unwrap();
        let (again, _) = next_action(&service, &task);
        assert_eq!(again.as_ref().map(|a| &a.action_id), Some(&first.action_id), "the same action until reported");
        assert_eq!(service.report(&task, &first.action_id, &shop(&[])).unwrap(), (TaskStatus::Running, false));
        assert_eq!(service.report(&task, &first.action_id, &shop(&[])).unwrap(), (TaskStatus::Running, true));
        // done is handed out like any action; only the executor's verified report ends the task.
        let (done, _) = next_action(&service, &task);
        let done = done.unwrap();
        assert_eq!((done.kind, done.risk), (ToolName::Done, Risk::Low));
        assert_eq!(service.status(&task).unwrap().status, TaskStatus::Running);
        assert_eq!(service.report(&task, &done.action_id, &shop(&[])).unwrap(), (TaskStatus::Succeeded, false));
        assert_eq!(next_action(&service, &task), (None, TaskStatus::Succeeded));
        let view = service.status(&task).unwrap();
        assert_eq!((view.status, view.steps, view.summary.as_deref()), (TaskStatus::Succeeded, 2, Some("ok")));
        let audit = service.audit_log(&task).unwrap();
        let last: AuditLine = serde_json::from_str(audit.lines().last().unwrap()).unwrap();
        assert_eq!(
            (last.event, last.verified.as_ref().map(|v| v.observation.url.as_str())),
            (AuditEvent::Succeeded, Some("http://127.0.0.1:1/shop")),
            "the evidence: {last:?}"
        );
        assert!(matches!(service.report(&task, "nope", &shop(&[])), Err(ServiceError::Conflict(_))));
        assert!(matches!(service.next_except(Some("no-task"), &[]), Err(ServiceError::NoSuchTask(_))));
    }

    #[test]
    fn a_high_risk_action_waits_for_confirmation_approved_it_runs_denied_the_task_goes_on() {
        let (_dir, service) = service();
        let plan = [
            step(1, ToolName::Wait, json!({"ms": 1})),
            step(2, ToolName::Click, json!({"selector": "#buy"})),
            step(3, ToolName::Click, json!({"selector": "#buy"})),
            step(4, ToolName::Done, json!({})),
        ];
        let (task, _) = service.start("buy", None, &plan).unwrap();
        let (wait, _) = next_action(&service, &task);
        service.report(&task, &wait.unwrap().action_id, &shop(&[])).unwrap();
        // The shop was observed: #buy posts, so the click is high and waits.
        assert_eq!(next_action(&service, &task), (None, TaskStatus::WaitingConfirmation));
        let pending = service.status(&task).unwrap().pending.unwrap();
        assert_eq!((pending.risk, pending.requires_confirmation, pending.confirmed), (Risk::High, true, false));
        assert!(matches!(service.report(&task, &pending.action_id, &shop(&[])), Err(ServiceError::Conflict(_))));
        assert_eq!(service.confirm(&task, &pending.action_id, true, None).unwrap(), TaskStatus::Running);
        let (approved, _) = next_action(&service, &task);
        let approved = approved.unwrap();
        assert_eq!((approved.action_id.as_str(), approved.confirmed), (pending.action_id.as_str(), true));
        service.report(&task, &approved.action_id, &shop(&[])).unwrap();
        // The second click waits too; denied, it is dropped and the plan goes on to done.
        assert_eq!(next_action(&service, &task), (None, TaskStatus::WaitingConfirmation));
        let second = service.status(&task).unwrap().pending.unwrap();
        service.confirm(&task, &second.action_id, false, Some("no")).unwrap();
        assert!(matches!(service.confirm(&task, &second.action_id, true, None), Err(ServiceError::Conflict(_))));
        let (done, _) = next_action(&service, &task);
        assert_eq!(done.map(|a| a.kind), Some(ToolName::Done));
    }

    #[test]
    fn a_refused_done_fails_a_scripted_task_with_its_reason_and_a_plan_without_done_fails() {
        let (_dir, service) = service();
        let plan = [step(1, ToolName::Done, json!({"summary": "bought", "expect": {"title": "Shop"}}))];
        let (task, _) = service.start("buy", None, &plan).unwrap();
        let (done, _) = next_action(&service, &task);
        let mut refused = shop(&[ObservationCode::DoneRefused]);
        refused.errors[0].message = "done: refused: verification failed: the title is \"Info\", not \"Shop\"".into();
        let answer = service.report(&task, &done.unwrap().action_id, &refused).unwrap();
        assert_eq!(answer, (TaskStatus::Failed, false));
        let view = service.status(&task).unwrap();
        assert_eq!(
            view.error.as_deref(),
            Some("done: refused: verification failed: the title is \"Info\", not \"Shop\"")
        );
        assert!(view.summary.is_none());

        let (task, _) = service.start("wait", None, &[step(1, ToolName::Wait, json!({"ms": 1}))]).unwrap();
        let (wait, _) = next_action(&service, &task);
        service.report(&task, &wait.unwrap().action_id, &shop(&[])).unwrap();
        assert_eq!(next_action(&service, &task), (None, TaskStatus::Failed));
        assert_eq!(service.status(&task).unwrap().error.as_deref(), Some(PLAN_ENDED));
    }

    #[test]
    fn the_executor_s_refusal_waits_for_confirmation_a_navigating_page_hands_the_action_out_again() {
        let (_dir, service) = service();
        let plan = [step(1, ToolName::Click, json!({"selector": "#buy"})), step(2, ToolName::Done, json!({}))];
        let (task, _) = service.start("buy", None, &plan).unwrap();
        // No observation yet: the click looks low to the service and is handed out…
        let (click, _) = next_action(&service, &task);
        let click = click.unwrap();
        assert_eq!(click.risk, Risk::Low);
        // …a page still navigating: the action did not run and is handed out again.
        let answer = service.report(&task, &click.action_id, &shop(&[ObservationCode::NavigationInProgress])).unwrap();
        assert_eq!(answer, (TaskStatus::WaitingPage, false));
        let (again, status) = next_action(&service, &task);
        assert_eq!((again.map(|a| a.action_id), status), (Some(click.action_id.clone()), TaskStatus::WaitingPage));
        // …and the executor, seeing the POST form at the last moment, refuses it unconfirmed.
        let answer = service.report(&task, &click.action_id, &shop(&[ObservationCode::ConfirmationRequired])).unwrap();
        assert_eq!(answer, (TaskStatus::WaitingConfirmation, false));
        assert_eq!(next_action(&service, &task), (None, TaskStatus::WaitingConfirmation));
        assert_eq!(service.cancel(&task).unwrap(), TaskStatus::Canceled);
        assert_eq!(next_action(&service, &task), (None, TaskStatus::Canceled));
        assert!(matches!(service.confirm(&task, &click.action_id, true, None), Err(ServiceError::Conflict(_))));
    }

    #[test]
    fn next_without_a_task_passes_over_the_tasks_an_executor_already_runs() {
        let (_dir, service) = service();
        let plan = [step(1, ToolName::Wait, json!({"ms": 1}))];
        let (first, _) = service.start("a", Some("http://127.0.0.1:1/a"), &plan).unwrap();
        let (second, _) = service.start("b", None, &plan).unwrap();
        let (action, _) = service.next_except(None, &[]).unwrap();
        let action = action.unwrap();
        assert_eq!(
            (action.task_id.as_str(), action.task_url.as_deref()),
            (first.as_str(), Some("http://127.0.0.1:1/a"))
        );
        let (action, _) = service.next_except(None, std::slice::from_ref(&first)).unwrap();
        assert_eq!(action.map(|a| a.task_id), Some(second));
    }
}
