//! What the tests of `navguard serve` and `navguard executor` share: the real binary started on
//! loopback, and a real HTTP client (ureq) that speaks the wire contract.
#![allow(dead_code)] // each test binary uses its own part

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub(crate) const SECRET: &str = "a-secret-of-32-characters-length";
pub(crate) const DEADLINE: Duration = Duration::from_secs(15);

/// A running `navguard serve`.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) base: String,
    /// The console's token URL, the second line it prints.
    pub(crate) console: String,
}

impl Server {
    pub(crate) fn start(dir: &Path) -> Self {
        Self::start_at(dir, "127.0.0.1:0")
    }

    /// On `addr` (a restart takes the port it had).
    pub(crate) fn start_at(dir: &Path, addr: &str) -> Self {
        Self::start_with(dir, addr, &[], &[])
    }

    /// With more arguments and environment variables (a model to plan with).
    pub(crate) fn start_with(dir: &Path, addr: &str, args: &[&str], envs: &[(&str, &str)]) -> Self {
        Self::start_logging(dir, addr, args, envs, Stdio::inherit())
    }

    /// As [`Server::start_with`], its stderr sent to `stderr` (a file the test reads).
    pub(crate) fn start_logging(dir: &Path, addr: &str, args: &[&str], envs: &[(&str, &str)], stderr: Stdio) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_navguard"))
            .args(["serve", "--data-dir", &dir.display().to_string(), "--addr", addr])
            .args(args)
            .envs(envs.iter().copied())
            .env("NAVGUARD_SECRET", SECRET)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("navguard serve starts");
        let lines = first_lines(&mut child, 2, DEADLINE);
        let base = lines[0]
            .trim()
            .strip_prefix("navguard serve: listening on ")
            .unwrap_or_else(|| panic!("the contract's first line, got {lines:?}"))
            .to_owned();
        assert!(base.starts_with("http://127.0.0.1:"), "{base}");
        let console = lines[1]
            .trim()
            .strip_prefix("navguard serve: console at ")
            .unwrap_or_else(|| panic!("the console's line, got {lines:?}"))
            .to_owned();
        assert!(console.starts_with(&format!("{base}/console?token=")), "{console}");
        Self { child, base, console }
    }

    /// kill -9, and wait for it to be gone.
    pub(crate) fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first line a child prints on its stdout (its piped stdout is taken), within `deadline`.
pub(crate) fn first_line(child: &mut Child, deadline: Duration) -> String {
    first_lines(child, 1, deadline).remove(0)
}

/// The first `n` lines a child prints on its stdout (its piped stdout is taken), within
/// `deadline`; what it prints after them is read and dropped, so it never meets a closed pipe.
pub(crate) fn first_lines(child: &mut Child, n: usize, deadline: Duration) -> Vec<String> {
    let stdout = child.stdout.take().expect("its stdout, piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut lines = Vec::new();
        for _ in 0..n {
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            lines.push(line);
        }
        let _ = tx.send(lines);
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    rx.recv_timeout(deadline).expect("the first lines within the deadline")
}

pub(crate) fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().timeout_global(Some(DEADLINE)).http_status_as_error(false).build().into()
}

/// (status, body as JSON, or as a string when it is not JSON).
pub(crate) fn post(server: &Server, path: &str, body: &Value) -> (u16, Value) {
    post_raw(server, path, &body.to_string(), Some(SECRET))
}

pub(crate) fn post_raw(server: &Server, path: &str, body: &str, secret: Option<&str>) -> (u16, Value) {
    let mut request = agent().post(format!("{}{path}", server.base)).header("Content-Type", "application/json");
    if let Some(secret) = secret {
        request = request.header("Authorization", format!("Bearer {secret}"));
    }
    let mut response = request.send(body).expect("an answer");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().expect("a body");
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

pub(crate) fn get(server: &Server, path: &str) -> (u16, String) {
    let mut response = agent()
        .get(format!("{}{path}", server.base))
        .header("Authorization", format!("Bearer {SECRET}"))
        .call()
        .expect("an answer");
    (response.status().as_u16(), response.body_mut().read_to_string().expect("a body"))
}

pub(crate) fn status(server: &Server, task: &str) -> Value {
    let (code, body) = get(server, &format!("/api/agent/status?taskId={task}"));
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}
