//! Agents under test that misbehave, of both kinds, each as a real agent broken at one call by
//! `misbehaving/proxy.py` (it stands between navguard and the example JSON-lines adapter, or
//! navguard's own MCP server, and passes every line but where it misbehaves): a run of one
//! scenario ends honestly, in bounded time, with a message naming the agent and what it did,
//! and leaves no process behind, the agent's children included; the end of what the agent
//! wrote to stderr is in the scenario's artifacts, bounded.
//!
//! Needs Chromium and the agents (`bash ci/setup.sh chromium agents`; `ci/test.sh` runs both).

// Shared with tests/mcp.rs, which uses all of it.
#[path = "mcp/processes.rs"]
#[allow(dead_code)]
mod processes;

use processes::Watch;
use rustix::process::{Pid, Signal, kill_process_group};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long one misbehaving run may take, on a loaded 2-core machine: a browser's start, a
/// 2 s call deadline per call, the set-up's wait for a load; a hang would be far longer.
const RUN_DEADLINE: Duration = Duration::from_secs(120);
/// How long what the run started may take to be gone once it ended.
const GONE_DEADLINE: Duration = Duration::from_secs(30);
/// The log line the proxy writes on stdout in its `stray-line` mode.
const STRAY_LINE: &str = "[agent] a log line written to stdout";
/// The scenario each run has: the set-up navigate (call 1 for the proxy), then one navigate.
/// Each agent misbehaves at call 1, so that no call it answers well runs against the short
/// deadline: on a loaded machine a sound navigate can take longer than 2 s.
const SCENARIO: &str = "navigate to a slow page answers with that page";
/// Each call's deadline, where the agent's silence is what is tested: short, so a run ends soon.
const CALL_TIMEOUT_S: &str = "2";
/// Each call's deadline where the agent has much to say: on a loaded machine, megabytes through
/// a pipe can take longer than 2 s.
const CALL_TIMEOUT_CHATTY_S: &str = "30";
/// What shows Chromium's driver, and the browser itself, among the processes a run started.
const DRIVER: &str = "chromedriver";
const BROWSER: &str = "--user-data-dir";
/// The most `agent-stderr.txt` may hold: 64 KiB and a line saying how much came before.
const STDERR_KEPT_MAX: u64 = (64 << 10) + 100;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace").to_path_buf()
}

#[derive(Clone, Copy)]
enum Kind {
    Jsonl,
    Mcp,
}

