//! An agent's process: started in a process group of its own (so whatever it starts, a browser
//! included, goes with it), its stderr kept for error messages, and a guard that kills the
//! group when the agent is closed, when the scenario's world is dropped, and, through
//! navguard's guardian, when navguard itself dies (SIGKILL included).

use super::description::Description;
use super::{AgentError, BrowserAt};
use navguard::__private::GroupGuard;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How many of the agent's last stderr lines an error quotes.
const STDERR_LINES: usize = 12;
/// How much of a stderr line an error quotes.
const STDERR_LINE_CHARS: usize = 300;
/// How much of what the agent wrote to stderr is kept, its end (a scenario's artifacts hold
/// it): an agent may write without end, or a line without end.
const STDERR_KEPT: usize = 64 << 10;
/// How much of its stderr is read at a time.
const STDERR_CHUNK: usize = 8 << 10;

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
    stderr: Arc<Mutex<StderrTail>>,
    /// The task draining its stderr: it ends when the pipe closes.
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
    group: Option<GroupGuard>,
    /// The command it was started with, for error messages.
    pub command: String,
    /// The value of [`MARK_VARIABLE`] it and all it starts carry.
    mark: String,
    /// The folder of its own files (`{scratch}`), removed with it.
    scratch_dir: Option<tempfile::TempDir>,
}

impl AgentProcess {
    /// Starts the agent `description` describes, with a scratch folder of its own and its
    /// command line filled in (`{chromium}`, `{cdp_endpoint}`, `{bidi_session}`, `{scratch}`, …).
    pub fn start(description: &Description, chromium: &str, at: BrowserAt<'_>) -> Result<Self, AgentError> {
        let scratch = Self::scratch_for(description, chromium, at)?;
        let (command, args) = description.command_line(chromium, at, scratch.path());
        let env = description.env(chromium, at, scratch.path());
        let cwd = description.cwd(chromium, at, scratch.path());
        let process = Self::spawn(&description.name, &command, &args, &env, cwd.as_deref())?;
        Ok(Self { scratch_dir: Some(scratch), ..process })
    }

    /// The anchor of an agent whose every call is a process of its own (a `cli` agent): a
    /// process that only waits for its stdin to close, holding the scratch folder, the mark and
    /// the guard that every call's process and every daemon they start share, so that ending
    /// it (or navguard's death) ends them all.
    pub fn anchor(description: &Description, chromium: &str, at: BrowserAt<'_>) -> Result<Self, AgentError> {
        let scratch = Self::scratch_for(description, chromium, at)?;
        let words = ["-c".to_owned(), "read -r _".to_owned()];
        let process = Self::spawn(&description.name, "sh", &words, &BTreeMap::new(), Some(scratch.path()))?;
        Ok(Self { scratch_dir: Some(scratch), ..process })
    }

    /// Its scratch folder (`{scratch}`), when it has one.
    pub fn scratch(&self) -> Option<&Path> {
        self.scratch_dir.as_ref().map(tempfile::TempDir::path)
    }

    /// The environment entry every process of this agent carries (`NAME`, `value`).
    pub fn mark(&self) -> (&'static str, &str) {
        (MARK_VARIABLE, &self.mark)
    }

