//! The HTTP face of the orchestrator: the contract's paths, statuses and error codes; its
//! bodies are [`crate::wire`]'s. Every request needs `Authorization: Bearer <secret>`, compared
//! in constant time.

use crate::audit::{Client, ClientKind};
use crate::console::{CSRF_HEADER, Session, same_secret};
use crate::model::ErrorCode;
use crate::service::{ServiceError, TaskView};
pub use crate::state::AppState;
use crate::state::INTERNAL;
use crate::wire::{
    self, CancelAnswer, CancelRequest, ConfirmAnswer, ConfirmRequest, ErrorAnswer, GrantView, NextAnswer, NextRequest,
    PendingPermission, PermissionAnswer, PermissionRequest, PermissionsAnswer, ReportAnswer, ReportRequest,
    StartAnswer, StartRequest, StatusAnswer, TaskQuery,
};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::Arc;

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
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
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

/// The header by which navguard's executor says it is one (`executor`).
pub const CLIENT_HEADER: &str = "x-navguard-client";
/// The header that carries the name a client gives itself.
pub const CLIENT_ID_HEADER: &str = "x-navguard-client-id";
/// The header that names the browser an executor drives.
pub const BROWSER_HEADER: &str = "x-navguard-browser";

/// The longest a client's word about itself is kept (a header is the caller's to fill).
const CLIENT_TEXT_MAX: usize = 200;

/// Who is calling, from the request's headers; every audit line the call writes names them.
#[derive(Debug)]
pub struct Caller(pub Client);

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        if let Some(ConsoleCall(session)) = parts.extensions.get::<ConsoleCall>() {
            let user_agent = parts.headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok());
            let user_agent = user_agent.map(|v| v.chars().take(CLIENT_TEXT_MAX).collect());
            return Ok(Self(session.client(user_agent)));
        }
        Ok(Self(client_of(&parts.headers)))
    }
}

/// A request the console's page made, with its session (what `authorize` let through).
#[derive(Clone, Debug)]
struct ConsoleCall(Session);

/// The client the headers describe: the executor when it says so, else an API caller. A
/// header cannot claim the console.
fn client_of(headers: &HeaderMap) -> Client {
    let text = |name: &str| {
        let value = headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim).filter(|v| !v.is_empty());
        value.map(|v| v.chars().take(CLIENT_TEXT_MAX).collect::<String>())
    };
    let executor = text(CLIENT_HEADER).is_some_and(|k| k == ClientKind::Executor.name());
    Client {
        kind: if executor { ClientKind::Executor } else { ClientKind::Api },
        id: text(CLIENT_ID_HEADER).unwrap_or_else(|| "anonymous".to_owned()),
        browser: text(BROWSER_HEADER),
        user_agent: text(header::USER_AGENT.as_str()),
    }
}

/// The bearer secret, or the console's session: its page's requests that change something
/// must also carry the session's CSRF token (a cookie alone, which a page elsewhere could make
/// the browser send, is 403).
async fn authorize(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    mut request: Request,
    next: Next,
) -> Response {
    let given =
        headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    if given.is_some_and(|given| same_secret(given.as_bytes(), state.secret.as_bytes())) {
        return next.run(request).await;
    }
    let Some(session) = state.console.session_of(&headers) else {
        return ApiError::new(
            status_of(ErrorCode::Unauthorized),
            ErrorCode::Unauthorized,
            "a valid Authorization: Bearer <secret> is needed",
        )
        .into_response();
    };
    let csrf = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
    if request.method() != axum::http::Method::GET && !csrf.is_some_and(|c| session.csrf_is(c)) {
        let why = "a console request that changes something needs the X-CSRF-Token its page holds";
        return ApiError::new(status_of(ErrorCode::Forbidden), ErrorCode::Forbidden, why).into_response();
    }
    request.extensions_mut().insert(ConsoleCall(session));
    next.run(request).await
}

/// Serves the routes on `listener` until the process ends (or the future is dropped).
pub async fn serve_on(listener: tokio::net::TcpListener, state: Arc<AppState>) -> std::io::Result<()> {
    axum::serve(listener, app(state)).await
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
        .route("/api/agent/export", get(export))
        .route("/api/agent/permissions", get(permissions).post(set_permission))
        .route("/api/skills/search", get(skills::search))
        .route("/skills", get(skills::page))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), authorize))
        .merge(crate::console::routes())
        .with_state(state)
}

