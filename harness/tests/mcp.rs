//! `navguard mcp` as its clients meet it, on real browsers and the fixture site: a client on the
//! official Python SDK (written apart from navguard) drives it on Chromium and on Firefox ESR;
//! the official Rust SDK, as a client, checks what it answers to bad input, to a stale ref and
//! to a browser that cannot start; and the end of its input, or SIGTERM, ends it and leaves no
//! driver and no browser behind.
//!
//! Needs Chromium, Firefox ESR and geckodriver (`bash ci/setup.sh chromium firefox`), and the
//! Python environment with the MCP SDK (`bash ci/setup.sh agents`); `ci/test.sh` runs both.

#[path = "mcp/processes.rs"]
mod processes;
#[path = "mcp/support.rs"]
mod support;

use navguard_harness::fixtures::FixtureSite;
use processes::Watch;
use rmcp::model::ErrorCode;
use rmcp::service::ServiceError;
use rustix::process::{Pid, Signal, kill_process, kill_process_group};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use support::{Server, exit_within};

/// The Python client's whole run: a browser start and five calls, each with its own 60 s
/// deadline in the script, on a loaded 2-core machine.
const PYTHON_DEADLINE: Duration = Duration::from_secs(240);
/// How long the server may take to end once its input ends or SIGTERM comes (its own deadline
/// for closing the browser is 15 s).
const EXIT_DEADLINE: Duration = Duration::from_secs(30);
/// How long the driver and browser may take to be gone after the server ended.
const GONE_DEADLINE: Duration = Duration::from_secs(30);
/// How long the driver and the browser may take to show up once the first call answered.
const SEEN_DEADLINE: Duration = Duration::from_secs(10);

/// What shows a browser's driver and the browser itself among the processes the server started.
fn driver_and_browser(browser: &str) -> [&'static str; 2] {
    match browser {
        "firefox" => ["geckodriver", "--marionette"],
        _ => ["chromedriver", "--user-data-dir"],
    }
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace")
}

/// A fixture page with a link `go` to a page called Next.
fn home(site: &FixtureSite) -> String {
    format!("{}/page?title=Home&go=/page%3Ftitle%3DNext", site.site)
}

