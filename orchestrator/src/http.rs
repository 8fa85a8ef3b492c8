//! The HTTP face of the orchestrator: the contract's paths, statuses and error codes; its
//! bodies are [`crate::wire`]'s. Every request needs `Authorization: Bearer <secret>`, compared
//! in constant time.

use crate::model::ErrorCode;
use crate::planner::TaskPlanner;
use crate::service::{Service, ServiceError, TaskView};
use crate::wire::{
    self, CancelAnswer, CancelRequest, ConfirmAnswer, ConfirmRequest, ErrorAnswer, NextAnswer, NextRequest,
    ReportAnswer, ReportRequest, StartAnswer, StartRequest, StatusAnswer, TaskQuery,
};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// What the handlers share.
#[derive(Debug)]
pub struct AppState {
    pub service: Service,
    pub secret: String,
    /// The model that plans tasks started without a plan, if one is configured.
    pub planner: Option<Arc<dyn TaskPlanner>>,
    /// Tasks whose next step the model is planning now (one call per task at a time).
    pub planning: Mutex<HashSet<String>>,
}

impl AppState {
    pub fn new(service: Service, secret: String, planner: Option<Arc<dyn TaskPlanner>>) -> Self {
        Self { service, secret, planner, planning: Mutex::default() }
    }

    /// The tasks being planned. A panic while the set was held cannot leave it half-changed (an
    /// insert or a remove is whole), so a poisoned lock is taken as it is.
    fn planning(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.planning.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Asks the model, in the background, for the next step of each of its tasks that has none:
    /// `next` never waits for a model; the executor's next poll finds the step.
    async fn plan_ahead(self: &Arc<Self>, task_id: Option<String>, except: Vec<String>) -> Result<(), ServiceError> {
        let Some(planner) = &self.planner else { return Ok(()) };
        for task in self.service.needing_a_step(task_id, except).await? {
            if !self.planning().insert(task.clone()) {
                continue;
            }
            let (state, planner) = (Arc::clone(self), Arc::clone(planner));
            tokio::spawn(async move {
                let planned = match state.service.planning_request(task.clone()).await {
                    Ok(request) => planner.next_step(&request).await.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let recorded = match planned {
                    Ok(step) => state.service.add_step(task.clone(), step).await,
                    Err(why) => {
                        tracing::warn!(target: "navguard::serve", "task {task}: {why}");
                        state.service.fail(task.clone(), why).await
                    }
                };
                if let Err(e) = recorded {
                    tracing::error!(target: "navguard::serve", "task {task}: {e}");
                }
                state.planning().remove(&task);
            });
        }
        Ok(())
    }
}

/// What an internal error's answer says: the details are the operator's, in the log.
const INTERNAL: &str = "internal error: see the server's log";

/// An answer: its status and its body, written as the wire has it ([`wire::encode`]).
#[derive(Debug)]
struct Answer<T>(StatusCode, T);

impl<T> Answer<T> {
    fn ok(body: T) -> Self {
        Self(StatusCode::OK, body)
    }
}

impl<T: Serialize> IntoResponse for Answer<T> {
    fn into_response(self) -> Response {
        match wire::encode(&self.1) {
            Ok(body) => (self.0, Json(body)).into_response(),
            Err(e) => {
                tracing::error!(target: "navguard::serve", "an answer could not be written: {e}");
                let code = ErrorCode::Internal;
                (status_of(code), Json(ErrorAnswer::new(code, INTERNAL))).into_response()
            }
        }
    }
}

/// An error answer: `{"error": {"code", "message"}}` ([`ErrorAnswer`]).
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into() }
    }

    fn bad(message: impl Into<String>) -> Self {
        Self::new(status_of(ErrorCode::BadRequest), ErrorCode::BadRequest, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        Answer(self.status, ErrorAnswer::new(self.code, self.message)).into_response()
    }
}

