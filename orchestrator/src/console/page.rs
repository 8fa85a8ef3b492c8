//! The console's routes and page: `/console` (the token URL, then the page), `/console/tasks`
//! (the task list the page refreshes itself with), `/console/shot/<file>` (a screenshot) and
//! `/console/replay?taskId=` (a task's steps with their screenshots). Each needs the session.

use super::{COOKIE, CSRF_HEADER, Session};
use crate::model::{Action, TaskStatus};
use crate::service::TaskOverview;
use crate::state::AppState;
use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::Deserialize;
use std::sync::Arc;

/// The tasks the page lists: the latest ones.
const SHOWN_TASKS: usize = 30;
/// How often the page refreshes its task list, in milliseconds.
const REFRESH_MS: u32 = 2000;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/console", get(console))
        .route("/console/tasks", get(tasks))
        .route("/console/shot/{file}", get(shot))
        .route("/console/replay", get(replay))
}

#[derive(Debug, Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// What a request without a session gets.
fn unauthorized() -> Response {
    let page = html! {
        (DOCTYPE)
        html lang="en" { head { meta charset="utf-8"; title { "navguard console" } }
            body { h1 { "navguard console" }
                p { "This console opens from the URL " code { "navguard serve" } " printed when it started ("
                    code { "http://127.0.0.1:PORT/console?token=…" } "). Open that URL in this browser." } } }
    };
    (StatusCode::UNAUTHORIZED, Html(page.into_string())).into_response()
}

/// `/console?token=T` opens a session and redirects to `/console`; `/console` is the page.
async fn console(State(state): State<Arc<AppState>>, headers: HeaderMap, Query(query): Query<TokenQuery>) -> Response {
    if let Some(token) = query.token {
        if !state.console.token_is(&token) {
            return unauthorized();
        }
        return match state.console.open_session() {
            Ok(session) => {
                let cookie = format!("{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/", session.id);
                (StatusCode::SEE_OTHER, [(header::SET_COOKIE, cookie), (header::LOCATION, "/console".to_owned())])
                    .into_response()
            }
            Err(e) => internal(&e),
        };
    }
    let Some(session) = state.console.session_of(&headers) else { return unauthorized() };
    match state.service.overview(SHOWN_TASKS).await {
        Ok(overview) => Html(whole_page(&session, &overview).into_string()).into_response(),
        Err(e) => internal(&e),
    }
}

async fn tasks(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if state.console.session_of(&headers).is_none() {
        return unauthorized();
    }
    match state.service.overview(SHOWN_TASKS).await {
        Ok(overview) => Html(task_list(&overview).into_string()).into_response(),
        Err(e) => internal(&e),
    }
}

/// A failure of the service's own (its store, the random generator): logged, and answered
/// without its details, as the API answers one.
fn internal(e: &dyn std::fmt::Display) -> Response {
    tracing::error!(target: "navguard::serve", "console: {e}");
    (StatusCode::INTERNAL_SERVER_ERROR, crate::state::INTERNAL).into_response()
}

/// A screenshot beside the audit, by its file name (the service's own: letters, digits, `-`,
/// `.png`); any other name is no file of ours.
async fn shot(State(state): State<Arc<AppState>>, headers: HeaderMap, UrlPath(file): UrlPath<String>) -> Response {
    if state.console.session_of(&headers).is_none() {
        return unauthorized();
    }
    let stem = file.strip_suffix(".png").unwrap_or_default();
    if stem.is_empty() || !stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return (StatusCode::NOT_FOUND, "no such screenshot").into_response();
    }
    match tokio::fs::read(state.service.audit_dir().join(&file)).await {
        Ok(png) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "no such screenshot").into_response(),
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplayQuery {
    task_id: String,
}

