//! The console over real HTTP, in this process: the token URL and its cookie, 401 without a
//! session, 403 without the CSRF token, and a confirmation made from the console named so.

use crate::http::{AppState, app};
use crate::service::{Service, ServiceOptions};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const SECRET: &str = "a-secret-of-32-characters-length";

/// The service on loopback, in this process: its base URL and the console's token.
async fn serve(dir: &std::path::Path) -> (String, String) {
    let service = Service::open(dir, ServiceOptions::default()).unwrap();
    let state = AppState::new(service, SECRET.into(), None).unwrap();
    let token = state.console.token().to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = app(Arc::new(state));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, token)
}

/// A browser-like client that does not follow redirects: status, headers and body.
fn request(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, Vec<(String, String)>, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(10)))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();
    let sent = match (method, body) {
        ("POST", body) => {
            let r = headers.iter().fold(agent.post(url), |r, (n, v)| r.header(*n, *v));
            r.header("Content-Type", "application/json").send(body.unwrap_or(Value::Null).to_string())
        }
        _ => headers.iter().fold(agent.get(url), |r, (n, v)| r.header(*n, *v)).call(),
    };
    let mut response = sent.unwrap();
    let status = response.status().as_u16();
    let seen = response.headers().iter().map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned())).collect();
    (status, seen, response.body_mut().read_to_string().unwrap_or_default())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_url_sets_a_strict_http_only_session_and_a_change_needs_the_page_s_csrf_token() {
    let dir = tempfile::tempdir().unwrap();
    let (base, token) = serve(dir.path()).await;
    tokio::task::spawn_blocking(move || {
        assert_eq!(request("GET", &format!("{base}/console"), &[], None).0, 401, "no session");
        assert_eq!(request("GET", &format!("{base}/console?token=nope"), &[], None).0, 401, "a wrong token");
        let (status, headers, _) = request("GET", &format!("{base}/console?token={token}"), &[], None);
        assert_eq!((status, header(&headers, "location")), (303, Some("/console")));
        let set = header(&headers, "set-cookie").unwrap().to_owned();
        assert!(set.contains("HttpOnly") && set.contains("SameSite=Strict") && set.contains("Path=/"), "{set}");
        let cookie = set.split(';').next().unwrap().to_owned();
        assert!(cookie.starts_with("navguard_console=") && !cookie.contains(&token), "its own id: {cookie}");
        let with_cookie = [("Cookie", cookie.as_str())];

        let (status, _, page) = request("GET", &format!("{base}/console"), &with_cookie, None);
        assert_eq!(status, 200, "{page}");
        let csrf = page.split("name=\"csrf-token\" content=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
        assert_eq!(csrf.len(), 32, "{page}");

        // A task that waits for the user: a click on a control named "Delete".
        let bearer = format!("Bearer {SECRET}");
        let api = |path: &str| format!("{base}/api/agent/{path}");
        let plan = json!({"goal": "tidy up", "plan": [{"round": 1, "tool": "click", "args": {"target": {"by": "text", "value": "Delete all"}}}]});
        let (_, _, started) = request("POST", &api("start"), &[("Authorization", &bearer)], Some(plan));
        let task = serde_json::from_str::<Value>(&started).unwrap()["taskId"].as_str().unwrap().to_owned();
        let (_, _, next) = request("POST", &api("next"), &[("Authorization", &bearer)], Some(json!({"taskId": task})));
        assert_eq!(serde_json::from_str::<Value>(&next).unwrap()["status"], "WAITING_CONFIRMATION");
        let (_, _, list) = request("GET", &format!("{base}/console/tasks"), &with_cookie, None);
        assert!(list.contains("tidy up") && list.contains("Waiting for you") && list.contains("&quot;delete&quot; is a risky word"), "{list}");

        let confirm = json!({"taskId": task, "actionId": format!("{task}-a0"), "approved": true});
        let (status, _, refused) = request("POST", &api("confirm"), &with_cookie, Some(confirm.clone()));
        assert_eq!(status, 403, "the cookie alone: {refused}");
        assert!(refused.contains("FORBIDDEN"), "{refused}");
        let wrong = [with_cookie[0], ("X-CSRF-Token", "0123456789abcdef0123456789abcdef")];
        assert_eq!(request("POST", &api("confirm"), &wrong, Some(confirm.clone())).0, 403, "another token");
        let (status, _, reading) = request("GET", &api(&format!("status?taskId={task}")), &with_cookie, None);
        assert_eq!(status, 200, "reading needs no CSRF token: {reading}");
        let right = [with_cookie[0], ("X-CSRF-Token", csrf.as_str()), ("User-Agent", "a-test-browser")];
        let (status, _, answer) = request("POST", &api("confirm"), &right, Some(confirm));
        assert_eq!((status, answer.as_str()), (200, r#"{"status":"RUNNING"}"#));

        let (_, _, audit) = request("GET", &api(&format!("audit?taskId={task}")), &[("Authorization", &bearer)], None);
        let confirmed: Value = audit.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|l| l["event"] == "confirmed").unwrap();
        assert_eq!(confirmed["client"], json!({"kind": "console", "id": "console-1", "userAgent": "a-test-browser"}));
        for bad in ["..%2Forchestrator.db", "x.txt", "%2Fetc%2Fpasswd.png"] {
            assert_eq!(request("GET", &format!("{base}/console/shot/{bad}"), &with_cookie, None).0, 404, "{bad}");
        }
        assert_eq!(request("GET", &format!("{base}/console/tasks"), &[], None).0, 401);
        let (status, _, replay) = request("GET", &format!("{base}/console/replay?taskId={task}"), &with_cookie, None);
        assert!(status == 200 && replay.contains("confirmed"), "{replay}");
    })
    .await
    .unwrap();
}
