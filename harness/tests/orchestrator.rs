//! `navguard serve` end to end: a real HTTP client (ureq) against the real binary, on loopback,
//! with its SQLite store and audit on disk; kill -9 and a restart on the same folder.

mod common;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post as post_route;
use axum::{Json, Router};
use common::*;
use serde_json::{Value, json};
use std::process::Command;
use std::sync::{Arc, Mutex};

/// An observation that lists the shop's controls, as the executor reports them.
fn shop_observation() -> Value {
    json!({
        "url": "http://127.0.0.1:1/shop", "title": "Shop", "visibleTextSnippet": "Write to ada@example.org",
        "extracted": {"elements": [
            {"selector": "#buy", "role": "button", "tag": "button", "name": "Place order", "form": {"method": "post", "action": "/order"}},
            {"selector": "#password", "role": "textbox", "tag": "input", "name": "Password", "value": "[redacted]"},
            {"selector": "#go", "role": "link", "tag": "a", "name": "Next"},
        ]},
        "artifacts": {"screenshots": []}, "errors": []
    })
}

fn start(server: &Server, plan: Value) -> String {
    let (code, body) =
        post(server, "/api/agent/start", &json!({"goal": "buy", "url": "http://127.0.0.1:1/shop", "plan": plan}));
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["status"], "RUNNING");
    body["taskId"].as_str().unwrap().to_owned()
}

fn next(server: &Server, task: &str) -> Value {
    let (code, body) = post(server, "/api/agent/next", &json!({"taskId": task}));
    assert_eq!(code, 200, "{body}");
    body
}

fn report(server: &Server, task: &str, action: &str, observation: Value) -> (u16, Value) {
    post(server, "/api/agent/report", &json!({"taskId": task, "actionId": action, "observation": observation}))
}

