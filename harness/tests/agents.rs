//! Every built-in agent under test runs one representative scenario for real, through its own
//! server or program, and leaves no process behind; kill -9 of navguard in the middle of a
//! scenario leaves no agent process and no browser behind. The whole agent-neutral suite against
//! each agent the main job gates (`ci/conformance.sh`: navguard's core through `navguard mcp` on
//! both browsers, Playwright MCP and the example JSON-lines adapter on Chromium), judged by each
//! agent's expectations file; it is not run twice in one CI run.
//!
//! Needs the agents installed (`bash ci/setup.sh agents`; `ci/test.sh` does it).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the agent and its browser may take to start.
const START_DEADLINE: Duration = Duration::from_secs(120);
/// How long the guardians may take to end what a killed navguard started.
const CLEANUP_DEADLINE: Duration = Duration::from_secs(30);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace").to_path_buf()
}

fn navguard(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_navguard"));
    command.current_dir(workspace()).args(args).env("NAVGUARD_BROWSER", "chromium");
    command
}

/// Polls `what` until it holds, for at most `deadline` (the state lives in other processes:
/// asking them is the only event there is).
fn wait_until(what: &str, deadline: Duration, mut holds: impl FnMut() -> bool) {
    let started = Instant::now();
    while !holds() {
        assert!(started.elapsed() < deadline, "waited {} s for {what}, in vain", deadline.as_secs());
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs `child` to its end within `deadline` (killed after it); its exit status and stdout.
fn finish(mut child: Child, deadline: Duration) -> (std::process::ExitStatus, String) {
    let mut stdout = child.stdout.take().expect("its stdout, piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let mut status = None;
    let started = Instant::now();
    while status.is_none() {
        status = child.try_wait().expect("its status");
        if status.is_none() && started.elapsed() > deadline {
            let _ = child.kill();
            panic!("it ran longer than {} s", deadline.as_secs());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    (status.expect("it ended"), reader.join().unwrap_or_default())
}

/// The processes whose parent chain leads to `root`.
fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|p| p.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After the command's closing parenthesis: state, ppid.
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == parent).map(|(p, _)| *p));
        i += 1;
    }
    found.remove(0);
    found
}

fn command_line(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, f)| f.split_whitespace().next() != Some("Z")))
        .unwrap_or(false)
}

/// Starts navguard with `args`, waits until the command lines of what it started satisfy
/// `running` (`what` names that moment), kills it with SIGKILL and waits until everything it
/// had started is gone, and every file it and they put in the temporary folder (a folder of
/// the test's own, as `TMPDIR`) with them.
fn kill_9_when(args: &[&str], what: &str, running: impl Fn(&[String]) -> bool) {
    let temporary = tempfile::tempdir().unwrap();
    let mut child =
        navguard(args).env("TMPDIR", temporary.path()).stdout(Stdio::null()).spawn().expect("navguard starts");
    let pid = child.id();
    let mut started = Vec::new();
    wait_until(what, START_DEADLINE, || {
        started = descendants(pid);
        running(&started.iter().map(|p| command_line(*p)).collect::<Vec<_>>())
    });
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    wait_until(&format!("every process navguard started to be gone ({what})"), CLEANUP_DEADLINE, || {
        started.iter().all(|p| !alive(*p))
    });
    let left = || std::fs::read_dir(temporary.path()).map_or(0, Iterator::count);
    wait_until(&format!("the temporary folder to be empty ({what})"), CLEANUP_DEADLINE, || left() == 0);
}

#[test]
fn kill_9_of_navguard_leaves_no_agent_and_no_browser() {
    // Each agent by what shows its server among the processes (agent-infra's behind its relay,
    // Firefox DevTools MCP's once it has started its stand-in geckodriver) and its browser.
    let cases = [
        ("playwright-mcp", "chromium", "@playwright/mcp", "chrom"),
        ("agent-infra", "chromium", "mcp-server-browser", "chrom"),
        ("firefox-devtools-mcp", "firefox", "geckodriver.mjs", "firefox-esr"),
        ("puppeteer-mcp", "chromium", "puppeteer-mcp/chrome.mjs", "chromium"),
        ("executeautomation", "chromium", "playwright-mcp-server/dist", "chromium"),
    ];
    for (agent, browser, server, browser_process) in cases {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().display().to_string();
        let args = ["run", "features/agents/navigation.feature", "--agent", agent, "--name", "go back"];
        kill_9_when(
            &[&args[..], &["--browser", browser, "--report-dir", &report]].concat(),
            &format!("{agent}'s MCP server and its browser to run"),
            // The server itself, not the start script whose command line names it too.
            |lines| {
                lines.iter().any(|l| l.contains(server) && !l.contains("start.mjs"))
                    && lines.iter().any(|l| l.contains(browser_process))
            },
        );
    }
}