/// A task's steps with their screenshots: the replay page of its audit.
async fn replay(State(state): State<Arc<AppState>>, headers: HeaderMap, Query(query): Query<ReplayQuery>) -> Response {
    if state.console.session_of(&headers).is_none() {
        return unauthorized();
    }
    let text = match state.service.audit_log(query.task_id.clone()).await {
        Ok(text) => text,
        Err(e) if e.code() == crate::model::ErrorCode::NoSuchTask => {
            return (StatusCode::NOT_FOUND, e.to_string()).into_response();
        }
        Err(e) => return internal(&e),
    };
    let path = state.service.audit_path(&query.task_id);
    match crate::replay::parse(&text, &path) {
        Ok(events) => Html(crate::replay::page_html(&path.display().to_string(), &events, &state.service.audit_dir()))
            .into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

const STYLE: &str = "body{font:15px system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#222} \
h1{font-size:1.4em} .task{border:1px solid #ccc;border-radius:8px;padding:.7em 1.1em;margin:.8em 0} \
.task h2{font-size:1.1em;margin:.2em 0} .meta{color:#555;margin:.2em 0} .status{font-weight:600} \
.waiting{border-left:6px solid #c0392b;background:#fff8f6} .pending{margin:.6em 0} .why{color:#8a2a1d} \
.shot{max-width:34em;border:1px solid #ddd;display:block;margin:.5em 0} \
button{font:inherit;padding:.35em 1.1em;margin-right:.6em;border-radius:5px;border:1px solid #888;cursor:pointer} \
.approve,.allow{background:#1e7e34;color:#fff;border-color:#1e7e34} .deny,.refuse{background:#fff;color:#a71d2a;border-color:#a71d2a} \
#error{color:#a71d2a} code{background:#f3f3f3;padding:0 .25em;border-radius:3px}";

/// What the page runs: its buttons call the API with the session's CSRF token, and it reloads
/// its task list every few seconds, replacing it only when it changed (a list replaced under
/// a person's pointer loses the click they were making).
fn script() -> String {
    format!(
        r#"const csrf = document.querySelector('meta[name="csrf-token"]').content;
const tasks = document.getElementById("tasks"), error = document.getElementById("error");
async function refresh() {{
  const answer = await fetch("/console/tasks", {{ credentials: "same-origin" }});
  if (!answer.ok) return;
  const next = document.createElement("template");
  next.innerHTML = await answer.text();
  // Only a list that changed is put in: a button the person is pressing stays the same.
  if (next.innerHTML !== tasks.innerHTML) tasks.replaceChildren(next.content);
}}
async function call(path, body) {{
  const answer = await fetch(path, {{ method: "POST", credentials: "same-origin",
    headers: {{ "Content-Type": "application/json", "{CSRF_HEADER}": csrf }}, body: JSON.stringify(body) }});
  error.textContent = answer.ok ? "" : "The service refused: " + await answer.text();
  await refresh();
}}
document.addEventListener("click", (event) => {{
  const button = event.target.closest("button[data-call]");
  if (!button) return;
  button.disabled = true;
  const d = button.dataset;
  if (d.call === "confirm") call("/api/agent/confirm", {{ taskId: d.task, actionId: d.action, approved: d.yes === "true" }});
  else call("/api/agent/permissions", {{ origin: d.origin, granted: d.yes === "true" }});
}});
setInterval(refresh, {REFRESH_MS});"#
    )
}

fn whole_page(session: &Session, overview: &[TaskOverview]) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="csrf-token" content=(session.csrf());
                title { "navguard console" }
                style { (STYLE) }
            }
            body {
                h1 { "navguard console" }
                p.meta { "What the agent waits for you on comes first. Approve lets a held action run once; Deny drops it, and the agent is told. "
                    a href="/skills" { "Search the skills" } }
                p #error {}
                main #tasks { (task_list(overview)) }
                script { (PreEscaped(script())) }
            }
        }
    }
}

/// The tasks, those that wait for the user first.
fn task_list(overview: &[TaskOverview]) -> Markup {
    let waiting = |t: &&TaskOverview| t.view.status == TaskStatus::WaitingConfirmation;
    html! {
        @if overview.is_empty() { p { "No tasks yet." } }
        @for task in overview.iter().filter(waiting) { (task_section(task)) }
        @for task in overview.iter().filter(|t| !waiting(t)) { (task_section(task)) }
    }
}

/// An action in a line: its tool, its target, its arguments.
fn action_text(action: &Action) -> String {
    let target = action.target.as_ref().map(|t| format!(" {} {:?}", t.by, t.value)).unwrap_or_default();
    let params = if action.params.is_empty() {
        String::new()
    } else {
        format!(" {}", serde_json::Value::Object(action.params.clone()))
    };
    format!("{}{target}{params}", action.kind)
}

fn task_section(task: &TaskOverview) -> Markup {
    let view = &task.view;
    let waiting = view.status == TaskStatus::WaitingConfirmation;
    html! {
        section.task.waiting[waiting] data-task=(view.task_id) {
            h2 { (task.goal) }
            p.meta { "Task " code { (view.task_id) } " · " span.status { (view.status) } " · " (view.steps)
                (if view.steps == 1 { " step" } else { " steps" })
                @if let Some(summary) = &view.summary { " · done: " (summary) }
                @if let Some(error) = &view.error { " · " (error) } }
            @if waiting { @if let Some(action) = &view.pending { (pending(task, action)) } }
            p { a href=(format!("/console/replay?taskId={}", view.task_id)) { "Steps and screenshots" } }
        }
    }
}

/// What waits for the user: the action, why, the page, its screenshot, and the two answers.
fn pending(task: &TaskOverview, action: &Action) -> Markup {
    html! {
        div.pending {
            p.what { strong { "Waiting for you: " } code { (action_text(action)) } " (risk " (action.risk) ")" }
            @if let Some(why) = &task.why { p.why { "Why: " (why) } }
            @if let Some((url, title)) = &task.page {
                p.page { "On " @if !title.is_empty() { strong { (title) } " · " } code { (url) } }
            }
            @if let Some(file) = &task.screenshot { img.shot src=(format!("/console/shot/{file}")) alt="the page's latest screenshot"; }
            @if let Some(origin) = &task.view.pending_permission {
                button.allow type="button" data-call="permission" data-origin=(origin) data-yes="true" { "Allow " (origin) }
                button.refuse type="button" data-call="permission" data-origin=(origin) data-yes="false" { "Refuse" }
            } @else {
                button.approve type="button" data-call="confirm" data-task=(action.task_id) data-action=(action.action_id) data-yes="true" { "Approve" }
                button.deny type="button" data-call="confirm" data-task=(action.task_id) data-action=(action.action_id) data-yes="false" { "Deny" }
            }
        }
    }
}