async fn start(
    State(state): State<Arc<AppState>>,
    Caller(client): Caller,
    Body(body): Body<StartRequest>,
) -> Result<Answer<StartAnswer>, ApiError> {
    if body.goal.trim().is_empty() {
        return Err(ApiError::bad("goal: must not be empty"));
    }
    let (task_id, status) = state.service.for_client(client).start(body.goal, body.url, body.plan).await?;
    Ok(Answer(StatusCode::CREATED, StartAnswer { task_id, status }))
}

async fn next(
    State(state): State<Arc<AppState>>,
    Caller(client): Caller,
    Body(body): Body<NextRequest>,
) -> Result<Answer<NextAnswer>, ApiError> {
    let except = body.except_tasks.unwrap_or_default();
    let (action, status) = state.service.for_client(client).next_except(body.task_id.clone(), except.clone()).await?;
    if action.is_none() {
        state.plan_ahead(body.task_id, except).await?;
    }
    Ok(Answer::ok(NextAnswer { action, status }))
}

async fn report(
    State(state): State<Arc<AppState>>,
    Caller(client): Caller,
    Body(body): Body<ReportRequest<'static>>,
) -> Result<Answer<ReportAnswer>, ApiError> {
    let (task_id, action_id) = (body.task_id.into_owned(), body.action_id.into_owned());
    let service = state.service.for_client(client);
    let (status, duplicate) = service.report(task_id, action_id, body.observation.into_owned()).await?;
    Ok(Answer::ok(ReportAnswer { status, duplicate }))
}

async fn confirm(
    State(state): State<Arc<AppState>>,
    Caller(client): Caller,
    Body(body): Body<ConfirmRequest>,
) -> Result<Answer<ConfirmAnswer>, ApiError> {
    let status =
        state.service.for_client(client).confirm(body.task_id, body.action_id, body.approved, body.reason).await?;
    Ok(Answer::ok(ConfirmAnswer { status }))
}

async fn cancel(
    State(state): State<Arc<AppState>>,
    Caller(client): Caller,
    Body(body): Body<CancelRequest>,
) -> Result<Answer<CancelAnswer>, ApiError> {
    let status = state.service.for_client(client).cancel(body.task_id).await?;
    Ok(Answer::ok(CancelAnswer { status }))
}

impl From<TaskView> for StatusAnswer {
    fn from(view: TaskView) -> Self {
        let TaskView { task_id, status, pending, pending_permission, steps, summary, error } = view;
        let pending_permission = pending_permission.map(|origin| PendingPermission { origin });
        Self { task_id, status, pending_action: pending, pending_permission, steps, summary, error }
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

/// The user's word on a site: the origin is kept as browsers write it; anything more than an
/// origin is refused, naming the field.
async fn set_permission(
    State(state): State<Arc<AppState>>,
    Caller(client): Caller,
    Body(body): Body<PermissionRequest>,
) -> Result<Answer<PermissionAnswer>, ApiError> {
    let origin = crate::permissions::parse_origin(&body.origin).map_err(|e| ApiError::bad(e.to_string()))?;
    let grant = state.service.for_client(client).set_permission(origin, body.granted).await?;
    Ok(Answer::ok(PermissionAnswer { origin: grant.origin, granted: grant.granted }))
}

async fn permissions(State(state): State<Arc<AppState>>) -> Result<Answer<PermissionsAnswer>, ApiError> {
    let grants = state.service.permissions().await?;
    let origins = grants.into_iter().map(|g| GrantView { origin: g.origin, granted: g.granted, ts: g.ts }).collect();
    Ok(Answer::ok(PermissionsAnswer { origins }))
}

/// The task's audit, screenshots and replay page, as one zip archive.
async fn export(
    State(state): State<Arc<AppState>>,
    query: Result<Query<TaskQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let task = task_query(query)?;
    let archive = state.service.export(task.clone()).await?;
    // A task id is the service's own (letters, digits and dashes): safe in a file name.
    let disposition = format!("attachment; filename=\"{task}.zip\"");
    Ok(([(header::CONTENT_TYPE, "application/zip".to_owned()), (header::CONTENT_DISPOSITION, disposition)], archive)
        .into_response())
}

#[cfg(test)]
mod generated;
mod skills;
#[cfg(test)]
mod tests;
