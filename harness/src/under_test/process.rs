//! An agent's process: started in a process group of its own (so whatever it starts, a browser
//! included, goes with it), its stderr kept for error messages, and a guard that kills the
//! group when the agent is closed, when the scenario's world is dropped, and, through
//! navguard's guardian, when navguard itself dies (SIGKILL included).

use super::description::Description;
use super::{AgentError, BrowserAt};
use navguard::adapter::GroupGuard;
use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How many of the agent's last stderr lines an error quotes.
const STDERR_LINES: usize = 12;

/// The environment variable that marks an agent's process and all it starts: a daemon that
/// leaves the agent's process group and session (agent-browser's browser daemon does) still
/// carries it, and is found and ended by it with the agent.
const MARK_VARIABLE: &str = "NAVGUARD_AGENT_PROCESS";

/// A mark no other agent process of this machine carries: this navguard's pid, a count, and
/// the time.
fn process_mark() -> String {
    static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{}-{n}-{nanos}", std::process::id())
}

/// A running agent process.
#[derive(Debug)]
pub struct AgentProcess {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    stderr: Arc<Mutex<Vec<String>>>,
    group: Option<GroupGuard>,
    /// The command it was started with, for error messages.
    pub command: String,
    /// The folder of its own files (`{scratch}`), removed with it.
    _scratch: Option<tempfile::TempDir>,
}

impl AgentProcess {
    /// Starts the agent `description` describes, with a scratch folder of its own and its
    /// command line filled in (`{chromium}`, `{cdp_endpoint}`, `{bidi_session}`, `{scratch}`, …).
    pub fn start(description: &Description, chromium: &str, at: BrowserAt<'_>) -> Result<Self, AgentError> {
        description.check_installed()?;
        let scratch = tempfile::tempdir().map_err(|source| AgentError::Spawn {
            agent: description.name.clone(),
            command: "a scratch folder".into(),
            hint: "check that the temporary folder is writable".into(),
            source,
        })?;
        for (path, text) in description.files(chromium, at, scratch.path()) {
            let written =
                path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, text));
            written.map_err(|source| AgentError::Spawn {
                agent: description.name.clone(),
                command: format!("writing {}", path.display()),
                hint: "check that the temporary folder is writable".into(),
                source,
            })?;
        }
        let (command, args) = description.command_line(chromium, at, scratch.path());
        let env = description.env(chromium, at, scratch.path());
        let process = Self::spawn(&description.name, &command, &args, &env)?;
        Ok(Self { _scratch: Some(scratch), ..process })
    }

    /// Starts `command args` with `env` added, for agent `agent`.
    pub fn spawn(
        agent: &str,
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
    ) -> Result<Self, AgentError> {
        let mark = process_mark();
        let mut child = Command::new(command)
            .args(args)
            .envs(env)
            .env(MARK_VARIABLE, &mark)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| AgentError::Spawn {
                agent: agent.to_owned(),
                command: command.to_owned(),
                hint: hint(&source),
                source,
            })?;
        let group = child.id().map(|group| GroupGuard::with_mark(group, format!("{MARK_VARIABLE}={mark}")));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(pipe) = child.stderr.take() {
            tokio::spawn(keep_tail(pipe, Arc::clone(&stderr)));
        }
        Ok(Self {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            stderr,
            group,
            command: command.to_owned(),
            _scratch: None,
        })
    }

    /// The agent's last stderr lines, as `: <lines>` for an error message (empty if none).
    pub fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if lines.is_empty() {
            return String::new();
        }
        format!("; its stderr ends: {}", lines.join(" | "))
    }

    /// Ends it: closes its stdin (a polite agent exits), then kills its whole group.
    pub async fn end(mut self) {
        drop(self.stdin.take());
        let grace = tokio::time::timeout(std::time::Duration::from_secs(2), self.child.wait()).await;
        if grace.is_err() {
            let _ = self.child.start_kill();
        }
        // Dropping the guard kills the group and every marked process, once (a `kill()` here
        // and the drop after it would scan every process twice).
        drop(self.group.take());
        let _ = self.child.wait().await;
    }
}

fn hint(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => {
            "it is not installed (the built-in agents: `bash ci/setup.sh agents` in navguard's repository) or the description's [start] command is wrong"
                .into()
        }
        std::io::ErrorKind::PermissionDenied => "it is not executable".into(),
        _ => "check the description's [start] command".into(),
    }
}

/// Keeps the last lines the agent wrote to stderr, draining the pipe so it never fills.
async fn keep_tail(pipe: tokio::process::ChildStderr, into: Arc<Mutex<Vec<String>>>) {
    let mut lines = BufReader::new(pipe).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(target: "navguard::agent", "{line}");
        let mut kept = into.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.push(line.chars().take(300).collect());
        if kept.len() > STDERR_LINES {
            kept.remove(0);
        }
    }
}
