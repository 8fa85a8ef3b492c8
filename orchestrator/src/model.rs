//! The wire contract's names (`docs/orchestrator-api.md`): statuses, risks, error
//! codes, actions and observations. Every name here is the contract's; clients other than ours
//! speak it. Each set of names is one table (`closed_set!`): its enum parses, prints and
//! (de)serializes from there, so an unknown name is refused where it comes in, with the names it
//! could have been.

use navguard::agent::FailureKind;
pub use navguard::agent::ToolName;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

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
        /// A console request that changes something came without the page's CSRF token.
        Forbidden = "FORBIDDEN",
        /// The service failed (its store, a lock, a worker), not the call: answered 500.
        Internal = "INTERNAL",
    }
}

navguard::closed_set! {
    /// The codes an executor reports in an observation's `errors`.
    pub enum ObservationCode("observation error code") {
        PermissionDenied = "PERMISSION_DENIED",
        TargetNotFound = "TARGET_NOT_FOUND",
        TargetNotInteractable = "TARGET_NOT_INTERACTABLE",
        /// The action ran and the page does not hold its effect (a value put back, no drop
        /// received); the message says what the page holds.
        ActionNotApplied = "ACTION_NOT_APPLIED",
        /// The element is there, but the executor cannot act on it (a closed shadow root).
        NotSupported = "NOT_SUPPORTED",
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

impl ObservationCode {
    /// The code of a call the core failed: its one classification of the failure, named in
    /// the contract's words (a new kind of failure is a compile error here until it has a code).
    pub const fn of_failure(kind: FailureKind) -> Self {
        match kind {
            FailureKind::NotFound | FailureKind::NoDialog | FailureKind::StaleRef => Self::TargetNotFound,
            FailureKind::Timeout | FailureKind::WaitExpired => Self::Timeout,
            FailureKind::Restricted => Self::PermissionDenied,
            FailureKind::FailedVerification => Self::VerificationFailed,
            FailureKind::NavigationFailed | FailureKind::NotCommitted => Self::NavigationFailed,
            FailureKind::Refused => Self::DoneRefused,
            FailureKind::BadInput => Self::BadAction,
            FailureKind::Browser => Self::BrowserError,
            // A dialog blocks the page: nothing on it can be acted on until it is answered.
            // A covered, hidden or disabled target likewise: it is there, a click would miss it.
            FailureKind::Dialog | FailureKind::NotInteractable => Self::TargetNotInteractable,
            FailureKind::NotApplied => Self::ActionNotApplied,
            FailureKind::NotSupported => Self::NotSupported,
        }
    }
}

/// An error code an executor reports: one of [`ObservationCode`], or a code of another
/// executor's own, kept as it was given (the contract lets an executor add codes, so a report
/// with one is not refused).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReportedCode {
    Known(ObservationCode),
    /// Never one of [`ObservationCode`]'s names: [`ReportedCode::from`] parses those.
    Other(String),
}

impl ReportedCode {
    /// The code as it goes on the wire.
    pub fn name(&self) -> &str {
        match self {
            Self::Known(code) => code.name(),
            Self::Other(code) => code,
        }
    }
}

impl From<ObservationCode> for ReportedCode {
    fn from(code: ObservationCode) -> Self {
        Self::Known(code)
    }
}

impl From<&str> for ReportedCode {
    fn from(name: &str) -> Self {
        name.parse().map_or_else(|_| Self::Other(name.to_owned()), Self::Known)
    }
}

impl From<String> for ReportedCode {
    fn from(name: String) -> Self {
        match name.parse() {
            Ok(code) => Self::Known(code),
            Err(_) => Self::Other(name),
        }
    }
}

impl fmt::Display for ReportedCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for ReportedCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for ReportedCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

navguard::closed_set! {
    /// How an action names its target. The set's name is the field's, so that a refusal names
    /// the field: `unknown target.by "xpath": expected one of selector, text, role, ref`.
    pub enum TargetBy("target.by") {
        /// A CSS selector.
        Selector = "selector",
        /// The element's accessible name or text.
        Text = "text",
        /// The element's role (`button`), or role and name (`button Delete account`).
        Role = "role",
        /// A ref from the last observation.
        Ref = "ref",
    }
}

/// How an action names its target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub by: TargetBy,
    pub value: String,
}

/// One action, as `next` hands it out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    pub task_id: String,
    pub action_id: String,
    /// The tool: an action's type is the agent core's tool name, which the executor runs.
    #[serde(rename = "type")]
    pub kind: ToolName,
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
    /// With `--permissions ask`, on an action that changes a page: the origin the user granted
    /// it on (the page's as last observed; `null` for a page with no origin). The executor acts
    /// only if the page's origin is still this one, or another the user granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_origin: Option<String>,
}

/// One error an executor reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedError {
    pub code: ReportedCode,
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

/// The visible-text snippet's length in an observation.
pub const SNIPPET_CHARS: usize = 500;