#[test]
fn one_action_in_flight_redelivered_until_reported_high_risk_waits_for_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let task = start(
        &server,
        json!([
            {"round": 1, "tool": "navigate", "args": {"url": "http://127.0.0.1:1/shop"}},
            {"round": 2, "tool": "click", "args": {"selector": "#buy"}},
            {"round": 3, "tool": "type", "args": {"selector": "#password", "text": "hunter2-secret"}},
            {"round": 4, "tool": "done", "args": {"summary": "bought"}},
        ]),
    );
    let first = next(&server, &task);
    let id = first["action"]["actionId"].as_str().unwrap().to_owned();
    assert_eq!((first["action"]["type"].as_str(), first["action"]["risk"].as_str()), (Some("navigate"), Some("low")));
    assert_eq!(next(&server, &task)["action"]["actionId"], id, "redelivered with the same id until reported");
    assert_eq!(
        report(&server, &task, &id, shop_observation()),
        (200, json!({"status": "RUNNING", "duplicate": false}))
    );
    assert_eq!(report(&server, &task, &id, shop_observation()), (200, json!({"status": "RUNNING", "duplicate": true})));
    // The click submits a POST form: high risk, held for a human.
    let held = next(&server, &task);
    assert_eq!((held["action"].clone(), held["status"].as_str()), (Value::Null, Some("WAITING_CONFIRMATION")));
    let pending = status(&server, &task)["pendingAction"].clone();
    assert_eq!((pending["type"].as_str(), pending["risk"].as_str()), (Some("click"), Some("high")));
    assert_eq!(pending["requiresConfirmation"], true);
    let click = pending["actionId"].as_str().unwrap().to_owned();
    let (code, body) = report(&server, &task, &click, shop_observation());
    assert_eq!((code, body["error"]["code"].as_str()), (409, Some("CONFLICT")), "not handed out: {body}");
    let (code, _) = post(&server, "/api/agent/confirm", &json!({"taskId": task, "actionId": click, "approved": true}));
    assert_eq!(code, 200);
    let confirmed = next(&server, &task)["action"].clone();
    assert_eq!((confirmed["actionId"].as_str(), confirmed["confirmed"].as_bool()), (Some(click.as_str()), Some(true)));
    assert_eq!(report(&server, &task, &click, shop_observation()).0, 200);
    let typing = next(&server, &task)["action"].clone();
    assert_eq!(typing["risk"], "medium");
    let typed = typing["actionId"].as_str().unwrap().to_owned();
    let mut with_screenshot = shop_observation();
    with_screenshot["artifacts"]["screenshots"] = json!(["iVBORw0KGgo="]);
    assert_eq!(report(&server, &task, &typed, with_screenshot).0, 200);
    // done is handed out like any action: only a report without error (the executor verified
    // it on the page) ends the task SUCCEEDED.
    let done = next(&server, &task)["action"].clone();
    assert_eq!((done["type"].as_str(), status(&server, &task)["status"].as_str()), (Some("done"), Some("RUNNING")));
    let done_id = done["actionId"].as_str().unwrap().to_owned();
    assert_eq!(report(&server, &task, &done_id, shop_observation()).1["status"], "SUCCEEDED");
    assert_eq!(next(&server, &task)["status"], "SUCCEEDED");
    let view = status(&server, &task);
    assert_eq!(
        (view["status"].as_str(), view["steps"].as_u64(), view["summary"].as_str()),
        (Some("SUCCEEDED"), Some(4), Some("bought"))
    );
    // The audit: every step, its risk and confirmation; nothing a user would not want kept.
    let (code, audit) = get(&server, &format!("/api/agent/audit?taskId={task}"));
    assert_eq!(code, 200);
    let events: Vec<Value> = audit.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let names: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(
        names,
        [
            "started",
            "dispatched",
            "reported",
            "confirmation-requested",
            "confirmed",
            "dispatched",
            "reported",
            "dispatched",
            "reported",
            "dispatched",
            "succeeded"
        ]
    );
    assert!(!audit.contains("hunter2-secret"), "a password typed into a password field: {audit}");
    assert!(!audit.contains("ada@example.org"), "an e-mail address: {audit}");
    // The replay: one page, every step, its risk and confirmation.
    let page = dir.path().join("replay.html");
    let audit_file = dir.path().join("audit").join(format!("{task}.jsonl"));
    let out = Command::new(env!("CARGO_BIN_EXE_navguard"))
        .args(["replay", &audit_file.display().to_string(), "-o", &page.display().to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<section class=\"step").count(), events.len());
    assert!(html.contains("Risk: <strong>high</strong>") && html.contains("Confirmation: approved"), "{html}");
    assert!(html.contains("src=\"data:image/png;base64,iVBORw0KGgo=\""), "the screenshot inline: {html}");
}

#[test]
fn a_denied_action_is_dropped_and_the_task_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let task = start(
        &server,
        json!([
            {"round": 1, "tool": "click", "args": {"selector": "#delete"}},
            {"round": 2, "tool": "navigate", "args": {"url": "http://127.0.0.1:1/"}},
        ]),
    );
    // No observation yet: the click is judged by what it names; a first report lists the page.
    let first = next(&server, &task)["action"].clone();
    assert_eq!(first["risk"], "low");
    let observed =
        json!({"extracted": {"elements": [{"selector": "#delete", "role": "button", "name": "Delete account"}]}});
    let (code, body) = report(
        &server,
        &task,
        first["actionId"].as_str().unwrap(),
        json!({"errors": [{"code": "CONFIRMATION_REQUIRED", "message": "the executor re-checked"}], "extracted": observed["extracted"]}),
    );
    assert_eq!((code, body["status"].as_str()), (200, Some("WAITING_CONFIRMATION")), "{body}");
    let (code, _) = post(
        &server,
        "/api/agent/confirm",
        &json!({"taskId": task, "actionId": first["actionId"], "approved": false, "reason": "no"}),
    );
    assert_eq!(code, 200);
    let after = next(&server, &task)["action"].clone();
    assert_eq!(after["type"], "navigate", "the denied click is dropped, the task goes on");
}

