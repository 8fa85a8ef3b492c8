//! `navguard executor` end to end: the real binary beside a real browser, a real `navguard serve`,
//! the fixture site, and a real HTTP client (ureq) in the user's seat: secrets typed and never
//! reported, risk re-checked at the last moment, denials, a page that claims approval, kill -9
//! of the executor (its browser dies with it; restarted, it never runs an action twice) and of
//! the orchestrator (the executor retries and keeps its tabs).

mod common;

use common::*;
use navguard_harness::fixtures::FixtureSite;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A task's progress on a real browser: wide, for a loaded 2-core machine.
const TASK_DEADLINE: Duration = Duration::from_secs(60);
const PASSWORD: &str = "hunter2-correct-horse";

/// The fixture site, served from this test's own runtime.
struct Site {
    site: FixtureSite,
    _runtime: tokio::runtime::Runtime,
}

impl Site {
    fn start() -> Self {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let site = runtime.block_on(FixtureSite::start()).expect("the fixture site starts");
        Self { site, _runtime: runtime }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.site.site)
    }

    /// How many requests the site answered on `path`.
    fn hits(&self, path: &str) -> usize {
        self.site.requests().count(path)
    }
}

/// A running `navguard executor`.
struct Executor {
    child: Child,
    stderr: PathBuf,
}

impl Executor {
    fn start(server: &Server, dir: &Path, browser: &str, failpoints: Option<&str>) -> Self {
        let secrets = dir.join("secrets.env");
        std::fs::write(&secrets, format!("# the user's\nPASSWORD={PASSWORD}\n")).unwrap();
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let stderr = dir.join(format!("executor-{n}.log"));
        let mut command = Command::new(env!("CARGO_BIN_EXE_navguard"));
        command
            .args(["executor", "--server", &server.base, "--browser", browser])
            .arg("--data-dir")
            .arg(dir.join("executor"))
            .arg("--secrets")
            .arg(&secrets)
            .env("NAVGUARD_SECRET", SECRET)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap());
        if let Some(failpoints) = failpoints {
            command.env("FAILPOINTS", failpoints);
        }
        let mut child = command.spawn().expect("navguard executor starts");
        let line = first_line(&mut child, TASK_DEADLINE);
        assert!(line.starts_with(&format!("navguard executor: {browser} ready; polling ")), "{line:?}");
        Self { child, stderr }
    }

    /// The process group of its WebDriver server (the driver and the browser it started).
    fn driver_group(&self) -> u32 {
        let pid = self.child.id();
        let children = std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .flat_map(|c| c.split_whitespace().filter_map(|p| p.parse::<u32>().ok()).collect::<Vec<_>>())
            .collect::<Vec<_>>();
        children
            .into_iter()
            .find(|c| {
                let comm = std::fs::read_to_string(format!("/proc/{c}/comm")).unwrap_or_default();
                comm.trim().ends_with("driver")
            })
            .expect("the executor started a driver")
    }

    /// Waits for it to exit on its own; its exit status.
    fn exited(&mut self) -> std::process::ExitStatus {
        let mut status = None;
        wait_until("the executor exits", TASK_DEADLINE, || {
            status = self.child.try_wait().unwrap();
            status.is_some()
        });
        status.expect("it exited")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The processes in process group `group`.
fn group_members(group: u32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|p| std::fs::read_to_string(p.path().join("stat")).ok())
        .filter(|stat| {
            // After the command's closing parenthesis: state, ppid, pgrp.
            let fields: Vec<&str> =
                stat.rsplit_once(')').map(|(_, f)| f.split_whitespace().collect()).unwrap_or_default();
            fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(group) && fields.first() != Some(&"Z")
        })
        .count()
}

