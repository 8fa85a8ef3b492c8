//! The service over HTTP, in this process: statuses, error codes and every answer's bytes.

use super::*;
use crate::service::{Service, ServiceOptions};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

pub(super) const SECRET: &str = "a-secret-of-32-characters-length";

/// The service on loopback, in this process; its base URL.
pub(super) async fn serve(dir: &Path) -> String {
    let service = Service::open(dir, ServiceOptions::default()).unwrap();
    let app = app(Arc::new(AppState::new(service, SECRET.into(), None).unwrap()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// A POST's status and the error code and message of its answer, if it is an error.
async fn call(base: &str, path: &str, body: Value) -> (u16, Value) {
    let client = crate::post::client(Duration::from_secs(10));
    let url = format!("{base}{path}");
    let (status, text) = crate::post::post_json(&client, url, Some(SECRET), &[], body.to_string()).await.unwrap();
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
    assert_eq!(call(&base, "/api/agent/report", fine).await, (200, json!({"status": "RUNNING", "duplicate": false})));
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
        raw(&base, "/api/agent/start", Some(SECRET), r#"{"goal": "g", "plan": [{"round": 1, "tool": "wait"}]}"#).await;
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
            r#"{"error":null,"pendingAction":{"actionId":"{t}-a0","confirmed":false,"params":{"ms":1},"requiresConfirmation":false,"risk":"low","taskId":"{t}","type":"wait"},"pendingPermission":null,"status":"RUNNING","steps":0,"summary":null,"taskId":"{t}"}"#,
        ),
        (200, r#"{"duplicate":false,"status":"RUNNING"}"#),
        (200, r#"{"duplicate":true,"status":"RUNNING"}"#),
        (200, r#"{"action":null,"status":"WAITING_CONFIRMATION"}"#),
        (
            200,
            r#"{"error":null,"pendingAction":{"actionId":"{t}-a1","confirmed":false,"params":{"x":[2,1]},"requiresConfirmation":true,"risk":"high","target":{"by":"text","value":"Buy"},"taskId":"{t}","type":"click"},"pendingPermission":null,"status":"WAITING_CONFIRMATION","steps":1,"summary":null,"taskId":"{t}"}"#,
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
            r#"{"error":null,"pendingAction":null,"pendingPermission":null,"status":"SUCCEEDED","steps":3,"summary":"bought","taskId":"{t}"}"#,
        ),
        (409, r#"{"error":{"code":"CONFLICT","message":"taskId: task {t} has ended (SUCCEEDED)"}}"#),
        (409, r#"{"error":{"code":"CONFLICT","message":"taskId: task {t} has ended (SUCCEEDED)"}}"#),
        (200, r#"{"status":"CANCELED"}"#),
        (200, r#"{"status":"CANCELED"}"#),
        (
            200,
            r#"{"error":null,"pendingAction":null,"pendingPermission":null,"status":"CANCELED","steps":0,"summary":null,"taskId":"{u}"}"#,
        ),
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
            r#"{"error":"the plan ended without a verified done","pendingAction":null,"pendingPermission":null,"status":"FAILED","steps":1,"summary":null,"taskId":"{v}"}"#,
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
        (400, r#"{"error":{"code":"BAD_REQUEST","message":"plan: give at least one step (no model is configured)"}}"#),
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
        [
            (401, "UNAUTHORIZED"),
            (400, "BAD_REQUEST"),
            (404, "NO_SUCH_TASK"),
            (409, "CONFLICT"),
            (403, "FORBIDDEN"),
            (500, "INTERNAL")
        ]
    );
    let failed =
        crate::service::StoreError::Io { path: "/data/orchestrator.db".into(), source: std::io::Error::other("disk") };
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

/// A GET's status, content type and bytes.
async fn get_bytes(base: &str, path: &str) -> (u16, String, Vec<u8>) {
    let url = format!("{base}{path}");
    tokio::task::spawn_blocking(move || {
        let client = crate::post::client(Duration::from_secs(10));
        let mut response = client.get(&url).header("Authorization", format!("Bearer {SECRET}")).call().unwrap();
        let kind = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        (response.status().as_u16(), kind, response.body_mut().read_to_vec().unwrap())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_answers_a_zip_of_the_audit_its_screenshots_and_the_replay_page() {
    use base64::Engine;
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let base = serve(dir.path()).await;
    let plan = json!([{"round": 1, "tool": "navigate", "args": {"url": "http://127.0.0.1:1/shop"}}]);
    let (_, started) = call(&base, "/api/agent/start", json!({"goal": "look", "plan": plan})).await;
    let task = started["taskId"].as_str().unwrap().to_owned();
    let (_, next) = call(&base, "/api/agent/next", json!({"taskId": task})).await;
    let action = next["action"]["actionId"].as_str().unwrap().to_owned();
    let png = b"\x89PNG\r\n\x1a\n-a-screenshot".to_vec();
    let shot = base64::engine::general_purpose::STANDARD.encode(&png);
    let seen = json!({"url": "http://127.0.0.1:1/shop", "title": "Shop", "artifacts": {"screenshots": [shot]}});
    let report = json!({"taskId": task, "actionId": action, "observation": seen});
    assert_eq!(call(&base, "/api/agent/report", report).await.0, 200);

    let (status, kind, bytes) = get_bytes(&base, &format!("/api/agent/export?taskId={task}")).await;
    assert_eq!((status, kind.as_str()), (200, "application/zip"));
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut names: Vec<String> = zip.file_names().map(|name| name.unwrap().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["replay.html".to_owned(), format!("{action}-0.png"), format!("{task}.jsonl")]);
    let mut read = |name: &str| {
        let mut bytes = Vec::new();
        zip.by_name(name).unwrap().read_to_end(&mut bytes).unwrap();
        bytes
    };
    assert_eq!(read(&format!("{action}-0.png")), png);
    let audit = String::from_utf8(read(&format!("{task}.jsonl"))).unwrap();
    assert!(audit.lines().any(|l| l.contains("\"event\":\"reported\"")), "{audit}");
    let page = String::from_utf8(read("replay.html")).unwrap();
    assert!(page.contains("Task ") && page.contains("data:image/png;base64,"), "the page stands alone: {page}");

    let (status, _, body) = get_bytes(&base, "/api/agent/export?taskId=t-none").await;
    assert_eq!(status, 404, "{}", String::from_utf8_lossy(&body));
}
