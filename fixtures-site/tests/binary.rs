//! `navguard-site`, the real binary: it prints its URLs and routes, serves them, refuses a bad
//! flag in one line, and stops cleanly on SIGTERM, releasing what it held. Every wait reads a
//! line or an exit with a deadline; nothing sleeps.
#![cfg(unix)]

use rustix::process::{Pid, Signal, kill_process};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Long enough for a loaded machine, short enough that a hang fails the test.
const DEADLINE: Duration = Duration::from_secs(20);

fn site_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_navguard-site"));
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// A running `navguard-site`: its stdout line by line, and its exit once it comes.
struct Site {
    pid: Pid,
    lines: Receiver<String>,
    exit: Receiver<std::io::Result<ExitStatus>>,
}

impl Site {
    fn spawn(args: &[&str]) -> Self {
        let mut child: Child = site_command(args).spawn().unwrap();
        let pid = Pid::from_child(&child);
        let stdout = child.stdout.take().unwrap();
        let (line_tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if line_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (exit_tx, exit) = channel();
        std::thread::spawn(move || {
            let _ = exit_tx.send(child.wait());
        });
        Self { pid, lines, exit }
    }

    /// The next line of stdout; fails the test at `deadline` or if stdout ended.
    fn line(&self, deadline: Instant) -> String {
        match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => self.fail("no line on stdout in time"),
            Err(RecvTimeoutError::Disconnected) => self.fail("stdout ended early"),
        }
    }

    /// Reads the banner: (site URL, other URL, the routes listed).
    fn banner(&self) -> (String, String, Vec<String>) {
        let deadline = Instant::now() + DEADLINE;
        let field = |label: &str| {
            let line = self.line(deadline);
            line.strip_prefix(label)
                .unwrap_or_else(|| self.fail(&format!("expected {label:?}, got {line:?}")))
                .to_owned()
        };
        let (site, other) = (field("site:  "), field("other: "));
        let heading = self.line(deadline);
        assert!(heading.starts_with("routes"), "{heading}");
        let mut routes = Vec::new();
        loop {
            let line = self.line(deadline);
            match line.strip_prefix("  ") {
                Some(route) => routes.push(route.to_owned()),
                None => {
                    assert!(line.contains("SIGTERM stops"), "{line}");
                    return (site, other, routes);
                }
            }
        }
    }

    fn signal(&self, signal: Signal) {
        kill_process(self.pid, signal).unwrap();
    }

    /// Its exit status, once it has exited; fails the test (and kills it) at the deadline.
    fn exit(&self) -> ExitStatus {
        match self.exit.recv_timeout(DEADLINE) {
            Ok(status) => status.unwrap(),
            Err(_) => self.fail("it did not exit in time"),
        }
    }

    fn fail(&self, why: &str) -> ! {
        let _ = kill_process(self.pid, Signal::KILL);
        panic!("navguard-site: {why}");
    }
}

/// Runs the binary to its end, which must come within the deadline.
fn run_to_end(args: &[&str]) -> Output {
    let child = site_command(args).spawn().unwrap();
    let pid = Pid::from_child(&child);
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = kill_process(pid, Signal::KILL);
            panic!("navguard-site {args:?} did not end in time");
        }
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(DEADLINE)).proxy(None).build().into()
}

#[test]
fn it_prints_its_urls_serves_them_and_stops_cleanly_on_sigterm() {
    let site = Site::spawn(&[]);
    let (url, other, routes) = site.banner();
    for origin in [&url, &other] {
        assert!(origin.starts_with("http://127.0.0.1:"), "not on loopback: {origin}");
    }
    assert_ne!(url, other);
    assert_eq!(routes, navguard_fixtures::ROUTES);

    let mut page = agent().get(&format!("{url}/page?title=By%20hand")).call().unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.body_mut().read_to_string().unwrap().contains("<title>By hand</title>"));

    // An open event stream on the other origin: its opening comment says the site holds it.
    let events = agent().get(&format!("{other}/events")).call().unwrap();
    assert_eq!(events.status(), 200);
    let mut stream = events.into_body().into_reader();
    let mut opening = [0; 8];
    stream.read_exact(&mut opening).unwrap();
    assert_eq!(&opening, b": open\n\n");

    site.signal(Signal::TERM);
    let mut rest = String::new();
    stream.read_to_string(&mut rest).expect("the stream ends cleanly when the site stops");
    assert!(rest.split_terminator("\n\n").all(|event| event.starts_with("data: tick")), "{rest:?}");
    let status = site.exit();
    assert_eq!(status.code(), Some(0), "not a clean exit: {status}");
    assert!(site.lines.recv_timeout(DEADLINE).is_err(), "stdout went on after the banner");
}

#[test]
fn ctrl_c_stops_it_cleanly_too() {
    let site = Site::spawn(&[]);
    site.banner();
    site.signal(Signal::INT);
    let status = site.exit();
    assert_eq!(status.code(), Some(0), "not a clean exit: {status}");
}

#[test]
fn port_fixes_the_first_origins_port() {
    // A port that was free a moment ago; the site binds it again at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let site = Site::spawn(&["--port", &port.to_string()]);
    let (url, other, _) = site.banner();
    assert_eq!(url, format!("http://127.0.0.1:{port}"));
    assert_ne!(other, url);
    site.signal(Signal::TERM);
    assert_eq!(site.exit().code(), Some(0));
}

#[test]
fn a_bad_flag_or_a_taken_port_is_one_line_and_exit_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_port = taken.local_addr().unwrap().port().to_string();
    for (args, says) in [
        (vec!["--bogus"], "unknown argument `--bogus`".to_owned()),
        (vec!["--port"], "--port needs a value".to_owned()),
        (vec!["--port", "http"], "--port: expected a port number from 0 to 65535, got \"http\"".to_owned()),
        (vec!["--port", &taken_port], format!("cannot serve on 127.0.0.1:{taken_port}")),
    ] {
        let output = run_to_end(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: not one line: {stderr}");
        assert!(stderr.starts_with("navguard-site: ") && stderr.contains(&says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}: printed {:?}", String::from_utf8_lossy(&output.stdout));
    }
    drop(taken);
}

#[test]
fn help_prints_the_usage_and_exits_0() {
    let output = run_to_end(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("usage: navguard-site [--port N]"));
}
