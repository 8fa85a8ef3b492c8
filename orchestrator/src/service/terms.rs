//! What the service and its machine both speak of: how the service runs (its options), why a
//! call could not be carried out (its error), a task as a caller is shown it, and the words a
//! plan ends with. It sits below both, so neither needs the other's file for them.

use super::store::StoreError;
use crate::audit::AuditError;
use crate::model::{Action, ErrorCode, TaskStatus};
use crate::permissions::PermissionMode;
use crate::redact::Redactor;
use crate::risk::RiskPolicy;
use std::sync::Arc;

/// Why a scripted task whose plan ran out failed.
pub const PLAN_ENDED: &str = "the plan ended without a verified done";

/// The most steps a model may plan for one task (the agent core's round limit).
pub const MODEL_STEP_LIMIT: usize = 40;

/// Why a call could not be carried out: the caller's mistake (named by the contract's code), or
/// the service's own failure. [`ServiceError::code`] says which; nobody reads the message for it.
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
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Audit(#[from] AuditError),
    /// The task's archive could not be made.
    #[error(transparent)]
    Export(#[from] crate::export::ExportError),
    /// The call panicked on the store thread (a bug; the thread goes on with the next call).
    #[error("a call to the task store did not finish: it panicked (see the log)")]
    Panicked,
    /// The store thread could not be started.
    #[error("the task store's thread: {0}")]
    Thread(#[source] std::io::Error),
}

impl ServiceError {
    /// The contract's error code for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NoSuchTask(_) => ErrorCode::NoSuchTask,
            Self::Conflict(_) => ErrorCode::Conflict,
            // A screenshot that is not base64 is the caller's: nothing was written.
            Self::BadRequest(_) | Self::Audit(AuditError::Screenshot { .. }) => ErrorCode::BadRequest,
            Self::Store(_) | Self::Audit(_) | Self::Export(_) | Self::Panicked | Self::Thread(_) => ErrorCode::Internal,
        }
    }
}

/// A task as `status` shows it.
#[derive(Clone, Debug)]
pub struct TaskView {
    pub task_id: String,
    pub status: TaskStatus,
    pub pending: Option<Action>,
    /// The origin the pending action waits for the user's grant of.
    pub pending_permission: Option<String>,
    pub steps: u64,
    pub summary: Option<String>,
    pub error: Option<String>,
}

/// How the service runs.
#[derive(Clone, Debug, Default)]
pub struct ServiceOptions {
    /// What makes a click high-risk.
    pub risk: RiskPolicy,
    /// Tasks started without a plan are planned by the model, a step at a time; without a
    /// model they are refused.
    pub model_plans: bool,
    /// The redaction of the audit and of what the model is given.
    pub redactor: Redactor,
    /// Whether actions that change a page need the user's grant of their site.
    pub permissions: PermissionMode,
    /// The library of site procedures (`--skills DIR`), read and indexed.
    pub skills: Option<Arc<crate::skills::Skills>>,
}
