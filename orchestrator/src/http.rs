//! The HTTP face of the orchestrator: the contract's paths, bodies, statuses and error codes.
//! Every request needs `Authorization: Bearer <secret>`, compared in constant time.

use crate::model::{Action, ErrorCode, Observation, PlanStep, TaskStatus};
use crate::planner::TaskPlanner;
use crate::service::{Service, ServiceError};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
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

    /// Asks the model, in the background, for the next step of each of its tasks that has none:
    /// `next` never waits for a model; the executor's next poll finds the step.
    fn plan_ahead(self: &Arc<Self>, task_id: Option<&str>, except: &[String]) -> Result<(), ServiceError> {
        let Some(planner) = &self.planner else { return Ok(()) };
        for task in self.service.needing_a_step(task_id, except)? {
            if !self.planning.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(task.clone()) {
                continue;
            }
            let (state, planner) = (Arc::clone(self), Arc::clone(planner));
            tokio::spawn(async move {
                let planned = match state.service.planning_request(&task) {
                    Ok(request) => planner.next_step(&request).await.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let recorded = match planned {
                    Ok(step) => state.service.add_step(&task, &step),
                    Err(why) => {
                        tracing::warn!(target: "navguard::serve", "task {task}: {why}");
                        state.service.fail(&task, &why)
                    }
                };
                if let Err(e) = recorded {
                    tracing::error!(target: "navguard::serve", "task {task}: {e}");
                }
                state.planning.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&task);
            });
        }
        Ok(())
    }
}

/// An error answer: `{"error": {"code", "message"}}`.
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
        Self::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": { "code": self.code.name(), "message": self.message } }))).into_response()
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::NoSuchTask(_) => Self::new(StatusCode::NOT_FOUND, ErrorCode::NoSuchTask, e.to_string()),
            ServiceError::Conflict(_) => Self::new(StatusCode::CONFLICT, ErrorCode::Conflict, e.to_string()),
            ServiceError::BadRequest(_) => Self::bad(e.to_string()),
            other => {
                tracing::error!(target: "navguard::serve", "{other}");
                Self::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::Conflict,
                    "internal error: see the server's log",
                )
            }
        }
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
            StatusCode::UNAUTHORIZED,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartBody {
    goal: String,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    plan: Vec<PlanStep>,
}

async fn start(State(state): State<Arc<AppState>>, Body(body): Body<StartBody>) -> Result<Response, ApiError> {
    if body.goal.trim().is_empty() {
        return Err(ApiError::bad("goal: must not be empty"));
    }
    let (task_id, status) = state.service.start(&body.goal, body.url.as_deref(), &body.plan)?;
    Ok((StatusCode::CREATED, Json(json!({ "taskId": task_id, "status": status.name() }))).into_response())
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct NextBody {
    #[serde(default)]
    task_id: Option<String>,
    /// Without a taskId: tasks to pass over (an executor's tasks that already have a runner).
    #[serde(default)]
    except_tasks: Vec<String>,
}

async fn next(State(state): State<Arc<AppState>>, Body(body): Body<NextBody>) -> Result<Json<Value>, ApiError> {
    let (action, status) = state.service.next_except(body.task_id.as_deref(), &body.except_tasks)?;
    if action.is_none() {
        state.plan_ahead(body.task_id.as_deref(), &body.except_tasks)?;
    }
    Ok(Json(json!({ "action": action, "status": status.map(TaskStatus::name) })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReportBody {
    task_id: String,
    action_id: String,
    observation: Observation,
}

async fn report(State(state): State<Arc<AppState>>, Body(body): Body<ReportBody>) -> Result<Json<Value>, ApiError> {
    let (status, duplicate) = state.service.report(&body.task_id, &body.action_id, &body.observation)?;
    Ok(Json(json!({ "status": status.name(), "duplicate": duplicate })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConfirmBody {
    task_id: String,
    action_id: String,
    approved: bool,
    #[serde(default)]
    reason: Option<String>,
}

async fn confirm(State(state): State<Arc<AppState>>, Body(body): Body<ConfirmBody>) -> Result<Json<Value>, ApiError> {
    let status = state.service.confirm(&body.task_id, &body.action_id, body.approved, body.reason.as_deref())?;
    Ok(Json(json!({ "status": status.name() })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskBody {
    task_id: String,
}

async fn cancel(State(state): State<Arc<AppState>>, Body(body): Body<TaskBody>) -> Result<Json<Value>, ApiError> {
    let status = state.service.cancel(&body.task_id)?;
    Ok(Json(json!({ "status": status.name() })))
}

fn task_query(query: Result<Query<TaskBody>, QueryRejection>) -> Result<String, ApiError> {
    query.map(|Query(q)| q.task_id).map_err(|_| ApiError::bad("taskId: the query needs ?taskId=<id>"))
}

async fn status(
    State(state): State<Arc<AppState>>,
    query: Result<Query<TaskBody>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let view = state.service.status(&task_query(query)?)?;
    let pending: Option<Action> = view.pending;
    Ok(Json(json!({
        "taskId": view.task_id, "status": view.status.name(), "pendingAction": pending,
        "steps": view.steps, "summary": view.summary, "error": view.error,
    })))
}

async fn audit(
    State(state): State<Arc<AppState>>,
    query: Result<Query<TaskBody>, QueryRejection>,
) -> Result<Response, ApiError> {
    let log = state.service.audit_log(&task_query(query)?)?;
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], log).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_comparison_needs_every_byte_and_the_length() {
        assert!(same_secret(b"0123456789abcdef", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdeX", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdef0", b"0123456789abcdef"));
        assert!(!same_secret(b"", b"0123456789abcdef"));
    }
}