#[test]
fn bad_calls_get_the_contract_s_codes_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let code = |r: (u16, Value)| (r.0, r.1["error"]["code"].as_str().unwrap_or_default().to_owned());
    assert_eq!(code(post_raw(&server, "/api/agent/next", "{}", None)), (401, "UNAUTHORIZED".into()));
    assert_eq!(
        code(post_raw(&server, "/api/agent/next", "{}", Some("wrong-secret-of-enough-length"))),
        (401, "UNAUTHORIZED".into())
    );
    assert_eq!(code(post_raw(&server, "/api/agent/start", "{not json", Some(SECRET))), (400, "BAD_REQUEST".into()));
    let (status, body) =
        post(&server, "/api/agent/confirm", &json!({"taskId": "t", "actionId": "a", "approved": "yes"}));
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().contains("approved"), "{body}");
    let (status, body) = post(&server, "/api/agent/start", &json!({"goal": "x"}));
    assert!(status == 400 && body["error"]["message"].as_str().unwrap().starts_with("plan:"), "{body}");
    assert_eq!(
        code(post(&server, "/api/agent/report", &json!({"taskId": "nope", "actionId": "a", "observation": {}}))),
        (404, "NO_SUCH_TASK".into())
    );
    let (status, _) = get(&server, "/api/agent/status?taskId=nope");
    assert_eq!(status, 404);
    let task = start(&server, json!([{"round": 1, "tool": "wait", "args": {"ms": 1}}]));
    assert_eq!(
        code(post(
            &server,
            "/api/agent/confirm",
            &json!({"taskId": task, "actionId": format!("{task}-a0"), "approved": true})
        )),
        (409, "CONFLICT".into())
    );
    assert_eq!(code(report(&server, &task, "never-handed-out", json!({}))), (409, "CONFLICT".into()));
    assert_eq!(post(&server, "/api/agent/cancel", &json!({"taskId": task})), (200, json!({"status": "CANCELED"})));
    assert_eq!(next(&server, &task), json!({"action": null, "status": "CANCELED"}));
}

#[test]
fn it_refuses_to_start_without_a_long_enough_secret_or_off_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let run = |secret: Option<&str>, addr: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_navguard"));
        cmd.args(["serve", "--data-dir", &dir.path().display().to_string(), "--addr", addr])
            .env_remove("NAVGUARD_SECRET");
        if let Some(secret) = secret {
            cmd.env("NAVGUARD_SECRET", secret);
        }
        let out = cmd.output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, text) = run(None, "127.0.0.1:0");
    assert!(code == Some(2) && text.contains("NAVGUARD_SECRET is not set"), "{text}");
    let (code, text) = run(Some("short"), "127.0.0.1:0");
    assert!(code == Some(2) && text.contains("too short"), "{text}");
    let (code, text) = run(Some(SECRET), "0.0.0.0:0");
    assert!(code == Some(2) && text.contains("not a loopback address"), "{text}");
}

#[test]
fn kill_9_and_a_restart_on_the_same_folder_lose_nothing_that_was_answered_and_a_torn_audit_line_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let task = start(
        &server,
        json!([
            {"round": 1, "tool": "navigate", "args": {"url": "http://127.0.0.1:1/a"}},
            {"round": 2, "tool": "navigate", "args": {"url": "http://127.0.0.1:1/b"}},
        ]),
    );
    let first = next(&server, &task)["action"]["actionId"].as_str().unwrap().to_owned();
    assert_eq!(report(&server, &task, &first, json!({"title": "A"})).0, 200);
    let second = next(&server, &task)["action"]["actionId"].as_str().unwrap().to_owned();
    server.kill();
    // A write the crash tore: half a line at the end of the audit.
    let audit_file = dir.path().join("audit").join(format!("{task}.jsonl"));
    let before = std::fs::read_to_string(&audit_file).unwrap();
    std::fs::write(&audit_file, format!("{before}{{\"ts\": 1, \"event\": \"repor")).unwrap();
    let server = Server::start(dir.path());
    let view = status(&server, &task);
    assert_eq!((view["steps"].as_u64(), view["pendingAction"]["actionId"].as_str()), (Some(1), Some(second.as_str())));
    assert_eq!(next(&server, &task)["action"]["actionId"], second.as_str(), "the action in flight is handed out again");
    assert_eq!(report(&server, &task, &first, json!({})).1["duplicate"], true, "a report answered before the crash");
    assert_eq!(report(&server, &task, &second, json!({"title": "B"})).1["duplicate"], false);
    let (_, audit) = get(&server, &format!("/api/agent/audit?taskId={task}"));
    assert!(audit.starts_with(&before), "the audit kept every line it had");
    for line in audit.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("a torn line survived: {line:?}: {e}"));
    }
}

