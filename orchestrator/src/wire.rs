//! The calls' bodies (`docs/orchestrator-api.md`, "Calls"): one type for each request and each
//! answer, shared by both ends. The service reads its requests and writes its answers with them
//! ([`crate::http`]); the executor writes its requests (`next`, `report`) and reads their answers
//! with them. What goes in them (statuses, actions, observations, codes) is [`crate::model`]'s.
//!
//! Each field is named as the contract names it, and a field the contract marks optional is
//! omitted or `null` exactly as it always was: an answer's own optional fields are written `null`
//! (`"action": null`, `"summary": null`); an action's `target` and `taskUrl`, and a request's
//! optional fields, are left out.
//!
//! A body goes on the wire as [`encode`] makes it: a serde_json [`Value`], whose objects keep
//! their keys sorted (serde_json is built without `preserve_order`), as the `json!` bodies these
//! types replace did, nested actions and observations included; so the bytes are the ones they
//! were (the tests here and in [`crate::http`] pin them). Fields are declared in the contract's
//! order, the order those `json!` bodies were written in.

use crate::model::{Action, ErrorCode, Observation, PlanStep, TaskStatus};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::borrow::Cow;

/// A body as the wire carries it (see the module's docs on key order). It fails only for a type
/// whose serialization can fail; none of this module's can.
pub fn encode<T: Serialize>(body: &T) -> Result<Value, serde_json::Error> {
    serde_json::to_value(body)
}

/// `POST /api/agent/start`: `{"goal", "url"?, "plan"?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartRequest {
    pub goal: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// None: a model plans the task, a step at a time (if one is configured).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<PlanStep>,
}

/// `start`'s answer (201): `{"taskId", "status"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartAnswer {
    pub task_id: String,
    pub status: TaskStatus,
}

/// `POST /api/agent/next`: `{"taskId"?, "exceptTasks"?}`, a task's next action, or any task's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NextRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Without a taskId: tasks to pass over (an executor's tasks that already have a runner).
    /// Absent and empty mean the same; an executor polling for new tasks writes the list even
    /// when it is empty. Given, it must be a list (`null` is refused).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "a_list")]
    pub except_tasks: Option<Vec<String>>,
}

/// A field that, when given, holds a list (`null` is not one).
fn a_list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    Vec::deserialize(deserializer).map(Some)
}

impl NextRequest {
    /// `task`'s next action: `{"taskId"}`.
    pub fn of_task(task: &str) -> Self {
        Self { task_id: Some(task.to_owned()), except_tasks: None }
    }

    /// Any task's next action but those of `except`: `{"exceptTasks": [..]}`.
    pub fn passing_over(except: &[String]) -> Self {
        Self { task_id: None, except_tasks: Some(except.to_vec()) }
    }
}

/// `next`'s answer: `{"action": Action | null, "status"}`; the status is the task's (`null`
/// when no task was named and there is none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NextAnswer {
    pub action: Option<Action>,
    pub status: Option<TaskStatus>,
}

/// `POST /api/agent/report`: `{"taskId", "actionId", "observation"}`. The executor lends its
/// observation (it carries screenshots); the service owns what it read (`ReportRequest<'static>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportRequest<'a> {
    pub task_id: Cow<'a, str>,
    pub action_id: Cow<'a, str>,
    pub observation: Cow<'a, Observation>,
}

/// `report`'s answer: `{"status", "duplicate"}`; `duplicate`: the action had been reported
/// already, and nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportAnswer {
    pub status: TaskStatus,
    pub duplicate: bool,
}

/// `POST /api/agent/confirm`: `{"taskId", "actionId", "approved", "reason"?}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmRequest {
    pub task_id: String,
    pub action_id: String,
    pub approved: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `confirm`'s answer: `{"status"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfirmAnswer {
    pub status: TaskStatus,
}

/// `POST /api/agent/cancel`: `{"taskId"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelRequest {
    pub task_id: String,
}

/// `cancel`'s answer: `{"status": "CANCELED"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelAnswer {
    pub status: TaskStatus,
}

/// The query of `GET /api/agent/status` and `GET /api/agent/audit`: `?taskId=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskQuery {
    pub task_id: String,
}

/// `status`'s answer: `{"taskId", "status", "pendingAction", "pendingPermission", "steps",
/// "summary"?, "error"?}`; `pendingAction`, `pendingPermission`, `summary` and `error` are
/// written `null` when there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusAnswer {
    pub task_id: String,
    pub status: TaskStatus,
    pub pending_action: Option<Action>,
    /// With `--permissions ask`: the origin the pending action waits for the user's grant of.
    pub pending_permission: Option<PendingPermission>,
    pub steps: u64,
    pub summary: Option<String>,
    pub error: Option<String>,
}