/// The HTTP status the contract gives each error code.
fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::BadRequest => StatusCode::BAD_REQUEST,
        ErrorCode::NoSuchTask => StatusCode::NOT_FOUND,
        ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        let code = e.code();
        if code == ErrorCode::Internal {
            // The details (paths, SQL) are the operator's, in the log; the caller learns only
            // that it was not its mistake.
            tracing::error!(target: "navguard::serve", "{e}");
            return Self::new(status_of(code), code, INTERNAL);
        }
        Self::new(status_of(code), code, e.to_string())
    }
}

/// A JSON body whose rejection is the contract's 400 naming the field.
#[derive(Debug)]
pub struct Body<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(Self(value)),
            Err(JsonRejection::JsonDataError(e)) => Err(ApiError::bad(format!("body: {}", e.body_text()))),
            Err(e) => Err(ApiError::bad(format!("body: {}", e.body_text()))),
        }
    }
}

/// Constant-time comparison: how long it takes does not say how much of the secret matched.
fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    let mut diff = given.len() ^ secret.len();
    for (i, s) in secret.iter().enumerate() {
        diff |= usize::from(given.get(i).copied().unwrap_or(0) ^ s);
    }
    diff == 0
}

async fn authorize(State(state): State<Arc<AppState>>, headers: HeaderMap, request: Request, next: Next) -> Response {
    let given =
        headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(given) if same_secret(given.as_bytes(), state.secret.as_bytes()) => next.run(request).await,
        _ => ApiError::new(
            status_of(ErrorCode::Unauthorized),
            ErrorCode::Unauthorized,
            "a valid Authorization: Bearer <secret> is needed",
        )
        .into_response(),
    }
}

/// The service's routes.
pub fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/api/agent/start", post(start))
        .route("/api/agent/next", post(next))
        .route("/api/agent/report", post(report))
        .route("/api/agent/confirm", post(confirm))
        .route("/api/agent/cancel", post(cancel))
        .route("/api/agent/status", get(status))
        .route("/api/agent/audit", get(audit))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), authorize))
        .with_state(state)
}

async fn start(
    State(state): State<Arc<AppState>>,
    Body(body): Body<StartRequest>,
) -> Result<Answer<StartAnswer>, ApiError> {
    if body.goal.trim().is_empty() {
        return Err(ApiError::bad("goal: must not be empty"));
    }
    let (task_id, status) = state.service.start(body.goal, body.url, body.plan).await?;
    Ok(Answer(StatusCode::CREATED, StartAnswer { task_id, status }))
}

async fn next(
    State(state): State<Arc<AppState>>,
    Body(body): Body<NextRequest>,
) -> Result<Answer<NextAnswer>, ApiError> {
    let except = body.except_tasks.unwrap_or_default();
    let (action, status) = state.service.next_except(body.task_id.clone(), except.clone()).await?;
    if action.is_none() {
        state.plan_ahead(body.task_id, except).await?;
    }
    Ok(Answer::ok(NextAnswer { action, status }))
}

async fn report(
    State(state): State<Arc<AppState>>,
    Body(body): Body<ReportRequest<'static>>,
) -> Result<Answer<ReportAnswer>, ApiError> {
    let (task_id, action_id) = (body.task_id.into_owned(), body.action_id.into_owned());
    let (status, duplicate) = state.service.report(task_id, action_id, body.observation.into_owned()).await?;
    Ok(Answer::ok(ReportAnswer { status, duplicate }))
}

async fn confirm(
    State(state): State<Arc<AppState>>,
    Body(body): Body<ConfirmRequest>,
) -> Result<Answer<ConfirmAnswer>, ApiError> {
    let status = state.service.confirm(body.task_id, body.action_id, body.approved, body.reason).await?;
    Ok(Answer::ok(ConfirmAnswer { status }))
}

async fn cancel(
    State(state): State<Arc<AppState>>,
    Body(body): Body<CancelRequest>,
) -> Result<Answer<CancelAnswer>, ApiError> {
    let status = state.service.cancel(body.task_id).await?;
    Ok(Answer::ok(CancelAnswer { status }))
}