/// A description of agent `misbehaving-<mode>`: the proxy, misbehaving at call `at`, in front
/// of the example adapter (jsonl) or of `navguard mcp` joined to the harness's browser (mcp).
fn description(dir: &Path, kind: Kind, mode: &str, at: u32) -> PathBuf {
    let proxy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/misbehaving/proxy.py");
    let proxy = proxy.display();
    // The repository's own Python (no version manager's shim before it starts).
    let python = workspace().join("agents/.venv/bin/python");
    assert!(python.exists(), "{} is missing: run `bash ci/setup.sh agents`", python.display());
    let python = python.display();
    let name = format!("misbehaving-{mode}");
    // The handshake's deadline: short where it is what is tested, else time for the real
    // agent behind the proxy to start on a loaded machine.
    let timeout_ms = if mode == "no-initialize" { 3_000 } else { 30_000 };
    let text = match kind {
        Kind::Jsonl => {
            let adapter = workspace().join("agents/jsonl-example/adapter.mjs");
            format!(
                "name = \"{name}\"\nkind = \"jsonl\"\nbrowsers = [\"chromium\"]\n[start]\ncommand = \"{python}\"\n\
                 args = [\"{proxy}\", \"jsonl\", \"{mode}\", \"{at}\", \"--\", \"node\", \"{}\"]\ntimeout_ms = {timeout_ms}\n\
                 env = {{ TMPDIR = \"{{scratch}}\" }}\n",
                adapter.display()
            )
        }
        Kind::Mcp => {
            // navguard's own MCP agent, its command put behind the proxy.
            let real = std::fs::read_to_string(workspace().join("agents/navguard-mcp.toml")).unwrap();
            let start =
                "command = \"{navguard}\"\nargs = [\"mcp\", \"--join\", \"{bidi_session}\", \"--files\", \"{files}\"]";
            assert!(real.contains(start), "agents/navguard-mcp.toml starts `navguard mcp --join`");
            let behind = format!(
                "command = \"{python}\"\nargs = [\"{proxy}\", \"mcp\", \"{mode}\", \"{at}\", \"--\", \"{{navguard}}\", \
                 \"mcp\", \"--join\", \"{{bidi_session}}\", \"--files\", \"{{files}}\"]\ntimeout_ms = {timeout_ms}"
            );
            real.replace("name = \"navguard-mcp\"", &format!("name = \"{name}\"")).replace(start, &behind)
        }
    };
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// How a run ended.
struct Ended {
    code: Option<i32>,
    /// Its stdout and stderr.
    said: String,
    took: Duration,
    reports: tempfile::TempDir,
    /// Every process it started, by command line.
    seen: Vec<String>,
}

/// Runs the scenario with the agent `kind` misbehaving in `mode` at call `at`; waits for the
/// run's end (within [`RUN_DEADLINE`]) and for everything it started to be gone.
async fn run(kind: Kind, mode: &str, at: u32) -> Ended {
    run_with(kind, mode, at, CALL_TIMEOUT_S).await
}

/// [`run`], with each call's deadline `call_timeout_s`.
async fn run_with(kind: Kind, mode: &str, at: u32, call_timeout_s: &str) -> Ended {
    let dir = tempfile::tempdir().unwrap();
    let agent = description(dir.path(), kind, mode, at);
    let reports = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_navguard"))
        .current_dir(workspace())
        .args(["run", "features/agents/navigation.feature", "--name", SCENARIO, "--browser", "chromium"])
        .args(["--call-timeout", call_timeout_s, "--agent"])
        .arg(&agent)
        .arg("--report-dir")
        .arg(reports.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so a run past its deadline goes with all it started.
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .expect("navguard starts");
    let pid = child.id().expect("a running child has a pid");
    let watch = Watch::new(pid);
    let output = match tokio::time::timeout(RUN_DEADLINE, child.wait_with_output()).await {
        Ok(output) => output.expect("its output"),
        Err(_) => {
            let _ = kill_process_group(Pid::from_raw(pid as i32).expect("not 0"), Signal::KILL);
            panic!("{mode}: the run took longer than {RUN_DEADLINE:?}");
        }
    };
    let took = started.elapsed();
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let seen = watch.all_gone(GONE_DEADLINE).await.into_values().collect();
    Ended { code: output.status.code(), said, took, reports, seen }
}

impl Ended {
    /// The scenario failed, with `words` in its message.
    fn failed_saying(&self, mode: &str, words: &[&str]) {
        assert_eq!(self.code, Some(1), "{mode}: {}", self.said);
        assert!(self.said.contains("features: 0 passed, 1 failed"), "{mode}: {}", self.said);
        for w in words {
            assert!(self.said.contains(w), "{mode}: {w:?} is not in:\n{}", self.said);
        }
        assert!(self.took < RUN_DEADLINE, "{mode}: took {:?}", self.took);
    }

    /// The scenario passed, and a warning named `line`, which the proxy wrote and which is not
    /// the protocol (`stray-line`, `json-log-line`), as written (in its quoted form).
    fn passed_naming_the_stray_line(&self, agent: &str, line: &str) {
        assert_eq!(self.code, Some(0), "{}", self.said);
        assert!(self.said.contains("features: 1 passed, 0 failed"), "{}", self.said);
        let named = format!("agent {agent} wrote a line on its stdout that is not its protocol (skipped): {line:?}");
        assert!(self.said.contains(&named), "{named:?} is not in:\n{}", self.said);
    }

    /// A file of the failed scenario's artifacts.
    fn artifact(&self, name: &str) -> PathBuf {
        let found = walk(self.reports.path()).into_iter().find(|p| p.file_name().is_some_and(|n| n == name));
        found.unwrap_or_else(|| panic!("no {name} in {}: {}", self.reports.path().display(), self.said))
    }

    /// A process whose command line holds `needle` was started, and is gone.
    fn started(&self, needle: &str) -> bool {
        self.seen.iter().any(|line| line.contains(needle))
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_floods_its_stdout_instead_of_answering_fails_the_call_at_its_deadline() {
    let ended = run(Kind::Jsonl, "flood-stdout", 1).await;
    ended.failed_saying(
        "flood-stdout",
        &[
            "agent misbehaving-flood-stdout gave no answer within 2 s (it also wrote on its stdout what is not its protocol, skipped: \"the agent is busy",
            "more lines left out]",
        ],
    );
    assert!(ended.started("adapter.mjs") && ended.started(BROWSER), "{:#?}", ended.seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_writes_a_log_line_on_stdout_is_named_and_judged_on_its_answer() {
    let ended = run(Kind::Jsonl, "stray-line", 1).await;
    ended.passed_naming_the_stray_line("misbehaving-stray-line", STRAY_LINE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_writes_a_structured_log_line_on_stdout_is_named_and_judged_on_its_answer() {
    let ended = run(Kind::Jsonl, "json-log-line", 1).await;
    let line = r#"{"level":"info","msg":"a structured log line written to stdout"}"#;
    ended.passed_naming_the_stray_line("misbehaving-json-log-line", line);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_that_writes_a_log_line_on_stdout_is_named_and_judged_on_its_answer() {
    let ended = run(Kind::Mcp, "stray-line", 1).await;
    ended.passed_naming_the_stray_line("misbehaving-stray-line", STRAY_LINE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_answers_with_a_line_over_64_mib_is_cut_off_not_read_on() {
    let ended = run_with(Kind::Jsonl, "long-line", 1, CALL_TIMEOUT_CHATTY_S).await;
    ended.failed_saying(
        "long-line",
        &["agent misbehaving-long-line broke the protocol: its stdout could not be read (a line longer than 64 MiB)"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_dies_mid_call_is_named_with_its_exit_and_last_words() {
    let ended = run(Kind::Jsonl, "die", 1).await;
    ended.failed_saying(
        "die",
        &[
            "agent misbehaving-die closed its stdout (exit status: 3); its stderr ends: ",
            "dying on purpose, in the middle of a call",
        ],
    );
    let stderr = std::fs::read_to_string(ended.artifact("agent-stderr.txt")).unwrap();
    assert!(stderr.trim_end().ends_with("dying on purpose, in the middle of a call"), "{stderr}");
    // The adapter it had started, in its process group, went with it.
    assert!(ended.started("adapter.mjs"), "{:#?}", ended.seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_floods_its_stderr_has_only_its_end_kept() {
    let ended = run_with(Kind::Jsonl, "flood-stderr-die", 1, CALL_TIMEOUT_CHATTY_S).await;
    ended.failed_saying(
        "flood-stderr-die",
        &["agent misbehaving-flood-stderr-die closed its stdout (exit status: 3); its stderr ends: "],
    );
    let kept = ended.artifact("agent-stderr.txt");
    let size = std::fs::metadata(&kept).unwrap().len();
    assert!(size <= STDERR_KEPT_MAX, "{size} bytes kept");
    let text = std::fs::read_to_string(&kept).unwrap();
    assert!(text.starts_with('[') && text.lines().next().unwrap().ends_with("bytes before these left out]"));
    assert!(text.trim_end().ends_with("dying on purpose after much said"), "{}", &text[text.len() - 200..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_goes_mute_with_a_child_that_ignores_sigterm_leaves_nothing() {
    let ended = run(Kind::Jsonl, "mute-child", 1).await;
    ended.failed_saying("mute-child", &["agent misbehaving-mute-child gave no answer within 2 s"]);
    // The child that ignored SIGTERM was started, and `run` saw it gone.
    assert!(ended.started("signal.SIG_IGN"), "{:#?}", ended.seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_answers_under_an_id_nobody_asked_for_is_named() {
    let ended = run(Kind::Jsonl, "stray-id", 1).await;
    ended.failed_saying(
        "stray-id",
        &["agent misbehaving-stray-id broke the protocol: call 1 was answered with id 9999"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_agent_that_writes_half_a_line_and_stops_fails_the_call_at_its_deadline() {
    let ended = run(Kind::Jsonl, "half-line", 1).await;
    ended.failed_saying("half-line", &["agent misbehaving-half-line gave no answer within 2 s"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_that_never_finishes_initialize_is_one_line_before_any_browser() {
    let ended = run(Kind::Mcp, "no-initialize", 1).await;
    assert_eq!(ended.code, Some(2), "{}", ended.said);
    let lines: Vec<&str> = ended.said.lines().collect();
    assert_eq!(lines.len(), 1, "{}", ended.said);
    assert!(lines[0].contains("agent misbehaving-no-initialize"), "{}", ended.said);
    assert!(lines[0].contains("initialize"), "{}", ended.said);
    assert!(!ended.started(DRIVER) && !ended.started(BROWSER), "no browser was started: {:#?}", ended.seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_that_floods_notifications_instead_of_answering_fails_the_call_at_its_deadline() {
    let ended = run(Kind::Mcp, "flood-notifications", 1).await;
    ended.failed_saying("flood-notifications", &["agent misbehaving-flood-notifications gave no answer within 2 s"]);
    assert!(ended.started("mcp --join"), "{:#?}", ended.seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_that_dies_mid_call_is_named_with_its_last_words() {
    let ended = run(Kind::Mcp, "die", 1).await;
    ended.failed_saying(
        "die",
        &["agent misbehaving-die broke off: its connection failed", "dying on purpose, in the middle of a call"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_that_answers_with_an_error_under_a_stray_id_fails_the_call_at_its_deadline() {
    let ended = run(Kind::Mcp, "stray-error", 1).await;
    ended.failed_saying("stray-error", &["agent misbehaving-stray-error gave no answer within 2 s"]);
}