/// Every error's answer: `{"error": {"code", "message"}}`.
/// What a task waits for the user's grant of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingPermission {
    pub origin: String,
}

/// `POST /api/agent/permissions`: the user's word on an origin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionRequest {
    pub origin: String,
    pub granted: bool,
}

/// Its answer: the origin as kept (in browsers' form) and the word.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionAnswer {
    pub origin: String,
    pub granted: bool,
}

/// One origin the user gave their word on, and when (ms since the Unix epoch).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantView {
    pub origin: String,
    pub granted: bool,
    pub ts: i64,
}

/// `GET /api/agent/permissions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionsAnswer {
    pub origins: Vec<GrantView>,
}

/// `GET /api/skills/search`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchAnswer {
    pub hits: Vec<crate::skills::SkillHit>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorAnswer {
    pub error: ErrorDetail,
}

/// What went wrong: the contract's code, and a message that names the field when the request
/// is at fault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub code: ErrorCode,
    pub message: String,
}

impl ErrorAnswer {
    /// The answer of an error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { error: ErrorDetail { code, message: message.into() } }
    }
}

#[cfg(test)]
mod tests {
    //! Each body against the JSON the contract shows, byte for byte as the `json!` bodies these
    //! types replaced wrote it (the `before` values are those bodies, verbatim); and each answer
    //! read back, as the executor reads it, to what was written.
    use super::*;
    use crate::model::{Artifacts, ReportedError, Risk, Target, TargetBy, ToolName};
    use crate::service::TaskView;
    use serde::de::DeserializeOwned;
    use serde_json::json;
    use std::fmt::Debug;

    /// The bytes of `body` on the wire.
    fn wire<T: Serialize>(body: &T) -> String {
        encode(body).unwrap().to_string()
    }

    /// `body` is written as `literal` (the contract's JSON, keys sorted as the wire has them) and
    /// as `before` (the old `json!` body), and read back to itself.
    fn pinned<T>(body: &T, literal: &str, before: &Value)
    where
        T: Serialize + DeserializeOwned + PartialEq + Debug,
    {
        assert_eq!(wire(body), literal);
        assert_eq!(wire(body), before.to_string(), "the bytes the json! body wrote");
        let read: T = serde_json::from_value(encode(body).unwrap()).unwrap();
        assert_eq!(&read, body, "read back");
        let read: T = serde_json::from_str(literal).unwrap();
        assert_eq!(&read, body, "read from the literal");
    }

    /// An action as `next` hands it out: a target, params, the task's url.
    fn clicking() -> Action {
        Action {
            task_id: "t1".into(),
            action_id: "t1-a1".into(),
            kind: ToolName::Click,
            target: Some(Target { by: TargetBy::Text, value: "Buy".into() }),
            params: json!({"x": [2, 1], "b": true}).as_object().cloned().unwrap(),
            risk: Risk::High,
            requires_confirmation: true,
            confirmed: true,
            task_url: Some("http://127.0.0.1:1/shop".into()),
            granted_origin: None,
        }
    }

    const ACTION: &str = r#"{"actionId":"t1-a1","confirmed":true,"params":{"b":true,"x":[2,1]},"requiresConfirmation":true,"risk":"high","target":{"by":"text","value":"Buy"},"taskId":"t1","taskUrl":"http://127.0.0.1:1/shop","type":"click"}"#;