impl Observation {
    /// The agent core's observation of a page in the contract's words: its URL, title and the
    /// start of its text, and its snapshot in `extracted` (`snapshot`, `document`, `elements`);
    /// no screenshots, no errors.
    pub fn of_page(seen: &navguard::agent::Observation) -> Self {
        let mut extracted = Map::new();
        extracted.insert("snapshot".into(), Value::String(seen.snapshot.clone()));
        extracted.insert("document".into(), Value::String(seen.document.clone()));
        extracted.insert("elements".into(), serde_json::to_value(&seen.elements).unwrap_or(Value::Null));
        Self {
            url: seen.url.clone(),
            title: seen.title.clone(),
            visible_text_snippet: seen.text.chars().take(SNIPPET_CHARS).collect(),
            extracted,
            ..Self::default()
        }
    }

    /// The observation reports this code.
    pub fn has(&self, code: ObservationCode) -> bool {
        self.errors.iter().any(|e| e.code == ReportedCode::Known(code))
    }
}

/// One row of a scripted plan (the harness's `the model plans:` table), or a model's step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    pub round: u32,
    pub tool: ToolName,
    #[serde(default)]
    pub args: Map<String, Value>,
}

impl PlanStep {
    /// The step as an action's parts: its target taken out of its args, and the rest (its
    /// params). The target is the contract's own form `"target": {"by", "value"}`, else a
    /// `ref` or `selector` string. A `target` that is not the contract's form is refused
    /// (naming what is wrong), never passed on for the executor to trip over.
    pub fn target_and_params(&self) -> Result<(Option<Target>, Map<String, Value>), serde_json::Error> {
        let mut params = self.args.clone();
        if let Some(target) = params.get("target").filter(|t| !t.is_null()) {
            let target = Target::deserialize(target)?;
            params.remove("target");
            return Ok((Some(target), params));
        }
        for by in [TargetBy::Ref, TargetBy::Selector] {
            if let Some(Value::String(value)) = params.get(by.name()) {
                let target = Target { by, value: value.clone() };
                params.remove(by.name());
                return Ok((Some(target), params));
            }
        }
        Ok((None, params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(args: Value) -> PlanStep {
        PlanStep { round: 1, tool: ToolName::Click, args: args.as_object().cloned().unwrap() }
    }

    #[test]
    fn a_step_s_target_is_the_contract_s_form_or_a_ref_or_selector_and_an_unknown_by_is_refused_by_name() {
        let (target, params) =
            step(json!({"target": {"by": "text", "value": "Buy"}, "x": 1})).target_and_params().unwrap();
        assert_eq!(target, Some(Target { by: TargetBy::Text, value: "Buy".into() }));
        assert_eq!(Value::Object(params), json!({"x": 1}));
        let (target, params) = step(json!({"selector": "#buy"})).target_and_params().unwrap();
        assert_eq!((target.map(|t| t.by), params.is_empty()), (Some(TargetBy::Selector), true));
        let (target, params) = step(json!({"ref": 3})).target_and_params().unwrap();
        assert_eq!((target, params.len()), (None, 1), "a ref that is no string is left to the executor");
        let err = step(json!({"target": {"by": "xpath", "value": "//a"}})).target_and_params().unwrap_err();
        assert_eq!(err.to_string(), "unknown target.by \"xpath\": expected one of selector, text, role, ref");
    }

    #[test]
    fn reported_codes_are_typed_when_known_and_kept_as_given_when_not() {
        let errors: Vec<ReportedError> =
            serde_json::from_value(json!([{"code": "TIMEOUT"}, {"code": "SOMETHING_ELSE", "message": "m"}])).unwrap();
        assert_eq!(errors[0].code, ReportedCode::Known(ObservationCode::Timeout));
        assert_eq!(errors[1].code, ReportedCode::Other("SOMETHING_ELSE".into()));
        assert_eq!(
            serde_json::to_value(&errors).unwrap(),
            json!([{"code": "TIMEOUT", "message": ""}, {"code": "SOMETHING_ELSE", "message": "m"}])
        );
        assert_eq!(ReportedCode::from("DONE_REFUSED"), ObservationCode::DoneRefused.into());
    }

    #[test]
    fn a_failure_is_reported_in_the_contract_s_code_of_its_kind() {
        let code = |kind: FailureKind| ObservationCode::of_failure(kind).name();
        assert_eq!(code(FailureKind::NotFound), "TARGET_NOT_FOUND");
        assert_eq!(code(FailureKind::NoDialog), "TARGET_NOT_FOUND");
        assert_eq!(code(FailureKind::WaitExpired), "TIMEOUT");
        assert_eq!(code(FailureKind::NotCommitted), "NAVIGATION_FAILED");
        assert_eq!(code(FailureKind::Dialog), "TARGET_NOT_INTERACTABLE");
        assert_eq!(code(FailureKind::BadInput), "BAD_ACTION");
    }

    #[test]
    fn an_action_s_type_is_a_tool_name_and_an_unknown_one_is_refused_by_name() {
        let action = json!({"taskId": "t", "actionId": "t-a0", "type": "click", "params": {}, "risk": "low",
            "requiresConfirmation": false, "confirmed": false, "target": {"by": "ref", "value": "d1.2"}});
        let parsed: Action = serde_json::from_value(action.clone()).unwrap();
        assert_eq!((parsed.kind, parsed.target.as_ref().map(|t| t.by)), (ToolName::Click, Some(TargetBy::Ref)));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), action);
        let err = serde_json::from_value::<PlanStep>(json!({"round": 1, "tool": "fly"})).unwrap_err();
        assert!(err.to_string().starts_with("unknown tool \"fly\": expected one of open_url"), "{err}");
    }
}