async fn python_client_drives(browser: &str) {
    let python: PathBuf = workspace().join("agents/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: the MCP client test needs the Python SDK; run `bash ci/setup.sh agents` \
         (ci/test.sh runs it)",
        python.display()
    );
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/python_client.py");
    let mut child = tokio::process::Command::new(&python)
        .arg(&script)
        .args([env!("CARGO_BIN_EXE_navguard"), browser, &home(&site)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group: on a timeout the client and the server it started go together.
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .expect("the venv's python starts");
    let pid = child.id().expect("a running child has a pid");
    let watch = Watch::new(pid);
    let stdout = support::record(child.stdout.take().expect("its stdout, piped"));
    let stderr = support::record(child.stderr.take().expect("its stderr, piped"));
    let status = match tokio::time::timeout(PYTHON_DEADLINE, child.wait()).await {
        Ok(status) => status.expect("its exit status"),
        Err(_) => {
            let group = Pid::from_raw(pid.try_into().expect("a pid fits")).expect("not 0");
            let _ = kill_process_group(group, Signal::KILL);
            panic!(
                "{browser}: the Python client ran longer than {PYTHON_DEADLINE:?}; its steps:\n{}\nstderr:\n{}",
                support::text(&stdout),
                support::text(&stderr)
            );
        }
    };
    let (out, err) = (support::text(&stdout), support::text(&stderr));
    assert!(
        status.success(),
        "{browser}: the Python client failed ({status}); its steps:\n{out}\nstderr:\n{err}\nthe site's requests: {:#?}",
        site.requests().all()
    );
    assert_eq!(out.lines().last(), Some(r#"{"passed": true}"#), "{browser}: {out}");
    let seen = watch.all_gone(GONE_DEADLINE).await;
    for needle in driver_and_browser(browser) {
        assert!(seen.values().any(|l| l.contains(needle)), "{browser}: no {needle} was seen: {seen:#?}");
    }
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_drives_chromium() {
    python_client_drives("chromium").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_drives_firefox() {
    python_client_drives("firefox").await;
}

/// An unknown tool, and one the server keeps to its own loop (`ask_user`), are the protocol's
/// invalid-params error naming every tool there is; no browser starts for them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_tool_is_a_json_rpc_error_naming_the_tools() {
    let server = Server::start(&[]).await;
    let tools = server.tool_names().await;
    assert!(tools.iter().any(|t| t == "navigate") && tools.len() > 5, "{tools:?}");
    for unknown in ["no_such_tool", "ask_user"] {
        let refused = server.try_call(unknown, json!({})).await;
        let Err(ServiceError::McpError(error)) = refused else {
            panic!("{unknown}: not a JSON-RPC error: {refused:?}");
        };
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{unknown}: {error:?}");
        assert!(error.message.contains(unknown), "{unknown}: {}", error.message);
        for tool in &tools {
            assert!(error.message.contains(tool.as_str()), "{unknown}: {tool} not named in {}", error.message);
        }
    }
    assert_eq!(server.tool_names().await, tools, "the server still answers");
    // The watcher looks every so often: wait for its look at the server (not at the moment
    // between its fork and its exec), so that seeing no driver means something.
    server.watch.wait_for(&[" mcp"], Duration::from_secs(10)).await;
    let seen = server.watch.seen();
    assert!(seen.values().all(|l| !l.contains("chromedriver")), "a browser started: {seen:#?}");
}

/// A client may run a tool marked read-only without asking its user (the MCP specification's
/// `readOnlyHint`: the tool does not modify its environment): the tools that look, wait or move
/// the server's tab pointer are; every tool that changes a page or the browser's tabs is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_tools_that_change_nothing_are_marked_read_only() {
    let server = Server::start(&[]).await;
    let tools = server.tools().await;
    let read_only = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"));
        tool.annotations.as_ref().and_then(|a| a.read_only_hint)
    };
    for name in
        ["snapshot", "list_tabs", "focus_tab", "wait", "wait_for", "wait_for_network_idle", "extract", "screenshot"]
    {
        assert_eq!(read_only(name), Some(true), "{name} changes nothing");
    }
    let changing = ["open_url", "navigate", "go_back", "click", "type", "press_key", "handle_dialog", "close_tabs"];
    let interacting = ["select_option", "hover", "drag", "upload_file", "fill_form"];
    for name in changing.into_iter().chain(interacting) {
        assert_eq!(read_only(name), Some(false), "{name} changes a page or the browser's tabs");
    }
}

/// docs/mcp.md's table of tools is the one `tools/list` answers: every tool, its description
/// and its arguments (`?` after an optional one), and no other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_mcp_md_lists_the_tools_the_server_lists() {
    let server = Server::start(&[]).await;
    let tools = server.tools().await;
    let path = workspace().join("docs/mcp.md");
    let docs = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The section's table: from its heading to the next section.
    let section = docs.split("\n## ").find(|s| s.starts_with("Tools\n")).expect("docs/mcp.md has a section Tools");
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    let expected: Vec<String> = tools.iter().map(table_row).collect();
    for row in &expected {
        assert!(rows.contains(&row.as_str()), "docs/mcp.md lacks the row, or has it otherwise:\n{row}");
    }
    assert_eq!(rows.len(), expected.len(), "docs/mcp.md lists other tools: {rows:#?}");
}

/// A tool as docs/mcp.md's table shows it: `| `name` | description | `arg`, `optional`? |`.
fn table_row(tool: &rmcp::model::Tool) -> String {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(|r| r.as_array())
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str())
        .collect();
    let arguments: Vec<String> = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .into_iter()
        .flat_map(|p| p.keys())
        .map(|k| if required.contains(&k.as_str()) { format!("`{k}`") } else { format!("`{k}`?") })
        .collect();
    let arguments = if arguments.is_empty() { "—".to_owned() } else { arguments.join(", ") };
    let description = tool.description.as_deref().unwrap_or_default();
    format!("| `{}` | {description} | {arguments} |", tool.name)
}

/// Arguments that break a tool's schema are the tool's failure (bad-input), not a protocol
/// error, and the server answers the next call as if nothing happened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_break_the_schema_are_bad_input_and_the_server_goes_on() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let server = Server::start(&["--browser", "chromium"]).await;
    // The first call, with no tab open yet: the browser starts, the call is refused.
    assert_bad_input(&server.call("navigate", json!({})).await, "url");
    let opened = server.call("navigate", json!({"url": home(&site)})).await;
    assert!(!opened.is_error && opened.title() == "Home", "{}", opened.text);
    for (tool, args, named) in [
        ("click", json!({"ref": 12}), "ref"),
        ("navigate", json!({"url": 5}), "url"),
        ("wait", json!({"ms": "soon"}), "ms"),
        ("type", json!({"ref": opened.element("textbox", "q")}), "text"),
        // A short ref this session never gave.
        ("click", json!({"ref": "e999"}), "e999"),
    ] {
        let answer = server.call(tool, args.clone()).await;
        assert_bad_input(&answer, named);
        assert!(answer.text.starts_with("Error (bad-input)"), "{tool} {args}: {}", answer.text);
    }
    let go = opened.element("link", "go");
    assert!(go.starts_with('e') && go.len() <= 4, "the model is shown a short ref: {go}");
    let clicked = server.call("click", json!({"ref": go})).await;
    assert!(!clicked.is_error && clicked.title() == "Next", "the server still answers: {}", clicked.text);
    assert!(
        clicked.text.contains(&format!("clicked ref {go};")),
        "the result names the ref as given: {}",
        clicked.text
    );
    site.shutdown().await;
}