/// A model server on loopback (axum) that speaks the OpenAI-compatible `chat/completions` call:
/// answers each request with the next scripted reply and keeps what it was sent (the
/// Authorization header and the body).
struct FakeModel {
    base: String,
    seen: Arc<Mutex<Vec<(String, String)>>>,
    _runtime: tokio::runtime::Runtime,
}

/// The model's scripted replies and what it was sent.
type ModelState = (Arc<Mutex<std::vec::IntoIter<&'static str>>>, Arc<Mutex<Vec<(String, String)>>>);

async fn chat_completions(State((replies, seen)): State<ModelState>, headers: HeaderMap, body: String) -> Json<Value> {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    seen.lock().unwrap().push((auth, body));
    let content =
        replies.lock().unwrap().next().unwrap_or(r#"{"tool": "done", "args": {"summary": "out of replies"}}"#);
    Json(json!({"choices": [{"message": {"role": "assistant", "content": content}}]}))
}

impl FakeModel {
    fn start(replies: Vec<&'static str>) -> Self {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state: ModelState = (Arc::new(Mutex::new(replies.into_iter())), Arc::clone(&seen));
        let app = Router::new().route("/v1/chat/completions", post_route(chat_completions)).with_state(state);
        runtime.spawn(async move { axum::serve(listener, app).await });
        Self { base, seen, _runtime: runtime }
    }

    fn requests(&self) -> Vec<(String, String)> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve_with_model(dir: &std::path::Path, model: &FakeModel) -> Server {
    Server::start_with(
        dir,
        "127.0.0.1:0",
        &["--model-url", &model.base, "--model", "fake"],
        &[("NAVGUARD_MODEL_KEY", "sk-test-model-key")],
    )
}

/// Polls `next` (the model plans in the background) until an action, a final status, or a wait
/// for the user.
fn next_planned(server: &Server, task: &str) -> Value {
    let started = std::time::Instant::now();
    loop {
        let answer = next(server, task);
        if !answer["action"].is_null()
            || ["SUCCEEDED", "FAILED", "CANCELED", "WAITING_CONFIRMATION"]
                .contains(&answer["status"].as_str().unwrap_or(""))
        {
            return answer;
        }
        assert!(started.elapsed() < DEADLINE, "no step planned: {answer}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_model_plans_a_task_without_a_plan_from_what_the_audit_keeps_and_is_told_of_a_denial() {
    let model = FakeModel::start(vec![
        r##"{"tool": "click", "args": {"selector": "#buy"}}"##,
        "```json\n{\"tool\": \"click\", \"args\": {\"selector\": \"#buy\"}}\n```",
        r#"{"tool": "done", "args": {"summary": "the user declined the order"}}"#,
    ]);
    let dir = tempfile::tempdir().unwrap();
    let server = serve_with_model(dir.path(), &model);
    let (code, body) =
        post(&server, "/api/agent/start", &json!({"goal": "buy the book", "url": "http://127.0.0.1:1/shop"}));
    assert_eq!(code, 201, "{body}");
    let task = body["taskId"].as_str().unwrap().to_owned();

    let first = next_planned(&server, &task);
    let action = first["action"]["actionId"].as_str().unwrap().to_owned();
    assert_eq!(
        (first["action"]["type"].as_str(), first["action"]["target"]["value"].as_str()),
        (Some("click"), Some("#buy"))
    );
    let (code, _) = report(&server, &task, &action, shop_observation());
    assert_eq!(code, 200);
    // The model's second click is on a POST form's button, now that the page was observed: it
    // waits for the user, who denies it; the model is told and ends the task.
    let second = next_planned(&server, &task);
    assert!(second["action"].is_null(), "{second}");
    let pending = status(&server, &task)["pendingAction"].clone();
    assert_eq!(pending["risk"], "high", "{pending}");
    let denied = json!({"taskId": task, "actionId": pending["actionId"], "approved": false, "reason": "not now"});
    assert_eq!(post(&server, "/api/agent/confirm", &denied).0, 200);
    let done = next_planned(&server, &task);
    assert_eq!(done["action"]["type"], "done", "{done}");
    let done = done["action"]["actionId"].as_str().unwrap().to_owned();
    assert_eq!(report(&server, &task, &done, shop_observation()).1["status"], "SUCCEEDED");
    assert_eq!(status(&server, &task)["summary"], "the user declined the order");

    let seen = model.requests();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(seen.iter().all(|(auth, _)| auth == "Bearer sk-test-model-key"), "{seen:?}");
    assert!(seen[1].1.contains("Place order") && !seen[1].1.contains("ada@example.org"), "{}", seen[1].1);
    assert!(seen[2].1.contains("denied by the user"), "{}", seen[2].1);
    let (_, log) = get(&server, &format!("/api/agent/audit?taskId={task}"));
    assert!(!log.contains("sk-test-model-key") && log.contains("\"planned\""));
}

#[test]
fn a_refused_done_is_told_to_the_model_which_plans_on_a_scripted_one_fails_the_task() {
    let model = FakeModel::start(vec![
        r#"{"tool": "done", "args": {"summary": "bought", "expect": {"title": "Done"}}}"#,
        r##"{"tool": "click", "args": {"selector": "#go"}}"##,
    ]);
    let dir = tempfile::tempdir().unwrap();
    let server = serve_with_model(dir.path(), &model);
    let (_, body) = post(&server, "/api/agent/start", &json!({"goal": "buy", "url": "http://127.0.0.1:1/shop"}));
    let task = body["taskId"].as_str().unwrap().to_owned();
    let done = next_planned(&server, &task)["action"]["actionId"].as_str().unwrap().to_owned();
    let mut refused = shop_observation();
    refused["errors"] = json!([{"code": "DONE_REFUSED", "message": "done: refused: verification failed: title is \"Shop\", not \"Done\""}]);
    assert_eq!(report(&server, &task, &done, refused.clone()).1["status"], "RUNNING");
    let click = next_planned(&server, &task);
    assert_eq!(click["action"]["type"], "click", "the model planned on: {click}");
    let seen = model.requests();
    assert!(
        seen[1].1.contains("DONE_REFUSED: done: refused: verification failed"),
        "the model was told: {}",
        seen[1].1
    );
    let (_, log) = get(&server, &format!("/api/agent/audit?taskId={task}"));
    assert!(log.contains("\"done-refused\""), "{log}");

    // A scripted plan has nobody to plan on: its refused done fails the task, with the reason.
    let plan = json!([{"round": 1, "tool": "done", "args": {"summary": "bought", "expect": {"title": "Done"}}}]);
    let scripted = start(&server, plan);
    let done = next(&server, &scripted)["action"]["actionId"].as_str().unwrap().to_owned();
    assert_eq!(report(&server, &scripted, &done, refused).1["status"], "FAILED");
    let view = status(&server, &scripted);
    assert_eq!(view["error"], "done: refused: verification failed: title is \"Shop\", not \"Done\"", "{view}");
    // A plan that runs out without a done fails too.
    let no_done = start(&server, json!([{"round": 1, "tool": "wait", "args": {"ms": 1}}]));
    let wait = next(&server, &no_done)["action"]["actionId"].as_str().unwrap().to_owned();
    assert_eq!(report(&server, &no_done, &wait, shop_observation()).0, 200);
    assert_eq!(next(&server, &no_done)["status"], "FAILED");
    assert_eq!(status(&server, &no_done)["error"], "the plan ended without a verified done");
}

#[test]
fn a_model_that_answers_no_tool_call_fails_the_task_with_the_reason() {
    let model = FakeModel::start(vec!["I would rather not."]);
    let dir = tempfile::tempdir().unwrap();
    let server = serve_with_model(dir.path(), &model);
    let (_, body) = post(&server, "/api/agent/start", &json!({"goal": "buy"}));
    let task = body["taskId"].as_str().unwrap().to_owned();
    assert_eq!(next_planned(&server, &task)["status"], "FAILED");
    let view = status(&server, &task);
    assert!(view["error"].as_str().unwrap().contains("not a tool call (not JSON)"), "{view}");
}

#[test]
fn risk_words_given_on_the_command_line_replace_the_default_list() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), "127.0.0.1:0", &["--risk-words", "Archive,mute"], &[]);
    let click = |name: &str| json!({"round": 1, "tool": "click", "args": {"target": {"by": "text", "value": name}}});
    let (_, body) = post(&server, "/api/agent/start", &json!({"goal": "tidy", "plan": [click("Delete account")]}));
    let deleting = body["taskId"].as_str().unwrap().to_owned();
    let handed = next(&server, &deleting);
    assert_eq!(handed["action"]["risk"], "low", "delete is not on this list: {handed}");
    let (_, body) = post(&server, "/api/agent/start", &json!({"goal": "tidy", "plan": [click("Archive chat")]}));
    let archiving = body["taskId"].as_str().unwrap().to_owned();
    assert_eq!(next(&server, &archiving)["status"], "WAITING_CONFIRMATION");
    assert_eq!(status(&server, &archiving)["pendingAction"]["risk"], "high");
}

#[test]
fn an_operator_s_redact_file_redacts_on_top_of_the_built_in_patterns_and_a_bad_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = dir.path().join("redact.txt");
    std::fs::write(&patterns, "# customer numbers\nCUST-\\d{6}\n").unwrap();
    let server = Server::start_with(dir.path(), "127.0.0.1:0", &["--redact", patterns.to_str().unwrap()], &[]);
    let task = start(
        &server,
        json!([
            {"round": 1, "tool": "navigate", "args": {"url": "http://127.0.0.1:1/shop"}},
            {"round": 2, "tool": "done", "args": {"summary": "seen"}},
        ]),
    );
    let handed = next(&server, &task);
    let action = handed["action"]["actionId"].as_str().unwrap().to_owned();
    let mut seen = shop_observation();
    seen["visibleTextSnippet"] = json!("Customer CUST-123456 (ada@example.org)");
    let (code, body) = report(&server, &task, &action, seen);
    assert_eq!(code, 200, "{body}");
    let (code, audit) = get(&server, &format!("/api/agent/audit?taskId={task}"));
    assert_eq!(code, 200, "{audit}");
    assert!(audit.contains("Customer [redacted] ([redacted])"), "both patterns apply: {audit}");
    assert!(!audit.contains("CUST-123456") && !audit.contains("ada@example.org"), "{audit}");
    drop(server);

    std::fs::write(&patterns, "CUST-\\d{6}\n(unclosed\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_navguard"))
        .args(["serve", "--data-dir", &dir.path().display().to_string(), "--redact", patterns.to_str().unwrap()])
        .env("NAVGUARD_SECRET", SECRET)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("redact.txt, line 2: not a regular expression"), "{text}");
}

