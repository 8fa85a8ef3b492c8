//! The wire contract's names (`shared/design/orchestrator-api.md`): statuses, risks, error
//! codes, actions and observations. Every name here is the contract's; clients other than ours
//! speak it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

navguard::closed_set! {
    /// Where a task stands.
    pub enum TaskStatus("task status") {
        Running = "RUNNING",
        WaitingConfirmation = "WAITING_CONFIRMATION",
        WaitingPage = "WAITING_PAGE",
        Succeeded = "SUCCEEDED",
        Failed = "FAILED",
        Canceled = "CANCELED",
    }
}

impl TaskStatus {
    /// A task in this status will hand out no more actions.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Canceled)
    }
}

navguard::closed_set! {
    /// How much harm an action could do if it was wrong.
    pub enum Risk("risk") {
        Low = "low",
        Medium = "medium",
        High = "high",
    }
}

navguard::closed_set! {
    /// The codes of the error body `{"error": {"code", "message"}}`.
    pub enum ErrorCode("error code") {
        Unauthorized = "UNAUTHORIZED",
        BadRequest = "BAD_REQUEST",
        NoSuchTask = "NO_SUCH_TASK",
        Conflict = "CONFLICT",
    }
}

navguard::closed_set! {
    /// The codes an executor reports in an observation's `errors`.
    pub enum ObservationCode("observation error code") {
        PermissionDenied = "PERMISSION_DENIED",
        TargetNotFound = "TARGET_NOT_FOUND",
        TargetNotInteractable = "TARGET_NOT_INTERACTABLE",
        NavigationInProgress = "NAVIGATION_IN_PROGRESS",
        Timeout = "TIMEOUT",
        ConfirmationRequired = "CONFIRMATION_REQUIRED",
        // The executor's own, beyond the contract's list (it allows others):
        /// The executor died while the action ran; restarted, it does not run it again.
        Interrupted = "INTERRUPTED",
        /// The action names no tool, or its arguments are wrong.
        BadAction = "BAD_ACTION",
        /// `{secret:NAME}` names no secret in `--secrets`.
        UnknownSecret = "UNKNOWN_SECRET",
        /// The action ran and its `expect` did not hold.
        VerificationFailed = "VERIFICATION_FAILED",
        /// `done` was refused: the page changed since it was observed, or its `expect` did
        /// not hold (or was missing where one is needed). The task did not end.
        DoneRefused = "DONE_REFUSED",
        NavigationFailed = "NAVIGATION_FAILED",
        /// The page could not be observed after the action (it kept navigating, or its tab
        /// went away).
        PageNotObserved = "PAGE_NOT_OBSERVED",
        BrowserError = "BROWSER_ERROR",
    }
}

/// How an action names its target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// `selector`, `text`, `role` or `ref`.
    pub by: String,
    pub value: String,
}

/// One action, as `next` hands it out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    pub task_id: String,
    pub action_id: String,
    /// The tool's name.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    pub params: Map<String, Value>,
    pub risk: Risk,
    pub requires_confirmation: bool,
    pub confirmed: bool,
    /// The task's `url` (a field the contract allows adding): the executor opens it before the
    /// task's first action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_url: Option<String>,
}

/// One error an executor reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedError {
    /// One of [`ObservationCode`]'s names, or another the executor knows.
    pub code: String,
    #[serde(default)]
    pub message: String,
}

/// Screenshots an executor sends with an observation (base64 PNG).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifacts {
    #[serde(default)]
    pub screenshots: Vec<String>,
}

/// What the executor saw after an action.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub visible_text_snippet: String,
    /// What the executor extracted; `elements` (the agent core's snapshot elements: selector,
    /// ref, role, name, value, form) is what risk classification reads.
    #[serde(default)]
    pub extracted: Map<String, Value>,
    #[serde(default)]
    pub artifacts: Artifacts,
    #[serde(default)]
    pub errors: Vec<ReportedError>,
}

impl Observation {
    /// The observation reports this code.
    pub fn has(&self, code: ObservationCode) -> bool {
        self.errors.iter().any(|e| e.code == code.name())
    }
}

/// One row of a scripted plan (the harness's `the model plans:` table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    pub round: u32,
    pub tool: String,
    #[serde(default)]
    pub args: Map<String, Value>,
}