fn assert_bad_input(answer: &support::Answer, argument: &str) {
    assert!(answer.is_error, "not flagged as an error: {answer:?}");
    assert_eq!(answer.failure_kind(), Some("bad-input"), "{answer:?}");
    assert_eq!(answer.structured["ok"], false, "{answer:?}");
    let message = answer.structured["failure"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(argument), "the message names {argument}: {message}");
}

/// A ref taken on one document and used after the tab moved to another is refused as stale,
/// and the answer shows the page the tab is on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ref_from_another_document_is_refused_as_stale() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let server = Server::start(&["--browser", "chromium"]).await;
    let opened = server.call("navigate", json!({"url": home(&site)})).await;
    let go = opened.element("link", "go");
    let away = server.call("navigate", json!({"url": format!("{}/page?title=Away", site.site)})).await;
    assert!(!away.is_error && away.title() == "Away", "{}", away.text);
    assert_ne!(away.structured["page"]["document"], opened.structured["page"]["document"]);
    let stale = server.call("click", json!({"ref": go})).await;
    assert!(stale.is_error, "{}", stale.text);
    assert_eq!(stale.failure_kind(), Some("stale-ref"), "{}", stale.text);
    assert!(stale.text.starts_with("Error (stale-ref)"), "{}", stale.text);
    assert_eq!(stale.title(), "Away", "the answer shows the page the tab is on: {}", stale.text);
    assert_eq!(site.requests().count("/page"), 2, "the stale click loaded nothing");
    site.shutdown().await;
}

