//! The rules: tasks and their actions. RUNNING → (WAITING_CONFIRMATION ⇄ RUNNING, WAITING_PAGE →
//! RUNNING)* → SUCCEEDED (a verified done) | FAILED | CANCELED; one action in flight per task,
//! handed out again with the same id until reported; a duplicate report changes nothing.
//!
//! Each call is one store transaction, and the audit lines it writes are synced before that
//! transaction commits: once a call returns, what it did is on disk, so a kill -9 at any moment
//! loses nothing that was answered. Its calls block on the disk: [`super::Service`] runs them off
//! the async runtime.
//!
//! Its calls by job: here, a task's start, cancel, status and failure; [`hand_out`], `next` and
//! `confirm`; [`report`], what the executor reports; [`planning`], the model's steps;
//! [`permissions`], the user's word on sites; [`overview`], what the console shows.

mod hand_out;
mod overview;
mod permissions;
mod planning;
mod report;
mod skills;

pub use overview::TaskOverview;

use super::ServiceOptions;
use super::store::{self, Store};
use super::{ServiceError, TaskView, ids::TaskIds, shown};
use crate::audit::{Audit, AuditError, AuditEvent, AuditLine, Client};
use crate::model::{Observation, PlanStep, Target, TaskStatus, ToolName};
use crate::permissions::PermissionMode;
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
    /// Whether actions that change a page need the user's grant of their site.
    permissions: PermissionMode,
    /// The library of site procedures (`--skills`).
    skills: Option<std::sync::Arc<crate::skills::Skills>>,
    /// Who made the request being carried out: every audit line it writes names them. The
    /// store thread carries out one call at a time.
    client: std::sync::Mutex<Option<Client>>,
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
    pub(crate) fn open(dir: &Path, options: ServiceOptions) -> Result<Self, ServiceError> {
        let ServiceOptions { risk, model_plans: model, redactor, permissions, skills } = options;
        let store = Store::open(dir)?;
        let audit = Audit::open(dir.join("audit"), redactor)?;
        let client = Default::default();
        Ok(Self { store, audit, risk, ids: TaskIds::default(), model, permissions, skills, client })
    }

    /// The audit folder's file for a task.
    pub(crate) fn audit_path(&self, task_id: &str) -> PathBuf {
        self.audit.path(task_id)
    }

    /// The audit folder.
    pub(crate) fn audit_dir(&self) -> PathBuf {
        self.audit.dir().to_owned()
    }

    /// Carries out `call` for `client`: the audit lines it writes name them.
    pub(crate) fn as_client<T>(&self, client: Option<Client>, call: impl FnOnce(&Self) -> T) -> T {
        *self.current_client() = client;
        let answer = call(self);
        *self.current_client() = None;
        answer
    }

    fn current_client(&self) -> std::sync::MutexGuard<'_, Option<Client>> {
        self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Appends `line` to its task's audit, naming the client of the request being carried out.
    fn append(&self, line: &AuditLine) -> Result<(), AuditError> {
        match self.current_client().clone() {
            Some(client) if line.client.is_none() => {
                self.audit.append(&AuditLine { client: Some(client), ..line.clone() })
            }
            _ => self.audit.append(line),
        }
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
            self.append(&AuditLine {
                goal: Some(goal.to_owned()),
                url: Some(url.map(str::to_owned)),
                plan: Some(shown::plan_as_audited(plan)),
                ..AuditLine::new(AuditEvent::Started, &task_id, None)
            })?;
            Ok((task_id.clone(), TaskStatus::Running))
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
            self.append(&AuditLine::new(AuditEvent::Canceled, task_id, None))?;
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
                pending_permission: store::pending_permission(conn, task_id)?,
                steps: row.steps,
                summary: row.summary,
                error: row.error,
            })
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
        self.append(&AuditLine { error: Some(error.to_owned()), ..AuditLine::new(AuditEvent::Failed, task_id, None) })?;
        Ok(())
    }

    /// The task's audit log (JSONL).
    pub(crate) fn audit_log(&self, task_id: &str) -> Result<String, ServiceError> {
        self.store.read(|conn| status_of(conn, task_id))?;
        let path = self.audit.path(task_id);
        std::fs::read_to_string(&path).map_err(|source| ServiceError::Audit(AuditError::Io { path, source }))
    }

    /// The task's archive; on the store thread, so that no line is half written meanwhile.
    pub(crate) fn export(&self, task_id: &str) -> Result<Vec<u8>, ServiceError> {
        self.store.read(|conn| status_of(conn, task_id))?;
        Ok(crate::export::archive(task_id, &self.audit.path(task_id))?)
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

/// The page a task is on: the one last reported, else its url (the executor opens it first).
pub(super) fn page_url<'a>(observed: Option<&'a Observation>, task_url: Option<&'a str>) -> Option<&'a str> {
    observed.map(|o| o.url.as_str()).filter(|u| !u.is_empty()).or(task_url)
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
    use crate::model::{Action, Observation, ObservationCode, ReportedError, Risk};
    use crate::service::PLAN_ENDED;
    use serde_json::json;

    fn step(round: u32, tool: ToolName, args: Value) -> PlanStep {
        PlanStep { round, tool, args: args.as_object().cloned().unwrap_or_default() }
    }

    /// A machine on a fresh folder (kept alive by the returned guard).
    fn service() -> (tempfile::TempDir, Machine) {
        let dir = tempfile::tempdir().unwrap();
        let service = Machine::open(dir.path(), ServiceOptions::default()).unwrap();
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