/// kill -9 of navguard in the middle of a compare, while its second agent runs: nothing it
/// started is left, and its report holds the agent that finished, saying what had not run.
#[test]
fn kill_9_of_a_compare_leaves_nothing_and_its_report_as_far_as_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().display().to_string();
    let markdown = dir.path().join("compare.md");
    let args = ["compare", "features/agents/navigation.feature", "--agents", "navguard,playwright-mcp"];
    // The report is first written when the first agent's run ends; the second agent then starts.
    kill_9_when(
        &[&args[..], &["--name", "go back", "--report-dir", &report]].concat(),
        "the first agent's report, then the second agent's MCP server and browser",
        |lines| {
            markdown.exists()
                && lines.iter().any(|l| l.contains("@playwright/mcp"))
                && lines.iter().any(|l| l.contains("--user-data-dir"))
        },
    );
    let text = std::fs::read_to_string(&markdown).unwrap();
    let row =
        text.lines().find(|l| l.starts_with("| navguard |")).unwrap_or_else(|| panic!("no navguard row:\n{text}"));
    // Its one scenario passed: the row reads `| navguard | <version> | <about> | 1 | 0 | …`.
    assert!(row.contains("| 1 | 0 | 0 | 0 | 0 |"), "{row}");
    assert!(text.contains("Not finished: playwright-mcp had not run"), "{text}");
    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(page.contains("Not finished: playwright-mcp had not run") && page.ends_with("</html>"), "{page}");
}

/// The processes whose environment marks them as started, through an agent, by navguard `pid`
/// (the mark is `NAVGUARD_AGENT_PROCESS=<navguard's pid>-…`), with their session ids.
fn marked_by(pid: u32) -> Vec<(u32, u32)> {
    let mark = format!("NAVGUARD_AGENT_PROCESS={pid}-");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|p| p.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| alive(*p))
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|entry| entry.starts_with(mark.as_bytes())))
        })
        .filter_map(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            // After the command's closing parenthesis: state, ppid, pgrp, session.
            let session = stat.rsplit_once(')')?.1.split_whitespace().nth(3)?.parse().ok()?;
            Some((p, session))
        })
        .collect()
}

/// agent-browser's browser daemon and Playwright CLI's session daemon leave the agent's process
/// group and session: kill -9 of navguard must end them all the same (they carry the agent's
/// mark), not leave them to an idle timeout or, attached, to run forever.
#[test]
fn kill_9_of_navguard_leaves_no_agent_daemon() {
    // agent-browser's MCP server and Playwright CLI's commands each start a session daemon.
    for agent in ["agent-browser", "playwright-cli"] {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().display().to_string();
        let mut child = navguard(&[
            "run",
            "features/agents/navigation.feature",
            "--agent",
            agent,
            "--name",
            "slow page",
            "--report-dir",
            &report,
        ])
        .stdout(Stdio::null())
        .spawn()
        .expect("navguard starts");
        let pid = child.id();
        let mut daemons = Vec::new();
        // The daemon leads a session of its own; the agent's other processes are in navguard's.
        wait_until(&format!("{agent}'s daemon, in a session of its own, to run"), START_DEADLINE, || {
            daemons = marked_by(pid).into_iter().filter(|(p, session)| p == session).map(|(p, _)| p).collect();
            !daemons.is_empty()
        });
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        wait_until(&format!("every process {agent} started to be gone"), CLEANUP_DEADLINE, || {
            marked_by(pid).is_empty()
        });
        assert!(daemons.iter().all(|p| !alive(*p)), "{agent}");
    }
}