/// A screenshot's answer holds its PNG as image content; extract takes the short refs the
/// answers list, in `ref` and among its `fields` beside CSS selectors, and answers with what the
/// fields hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_is_image_content_and_extract_takes_short_refs() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let server = Server::start(&["--browser", "chromium"]).await;
    let opened = server.call("navigate", json!({"url": format!("{}/form-full", site.site)})).await;
    let color = opened.element("combobox", "Color");
    let shot = server.call("screenshot", json!({})).await;
    assert!(!shot.is_error, "{}", shot.text);
    assert_eq!(shot.images.len(), 1, "{}", shot.text);
    assert_eq!(shot.images[0].0, "image/png");
    assert!(shot.images[0].1.starts_with("iVBORw0KGgo"), "a PNG's base64 begins with its signature");
    assert_eq!(shot.structured["picture"]["mimeType"], "image/png");
    let read = server.call("extract", json!({"fields": {"color": color, "note": "#note"}})).await;
    assert!(!read.is_error, "{}", read.text);
    assert!(read.text.contains(r#""color":{"#) && read.text.contains(r#""value":"red""#), "{}", read.text);
    assert!(read.text.contains(r#""note":{"tag":"textarea","value":""}"#), "{}", read.text);
    let one = server.call("extract", json!({"ref": color})).await;
    assert!(one.text.starts_with(r#"{"#) && one.text.contains(r#""label":"Blue""#), "{}", one.text);
    let unknown = server.call("extract", json!({"fields": {"x": "e999"}})).await;
    assert_eq!(unknown.failure_kind(), Some("bad-input"), "a short ref never given is refused: {}", unknown.text);
    site.shutdown().await;
}

/// The tools that change controls take the short refs of the answers wherever they name
/// elements (fill_form's fields, drag's two ends), `upload_file` reads only from `--files`, and
/// a value the page put back is `not-applied`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_control_tools_take_short_refs_and_uploads_come_only_from_the_allowed_folder() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let files = tempfile::tempdir().expect("a folder");
    std::fs::write(files.path().join("report.csv"), "a,b\n").expect("a file");
    let folder = files.path().to_string_lossy().into_owned();
    let server = Server::start(&["--browser", "chromium", "--files", &folder]).await;
    let opened = server.call("navigate", json!({"url": format!("{}/form-full", site.site)})).await;
    let (name, agree, color) =
        (opened.element("textbox", "Name"), opened.element("checkbox", "Agree"), opened.element("combobox", "Color"));
    let fields = json!([{"ref": name, "value": "Ada"}, {"ref": agree, "value": true}, {"ref": color, "value": "Blue"}]);
    let filled = server.call("fill_form", json!({"fields": fields})).await;
    assert!(!filled.is_error, "{}", filled.text);
    assert!(filled.text.contains(r#"holds "Ada""#) && filled.text.contains(r#"holds "Blue""#), "{}", filled.text);
    let dragged = server.call("navigate", json!({"url": format!("{}/drag?kind=pointer", site.site)})).await;
    let (a, zone) = (dragged.element("button", "A"), dragged.element("region", "Drop here"));
    let dropped = server.call("drag", json!({"from": a, "to": zone})).await;
    assert!(!dropped.is_error && dropped.text.contains(r#"it reads "Dropped: A""#), "{}", dropped.text);
    server.call("navigate", json!({"url": format!("{}/upload", site.site)})).await;
    let outside = server.call("upload_file", json!({"selector": "#file", "paths": ["/etc/hostname"]})).await;
    assert_eq!(outside.failure_kind(), Some("bad-input"), "{}", outside.text);
    let attached = server.call("upload_file", json!({"selector": "#file", "paths": ["report.csv"]})).await;
    assert!(attached.text.contains("#file holds report.csv (4 bytes)"), "{}", attached.text);
    server.call("navigate", json!({"url": format!("{}/select?revert=50", site.site)})).await;
    let put_back = server.call("select_option", json!({"selector": "#pick", "values": ["Two"]})).await;
    assert_eq!(put_back.failure_kind(), Some("not-applied"), "{}", put_back.text);
    site.shutdown().await;
}

/// A browser that cannot start fails the call (kind browser, saying so), and the server goes
/// on answering: tools/list, and the next call, which tries again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_cannot_start_is_a_browser_failure_and_the_server_goes_on() {
    let server = Server::start(&["--webdriver-url", "http://127.0.0.1:1"]).await;
    for _ in 0..2 {
        let answer = server.call("navigate", json!({"url": "http://127.0.0.1:1/"})).await;
        assert!(answer.is_error, "{answer:?}");
        assert_eq!(answer.failure_kind(), Some("browser"), "{answer:?}");
        let message = answer.structured["failure"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("the browser could not start"), "{message}");
        assert!(answer.text.starts_with("Error (browser): the browser could not start"), "{}", answer.text);
        assert!(server.tool_names().await.iter().any(|t| t == "navigate"));
    }
}

/// The client closing the server's stdin ends it, and with it the driver and the browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_input_ends_the_server_its_driver_and_its_browser() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let server = on_home(&site).await;
    let stderr = server.stderr();
    let Server { mut child, client, watch, .. } = server;
    // Ending the client drops its transport, the write end of the server's stdin with it.
    let _ = tokio::time::timeout(EXIT_DEADLINE, client.cancel()).await.expect("the client ends");
    let status = exit_within(&mut child, EXIT_DEADLINE).await;
    assert!(status.success(), "{status}: {stderr}");
    watch.all_gone(GONE_DEADLINE).await;
    site.shutdown().await;
}

/// A server on Chromium whose first call opened the site's home page: its driver and browser
/// are running (the watcher has seen them).
async fn on_home(site: &FixtureSite) -> Server {
    let server = Server::start(&["--browser", "chromium"]).await;
    let opened = server.call("navigate", json!({"url": home(site)})).await;
    assert!(!opened.is_error, "{}", opened.text);
    server.watch.wait_for(&driver_and_browser("chromium"), SEEN_DEADLINE).await;
    server
}

/// SIGTERM to the server in the middle of a session ends it, the driver and the browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_session_ends_the_server_its_driver_and_its_browser() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let server = on_home(&site).await;
    sigterm(server, EXIT_DEADLINE).await;
    site.shutdown().await;
}

/// SIGTERM while a call waits on a page that answers only 20 s later ends the server within
/// its exit deadline all the same, the driver and the browser with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_call_ends_the_server_its_driver_and_its_browser() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let server = on_home(&site).await;
    let peer = server.client.peer().clone();
    let slow = format!("{}/slow?delay=20000&title=Slow", site.site);
    let call = tokio::spawn(async move {
        let args = json!({"url": slow}).as_object().cloned().unwrap_or_default();
        peer.call_tool(rmcp::model::CallToolRequestParams::new("navigate").with_arguments(args)).await
    });
    // The call is under way once the browser has asked the site for the slow page.
    assert!(site.requests().wait_for("/slow", 1, SEEN_DEADLINE).await, "the browser never asked for the page");
    sigterm(server, EXIT_DEADLINE).await;
    // The server went without answering the call: the client says its connection ended.
    let ended = tokio::time::timeout(EXIT_DEADLINE, call).await.expect("the call ends with the server");
    assert!(ended.expect("the call's task").is_err(), "the call got an answer from a server that was told to end");
    site.shutdown().await;
}

/// kill -9 of the server in the middle of a session: the driver's guardian ends the driver and
/// the browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_of_the_server_leaves_no_driver_and_no_browser() {
    let site = FixtureSite::start().await.expect("the fixture site starts");
    let server = on_home(&site).await;
    let Server { mut child, client, watch, .. } = server;
    child.start_kill().expect("SIGKILL sent");
    exit_within(&mut child, EXIT_DEADLINE).await;
    watch.all_gone(GONE_DEADLINE).await;
    drop(client);
    site.shutdown().await;
}

/// Sends the server SIGTERM and checks it exits cleanly within `deadline`, and that every
/// process it started is gone.
async fn sigterm(server: Server, deadline: Duration) {
    let stderr = server.stderr();
    let Server { mut child, pid, client, watch, .. } = server;
    let pid = Pid::from_raw(pid.try_into().expect("a pid fits")).expect("not 0");
    kill_process(pid, Signal::TERM).expect("SIGTERM sent");
    let status = exit_within(&mut child, deadline).await;
    assert!(status.success(), "{status}: {stderr}");
    watch.all_gone(GONE_DEADLINE).await;
    drop(client);
}