/// Polls `what` until it holds, for at most `deadline` (the state lives in other processes:
/// asking them is the only event there is).
fn wait_until(what: &str, deadline: Duration, mut holds: impl FnMut() -> bool) {
    let started = Instant::now();
    while !holds() {
        assert!(started.elapsed() < deadline, "{what}: not within {deadline:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn start_task(server: &Server, url: &str, plan: Value) -> String {
    let (code, body) = post(server, "/api/agent/start", &json!({"goal": "a test", "url": url, "plan": plan}));
    assert_eq!(code, 201, "{body}");
    body["taskId"].as_str().unwrap().to_owned()
}

/// Waits until the task is in `wanted`; its status then.
fn wait_status(server: &Server, task: &str, wanted: &str) -> Value {
    let started = Instant::now();
    loop {
        let last = status(server, task);
        if last["status"] == wanted {
            return last;
        }
        assert!(
            started.elapsed() < TASK_DEADLINE && !(last["status"] == "FAILED" || last["status"] == "CANCELED"),
            "task {task}: waited for {wanted}, it is {last}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn confirm(server: &Server, task: &str, action: &str, approved: bool) {
    let (code, body) =
        post(server, "/api/agent/confirm", &json!({"taskId": task, "actionId": action, "approved": approved}));
    assert_eq!(code, 200, "{body}");
}

/// The task's audit lines, parsed.
fn audit(server: &Server, task: &str) -> Vec<Value> {
    let (code, body) = get(server, &format!("/api/agent/audit?taskId={task}"));
    assert_eq!(code, 200, "{body}");
    body.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn events<'a>(lines: &'a [Value], event: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["event"] == event).collect()
}

#[test]
fn a_task_runs_on_the_browser_secrets_are_typed_never_reported_and_a_post_waits_for_the_user() {
    let site = Site::start();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("serve"));
    let executor = Executor::start(&server, dir.path(), "chromium", None);
    let plan = json!([
        {"round": 1, "tool": "type", "args": {"selector": "#user", "text": "ada@example.com"}},
        {"round": 2, "tool": "type", "args": {"selector": "#password", "text": "{secret:PASSWORD}", "submit": true}},
        {"round": 3, "tool": "done", "args": {"summary": "logged in"}},
    ]);
    let task = start_task(&server, &site.url(&format!("/login?next={}", site.url("/shop"))), plan);

    // The login form posts: typing with Enter waits for the user, and nothing reached the site.
    let waiting = wait_status(&server, &task, "WAITING_CONFIRMATION");
    assert_eq!(waiting["pendingAction"]["actionId"], format!("{task}-a1"), "{waiting}");
    assert_eq!(waiting["pendingAction"]["risk"], "high", "{waiting}");
    assert_eq!(site.hits("/session"), 0);
    confirm(&server, &task, &format!("{task}-a1"), true);
    let done = wait_status(&server, &task, "SUCCEEDED");
    assert_eq!(done["steps"], 3, "two typings and the verified done: {done}");
    assert_eq!(site.hits("/session"), 1, "the confirmed Enter submitted the form once");

    let lines = audit(&server, &task);
    let reported = events(&lines, "reported");
    assert_eq!(reported.len(), 2, "{lines:?}");
    assert_eq!(reported[0]["actionId"], format!("{task}-a0"), "ids are kept as they are: {:?}", reported[0]);
    assert!(reported[1]["observation"]["url"].as_str().unwrap().ends_with("/shop"), "{:?}", reported[1]);
    // Each action's screenshots, before and after, are files beside the audit.
    for line in &reported {
        let shots = line["screenshots"].as_array().unwrap();
        assert_eq!(shots.len(), 2, "{line}");
        for shot in shots {
            let file = dir.path().join("serve/audit").join(shot.as_str().unwrap());
            let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert!(bytes.starts_with(b"\x89PNG"), "{}", file.display());
        }
    }
    // Who asked: the executor for what it reported, the test's own calls for the rest.
    for line in &reported {
        let client = &line["client"];
        assert_eq!(
            (client["kind"].as_str(), client["browser"].as_str()),
            (Some("executor"), Some("chromium")),
            "{line}"
        );
        assert!(client["id"].as_str().is_some_and(|id| id.starts_with("executor-")), "{line}");
    }
    assert_eq!(events(&lines, "started")[0]["client"]["kind"], "api", "{lines:?}");
    assert_eq!(events(&lines, "confirmed")[0]["client"]["kind"], "api", "{lines:?}");
    let text = std::fs::read_to_string(dir.path().join("serve/audit").join(format!("{task}.jsonl"))).unwrap();
    for secret in [PASSWORD, "ada@example.com"] {
        assert!(!text.contains(secret), "the audit holds {secret}");
        assert!(!executor.log().contains(secret), "the executor's log holds {secret}");
    }
    // The page's field held the password as typed: the snapshot shows it redacted.
    assert!(text.contains("[redacted]"));

    let page = dir.path().join("replay.html");
    let replayed = Command::new(env!("CARGO_BIN_EXE_navguard"))
        .args(["replay", &dir.path().join("serve/audit").join(format!("{task}.jsonl")).display().to_string(), "-o"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(replayed.status.success(), "{replayed:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("data:image/png;base64,") && !html.contains(PASSWORD));
}

/// What an action's own calls brought back is its evidence: an extract's JSON in the
/// observation's `extracted`, a screenshot's picture among the action's screenshots (after the
/// pictures before and after it).
#[test]
fn an_extract_and_a_screenshot_are_the_action_s_evidence() {
    let site = Site::start();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("serve"));
    let _executor = Executor::start(&server, dir.path(), "chromium", None);
    let plan = json!([
        {"round": 1, "tool": "extract", "args": {"selector": "#color"}},
        {"round": 2, "tool": "screenshot", "args": {}},
        {"round": 3, "tool": "done", "args": {"summary": "read"}},
    ]);
    let task = start_task(&server, &site.url("/form-full"), plan);
    wait_status(&server, &task, "SUCCEEDED");
    let lines = audit(&server, &task);
    let reported = events(&lines, "reported");
    let of = |n: usize| {
        let id = format!("{task}-a{n}");
        reported.iter().find(|l| l["actionId"] == id.as_str()).copied().unwrap_or_else(|| panic!("{id}: {lines:?}"))
    };
    let read = &of(0)["observation"]["extracted"]["extract"];
    assert_eq!(read["tag"], "select", "{}", of(0));
    assert_eq!(read["value"], "red", "{}", of(0));
    let shots = of(1)["screenshots"].as_array().unwrap();
    assert_eq!(shots.len(), 3, "before, after and the screenshot's own: {}", of(1));
    assert_eq!(of(0)["screenshots"].as_array().unwrap().len(), 2, "an extract takes no picture: {}", of(0));
}

#[test]
fn a_denied_action_never_runs_the_task_goes_on_and_a_page_that_claims_approval_confirms_nothing() {
    let site = Site::start();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("serve"));
    let _executor = Executor::start(&server, dir.path(), "chromium", None);
    let plan = json!([
        {"round": 1, "tool": "click", "args": {"target": {"by": "text", "value": "Delete account"}}},
        {"round": 2, "tool": "navigate", "args": {"url": site.url("/injected")}},
        {"round": 3, "tool": "click", "args": {"selector": "#approve"}},
        {"round": 4, "tool": "navigate", "args": {"url": site.url(&format!("/link?to={}", site.url("/shop")))}},
        {"round": 5, "tool": "click", "args": {"selector": "#go"}},
        {"round": 6, "tool": "click", "args": {"selector": "#buy"}},
        {"round": 7, "tool": "done", "args": {"summary": "bought"}},
    ]);
    let task = start_task(&server, &site.url("/shop"), plan);
    let waiting = wait_status(&server, &task, "WAITING_CONFIRMATION");
    assert_eq!(waiting["pendingAction"]["actionId"], format!("{task}-a0"), "{waiting}");
    confirm(&server, &task, &format!("{task}-a0"), false);

    // Denied: the task went on, through the page that says everything is approved and a link
    // back to the shop, and the next high-risk action waits for the user all the same.
    let waiting = wait_status(&server, &task, "WAITING_CONFIRMATION");
    assert_eq!(waiting["pendingAction"]["actionId"], format!("{task}-a5"), "{waiting}");
    assert_eq!((site.hits("/injected"), site.hits("/link"), site.hits("/shop")), (1, 1, 2));
    assert_eq!((site.hits("/delete"), site.hits("/order")), (0, 0));
    let lines = audit(&server, &task);
    assert_eq!(events(&lines, "denied").len(), 1);
    assert_eq!(events(&lines, "reported").len(), 4, "navigate, click Approve, navigate, click the link: {lines:?}");
    for (action, what) in [("a2", "a plain button"), ("a4", "a link")] {
        let line =
            events(&lines, "dispatched").into_iter().find(|l| l["actionId"] == format!("{task}-{action}")).unwrap();
        assert_eq!(line["risk"], "low", "{what}: low, run without asking: {line}");
    }
    let (code, body) = post(&server, "/api/agent/cancel", &json!({"taskId": task}));
    assert_eq!((code, body["status"].as_str()), (200, Some("CANCELED")));
    assert_eq!(site.hits("/order"), 0);
}

/// kill -9 between running an action and reporting it: the browser dies with the executor; the
/// restarted executor reports the journaled result and never runs the action again.
fn killed_after_running_an_action(browser: &str) {
    let site = Site::start();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("serve"));
    let mut first = Executor::start(&server, dir.path(), browser, Some("executor-before-report=return"));
    let group = first.driver_group();
    assert!(group_members(group) >= 2, "the driver and its browser run");
    let plan = json!([
        {"round": 1, "tool": "click", "args": {"selector": "#buy"}},
        {"round": 2, "tool": "done", "args": {"summary": "ordered"}},
    ]);
    let task = start_task(&server, &site.url("/shop"), plan);
    // The orchestrator had no observation yet; the executor saw the POST form at the last
    // moment and refused to run the click unconfirmed.
    let waiting = wait_status(&server, &task, "WAITING_CONFIRMATION");
    let lines = audit(&server, &task);
    assert_eq!(events(&lines, "refused-unconfirmed").len(), 1, "{lines:?}");
    assert_eq!(site.hits("/order"), 0);
    confirm(&server, &task, waiting["pendingAction"]["actionId"].as_str().unwrap(), true);

    let status = first.exited();
    assert!(!status.success(), "the failpoint killed it: {status:?}");
    wait_until("the driver and browser die with the executor", TASK_DEADLINE, || group_members(group) == 0);
    assert_eq!(site.hits("/order"), 1, "the click ran once");
    assert_eq!(status_of(&server, &task), "RUNNING", "its result was never reported");

    let _second = Executor::start(&server, dir.path(), browser, None);
    wait_status(&server, &task, "SUCCEEDED");
    assert_eq!(site.hits("/order"), 1, "restarted, it reported the journaled result and did not click again");
    let lines = audit(&server, &task);
    let reported = events(&lines, "reported");
    assert_eq!(reported.len(), 1, "{lines:?}");
    assert!(reported[0]["observation"]["visibleTextSnippet"].as_str().unwrap().contains("order has been placed"));
}

fn status_of(server: &Server, task: &str) -> String {
    status(server, task)["status"].as_str().unwrap().to_owned()
}

#[test]
fn killed_9_after_running_an_action_chromium() {
    killed_after_running_an_action("chromium");
}

#[test]
fn killed_9_after_running_an_action_firefox() {
    killed_after_running_an_action("firefox");
}

#[test]
fn while_the_orchestrator_restarts_the_executor_retries_and_keeps_its_tabs() {
    let site = Site::start();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("serve"));
    let mut executor = Executor::start(&server, dir.path(), "chromium", None);
    let plan = json!([
        {"round": 1, "tool": "click", "args": {"selector": "#buy"}},
        {"round": 2, "tool": "done", "args": {"summary": "ordered"}},
    ]);
    let task = start_task(&server, &site.url("/shop"), plan);
    let waiting = wait_status(&server, &task, "WAITING_CONFIRMATION");
    let action = waiting["pendingAction"]["actionId"].as_str().unwrap().to_owned();

    let addr = server.base.trim_start_matches("http://").to_owned();
    server.kill();
    wait_until("the executor notices the outage", TASK_DEADLINE, || executor.log().contains("does not answer"));
    let server = Server::start_at(&dir.path().join("serve"), &addr);
    confirm(&server, &task, &action, true);
    wait_status(&server, &task, "SUCCEEDED");
    assert!(executor.child.try_wait().unwrap().is_none(), "the executor kept running");
    assert_eq!(site.hits("/shop"), 1, "the task's tab was kept: the shop was opened once");
    assert_eq!(site.hits("/order"), 1);
    assert!(executor.log().contains("answers again"), "{}", executor.log());
}

/// Waits until the task has ended, whichever way; its status then.
fn wait_ended(server: &Server, task: &str) -> Value {
    let mut last = Value::Null;
    wait_until(&format!("task {task} ends"), TASK_DEADLINE, || {
        last = status(server, task);
        ["SUCCEEDED", "FAILED", "CANCELED"].contains(&last["status"].as_str().unwrap_or_default())
    });
    last
}

/// `done` is run by the executor through the core's closed loop: verified on the page, the task
/// succeeds and the audit keeps the evidence; refused, a scripted task fails with the reason; a
/// plan that runs out without a done fails. The first task's click is on a link answered 204
/// No Content: the page stays, and the next round observes it at once on both browsers.
fn done_is_verified_by_the_executor(browser: &str) {
    let site = Site::start();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("serve"));
    let _executor = Executor::start(&server, dir.path(), browser, None);
    let info = site.url("/page?title=Info&go=/status?code=204");
    let verified = start_task(
        &server,
        &info,
        json!([
            {"round": 1, "tool": "click", "args": {"selector": "#go"}},
            {"round": 2, "tool": "done", "args": {"summary": "stayed", "expect": {"title": "Info"}}},
        ]),
    );
    let refused = start_task(
        &server,
        &info,
        json!([{"round": 1, "tool": "done", "args": {"summary": "bought", "expect": {"title": "Shop"}}}]),
    );
    let no_done = start_task(&server, &info, json!([{"round": 1, "tool": "wait", "args": {"ms": 1}}]));

    let view = wait_ended(&server, &verified);
    assert_eq!((view["status"].as_str(), view["summary"].as_str()), (Some("SUCCEEDED"), Some("stayed")), "{view}");
    assert_eq!(site.hits("/status"), 1, "the click reached the site once");
    let lines = audit(&server, &verified);
    let succeeded = events(&lines, "succeeded");
    assert_eq!(succeeded.len(), 1, "{lines:?}");
    let evidence = &succeeded[0]["verified"]["observation"];
    assert_eq!(evidence["title"], "Info", "verified on the page it names: {evidence}");
    let verdict = evidence["extracted"]["verdict"].as_str().unwrap_or_default();
    assert!(verdict.starts_with("verified: the page the model observed") && verdict.contains("Info"), "{verdict}");

    let view = wait_ended(&server, &refused);
    assert_eq!(view["status"], "FAILED", "{view}");
    let error = view["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("done: refused: verification failed:") && error.contains("Shop"), "{error}");
    assert!(view["summary"].is_null(), "{view}");
    assert_eq!(events(&audit(&server, &refused), "done-refused").len(), 1);

    let view = wait_ended(&server, &no_done);
    assert_eq!(
        (view["status"].as_str(), view["error"].as_str()),
        (Some("FAILED"), Some("the plan ended without a verified done"))
    );
}

#[test]
fn done_is_verified_by_the_executor_chromium() {
    done_is_verified_by_the_executor("chromium");
}

#[test]
fn done_is_verified_by_the_executor_firefox() {
    done_is_verified_by_the_executor("firefox");
}

/// Waits until the task's status answer satisfies `holds`; that answer.
fn wait_for(server: &Server, task: &str, what: &str, holds: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let last = status(server, task);
        if holds(&last) {
            return last;
        }
        assert!(started.elapsed() < TASK_DEADLINE, "{what}: not within {TASK_DEADLINE:?}; last {last}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The user's word on `origin`.
fn permit(server: &Server, origin: &str, granted: bool) {
    let (code, body) = post(server, "/api/agent/permissions", &json!({"origin": origin, "granted": granted}));
    assert_eq!((code, &body), (200, &json!({"origin": origin, "granted": granted})));
}

/// With `--permissions ask`: the first click waits for its site, and nothing reaches the site
/// until the user grants it; the second, high risk, held for the user's confirmation while its page moved
/// to another origin, is refused by the executor at the last moment and waits for that origin;
/// refused, it never runs.
#[test]
fn with_permissions_ask_an_action_waits_for_its_site_and_the_executor_checks_it_at_the_last_moment() {
    let site = Site::start();
    let dir = tempfile::tempdir().unwrap();
    // `continue` makes the page's one button ("Continue") high risk to the service once it has
    // seen the page: the second click waits for the user. (The executor keeps its own words.)
    let args = ["--permissions", "ask", "--risk-words", "continue"];
    let server = Server::start_with(&dir.path().join("serve"), "127.0.0.1:0", &args, &[]);
    let _executor = Executor::start(&server, dir.path(), "chromium", None);
    let (origin, other) = (site.site.site.clone(), site.site.other.clone());
    // A click fetches /gate?name=away (held until this test releases it), then goes to a page
    // of the other origin that polls /data once loaded.
    let url = site.url(&format!("/fetch-then-go?gate=away&to={other}/poll?title=Away"));
    let plan = json!([
        {"round": 1, "tool": "click", "args": {"selector": "#go"}},
        {"round": 2, "tool": "click", "args": {"selector": "#go"}},
        {"round": 3, "tool": "done", "args": {"summary": "away", "expect": {"title": "Away"}}},
    ]);
    let task = start_task(&server, &url, plan);
    let a = |n: u32| format!("{task}-a{n}");

    let waiting =
        wait_for(&server, &task, "the first click waits for its site", |s| s["pendingPermission"] != Value::Null);
    assert_eq!(waiting["status"], "WAITING_CONFIRMATION", "{waiting}");
    assert_eq!(
        (&waiting["pendingPermission"]["origin"], &waiting["pendingAction"]["actionId"]),
        (&json!(origin), &json!(a(0)))
    );
    assert_eq!(site.hits("/gate"), 0, "nothing reached the site");
    permit(&server, &origin, true);
    wait_until("the click reaches the site", TASK_DEADLINE, || site.hits("/gate") == 1);

    // The second click waits for its confirmation while the page moves to the other origin.
    wait_for(&server, &task, "the second click waits for a confirmation", |s| s["pendingAction"]["actionId"] == a(1));
    site.site.state.release("away");
    wait_until("the other origin's page loads and polls", TASK_DEADLINE, || site.hits("/data") >= 1);
    confirm(&server, &task, &a(1), true);
    let moved =
        wait_for(&server, &task, "the executor refuses the moved page", |s| s["pendingPermission"] != Value::Null);
    assert_eq!(
        (&moved["pendingPermission"]["origin"], &moved["pendingAction"]["actionId"]),
        (&json!(other), &json!(a(1)))
    );
    permit(&server, &other, false);
    // Refused, the click never runs. The task cannot go on either: the agent core stops a task
    // whose page moved to another origin by itself, at the top of its next round.
    let ended = wait_for(&server, &task, "the task ends", |s| {
        ["SUCCEEDED", "FAILED", "CANCELED"].contains(&s["status"].as_str().unwrap())
    });
    assert_eq!(ended["status"], "FAILED", "{ended}");
    assert!(ended["error"].as_str().unwrap().contains("different origin"), "{ended}");

    let (code, body) = get(&server, "/api/agent/permissions");
    let kept: Value = serde_json::from_str(&body).unwrap();
    let words: Vec<(&Value, &Value)> =
        kept["origins"].as_array().unwrap().iter().map(|g| (&g["origin"], &g["granted"])).collect();
    assert_eq!(code, 200);
    assert!(
        words.contains(&(&json!(origin), &json!(true))) && words.contains(&(&json!(other), &json!(false))),
        "{kept}"
    );
    let lines = audit(&server, &task);
    let sequence: Vec<&str> = lines
        .iter()
        .map(|l| l["event"].as_str().unwrap())
        .filter(|e| e.starts_with("permission") || e.starts_with("refused"))
        .collect();
    assert_eq!(
        sequence,
        [
            "permission-requested",
            "permission-granted",
            "refused-not-permitted",
            "permission-requested",
            "permission-refused"
        ],
        "{lines:?}"
    );
    let refused = events(&lines, "refused-not-permitted")[0];
    assert_eq!(refused["observation"]["errors"][0]["code"], "PERMISSION_DENIED", "{refused}");
    assert!(refused["observation"]["url"].as_str().unwrap().starts_with(&other), "{refused}");
}