/// SIGTERM to navguard's whole process group, as Ctrl-C, a closed terminal or a test runner
/// ending a test send it: the guardian shares the group, ignores the signal, and still ends the
/// driver and the browser once navguard is gone.
#[test]
fn sigterm_to_navguard_s_process_group_leaves_no_driver_and_no_browser() {
    use std::os::unix::process::CommandExt as _;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().display().to_string();
    let mut child =
        navguard(&["run", "features/agents/navigation.feature", "--name", "go back", "--report-dir", &report])
            .stdout(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("navguard starts");
    let pid = child.id();
    let mut started = Vec::new();
    wait_until("the driver and its browser to run", START_DEADLINE, || {
        started = descendants(pid);
        let lines: Vec<String> = started.iter().map(|p| command_line(*p)).collect();
        lines.iter().any(|l| l.contains("chromedriver")) && lines.iter().any(|l| l.contains("--user-data-dir"))
    });
    let group = format!("-{pid}");
    let sent = Command::new("kill").args(["-s", "TERM", "--", &group]).status().expect("kill runs");
    assert!(sent.success(), "kill -s TERM -- {group} failed");
    child.wait().expect("reaped");
    wait_until("every process navguard started to be gone", CLEANUP_DEADLINE, || started.iter().all(|p| !alive(*p)));
}

/// What the page downloads, and whatever else a browser writes beside its profile (crash
/// reports' settings, caches), stays in the run's own folders: the user's home is not touched,
/// on either browser.
#[test]
fn a_download_leaves_nothing_in_the_user_s_home() {
    let home = tempfile::tempdir().unwrap();
    let temporary = tempfile::tempdir().unwrap();
    for browser in ["chromium", "firefox"] {
        let report = tempfile::tempdir().unwrap();
        let child = navguard(&[
            "run",
            "features/agents/downloads.feature",
            "--browser",
            browser,
            "--report-dir",
            &report.path().display().to_string(),
        ])
        .env("HOME", home.path())
        .env("TMPDIR", temporary.path())
        .stdout(Stdio::piped())
        .spawn()
        .expect("navguard starts");
        let (status, stdout) = finish(child, START_DEADLINE);
        assert!(status.success(), "{browser}: {status}\n{stdout}");
        assert!(stdout.contains("2 passed, 0 failed"), "{browser}: {stdout}");
        let written: Vec<_> = walkdir(home.path());
        assert!(written.is_empty(), "{browser} wrote in the home folder: {written:?}");
    }
}

/// Every path below `dir`.
fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walkdir(&path));
        }
        found.push(path);
    }
    found
}

/// Each built-in agent under test (and the example JSON-lines adapter) runs one scenario it
/// passes on this machine, for real, and leaves nothing behind: not its server, not
/// agent-browser's or Playwright CLI's daemon (a session of its own, which the process group
/// does not reach), not Vibium's chromedriver, not agent-infra's relay. navguard's core
/// through `navguard mcp` runs on both browsers.
#[test]
fn each_agent_runs_a_representative_scenario_and_leaves_no_process() {
    let go_back = ("features/agents/navigation.feature", "^go back answers");
    let cases = [
        ("navguard-mcp", "chromium", go_back),
        ("navguard-mcp", "firefox", go_back),
        ("playwright-mcp", "chromium", go_back),
        ("playwright-cli", "chromium", go_back),
        ("chrome-devtools-mcp", "chromium", go_back),
        ("agents/jsonl-example/agent.toml", "chromium", go_back),
        ("browser-use", "chromium", go_back),
        ("agent-browser", "chromium", ("features/agents/navigation.feature", "^navigate to a slow page")),
        ("agent-infra", "chromium", go_back),
        ("firefox-devtools-mcp", "firefox", go_back),
        ("puppeteer-mcp", "chromium", ("features/agents/navigation.feature", "^navigate to a slow page")),
        ("executeautomation", "chromium", go_back),
        ("vibium", "chromium", ("features/agents/hazards.feature", "^A meta refresh")),
        ("stagehand", "chromium", go_back),
    ];
    for (agent, browser, (feature, name)) in cases {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().display().to_string();
        let child = navguard(&["run", feature, "--agent", agent, "--name", name, "--report-dir", &report])
            .env("NAVGUARD_BROWSER", browser)
            .stdout(Stdio::piped())
            .spawn()
            .expect("navguard starts");
        let pid = child.id();
        let (status, out) = finish(child, START_DEADLINE * 3);
        assert!(status.success() && out.contains("features: 1 passed"), "{agent} on {browser}: {status}:\n{out}");
        // Every process the agent started carries navguard's mark, whatever group or session
        // it moved to: none may be left.
        wait_until(&format!("{agent}'s processes to be gone"), CLEANUP_DEADLINE, || marked_by(pid).is_empty());
    }
}