#[test]
fn every_audit_line_of_a_request_names_its_client_and_a_header_cannot_claim_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let call = |path: &str, body: &Value, headers: &[(&str, &str)]| {
        let mut request = agent()
            .post(format!("{}{path}", server.base))
            .header("Content-Type", "application/json")
            .header("Authorization", format!("Bearer {SECRET}"));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut response = request.send(body.to_string()).expect("an answer");
        let text = response.body_mut().read_to_string().expect("a body");
        (response.status().as_u16(), serde_json::from_str::<Value>(&text).unwrap())
    };
    let plan = json!([{"round": 1, "tool": "navigate", "args": {"url": "http://127.0.0.1:1/shop"}}]);
    let named = [("X-Navguard-Client-Id", "nightly-job"), ("User-Agent", "shop-tests/2.1")];
    let (code, body) = call("/api/agent/start", &json!({"goal": "look", "plan": plan}), &named);
    assert_eq!(code, 201, "{body}");
    let task = body["taskId"].as_str().unwrap().to_owned();
    let claimed = [("X-Navguard-Client", "console"), ("X-Navguard-Browser", "firefox")];
    let (code, body) = call("/api/agent/next", &json!({"taskId": task}), &claimed);
    assert_eq!(code, 200, "{body}");
    let (_, audit) = get(&server, &format!("/api/agent/audit?taskId={task}"));
    let lines: Vec<Value> = audit.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let of = |event: &str| lines.iter().find(|l| l["event"] == event).unwrap_or_else(|| panic!("{event}: {audit}"));
    assert_eq!(
        of("started")["client"],
        json!({"kind": "api", "id": "nightly-job", "userAgent": "shop-tests/2.1"}),
        "{audit}"
    );
    let handed = &of("dispatched")["client"];
    assert_eq!((handed["kind"].as_str(), handed["id"].as_str()), (Some("api"), Some("anonymous")), "{audit}");
    assert_eq!(handed["browser"], "firefox", "{audit}");
}

