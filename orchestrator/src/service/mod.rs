//! The orchestrator's service: tasks, their actions (one in flight per task, handed out again
//! with the same id until reported), confirmations, the audit. Its parts:
//! - [`machine`]: the rules (the task state machine), each call one store transaction;
//! - [`store`]: SQLite (WAL, synchronous FULL), its schema, statements and rows;
//! - [`ids`]: task and action ids;
//! - [`shown`]: what the audit and the model are shown of plans and actions.
//!
//! A call is answered only after its change and its audit lines are on disk, so a kill -9 at any
//! moment loses nothing that was answered. That work blocks on the disk (fsync), so [`Service`]
//! hands each call to a store thread of its own and awaits the answer: a handler never blocks
//! the runtime. One thread, because the store takes one call at a time anyway: calls queue on a
//! channel rather than as parked threads on a lock (which cost a tenth of the throughput).

mod ids;
mod machine;
mod shown;
mod store;
mod terms;

pub use machine::TaskOverview;
pub use store::{Grant, StoreError};
pub use terms::{MODEL_STEP_LIMIT, PLAN_ENDED, ServiceError, ServiceOptions, TaskView};

use crate::audit::Client;
use crate::model::{Action, Observation, PlanStep, TaskStatus};
use crate::planner::PlanningRequest;
use machine::Machine;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};

/// A call for the store thread.
type Job = Box<dyn FnOnce(&Machine) + Send>;

/// The orchestrator: a handle (cheap to clone) whose calls run on its store thread. The thread
/// ends once the last handle is dropped.
#[derive(Debug, Clone)]
pub struct Service {
    machine: Arc<Machine>,
    jobs: mpsc::Sender<Job>,
    /// Who this handle's calls are made for (their audit lines name them).
    client: Option<Client>,
}

impl Service {
    /// Opens (or makes) the store and the audit under `dir`, and starts the store thread.
    pub fn open(dir: &Path, options: ServiceOptions) -> Result<Self, ServiceError> {
        let machine = Arc::new(Machine::open(dir, options)?);
        let (jobs, queue) = mpsc::channel::<Job>();
        let worker = Arc::clone(&machine);
        std::thread::Builder::new()
            .name("navguard-store".into())
            .spawn(move || {
                for job in queue {
                    // A call that panics must not take every later call down with the thread. Its
                    // transaction rolled back as it unwound; its caller is told (its answer channel
                    // was dropped), and the store's lock says so to the next call.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job(&worker)));
                }
            })
            .map_err(ServiceError::Thread)?;
        Ok(Self { machine, jobs, client: None })
    }

    /// A handle whose calls are made for `client`: every audit line they write names it.
    pub fn for_client(&self, client: Client) -> Self {
        Self { client: Some(client), ..self.clone() }
    }

    /// The audit folder's file for a task.
    pub fn audit_path(&self, task_id: &str) -> PathBuf {
        self.machine.audit_path(task_id)
    }