    #[test]
    fn start_answers_the_task_s_id_and_status() {
        let (task_id, status) = ("t1".to_owned(), TaskStatus::Running);
        let before = json!({ "taskId": task_id, "status": status.name() });
        pinned(&StartAnswer { task_id, status }, r#"{"status":"RUNNING","taskId":"t1"}"#, &before);
    }

    #[test]
    fn next_answers_an_action_less_its_absent_parts_or_null_and_the_status_or_null() {
        let (action, status) = (Some(clicking()), Some(TaskStatus::Running));
        let before = json!({ "action": action, "status": status.map(TaskStatus::name) });
        let literal = format!(r#"{{"action":{ACTION},"status":"RUNNING"}}"#);
        pinned(&NextAnswer { action, status }, &literal, &before);

        // The optional parts of an action are left out, not null.
        let bare = Action { target: None, task_url: None, params: serde_json::Map::new(), ..clicking() };
        let (action, status) = (Some(bare), Some(TaskStatus::WaitingPage));
        let before = json!({ "action": action, "status": status.map(TaskStatus::name) });
        let literal = r#"{"action":{"actionId":"t1-a1","confirmed":true,"params":{},"requiresConfirmation":true,"risk":"high","taskId":"t1","type":"click"},"status":"WAITING_PAGE"}"#;
        pinned(&NextAnswer { action, status }, literal, &before);

        for (status, literal) in [
            (Some(TaskStatus::WaitingConfirmation), r#"{"action":null,"status":"WAITING_CONFIRMATION"}"#),
            (None, r#"{"action":null,"status":null}"#),
        ] {
            let action: Option<Action> = None;
            let before = json!({ "action": action, "status": status.map(TaskStatus::name) });
            pinned(&NextAnswer { action, status }, literal, &before);
        }
    }

    #[test]
    fn report_answers_the_status_and_whether_it_was_a_duplicate() {
        for (duplicate, literal) in
            [(false, r#"{"duplicate":false,"status":"RUNNING"}"#), (true, r#"{"duplicate":true,"status":"RUNNING"}"#)]
        {
            let status = TaskStatus::Running;
            let before = json!({ "status": status.name(), "duplicate": duplicate });
            pinned(&ReportAnswer { status, duplicate }, literal, &before);
        }
    }

    #[test]
    fn confirm_and_cancel_answer_the_status() {
        let status = TaskStatus::Running;
        pinned(&ConfirmAnswer { status }, r#"{"status":"RUNNING"}"#, &json!({ "status": status.name() }));
        let status = TaskStatus::Canceled;
        pinned(&CancelAnswer { status }, r#"{"status":"CANCELED"}"#, &json!({ "status": status.name() }));
    }

    #[test]
    fn status_answers_null_for_no_pending_action_summary_or_error() {
        let answers = [
            (
                StatusAnswer {
                    task_id: "t1".into(),
                    status: TaskStatus::WaitingConfirmation,
                    pending_action: Some(Action { task_url: None, ..clicking() }),
                    pending_permission: Some(PendingPermission { origin: "http://127.0.0.1:1".into() }),
                    steps: 1,
                    summary: None,
                    error: None,
                },
                r#"{"error":null,"pendingAction":{"actionId":"t1-a1","confirmed":true,"params":{"b":true,"x":[2,1]},"requiresConfirmation":true,"risk":"high","target":{"by":"text","value":"Buy"},"taskId":"t1","type":"click"},"pendingPermission":{"origin":"http://127.0.0.1:1"},"status":"WAITING_CONFIRMATION","steps":1,"summary":null,"taskId":"t1"}"#,
            ),
            (
                StatusAnswer {
                    task_id: "t1".into(),
                    status: TaskStatus::Succeeded,
                    pending_action: None,
                    pending_permission: None,
                    steps: 3,
                    summary: Some("bought".into()),
                    error: None,
                },
                r#"{"error":null,"pendingAction":null,"pendingPermission":null,"status":"SUCCEEDED","steps":3,"summary":"bought","taskId":"t1"}"#,
            ),
            (
                StatusAnswer {
                    task_id: "t1".into(),
                    status: TaskStatus::Failed,
                    pending_action: None,
                    pending_permission: None,
                    steps: 1,
                    summary: None,
                    error: Some("the plan ended without a verified done".into()),
                },
                r#"{"error":"the plan ended without a verified done","pendingAction":null,"pendingPermission":null,"status":"FAILED","steps":1,"summary":null,"taskId":"t1"}"#,
            ),
        ];
        for (answer, literal) in answers {
            // The json! body, from the service's view of the task.
            let view = TaskView {
                task_id: answer.task_id.clone(),
                status: answer.status,
                pending: answer.pending_action.clone(),
                pending_permission: answer.pending_permission.as_ref().map(|p| p.origin.clone()),
                steps: answer.steps,
                summary: answer.summary.clone(),
                error: answer.error.clone(),
            };
            let pending: Option<Action> = view.pending;
            let permission = view.pending_permission.map(|origin| json!({ "origin": origin }));
            let before = json!({
                "taskId": view.task_id, "status": view.status.name(), "pendingAction": pending,
                "pendingPermission": permission, "steps": view.steps, "summary": view.summary, "error": view.error,
            });
            pinned(&answer, literal, &before);
        }
    }

    #[test]
    fn every_error_answers_its_code_and_message() {
        for code in ErrorCode::ALL.iter().copied() {
            let message = "taskId: task t1 has ended (\"SUCCEEDED\")";
            let before = json!({ "error": { "code": code.name(), "message": message } });
            let literal =
                format!(r#"{{"error":{{"code":"{code}","message":"taskId: task t1 has ended (\"SUCCEEDED\")"}}}}"#);
            pinned(&ErrorAnswer::new(code, message), &literal, &before);
        }
    }

    #[test]
    fn the_executor_asks_next_for_its_task_or_any_but_its_own_and_a_null_list_is_refused() {
        let task = "t1";
        pinned(&NextRequest::of_task(task), r#"{"taskId":"t1"}"#, &json!({ "taskId": task }));
        for except in [vec![], vec!["t1".to_owned(), "t2".to_owned()]] {
            let literal = format!("{{\"exceptTasks\":{}}}", json!(except));
            pinned(&NextRequest::passing_over(&except), &literal, &json!({ "exceptTasks": except }));
        }
        // What others send: nothing at all, or both; a list given as null is refused.
        assert_eq!(serde_json::from_str::<NextRequest>("{}").unwrap(), NextRequest::default());
        let both: NextRequest = serde_json::from_str(r#"{"taskId": null, "exceptTasks": []}"#).unwrap();
        assert_eq!(both, NextRequest { task_id: None, except_tasks: Some(vec![]) });
        let null = serde_json::from_str::<NextRequest>(r#"{"exceptTasks": null}"#).unwrap_err();
        assert!(null.to_string().starts_with("invalid type: null, expected a sequence"), "{null}");
        let unknown = serde_json::from_str::<NextRequest>(r#"{"task": "t1"}"#).unwrap_err();
        assert!(
            unknown.to_string().starts_with("unknown field `task`, expected `taskId` or `exceptTasks`"),
            "{unknown}"
        );
    }

    #[test]
    fn the_executor_s_report_request_lends_its_observation() {
        let observation = Observation {
            url: "http://127.0.0.1:1/shop".into(),
            title: "Shop".into(),
            visible_text_snippet: "Place order".into(),
            extracted: json!({"snapshot": "s", "elements": [{"selector": "#buy", "role": "button"}]})
                .as_object()
                .cloned()
                .unwrap(),
            artifacts: Artifacts { screenshots: vec!["iVBORw0KGgo=".into()] },
            errors: vec![ReportedError { code: "TIMEOUT".into(), message: "slow".into() }],
        };
        let (task, action) = ("t1", "t1-a1");
        let request =
            ReportRequest { task_id: task.into(), action_id: action.into(), observation: Cow::Borrowed(&observation) };
        let before = json!({ "taskId": task, "actionId": action, "observation": observation });
        let literal = r##"{"actionId":"t1-a1","observation":{"artifacts":{"screenshots":["iVBORw0KGgo="]},"errors":[{"code":"TIMEOUT","message":"slow"}],"extracted":{"elements":[{"role":"button","selector":"#buy"}],"snapshot":"s"},"title":"Shop","url":"http://127.0.0.1:1/shop","visibleTextSnippet":"Place order"},"taskId":"t1"}"##;
        pinned(&request, literal, &before);
        // What the service reads: any part of the observation may be left out.
        let read: ReportRequest<'static> =
            serde_json::from_str(r#"{"taskId": "t1", "actionId": "t1-a1", "observation": {}}"#).unwrap();
        assert_eq!(read.observation.into_owned(), Observation::default());
    }

    #[test]
    fn the_requests_the_service_reads_as_the_contract_shows_them() {
        let start: StartRequest = serde_json::from_str(
            r#"{"goal": "buy", "url": "http://127.0.0.1:1/shop", "plan": [{"round": 1, "tool": "wait", "args": {"ms": 1}}]}"#,
        )
        .unwrap();
        assert_eq!((start.url.as_deref(), start.plan.len()), (Some("http://127.0.0.1:1/shop"), 1));
        let literal =
            r#"{"goal":"buy","plan":[{"args":{"ms":1},"round":1,"tool":"wait"}],"url":"http://127.0.0.1:1/shop"}"#;
        assert_eq!(wire(&start), literal);
        let start: StartRequest = serde_json::from_str(r#"{"goal": "buy", "url": null}"#).unwrap();
        assert_eq!(start, StartRequest { goal: "buy".into(), url: None, plan: vec![] });
        assert_eq!(wire(&start), r#"{"goal":"buy"}"#, "the optional parts left out");

        let confirm: ConfirmRequest =
            serde_json::from_str(r#"{"taskId": "t1", "actionId": "t1-a1", "approved": false, "reason": "no"}"#)
                .unwrap();
        assert_eq!((confirm.approved, confirm.reason.as_deref()), (false, Some("no")));
        assert_eq!(wire(&confirm), r#"{"actionId":"t1-a1","approved":false,"reason":"no","taskId":"t1"}"#);
        let confirm = ConfirmRequest { reason: None, ..confirm };
        assert_eq!(wire(&confirm), r#"{"actionId":"t1-a1","approved":false,"taskId":"t1"}"#);

        let cancel: CancelRequest = serde_json::from_str(r#"{"taskId": "t1"}"#).unwrap();
        assert_eq!(wire(&cancel), r#"{"taskId":"t1"}"#);
        let query: TaskQuery = serde_json::from_value(json!({"taskId": "t1"})).unwrap();
        assert_eq!(query.task_id, "t1");
    }
}
