//! The Playwright peer (`bench/peer/peer.mjs` under Node), and the DevTools endpoint of
//! navguard's own Chromium that it taps.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The DevTools WebSocket of the Chromium that ChromeDriver (process `driver`) started: its
/// `--user-data-dir`, read from /proc, holds `DevToolsActivePort` (port, then path).
pub(crate) fn devtools_endpoint(driver: u32) -> Option<String> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let parent = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if parent != Some(driver) {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let profile = cmdline
            .split(|b| *b == 0)
            .find_map(|arg| std::str::from_utf8(arg).ok()?.strip_prefix("--user-data-dir="))?
            .to_owned();
        let active = std::fs::read_to_string(Path::new(&profile).join("DevToolsActivePort")).ok()?;
        let mut lines = active.lines();
        let (port, path) = (lines.next()?, lines.next()?);
        return Some(format!("ws://127.0.0.1:{port}{path}"));
    }
    None
}

/// The Playwright peer: `node bench/peer/peer.mjs`, one JSON object a line each way.
pub(crate) struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    pub(crate) version: String,
}

impl Peer {
    pub(crate) async fn start(dir: &Path, chromium: &str) -> Self {
        if !dir.join("node_modules").exists() {
            let status = std::process::Command::new("npm")
                .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
                .current_dir(dir)
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
                .status()
                .expect("npm (install Node 20 and npm)");
            assert!(status.success(), "npm ci in {} failed", dir.display());
        }
        let mut child = Command::new("node")
            .args(["--experimental-websocket", "--no-warnings", "peer.mjs"])
            .arg(chromium)
            .current_dir(dir)
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node (install Node 20)");
        let stdin = child.stdin.take().expect("piped stdin");
        let lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let mut peer = Self { child, stdin, lines, version: String::new() };
        let ready = peer.recv().await;
        peer.version = ready["version"].as_str().unwrap_or("?").to_owned();
        peer
    }

    pub(crate) async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("writing to the peer");
        self.stdin.flush().await.expect("writing to the peer");
    }

    pub(crate) async fn recv(&mut self) -> Value {
        let line = self.lines.next_line().await.expect("reading the peer").expect("the peer quit");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("the peer said {line:?}: {e}"))
    }

    pub(crate) async fn quit(mut self) {
        self.send(json!({ "op": "quit" })).await;
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}