    /// Runs `call` on the store thread and waits for its answer without blocking the runtime. It
    /// runs to its end even if the caller stops waiting (a client that hung up): a transaction is
    /// never cut short.
    async fn run<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Machine) -> Result<T, ServiceError> + Send + 'static,
    ) -> Result<T, ServiceError> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let client = self.client.clone();
        let job: Job = Box::new(move |machine| {
            // The caller may have stopped waiting: the call was carried out all the same.
            let _ = answer.send(machine.as_client(client, call));
        });
        // The thread lives as long as a handle does (it catches a call's panic), so an answer
        // is missing only if the call panicked.
        self.jobs.send(job).map_err(|_| ServiceError::Panicked)?;
        answered.await.map_err(|_| ServiceError::Panicked)?
    }

    /// `start`: a task with its plan; returns its id and status.
    pub async fn start(
        &self,
        goal: String,
        url: Option<String>,
        plan: Vec<PlanStep>,
    ) -> Result<(String, TaskStatus), ServiceError> {
        self.run(move |m| m.start(&goal, url.as_deref(), &plan)).await
    }

    /// `next`: the task's action in flight (the same until reported), or its next one; `None`
    /// while it waits for a confirmation, or once it ended.
    pub async fn next(&self, task_id: Option<String>) -> Result<(Option<Action>, Option<TaskStatus>), ServiceError> {
        self.next_except(task_id, Vec::new()).await
    }

    /// `next`, passing over the tasks in `except` when no task is named (an executor asks for
    /// new tasks while its runners poll their own).
    pub async fn next_except(
        &self,
        task_id: Option<String>,
        except: Vec<String>,
    ) -> Result<(Option<Action>, Option<TaskStatus>), ServiceError> {
        self.run(move |m| m.next_except(task_id.as_deref(), &except)).await
    }

    /// `report`: the observation after an action; `true` if it was a duplicate (nothing changed).
    pub async fn report(
        &self,
        task_id: String,
        action_id: String,
        observation: Observation,
    ) -> Result<(TaskStatus, bool), ServiceError> {
        self.run(move |m| m.report(&task_id, &action_id, &observation)).await
    }

    /// `confirm`: approves or denies an action that awaits confirmation.
    pub async fn confirm(
        &self,
        task_id: String,
        action_id: String,
        approved: bool,
        reason: Option<String>,
    ) -> Result<TaskStatus, ServiceError> {
        self.run(move |m| m.confirm(&task_id, &action_id, approved, reason.as_deref())).await
    }

    /// `cancel`.
    pub async fn cancel(&self, task_id: String) -> Result<TaskStatus, ServiceError> {
        self.run(move |m| m.cancel(&task_id)).await
    }

    /// `status`.
    pub async fn status(&self, task_id: String) -> Result<TaskView, ServiceError> {
        self.run(move |m| m.status(&task_id)).await
    }

    /// The model's tasks (`task_id`, or any not in `except`) that need the model's next step.
    pub async fn needing_a_step(
        &self,
        task_id: Option<String>,
        except: Vec<String>,
    ) -> Result<Vec<String>, ServiceError> {
        self.run(move |m| m.needing_a_step(task_id.as_deref(), &except)).await
    }

    /// What the model is given to plan `task_id`'s next step.
    pub async fn planning_request(&self, task_id: String) -> Result<PlanningRequest, ServiceError> {
        self.run(move |m| m.planning_request(&task_id)).await
    }

    /// The model's step becomes the task's next action (unless one is open or the task ended).
    pub async fn add_step(&self, task_id: String, step: PlanStep) -> Result<(), ServiceError> {
        self.run(move |m| m.add_step(&task_id, &step)).await
    }

    /// The task fails with `error` (the model could not plan it).
    pub async fn fail(&self, task_id: String, error: String) -> Result<(), ServiceError> {
        self.run(move |m| m.fail(&task_id, &error)).await
    }

    /// The user's word on `origin` (in browsers' form), kept from now on; every task waiting on
    /// it moves.
    pub async fn set_permission(&self, origin: String, granted: bool) -> Result<Grant, ServiceError> {
        self.run(move |m| m.set_permission(&origin, granted)).await
    }

    /// Every origin the user gave their word on.
    pub async fn permissions(&self) -> Result<Vec<Grant>, ServiceError> {
        self.run(Machine::permissions).await
    }

    /// The library's best `limit` skills for `query` (none without a library).
    pub fn search_skills(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<crate::skills::SkillHit>, crate::skills::SkillsError> {
        self.machine.search_skills(query, limit)
    }

    /// The `limit` tasks started last, newest first, as the console shows them.
    pub async fn overview(&self, limit: usize) -> Result<Vec<TaskOverview>, ServiceError> {
        self.run(move |m| m.overview(limit)).await
    }

    /// The audit folder (the screenshots are files in it).
    pub fn audit_dir(&self) -> PathBuf {
        self.machine.audit_dir()
    }

    /// The task's audit log (JSONL).
    pub async fn audit_log(&self, task_id: String) -> Result<String, ServiceError> {
        self.run(move |m| m.audit_log(&task_id)).await
    }

    /// The task's audit, screenshots and replay page as one zip archive.
    pub async fn export(&self, task_id: String) -> Result<Vec<u8>, ServiceError> {
        self.run(move |m| m.export(&task_id)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::AuditError;
    use crate::model::{ErrorCode, ToolName};
    use std::time::{Duration, Instant};

    #[test]
    fn the_caller_s_mistakes_keep_their_codes_and_the_service_s_own_failures_are_internal() {
        assert_eq!(ServiceError::NoSuchTask("t".into()).code(), ErrorCode::NoSuchTask);
        assert_eq!(ServiceError::Conflict("c".into()).code(), ErrorCode::Conflict);
        assert_eq!(ServiceError::BadRequest("b".into()).code(), ErrorCode::BadRequest);
        let decode = base64::DecodeError::InvalidLength(3);
        assert_eq!(
            ServiceError::from(AuditError::Screenshot { index: 0, source: decode }).code(),
            ErrorCode::BadRequest
        );
        let io = AuditError::Io { path: "p".into(), source: std::io::Error::other("disk full") };
        assert_eq!(ServiceError::from(io).code(), ErrorCode::Internal);
        assert_eq!(ServiceError::from(StoreError::Poisoned).code(), ErrorCode::Internal);
        assert_eq!(ServiceError::from(StoreError::Sql(rusqlite::Error::InvalidQuery)).code(), ErrorCode::Internal);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_call_leaves_the_runtime_free_while_it_works() {
        let dir = tempfile::tempdir().unwrap();
        let service = Service::open(dir.path(), ServiceOptions::default()).unwrap();
        // One thread runs this runtime: had the call blocked it, the timer could not fire first.
        let slow = async {
            service
                .run(|_| {
                    std::thread::sleep(Duration::from_millis(300));
                    Ok(())
                })
                .await
                .unwrap();
            Instant::now()
        };
        let timer = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            Instant::now()
        };
        let (answered, fired) = tokio::join!(slow, timer);
        assert!(fired < answered, "the runtime was blocked while the store worked");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_panicking_call_is_an_internal_error_and_the_next_call_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let service = Service::open(dir.path(), ServiceOptions::default()).unwrap();
        let step = PlanStep { round: 1, tool: ToolName::Wait, args: serde_json::Map::new() };
        let (task, _) = service.start("goal".into(), None, vec![step]).await.unwrap();
        let held = task.clone();
        let panicked = service.run(move |m| m.panic_in_a_transaction(&held)).await.unwrap_err();
        assert_eq!((panicked.code(), matches!(panicked, ServiceError::Panicked)), (ErrorCode::Internal, true));
        let poisoned = service.status(task.clone()).await.unwrap_err();
        assert!(matches!(poisoned, ServiceError::Store(StoreError::Poisoned)), "{poisoned}");
        let view = service.status(task).await.unwrap();
        assert_eq!(view.status, TaskStatus::Running, "the panicked call's cancel was rolled back");
    }
}
