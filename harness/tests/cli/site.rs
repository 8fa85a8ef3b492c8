//! `navguard site` (and its old name `serve-fixtures`): the fixture site served alone. It prints
//! both origins and the routes, serves a page, and stops cleanly on SIGTERM; a bad port is one
//! line and exit 2. Every wait reads a line, an answer or an exit, with a deadline.

use rustix::process::{Pid, Signal, kill_process};
use std::io::{BufRead, BufReader, Read as _};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(20);

fn serves_until_sigterm(name: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_navguard"))
        .arg(name)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = Pid::from_child(&child);
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + DEADLINE;
    let mut banner = Vec::new();
    while !banner.last().is_some_and(|l: &String| l.starts_with("try ")) {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => banner.push(line),
            Err(e) => {
                let _ = child.kill();
                panic!("navguard {name}: no banner in time ({e}); got {banner:?}");
            }
        }
    }
    let site = banner[0].strip_prefix("site:  ").unwrap_or_else(|| panic!("first line: {banner:?}")).to_owned();
    assert!(banner[1].starts_with("other: http://127.0.0.1:"), "{banner:?}");
    assert!(banner.iter().any(|l| l.trim() == "/popup?to=URL&after=MS"), "the routes are listed: {banner:?}");
    let page = ureq::get(&format!("{site}/page?title=Hello")).call().unwrap().into_body().read_to_string().unwrap();
    assert!(page.contains("<title>Hello</title>"), "{page}");
    kill_process(pid, Signal::TERM).unwrap();
    let (tx, exit) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    match exit.recv_timeout(DEADLINE) {
        Ok(status) => assert!(status.unwrap().success(), "a SIGTERM stops the site cleanly"),
        Err(_) => {
            let _ = kill_process(pid, Signal::KILL);
            panic!("navguard {name} did not stop on SIGTERM");
        }
    }
}

#[test]
fn site_prints_its_origins_and_routes_serves_and_stops_on_sigterm() {
    serves_until_sigterm("site");
}

#[test]
fn serve_fixtures_is_the_same_command_by_its_old_name() {
    serves_until_sigterm("serve-fixtures");
}

#[test]
fn site_refuses_a_bad_port_in_one_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_navguard"))
        .args(["site", "--port", "99999"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--port"), "{stderr}");
}