impl From<TaskView> for StatusAnswer {
    fn from(view: TaskView) -> Self {
        let TaskView { task_id, status, pending, steps, summary, error } = view;
        Self { task_id, status, pending_action: pending, steps, summary, error }
    }
}

fn task_query(query: Result<Query<TaskQuery>, QueryRejection>) -> Result<String, ApiError> {
    query.map(|Query(q)| q.task_id).map_err(|_| ApiError::bad("taskId: the query needs ?taskId=<id>"))
}

async fn status(
    State(state): State<Arc<AppState>>,
    query: Result<Query<TaskQuery>, QueryRejection>,
) -> Result<Answer<StatusAnswer>, ApiError> {
    let view = state.service.status(task_query(query)?).await?;
    Ok(Answer::ok(StatusAnswer::from(view)))
}

async fn audit(
    State(state): State<Arc<AppState>>,
    query: Result<Query<TaskQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let log = state.service.audit_log(task_query(query)?).await?;
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], log).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk::RiskPolicy;
    use serde_json::{Value, json};
    use std::path::Path;
    use std::time::Duration;

    const SECRET: &str = "a-secret-of-32-characters-length";

    /// The service on loopback, in this process; its base URL.
    async fn serve(dir: &Path) -> String {
        let service = Service::open(dir, RiskPolicy::default(), false).unwrap();
        let app = app(Arc::new(AppState::new(service, SECRET.into(), None)));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        base
    }

    /// A POST's status and the error code and message of its answer, if it is an error.
    async fn call(base: &str, path: &str, body: Value) -> (u16, Value) {
        let client = crate::post::client(Duration::from_secs(10));
        let url = format!("{base}{path}");
        let (status, text) = crate::post::post_json(&client, url, Some(SECRET), body.to_string()).await.unwrap();
        (status, serde_json::from_str(&text).unwrap())
    }

    fn error(answer: &(u16, Value)) -> (u16, &str, &str) {
        let error = &answer.1["error"];
        (answer.0, error["code"].as_str().unwrap_or_default(), error["message"].as_str().unwrap_or_default())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_unknown_tool_or_target_by_or_a_screenshot_not_in_base64_is_a_bad_request_naming_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let base = serve(dir.path()).await;
        let start = |plan: Value| json!({"goal": "g", "plan": plan});
        let answer = call(&base, "/api/agent/start", start(json!([{"round": 1, "tool": "fly"}]))).await;
        let (status, code, message) = error(&answer);
        assert_eq!((status, code), (400, "BAD_REQUEST"), "{message}");
        assert!(message.contains("plan[0].tool") && message.contains("unknown tool \"fly\""), "{message}");
        let xpath = json!([{"round": 1, "tool": "click", "args": {"target": {"by": "xpath", "value": "//a"}}}]);
        let answer = call(&base, "/api/agent/start", start(xpath)).await;
        assert_eq!(
            error(&answer),
            (
                400,
                "BAD_REQUEST",
                "plan[0].args.target: unknown target.by \"xpath\": expected one of selector, text, role, ref"
            )
        );

        let (_, started) = call(&base, "/api/agent/start", start(json!([{"round": 1, "tool": "wait"}]))).await;
        let task = started["taskId"].as_str().unwrap().to_owned();
        let (_, next) = call(&base, "/api/agent/next", json!({"taskId": task})).await;
        let action = next["action"]["actionId"].clone();
        let shots = json!({"artifacts": {"screenshots": ["not base64!"]}});
        let report = json!({"taskId": task, "actionId": action, "observation": shots});
        let answer = call(&base, "/api/agent/report", report.clone()).await;
        let (status, code, message) = error(&answer);
        assert_eq!((status, code), (400, "BAD_REQUEST"), "{message}");
        assert!(message.starts_with("observation.artifacts.screenshots[0]: not base64"), "{message}");
        let fine = json!({"taskId": task, "actionId": action, "observation": {}});
        assert_eq!(
            call(&base, "/api/agent/report", fine).await,
            (200, json!({"status": "RUNNING", "duplicate": false}))
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_store_or_disk_failure_is_internal_500_never_conflict_and_nothing_of_the_call_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let base = serve(dir.path()).await;
        // The audit folder turns into a file: no audit line can be written, so no call that
        // writes one can be answered as done.
        std::fs::remove_dir_all(dir.path().join("audit")).unwrap();
        std::fs::write(dir.path().join("audit"), "").unwrap();
        let start = json!({"goal": "g", "plan": [{"round": 1, "tool": "wait"}]});
        let answer = call(&base, "/api/agent/start", start).await;
        assert_eq!(error(&answer), (500, "INTERNAL", "internal error: see the server's log"));
        let (status, next) = call(&base, "/api/agent/next", json!({})).await;
        assert_eq!((status, next), (200, json!({"action": null, "status": null})), "the task was rolled back");
    }

    /// A call's status and its answer's text as it came off the wire (always JSON): a GET when
    /// `body` is empty, else a POST of it.
    async fn raw(base: &str, path: &str, bearer: Option<&'static str>, body: &str) -> (u16, String) {
        let (url, path, body) = (format!("{base}{path}"), path.to_owned(), body.to_owned());
        tokio::task::spawn_blocking(move || {
            let agent = crate::post::client(Duration::from_secs(10));
            let authorization = format!("Bearer {}", bearer.unwrap_or_default());
            let mut response = if body.is_empty() {
                let request = agent.get(&url);
                if bearer.is_some() { request.header("Authorization", &authorization) } else { request }.call()
            } else {
                let request = agent.post(&url).header("Content-Type", "application/json");
                if bearer.is_some() { request.header("Authorization", &authorization) } else { request }.send(&body)
            }
            .unwrap();
            assert_eq!(response.headers().get(header::CONTENT_TYPE).unwrap(), "application/json", "{path}");
            (response.status().as_u16(), response.body_mut().read_to_string().unwrap())
        })
        .await
        .unwrap()
    }

    /// Every answer's bytes, errors included, as the service writes them: three tasks' lives
    /// (one succeeds, one is canceled, one fails) and every kind of refusal. The tasks' ids are
    /// written `{t}`, `{u}`, `{v}`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_answer_s_bytes_are_the_contract_s() {
        let dir = tempfile::tempdir().unwrap();
        let base = serve(dir.path()).await;
        let mut seen: Vec<(u16, String)> = Vec::new();
        let started = r#"{"goal": "buy", "url": "http://127.0.0.1:1/shop", "plan": [
            {"round": 1, "tool": "wait", "args": {"ms": 1}},
            {"round": 2, "tool": "click", "args": {"target": {"by": "text", "value": "Buy"}, "x": [2, 1]}},
            {"round": 3, "tool": "done", "args": {"summary": "bought"}}]}"#;
        let mut tasks = Vec::new();
        for body in [started, r#"{"goal": "g", "plan": [{"round": 1, "tool": "wait"}]}"#] {
            let answer = raw(&base, "/api/agent/start", Some(SECRET), body).await;
            tasks.push(serde_json::from_str::<Value>(&answer.1).unwrap()["taskId"].as_str().unwrap().to_owned());
            seen.push(answer);
        }
        let (t, u) = (tasks[0].clone(), tasks[1].clone());
        let status = |id: &str| (format!("/api/agent/status?taskId={id}"), String::new());
        let next = |id: &str| ("/api/agent/next".to_owned(), format!(r#"{{"taskId": "{id}"}}"#));
        let report = |id: &str, action: &str| {
            let body = format!(r#"{{"taskId": "{id}", "actionId": "{id}-{action}", "observation": {{}}}}"#);
            ("/api/agent/report".to_owned(), body)
        };
        let confirm = |id: &str, action: &str| {
            let body = format!(r#"{{"taskId": "{id}", "actionId": "{id}-{action}", "approved": true}}"#);
            ("/api/agent/confirm".to_owned(), body)
        };
        let cancel = |id: &str| ("/api/agent/cancel".to_owned(), format!(r#"{{"taskId": "{id}"}}"#));
        let calls = [
            next(&t),
            status(&t),
            report(&t, "a0"),
            report(&t, "a0"),
            next(&t),
            status(&t),
            confirm(&t, "a1"),
            ("/api/agent/next".to_owned(), format!(r#"{{"exceptTasks": ["{u}"]}}"#)),
            report(&t, "a1"),
            next(&t),
            report(&t, "a2"),
            status(&t),
            cancel(&t),
            confirm(&t, "a1"),
            cancel(&u),
            cancel(&u),
            status(&u),
            next(&u),
            ("/api/agent/next".to_owned(), "{}".to_owned()),
        ];
        for (path, body) in calls {
            seen.push(raw(&base, &path, Some(SECRET), &body).await);
        }
        let (_, started) =
            raw(&base, "/api/agent/start", Some(SECRET), r#"{"goal": "g", "plan": [{"round": 1, "tool": "wait"}]}"#)
                .await;
        let v = serde_json::from_str::<Value>(&started).unwrap()["taskId"].as_str().unwrap().to_owned();
        for (path, body) in [next(&v), report(&v, "a0"), next(&v), status(&v)] {
            seen.push(raw(&base, &path, Some(SECRET), &body).await);
        }
        seen.push(raw(&base, "/api/agent/next", None, "{}").await);
        seen.push(raw(&base, "/api/agent/status?taskId=nope", Some("not-the-secret-of-32-characters!"), "").await);
        seen.push(raw(&base, "/api/agent/status", Some(SECRET), "").await);
        seen.push(raw(&base, "/api/agent/status?taskId=nope", Some(SECRET), "").await);
        seen.push(raw(&base, "/api/agent/audit?taskId=nope", Some(SECRET), "").await);
        for (path, body) in [
            ("/api/agent/start", r#"{"goal": " "}"#),
            ("/api/agent/start", r#"{"url": "u"}"#),
            ("/api/agent/start", r#"{"goal": "g", "plans": []}"#),
            ("/api/agent/start", r#"{"goal": "g", "url": 5}"#),
            ("/api/agent/start", r#"{"goal": "g", "plan": [{"tool": "wait"}]}"#),
            ("/api/agent/start", "{"),
            ("/api/agent/start", r#"{"goal": "g"}"#),
            ("/api/agent/next", r#"{"taskId": 5}"#),
            ("/api/agent/next", r#"{"exceptTasks": null}"#),
            ("/api/agent/next", r#"{"exceptTasks": "t"}"#),
            ("/api/agent/next", r#"{"taskId": null, "exceptTasks": []}"#),
            ("/api/agent/next", r#"{"task": "t"}"#),
            ("/api/agent/next", r#"{"taskId": "nope"}"#),
            ("/api/agent/report", r#"{"taskId": "t", "actionId": "a"}"#),
            ("/api/agent/report", r#"{"taskId": "t", "actionId": "a", "observation": {"errors": [{"message": "m"}]}}"#),
            ("/api/agent/report", r#"{"taskId": "nope", "actionId": "a", "observation": {}, "extra": 1}"#),
            ("/api/agent/confirm", r#"{"taskId": "t", "actionId": "a", "approved": "yes"}"#),
            ("/api/agent/confirm", r#"{"taskId": "nope", "actionId": "a", "approved": false, "reason": null}"#),
            ("/api/agent/cancel", r#"{}"#),
            ("/api/agent/cancel", r#"{"taskId": "nope"}"#),
        ] {
            seen.push(raw(&base, path, Some(SECRET), body).await);
        }
        let ids = |text: &str| text.replace(&t, "{t}").replace(&u, "{u}").replace(&v, "{v}");
        let seen: Vec<(u16, String)> = seen.into_iter().map(|(s, text)| (s, ids(&text))).collect();
        let expected: Vec<(u16, &str)> = vec![
            (201, r#"{"status":"RUNNING","taskId":"{t}"}"#),
            (201, r#"{"status":"RUNNING","taskId":"{u}"}"#),
            (
                200,
                r#"{"action":{"actionId":"{t}-a0","confirmed":false,"params":{"ms":1},"requiresConfirmation":false,"risk":"low","taskId":"{t}","taskUrl":"http://127.0.0.1:1/shop","type":"wait"},"status":"RUNNING"}"#,
            ),
            (
                200,
                r#"{"error":null,"pendingAction":{"actionId":"{t}-a0","confirmed":false,"params":{"ms":1},"requiresConfirmation":false,"risk":"low","taskId":"{t}","type":"wait"},"status":"RUNNING","steps":0,"summary":null,"taskId":"{t}"}"#,
            ),
            (200, r#"{"duplicate":false,"status":"RUNNING"}"#),
            (200, r#"{"duplicate":true,"status":"RUNNING"}"#),
            (200, r#"{"action":null,"status":"WAITING_CONFIRMATION"}"#),
            (
                200,
                r#"{"error":null,"pendingAction":{"actionId":"{t}-a1","confirmed":false,"params":{"x":[2,1]},"requiresConfirmation":true,"risk":"high","target":{"by":"text","value":"Buy"},"taskId":"{t}","type":"click"},"status":"WAITING_CONFIRMATION","steps":1,"summary":null,"taskId":"{t}"}"#,
            ),
            (200, r#"{"status":"RUNNING"}"#),
            (
                200,
                r#"{"action":{"actionId":"{t}-a1","confirmed":true,"params":{"x":[2,1]},"requiresConfirmation":true,"risk":"high","target":{"by":"text","value":"Buy"},"taskId":"{t}","taskUrl":"http://127.0.0.1:1/shop","type":"click"},"status":"RUNNING"}"#,
            ),
            (200, r#"{"duplicate":false,"status":"RUNNING"}"#),
            (
                200,
                r#"{"action":{"actionId":"{t}-a2","confirmed":false,"params":{"summary":"bought"},"requiresConfirmation":false,"risk":"low","taskId":"{t}","taskUrl":"http://127.0.0.1:1/shop","type":"done"},"status":"RUNNING"}"#,
            ),
            (200, r#"{"duplicate":false,"status":"SUCCEEDED"}"#),
            (
                200,
                r#"{"error":null,"pendingAction":null,"status":"SUCCEEDED","steps":3,"summary":"bought","taskId":"{t}"}"#,
            ),
            (409, r#"{"error":{"code":"CONFLICT","message":"taskId: task {t} has ended (SUCCEEDED)"}}"#),
            (409, r#"{"error":{"code":"CONFLICT","message":"taskId: task {t} has ended (SUCCEEDED)"}}"#),
            (200, r#"{"status":"CANCELED"}"#),
            (200, r#"{"status":"CANCELED"}"#),
            (200, r#"{"error":null,"pendingAction":null,"status":"CANCELED","steps":0,"summary":null,"taskId":"{u}"}"#),
            (200, r#"{"action":null,"status":"CANCELED"}"#),
            (200, r#"{"action":null,"status":null}"#),
            (
                200,
                r#"{"action":{"actionId":"{v}-a0","confirmed":false,"params":{},"requiresConfirmation":false,"risk":"low","taskId":"{v}","type":"wait"},"status":"RUNNING"}"#,
            ),
            (200, r#"{"duplicate":false,"status":"RUNNING"}"#),
            (200, r#"{"action":null,"status":"FAILED"}"#),
            (
                200,
                r#"{"error":"the plan ended without a verified done","pendingAction":null,"status":"FAILED","steps":1,"summary":null,"taskId":"{v}"}"#,
            ),
            (401, r#"{"error":{"code":"UNAUTHORIZED","message":"a valid Authorization: Bearer <secret> is needed"}}"#),
            (401, r#"{"error":{"code":"UNAUTHORIZED","message":"a valid Authorization: Bearer <secret> is needed"}}"#),
            (400, r#"{"error":{"code":"BAD_REQUEST","message":"taskId: the query needs ?taskId=<id>"}}"#),
            (404, r#"{"error":{"code":"NO_SUCH_TASK","message":"no such task: nope"}}"#),
            (404, r#"{"error":{"code":"NO_SUCH_TASK","message":"no such task: nope"}}"#),
            (400, r#"{"error":{"code":"BAD_REQUEST","message":"goal: must not be empty"}}"#),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: missing field `goal` at line 1 column 12"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: plans: unknown field `plans`, expected one of `goal`, `url`, `plan` at line 1 column 21"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: url: invalid type: integer `5`, expected a string at line 1 column 22"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: plan[0]: missing field `round` at line 1 column 39"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to parse the request body as JSON: EOF while parsing an object at line 1 column 1"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"plan: give at least one step (no model is configured)"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: taskId: invalid type: integer `5`, expected a string at line 1 column 12"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: exceptTasks: invalid type: null, expected a sequence at line 1 column 20"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: exceptTasks: invalid type: string \"t\", expected a sequence at line 1 column 19"}}"#,
            ),
            (200, r#"{"action":null,"status":null}"#),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: task: unknown field `task`, expected `taskId` or `exceptTasks` at line 1 column 7"}}"#,
            ),
            (404, r#"{"error":{"code":"NO_SUCH_TASK","message":"no such task: nope"}}"#),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: missing field `observation` at line 1 column 32"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: observation.errors[0]: missing field `code` at line 1 column 76"}}"#,
            ),
            (404, r#"{"error":{"code":"NO_SUCH_TASK","message":"no such task: nope"}}"#),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: approved: invalid type: string \"yes\", expected a boolean at line 1 column 50"}}"#,
            ),
            (404, r#"{"error":{"code":"NO_SUCH_TASK","message":"no such task: nope"}}"#),
            (
                400,
                r#"{"error":{"code":"BAD_REQUEST","message":"body: Failed to deserialize the JSON body into the target type: missing field `taskId` at line 1 column 2"}}"#,
            ),
            (404, r#"{"error":{"code":"NO_SUCH_TASK","message":"no such task: nope"}}"#),
        ];
        assert_eq!(seen.len(), expected.len());
        for (seen, expected) in seen.iter().zip(expected) {
            assert_eq!((seen.0, seen.1.as_str()), expected);
        }
    }

    #[test]
    fn every_error_code_has_its_status_and_an_internal_error_shows_no_details() {
        let codes: Vec<(u16, &str)> = ErrorCode::ALL.iter().map(|c| (status_of(*c).as_u16(), c.name())).collect();
        assert_eq!(
            codes,
            [(401, "UNAUTHORIZED"), (400, "BAD_REQUEST"), (404, "NO_SUCH_TASK"), (409, "CONFLICT"), (500, "INTERNAL")]
        );
        let failed = crate::service::StoreError::Io {
            path: "/data/orchestrator.db".into(),
            source: std::io::Error::other("disk"),
        };
        let answer = ApiError::from(ServiceError::from(failed));
        assert_eq!((answer.status, answer.code), (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal));
        assert!(!answer.message.contains("/data"), "{}", answer.message);
    }

    #[test]
    fn the_secret_comparison_needs_every_byte_and_the_length() {
        assert!(same_secret(b"0123456789abcdef", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdeX", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdef0", b"0123456789abcdef"));
        assert!(!same_secret(b"", b"0123456789abcdef"));
    }
}