    /// The agent's scratch folder, checked to be installed and with its `[start] files` written.
    fn scratch_for(
        description: &Description,
        chromium: &str,
        at: BrowserAt<'_>,
    ) -> Result<tempfile::TempDir, AgentError> {
        description.check_installed()?;
        let scratch = navguard::__private::scratch_dir("a-").map_err(|source| AgentError::Spawn {
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
        Ok(scratch)
    }

    /// Starts `command args` with `env` added, for agent `agent`, in folder `cwd` (else
    /// navguard's own).
    pub fn spawn(
        agent: &str,
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&Path>,
    ) -> Result<Self, AgentError> {
        let mark = process_mark();
        let mut command_line = Command::new(command);
        if let Some(cwd) = cwd {
            command_line.current_dir(cwd);
        }
        let mut child = command_line
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
        let stderr = Arc::new(Mutex::new(StderrTail::default()));
        let stderr_reader = child.stderr.take().map(|pipe| tokio::spawn(keep_tail(pipe, Arc::clone(&stderr))));
        Ok(Self {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            stderr,
            stderr_reader,
            group,
            command: command.to_owned(),
            mark,
            scratch_dir: None,
        })
    }

    /// The agent's last stderr lines, as `; its stderr ends: <lines>` for an error message
    /// (empty if none).
    pub fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().unwrap_or_else(std::sync::PoisonError::into_inner).last_lines();
        if lines.is_empty() {
            return String::new();
        }
        format!("; its stderr ends: {}", lines.join(" | "))
    }

    /// Waits, at most `within`, until its stderr has been read to its end (once it exited, its
    /// last words are then in [`Self::stderr_tail`]; a child of its that holds the pipe open
    /// only makes this wait its bound).
    pub async fn stderr_read(&mut self, within: std::time::Duration) {
        if let Some(reader) = self.stderr_reader.as_mut()
            && tokio::time::timeout(within, reader).await.is_ok()
        {
            self.stderr_reader = None;
        }
    }

    /// What the agent writes to stderr, kept as it comes, readable after the agent ended.
    pub fn stderr_kept(&self) -> StderrKept {
        StderrKept(Arc::clone(&self.stderr))
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
        // With the group gone, the pipe closes: its last words are read.
        self.stderr_read(std::time::Duration::from_secs(1)).await;
    }
}

/// The end of what an agent wrote to stderr, as it is kept while the agent runs and after.
#[derive(Clone, Debug)]
pub struct StderrKept(Arc<Mutex<StderrTail>>);

impl StderrKept {
    /// Its last [`STDERR_KEPT`] bytes at most, with a first line saying how much came before
    /// them; `None` if it wrote nothing.
    pub fn text(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).text()
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

/// The end of what an agent wrote to stderr, bounded whatever it writes.
#[derive(Debug, Default)]
struct StderrTail {
    kept: std::collections::VecDeque<u8>,
    /// Bytes written before those kept.
    dropped: u64,
}

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        self.kept.extend(bytes);
        let over = self.kept.len().saturating_sub(STDERR_KEPT);
        self.kept.drain(..over);
        self.dropped += over as u64;
    }

    /// The bytes kept, as text.
    fn kept_text(&self) -> String {
        let (front, back) = self.kept.as_slices();
        String::from_utf8_lossy(&[front, back].concat()).into_owned()
    }

    fn text(&self) -> Option<String> {
        if self.kept.is_empty() {
            return None;
        }
        let text = self.kept_text();
        Some(match self.dropped {
            0 => text,
            n => format!("[{n} bytes before these left out]\n{text}"),
        })
    }

    /// Its last lines that are not blank, each cut to [`STDERR_LINE_CHARS`].
    fn last_lines(&self) -> Vec<String> {
        let text = self.kept_text();
        let mut lines: Vec<String> = text
            .lines()
            .rev()
            .filter(|l| !l.trim().is_empty())
            .take(STDERR_LINES)
            .map(|l| l.chars().take(STDERR_LINE_CHARS).collect())
            .collect();
        lines.reverse();
        lines
    }
}

/// Keeps the end of what the agent writes to stderr, draining the pipe so it never fills.
async fn keep_tail(mut pipe: tokio::process::ChildStderr, into: Arc<Mutex<StderrTail>>) {
    use tokio::io::AsyncReadExt as _;
    let mut chunk = vec![0; STDERR_CHUNK];
    while let Ok(n @ 1..) = pipe.read(&mut chunk).await {
        let bytes = &chunk[..n];
        tracing::debug!(target: "navguard::agent", "{}", String::from_utf8_lossy(bytes).trim_end());
        into.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_keeps_its_end_bounded_and_says_how_much_came_before() {
        let mut tail = StderrTail::default();
        assert_eq!(tail.text(), None);
        assert!(tail.last_lines().is_empty());
        for n in 0..20_000 {
            tail.push(format!("line {n}\n").as_bytes());
        }
        // One line without end, far longer than what is kept.
        tail.push(&vec![b'x'; 3 * STDERR_KEPT]);
        let text = tail.text().unwrap();
        assert!(text.starts_with('['), "{}", &text[..80]);
        assert!(text.len() <= STDERR_KEPT + 64);
        let lines = tail.last_lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].len(), STDERR_LINE_CHARS);
        tail.push(b"\nlast words\n");
        assert_eq!(tail.last_lines().last().map(String::as_str), Some("last words"));
    }
}
