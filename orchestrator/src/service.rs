//! The orchestrator's state and rules: tasks, their actions (one in flight per task, handed out
//! again with the same id until reported), confirmations, the audit. Everything lives in SQLite
//! (WAL, synchronous FULL): a call is answered only after its change and its audit line are on
//! disk, so a kill -9 at any moment loses nothing that was answered.

use crate::audit::{Audit, AuditError};
use crate::model::{Action, Observation, ObservationCode, PlanStep, Risk, Target, TaskStatus};
use crate::planner::{PastStep, PlanningRequest};
use crate::redact::{REDACTED, redact_text, redact_value};
use crate::risk::{RiskPolicy, element, is_password_field};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

/// Why a call could not be carried out.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    #[error("no such task: {0}")]
    NoSuchTask(String),
    /// The call does not fit where the task stands (the contract's 409).
    #[error("{0}")]
    Conflict(String),
    /// The request is not usable (the contract's 400); names the field.
    #[error("{0}")]
    BadRequest(String),
    #[error("task store: {0}")]
    Store(#[from] rusqlite::Error),
    #[error(transparent)]
    Audit(#[from] AuditError),
}

navguard::closed_set! {
    /// Where an action stands.
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
CREATE TABLE IF NOT EXISTS model_tasks (task_id TEXT PRIMARY KEY);";

/// The tool that ends a task; the executor verifies it like any other action.
const DONE: &str = "done";

/// Why a scripted task whose plan ran out failed.
pub const PLAN_ENDED: &str = "the plan ended without a verified done";

/// The most steps a model may plan for one task (the agent core's round limit).
pub const MODEL_STEP_LIMIT: i64 = 40;

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A task as `status` shows it.
#[derive(Clone, Debug)]
pub struct TaskView {
    pub task_id: String,
    pub status: TaskStatus,
    pub pending: Option<Action>,
    pub steps: u64,
    pub summary: Option<String>,
    pub error: Option<String>,
}

/// The orchestrator.
#[derive(Debug)]
pub struct Service {
    conn: Mutex<Connection>,
    audit: Audit,
    risk: RiskPolicy,
    ids: AtomicU64,
    /// A model plans tasks started without a plan.
    model: bool,
}

/// One action row.
struct Row {
    action: Action,
    state: ActionState,
}

impl Service {
    /// Opens (or makes) the store and the audit under `dir`.
    pub fn open(dir: &Path, risk: RiskPolicy) -> Result<Self, ServiceError> {
        std::fs::create_dir_all(dir).map_err(|source| AuditError::Io { path: dir.to_owned(), source })?;
        let conn = Connection::open(dir.join("orchestrator.db"))?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;")?;
        conn.execute_batch(SCHEMA)?;
        let audit = Audit::open(dir.join("audit"))?;
        Ok(Self { conn: Mutex::new(conn), audit, risk, ids: AtomicU64::new(0), model: false })
    }

    /// Tasks started without a plan are planned by the model, a step at a time.
    pub fn plan_with_model(&mut self) {
        self.model = true;
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The audit folder's file for a task.
    pub fn audit_path(&self, task_id: &str) -> std::path::PathBuf {
        self.audit.path(task_id)
    }

    /// A new task id: time and a counter, unique within and across restarts.
    fn new_task_id(&self) -> String {
        let n = self.ids.fetch_add(1, Ordering::SeqCst);
        format!("t{:x}{n:x}", SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos()))
    }

    /// `start`: a task with its plan; returns its id and status.
    pub fn start(
        &self,
        goal: &str,
        url: Option<&str>,
        plan: &[PlanStep],
    ) -> Result<(String, TaskStatus), ServiceError> {
        if plan.is_empty() && !self.model {
            return Err(ServiceError::BadRequest("plan: give at least one step (no model is configured)".into()));
        }
        let task_id = self.new_task_id();
        let mut steps: Vec<&PlanStep> = plan.iter().collect();
        steps.sort_by_key(|s| s.round);
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO tasks (task_id, goal, url, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![task_id, goal, url, TaskStatus::Running.name(), now_ms()],
        )?;
        for (seq, step) in steps.iter().enumerate() {
            insert_action(&tx, &task_id, seq, step)?;
        }
        if plan.is_empty() {
            tx.execute("INSERT INTO model_tasks (task_id) VALUES (?1)", [&task_id])?;
        }
        self.audit.append(
            &task_id,
            None,
            "started",
            json!({ "goal": goal, "url": url, "plan": plan_as_audited(plan) }),
        )?;
        tx.commit()?;
        Ok((task_id, TaskStatus::Running))
    }

    /// `next`: the task's action in flight (the same until reported), or its next one; `None`
    /// while it waits for a confirmation, or once it ended.
    pub fn next(&self, task_id: Option<&str>) -> Result<(Option<Action>, Option<TaskStatus>), ServiceError> {
        self.next_except(task_id, &[])
    }

    /// `next`, passing over the tasks in `except` when no task is named (an executor asks for
    /// new tasks while its runners poll their own).
    pub fn next_except(
        &self,
        task_id: Option<&str>,
        except: &[String],
    ) -> Result<(Option<Action>, Option<TaskStatus>), ServiceError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let ids: Vec<String> = match task_id {
            Some(id) => vec![id.to_owned()],
            None => live_tasks(&tx)?.into_iter().filter(|id| !except.contains(id)).collect(),
        };
        let mut last = None;
        for id in ids {
            let (action, status) = self.next_of(&tx, &id)?;
            last = Some(status);
            if action.is_some() {
                tx.commit()?;
                return Ok((action, Some(status)));
            }
        }
        tx.commit()?;
        Ok((None, last))
    }

    fn next_of(&self, tx: &Transaction<'_>, task_id: &str) -> Result<(Option<Action>, TaskStatus), ServiceError> {
        let status = task_status(tx, task_id)?;
        if status.is_final() || status == TaskStatus::WaitingConfirmation {
            return Ok((None, status));
        }
        let Some(row) = first_open(tx, task_id)? else {
            if is_model_task(tx, task_id)? {
                // The model's next step is being planned.
                return Ok((None, status));
            }
            // Only a done the executor verified on the page ends a task SUCCEEDED.
            self.mark_failed(tx, task_id, PLAN_ENDED)?;
            return Ok((None, TaskStatus::Failed));
        };
        let Row { mut action, state } = row;
        if state == ActionState::Planned {
            let observed = last_observation(tx, task_id)?;
            action.risk = self.risk.classify(&action.kind, action.target.as_ref(), &action.params, observed.as_ref());
            action.requires_confirmation |= action.risk == Risk::High;
            if action.requires_confirmation && !action.confirmed {
                self.await_confirmation(tx, &action, "confirmation-requested")?;
                return Ok((None, TaskStatus::WaitingConfirmation));
            }
            tx.execute(
                "UPDATE actions SET state = ?2, risk = ?3, requires_confirmation = ?4 WHERE action_id = ?1",
                params![
                    action.action_id,
                    ActionState::Delivered.name(),
                    action.risk.name(),
                    action.requires_confirmation
                ],
            )?;
            let shown = audited_action(&action, observed.as_ref());
            self.audit.append(
                task_id,
                Some(&action.action_id),
                "dispatched",
                json!({ "action": shown, "risk": action.risk.name() }),
            )?;
        }
        action.task_url = task_url(tx, task_id)?;
        Ok((Some(action), status))
    }

    fn await_confirmation(&self, tx: &Transaction<'_>, action: &Action, event: &str) -> Result<(), ServiceError> {
        tx.execute(
            "UPDATE actions SET state = ?2, risk = ?3, requires_confirmation = 1 WHERE action_id = ?1",
            params![action.action_id, ActionState::AwaitingConfirmation.name(), action.risk.name()],
        )?;
        set_status(tx, &action.task_id, TaskStatus::WaitingConfirmation)?;
        let observed = last_observation(tx, &action.task_id)?;
        let shown = audited_action(action, observed.as_ref());
        self.audit.append(
            &action.task_id,
            Some(&action.action_id),
            event,
            json!({ "action": shown, "risk": action.risk.name() }),
        )?;
        Ok(())
    }

    /// `report`: the observation after an action; `true` if it was a duplicate (nothing changed).
    pub fn report(
        &self,
        task_id: &str,
        action_id: &str,
        observation: &Observation,
    ) -> Result<(TaskStatus, bool), ServiceError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let status = task_status(&tx, task_id)?;
        let row = action_row(&tx, task_id, action_id)?.ok_or_else(|| {
            ServiceError::Conflict(format!("actionId: {action_id} was never handed out for task {task_id}"))
        })?;
        match row.state {
            ActionState::Reported | ActionState::Denied => return Ok((status, true)),
            ActionState::Planned | ActionState::AwaitingConfirmation => {
                return Err(ServiceError::Conflict(format!("actionId: {action_id} is not in flight ({})", row.state)));
            }
            ActionState::Delivered => {}
        }
        if status.is_final() {
            return Err(ServiceError::Conflict(format!("taskId: task {task_id} has ended ({status})")));
        }
        let status = self.record_report(&tx, row.action, observation)?;
        tx.commit()?;
        Ok((status, false))
    }

    fn record_report(
        &self,
        tx: &Transaction<'_>,
        action: Action,
        observation: &Observation,
    ) -> Result<TaskStatus, ServiceError> {
        let task_id = action.task_id.clone();
        let screenshots = self.audit.screenshots(&task_id, &action.action_id, &observation.artifacts.screenshots)?;
        let mut stored = serde_json::to_value(Observation { artifacts: Default::default(), ..observation.clone() })
            .unwrap_or(Value::Null);
        redact_value(&mut stored);
        let details = json!({ "observation": stored, "screenshots": screenshots });
        if observation.has(ObservationCode::ConfirmationRequired) {
            self.audit.append(&task_id, Some(&action.action_id), "refused-unconfirmed", details)?;
            self.await_confirmation(tx, &action, "confirmation-requested")?;
            return Ok(TaskStatus::WaitingConfirmation);
        }
        if observation.has(ObservationCode::NavigationInProgress) {
            // The action did not run: it is handed out again once the page has settled.
            set_status(tx, &task_id, TaskStatus::WaitingPage)?;
            self.audit.append(&task_id, Some(&action.action_id), "waiting-page", details)?;
            return Ok(TaskStatus::WaitingPage);
        }
        tx.execute(
            "UPDATE actions SET state = ?2, observation = ?3 WHERE action_id = ?1",
            params![action.action_id, ActionState::Reported.name(), stored.to_string()],
        )?;
        tx.execute(
            "UPDATE tasks SET status = ?2, steps = steps + 1, observation = ?3 WHERE task_id = ?1",
            params![task_id, TaskStatus::Running.name(), stored.to_string()],
        )?;
        if action.kind == DONE {
            return self.record_done(tx, &action, observation, details);
        }
        self.audit.append(&task_id, Some(&action.action_id), "reported", details)?;
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
        details: Value,
    ) -> Result<TaskStatus, ServiceError> {
        let task_id = &action.task_id;
        let Some(refusal) = observation.errors.first() else {
            let summary = action.params.get("summary").and_then(Value::as_str).unwrap_or_default();
            tx.execute(
                "UPDATE tasks SET status = ?2, summary = ?3 WHERE task_id = ?1",
                params![task_id, TaskStatus::Succeeded.name(), summary],
            )?;
            let evidence = json!({ "summary": summary, "verified": details });
            self.audit.append(task_id, Some(&action.action_id), "succeeded", evidence)?;
            return Ok(TaskStatus::Succeeded);
        };
        self.audit.append(task_id, Some(&action.action_id), "done-refused", details)?;
        if is_model_task(tx, task_id)? {
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
    pub fn confirm(
        &self,
        task_id: &str,
        action_id: &str,
        approved: bool,
        reason: Option<&str>,
    ) -> Result<TaskStatus, ServiceError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let status = task_status(&tx, task_id)?;
        if status.is_final() {
            return Err(ServiceError::Conflict(format!("taskId: task {task_id} has ended ({status})")));
        }
        let row = action_row(&tx, task_id, action_id)?
            .ok_or_else(|| ServiceError::Conflict(format!("actionId: {action_id} is no action of task {task_id}")))?;
        if row.state != ActionState::AwaitingConfirmation {
            return Err(ServiceError::Conflict(format!(
                "actionId: {action_id} does not await a confirmation ({})",
                row.state
            )));
        }
        let (state, event) =
            if approved { (ActionState::Planned, "confirmed") } else { (ActionState::Denied, "denied") };
        tx.execute(
            "UPDATE actions SET state = ?2, confirmed = ?3 WHERE action_id = ?1",
            params![action_id, state.name(), approved],
        )?;
        set_status(&tx, task_id, TaskStatus::Running)?;
        self.audit.append(
            task_id,
            Some(action_id),
            event,
            json!({ "confirmation": { "approved": approved, "reason": reason } }),
        )?;
        tx.commit()?;
        Ok(TaskStatus::Running)
    }

    /// `cancel`.
    pub fn cancel(&self, task_id: &str) -> Result<TaskStatus, ServiceError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let status = task_status(&tx, task_id)?;
        if status.is_final() && status != TaskStatus::Canceled {
            return Err(ServiceError::Conflict(format!("taskId: task {task_id} has ended ({status})")));
        }
        set_status(&tx, task_id, TaskStatus::Canceled)?;
        self.audit.append(task_id, None, "canceled", json!({}))?;
        tx.commit()?;
        Ok(TaskStatus::Canceled)
    }

    /// `status`.
    pub fn status(&self, task_id: &str) -> Result<TaskView, ServiceError> {
        let conn = self.lock();
        let (status, steps, summary, error): (String, i64, Option<String>, Option<String>) = conn
            .query_row("SELECT status, steps, summary, error FROM tasks WHERE task_id = ?1", [task_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?
            .ok_or_else(|| ServiceError::NoSuchTask(task_id.to_owned()))?;
        let pending = pending_action(&conn, task_id)?;
        let steps = u64::try_from(steps).unwrap_or_default();
        Ok(TaskView { task_id: task_id.to_owned(), status: parse_status(&status), pending, steps, summary, error })
    }

    /// The model's tasks (`task_id`, or any not in `except`) that are live and have no action
    /// open: each needs the model's next step.
    pub fn needing_a_step(&self, task_id: Option<&str>, except: &[String]) -> Result<Vec<String>, ServiceError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT t.task_id FROM tasks t JOIN model_tasks m ON m.task_id = t.task_id
             WHERE t.status IN (?1, ?2) AND NOT EXISTS (
               SELECT 1 FROM actions a WHERE a.task_id = t.task_id AND a.state IN (?3, ?4, ?5))
             ORDER BY t.created_at, t.task_id",
        )?;
        let open = [ActionState::Planned, ActionState::Delivered, ActionState::AwaitingConfirmation];
        let ids = stmt
            .query_map(
                params![
                    TaskStatus::Running.name(),
                    TaskStatus::WaitingPage.name(),
                    open[0].name(),
                    open[1].name(),
                    open[2].name()
                ],
                |r| r.get::<_, String>(0),
            )?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ids.into_iter().filter(|id| task_id.is_none_or(|t| t == id) && !except.contains(id)).collect())
    }

    /// What the model is given to plan `task_id`'s next step: the goal, the steps so far with
    /// their outcomes (denials in words), the last observation; all as the audit keeps them.
    pub fn planning_request(&self, task_id: &str) -> Result<PlanningRequest, ServiceError> {
        let conn = self.lock();
        let (goal, url): (String, Option<String>) = conn
            .query_row("SELECT goal, url FROM tasks WHERE task_id = ?1", [task_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .ok_or_else(|| ServiceError::NoSuchTask(task_id.to_owned()))?;
        let sql = format!("SELECT {ACTION_COLUMNS}, observation FROM actions WHERE task_id = ?1 ORDER BY seq");
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt
            .query_map([task_id], |r| {
                let seen: Option<String> = r.get(9)?;
                Ok((read_row(r)?, seen.and_then(|s| serde_json::from_str::<Observation>(&s).ok())))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut steps = Vec::with_capacity(rows.len());
        let mut before: Option<Observation> = None;
        for (row, seen) in rows {
            let shown = audited_action(&row.action, before.as_ref());
            let mut args = shown.get("params").cloned().unwrap_or(Value::Null);
            if let (Some(target), Some(map)) = (shown.get("target"), args.as_object_mut()) {
                map.insert("target".into(), target.clone());
            }
            let outcome = match row.state {
                ActionState::Reported => "ran; the page after it was reported",
                ActionState::Denied => "denied by the user: it did not run and must not be tried again",
                ActionState::AwaitingConfirmation => "awaiting the user's confirmation",
                ActionState::Delivered | ActionState::Planned => "not run yet",
            };
            let errors = seen.iter().flat_map(|o| &o.errors).map(|e| format!("{}: {}", e.code, e.message)).collect();
            steps.push(PastStep { tool: row.action.kind.clone(), args, outcome: outcome.into(), errors });
            if seen.is_some() {
                before = seen;
            }
        }
        Ok(PlanningRequest { goal, url, steps, observation: last_observation(&conn, task_id)? })
    }

    /// The model's step becomes the task's next action, unless one is open already (another
    /// `next` planned it first) or the task ended meanwhile.
    pub fn add_step(&self, task_id: &str, step: &PlanStep) -> Result<(), ServiceError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        if task_status(&tx, task_id)?.is_final() || first_open(&tx, task_id)?.is_some() {
            return Ok(());
        }
        let seq: i64 = tx.query_row("SELECT COUNT(*) FROM actions WHERE task_id = ?1", [task_id], |r| r.get(0))?;
        if seq >= MODEL_STEP_LIMIT {
            let error = format!("the model planned {MODEL_STEP_LIMIT} steps without reaching the goal");
            self.mark_failed(&tx, task_id, &error)?;
        } else {
            insert_action(&tx, task_id, usize::try_from(seq).unwrap_or_default(), step)?;
            let planned = json!({ "step": plan_as_audited(std::slice::from_ref(step)) });
            self.audit.append(task_id, None, "planned", planned)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The task fails with `error` (the model could not plan it).
    pub fn fail(&self, task_id: &str, error: &str) -> Result<(), ServiceError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        if task_status(&tx, task_id)?.is_final() {
            return Ok(());
        }
        self.mark_failed(&tx, task_id, error)?;
        tx.commit()?;
        Ok(())
    }

    fn mark_failed(&self, tx: &Transaction<'_>, task_id: &str, error: &str) -> Result<(), ServiceError> {
        tx.execute(
            "UPDATE tasks SET status = ?2, error = ?3 WHERE task_id = ?1",
            params![task_id, TaskStatus::Failed.name(), error],
        )?;
        self.audit.append(task_id, None, "failed", json!({ "error": error }))?;
        Ok(())
    }

    /// The task's audit log (JSONL).
    pub fn audit_log(&self, task_id: &str) -> Result<String, ServiceError> {
        task_status(&self.lock(), task_id)?;
        let path = self.audit.path(task_id);
        std::fs::read_to_string(&path).map_err(|source| ServiceError::Audit(AuditError::Io { path, source }))
    }
}

/// The plan as the audit shows it: what a `type` step will type is not known to be harmless
/// before its target is observed (it may be a password field), so it shows when dispatched.
fn plan_as_audited(plan: &[PlanStep]) -> Vec<PlanStep> {
    let mut plan = plan.to_vec();
    for step in plan.iter_mut().filter(|s| s.tool == "type") {
        if let Some(text) = step.args.get_mut("text") {
            *text = Value::String(REDACTED.into());
        }
    }
    plan
}

/// The action as the audit shows it: a password typed into a password field is redacted.
fn audited_action(action: &Action, observed: Option<&Observation>) -> Value {
    let mut shown = serde_json::to_value(action).unwrap_or(Value::Null);
    let into_password =
        action.kind == "type" && element(action.target.as_ref(), observed).is_some_and(is_password_field);
    if into_password && let Some(text) = shown.pointer_mut("/params/text") {
        *text = Value::String(REDACTED.into());
    }
    shown
}

fn insert_action(tx: &Transaction<'_>, task_id: &str, seq: usize, step: &PlanStep) -> Result<(), ServiceError> {
    let mut params = step.args.clone();
    let target = take_target(&mut params);
    let action_id = format!("{task_id}-a{seq}");
    tx.execute(
        "INSERT INTO actions (action_id, task_id, seq, kind, target, params, risk, requires_confirmation, confirmed, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0, ?8)",
        params![
            action_id,
            task_id,
            seq as i64,
            step.tool,
            target.map(|t| serde_json::to_string(&t).unwrap_or_default()),
            Value::Object(params).to_string(),
            Risk::Low.name(),
            ActionState::Planned.name()
        ],
    )?;
    Ok(())
}

/// A plan step's target, taken out of its args: `ref` or `selector`, or the contract's own form
/// `"target": {"by": "selector"|"text"|"role"|"ref", "value": …}`.
fn take_target(args: &mut Map<String, Value>) -> Option<Target> {
    if let Some(target) = args.get("target").and_then(|t| serde_json::from_value::<Target>(t.clone()).ok()) {
        args.remove("target");
        return Some(target);
    }
    for by in ["ref", "selector"] {
        if let Some(Value::String(value)) = args.remove(by) {
            return Some(Target { by: by.to_owned(), value });
        }
    }
    None
}

fn parse_status(text: &str) -> TaskStatus {
    text.parse().unwrap_or(TaskStatus::Failed)
}

fn task_status(conn: &Connection, task_id: &str) -> Result<TaskStatus, ServiceError> {
    let status: Option<String> =
        conn.query_row("SELECT status FROM tasks WHERE task_id = ?1", [task_id], |r| r.get(0)).optional()?;
    status.map(|s| parse_status(&s)).ok_or_else(|| ServiceError::NoSuchTask(task_id.to_owned()))
}

fn is_model_task(conn: &Connection, task_id: &str) -> Result<bool, ServiceError> {
    Ok(conn.query_row("SELECT 1 FROM model_tasks WHERE task_id = ?1", [task_id], |_| Ok(())).optional()?.is_some())
}

fn task_url(conn: &Connection, task_id: &str) -> Result<Option<String>, ServiceError> {
    let url: Option<Option<String>> =
        conn.query_row("SELECT url FROM tasks WHERE task_id = ?1", [task_id], |r| r.get(0)).optional()?;
    Ok(url.flatten())
}

fn set_status(conn: &Connection, task_id: &str, status: TaskStatus) -> Result<(), ServiceError> {
    conn.execute("UPDATE tasks SET status = ?2 WHERE task_id = ?1", params![task_id, status.name()])?;
    Ok(())
}

fn live_tasks(conn: &Connection) -> Result<Vec<String>, ServiceError> {
    let mut stmt = conn.prepare("SELECT task_id FROM tasks WHERE status IN (?1, ?2) ORDER BY created_at, task_id")?;
    let ids = stmt
        .query_map([TaskStatus::Running.name(), TaskStatus::WaitingPage.name()], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

fn last_observation(conn: &Connection, task_id: &str) -> Result<Option<Observation>, ServiceError> {
    let text: Option<Option<String>> =
        conn.query_row("SELECT observation FROM tasks WHERE task_id = ?1", [task_id], |r| r.get(0)).optional()?;
    Ok(text.flatten().and_then(|t| serde_json::from_str(&t).ok()))
}

const ACTION_COLUMNS: &str = "action_id, task_id, kind, target, params, risk, requires_confirmation, confirmed, state";

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let target: Option<String> = r.get(3)?;
    let params: String = r.get(4)?;
    let risk: String = r.get(5)?;
    let state: String = r.get(8)?;
    Ok(Row {
        action: Action {
            action_id: r.get(0)?,
            task_id: r.get(1)?,
            kind: r.get(2)?,
            target: target.and_then(|t| serde_json::from_str(&t).ok()),
            params: serde_json::from_str(&params).unwrap_or_default(),
            risk: risk.parse().unwrap_or(Risk::High),
            requires_confirmation: r.get(6)?,
            confirmed: r.get(7)?,
            task_url: None,
        },
        state: state.parse().unwrap_or(ActionState::Denied),
    })
}

fn first_open(conn: &Connection, task_id: &str) -> Result<Option<Row>, ServiceError> {
    let sql =
        format!("SELECT {ACTION_COLUMNS} FROM actions WHERE task_id = ?1 AND state IN (?2, ?3) ORDER BY seq LIMIT 1");
    Ok(conn
        .query_row(&sql, params![task_id, ActionState::Planned.name(), ActionState::Delivered.name()], read_row)
        .optional()?)
}

fn action_row(conn: &Connection, task_id: &str, action_id: &str) -> Result<Option<Row>, ServiceError> {
    let sql = format!("SELECT {ACTION_COLUMNS} FROM actions WHERE task_id = ?1 AND action_id = ?2");
    Ok(conn.query_row(&sql, params![task_id, action_id], read_row).optional()?)
}

fn pending_action(conn: &Connection, task_id: &str) -> Result<Option<Action>, ServiceError> {
    let sql =
        format!("SELECT {ACTION_COLUMNS} FROM actions WHERE task_id = ?1 AND state IN (?2, ?3) ORDER BY seq LIMIT 1");
    let row = conn
        .query_row(
            &sql,
            params![task_id, ActionState::Delivered.name(), ActionState::AwaitingConfirmation.name()],
            read_row,
        )
        .optional()?;
    Ok(row.map(|r| r.action))
}

#[cfg(test)]
mod tests {
    //! The task state machine, without HTTP: RUNNING → (WAITING_CONFIRMATION ⇄ RUNNING,
    //! WAITING_PAGE → RUNNING)* → SUCCEEDED (a verified done) | FAILED | CANCELED; one action in
    //! flight; duplicates change nothing.
    use super::*;

    fn step(round: u32, tool: &str, args: Value) -> PlanStep {
        PlanStep { round, tool: tool.into(), args: args.as_object().cloned().unwrap_or_default() }
    }

    /// A service on a fresh folder (kept alive by the returned guard).
    fn service() -> (tempfile::TempDir, Service) {
        let dir = tempfile::tempdir().unwrap();
        let service = Service::open(dir.path(), RiskPolicy::default()).unwrap();
        (dir, service)
    }

    /// What the executor saw: the shop, whose #buy posts.
    fn shop(errors: &[ObservationCode]) -> Observation {
        let elements = json!([{"selector": "#buy", "role": "button", "tag": "button", "name": "Place order",
            "form": {"method": "post", "action": "/order"}}]);
        Observation {
            url: "http://127.0.0.1:1/shop".into(),
            extracted: json!({ "elements": elements }).as_object().cloned().unwrap(),
            errors: errors.iter().map(|c| ReportedError { code: c.name().into(), message: String::new() }).collect(),
            ..Observation::default()
        }
    }

    fn next_action(service: &Service, task: &str) -> (Option<Action>, TaskStatus) {
        let (action, status) = service.next(Some(task)).unwrap();
        (action, status.unwrap())
    }

    use crate::model::ReportedError;

    #[test]
    fn one_action_in_flight_a_duplicate_report_changes_nothing_and_the_plan_s_done_succeeds() {
        let (_dir, service) = service();
        let plan =
            [step(1, "navigate", json!({"url": "http://127.0.0.1:1/"})), step(2, "done", json!({"summary": "ok"}))];
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
        assert_eq!((done.kind.as_str(), done.risk), ("done", Risk::Low));
        assert_eq!(service.status(&task).unwrap().status, TaskStatus::Running);
        assert_eq!(service.report(&task, &done.action_id, &shop(&[])).unwrap(), (TaskStatus::Succeeded, false));
        assert_eq!(next_action(&service, &task), (None, TaskStatus::Succeeded));
        let view = service.status(&task).unwrap();
        assert_eq!((view.status, view.steps, view.summary.as_deref()), (TaskStatus::Succeeded, 2, Some("ok")));
        let audit = service.audit_log(&task).unwrap();
        let last: Value = serde_json::from_str(audit.lines().last().unwrap()).unwrap();
        assert_eq!(
            (last["event"].as_str(), last["verified"]["observation"]["url"].as_str()),
            (Some("succeeded"), Some("http://127.0.0.1:1/shop")),
            "the evidence: {last}"
        );
        assert!(matches!(service.report(&task, "nope", &shop(&[])), Err(ServiceError::Conflict(_))));
        assert!(matches!(service.next(Some("no-task")), Err(ServiceError::NoSuchTask(_))));
    }

    #[test]
    fn a_high_risk_action_waits_for_confirmation_approved_it_runs_denied_the_task_goes_on() {
        let (_dir, service) = service();
        let plan = [
            step(1, "wait", json!({"ms": 1})),
            step(2, "click", json!({"selector": "#buy"})),
            step(3, "click", json!({"selector": "#buy"})),
            step(4, "done", json!({})),
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
        assert_eq!(done.map(|a| a.kind), Some("done".to_owned()));
    }

    #[test]
    fn a_refused_done_fails_a_scripted_task_with_its_reason_and_a_plan_without_done_fails() {
        let (_dir, service) = service();
        let plan = [step(1, "done", json!({"summary": "bought", "expect": {"title": "Shop"}}))];
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

        let (task, _) = service.start("wait", None, &[step(1, "wait", json!({"ms": 1}))]).unwrap();
        let (wait, _) = next_action(&service, &task);
        service.report(&task, &wait.unwrap().action_id, &shop(&[])).unwrap();
        assert_eq!(next_action(&service, &task), (None, TaskStatus::Failed));
        assert_eq!(service.status(&task).unwrap().error.as_deref(), Some(PLAN_ENDED));
    }

    #[test]
    fn the_executor_s_refusal_waits_for_confirmation_a_navigating_page_hands_the_action_out_again() {
        let (_dir, service) = service();
        let plan = [step(1, "click", json!({"selector": "#buy"})), step(2, "done", json!({}))];
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
        let plan = [step(1, "wait", json!({"ms": 1}))];
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