#[test]
fn a_site_s_grant_is_kept_as_browsers_write_origins_survives_kill_9_and_a_bad_origin_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--permissions", "ask"];
    let server = Server::start_with(dir.path(), "127.0.0.1:0", &args, &[]);
    let grant = |server: &Server, origin: &str, granted: bool| {
        post(server, "/api/agent/permissions", &json!({"origin": origin, "granted": granted}))
    };
    assert_eq!(
        grant(&server, "HTTP://127.0.0.1:80/", true),
        (200, json!({"origin": "http://127.0.0.1", "granted": true}))
    );
    for (body, field) in [
        (json!({"origin": "http://127.0.0.1:1/shop", "granted": true}), "origin"),
        (json!({"origin": "about:blank", "granted": true}), "origin"),
        (json!({"origin": "http://127.0.0.1:1"}), "granted"),
        (json!({"origin": "http://127.0.0.1:1", "granted": true, "sites": []}), "sites"),
    ] {
        let (code, answer) = post(&server, "/api/agent/permissions", &body);
        assert_eq!((code, answer["error"]["code"].as_str()), (400, Some("BAD_REQUEST")), "{body}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains(field), "{body}: {answer}");
    }
    assert_eq!(post_raw(&server, "/api/agent/permissions", "{}", None).1["error"]["code"], "UNAUTHORIZED");

    // A click on a site not granted waits; the grant moves it, and the grant outlives kill -9.
    let task = start(&server, json!([{"round": 1, "tool": "click", "args": {"selector": "#go"}}]));
    assert_eq!(next(&server, &task), json!({"action": null, "status": "WAITING_CONFIRMATION"}));
    assert_eq!(status(&server, &task)["pendingPermission"], json!({"origin": "http://127.0.0.1:1"}));
    server.kill();
    let server = Server::start_with(dir.path(), "127.0.0.1:0", &args, &[]);
    assert_eq!(status(&server, &task)["pendingPermission"], json!({"origin": "http://127.0.0.1:1"}), "still waiting");
    assert_eq!(grant(&server, "http://127.0.0.1:1", true).0, 200);
    let click = next(&server, &task)["action"].clone();
    assert_eq!((click["type"].as_str(), click["grantedOrigin"].as_str()), (Some("click"), Some("http://127.0.0.1:1")));
    server.kill();
    let server = Server::start_with(dir.path(), "127.0.0.1:0", &args, &[]);
    let (_, listed) = get(&server, "/api/agent/permissions");
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let words: Vec<(&str, bool)> = listed["origins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["origin"].as_str().unwrap(), g["granted"].as_bool().unwrap()))
        .collect();
    assert_eq!(words, [("http://127.0.0.1", true), ("http://127.0.0.1:1", true)]);
    assert!(
        listed["origins"].as_array().unwrap().iter().all(|g| g["ts"].as_i64().is_some_and(|ts| ts > 0)),
        "{listed}"
    );
}
