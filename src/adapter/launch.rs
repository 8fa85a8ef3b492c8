//! Finding and starting a WebDriver server (chromedriver, geckodriver) on a free loopback port.

use super::error::{DriverStartError, LaunchError};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};

/// Finds an executable: the environment variable `env` if set, else the first of `names` on PATH.
pub fn find_binary(env: &str, names: &[&'static str], install_hint: String) -> Result<PathBuf, LaunchError> {
    if let Some(path) = std::env::var_os(env).map(PathBuf::from) {
        if is_executable(&path) {
            return Ok(path);
        }
        let hint = format!("{env} names {}, which is not an executable file", path.display());
        return Err(LaunchError::MissingBinary { name: names[0], hint });
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in names {
        if let Some(found) = std::env::split_paths(&path).map(|d| d.join(name)).find(|p| is_executable(p)) {
            return Ok(found);
        }
    }
    Err(LaunchError::MissingBinary { name: names[0], hint: install_hint })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A running WebDriver server; killed when dropped, and by its guardian when this process dies
/// any other way.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    url: String,
    guardian: Option<std::process::Child>,
}

/// The guardian's script: it blocks reading a pipe whose other end only this process holds; the
/// kernel closes that end when this process dies, however it dies (SIGKILL included), and the
/// guardian then kills the driver's process group (`$0`): the driver and its browser. A
/// parent-death signal (`prctl`) would need unsafe code and follows the spawning thread, not the
/// process; a pipe follows the process. (`kill -s KILL --`: the form dash, Debian's sh, takes.)
const GUARDIAN: &str = "while read -r _; do :; done; kill -s KILL -- \"-$0\" 2>/dev/null";

/// Starts the guardian of process group `group`; `None` (and a warning) if `sh` cannot start.
fn guard_group(group: u32) -> Option<std::process::Child> {
    let started = std::process::Command::new("sh")
        .args(["-c", GUARDIAN, &group.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match started {
        Ok(child) => Some(child),
        Err(e) => {
            tracing::warn!("no guardian for the browser (sh: {e}): it may outlive a killed navguard");
            None
        }
    }
}

impl Driver {
    /// Starts `binary --port=N [args]` on a free port and waits (up to `deadline`) for it to
    /// print `ready_line`.
    pub async fn start(
        binary: &Path,
        args: &[&str],
        ready_line: &'static str,
        deadline: Duration,
    ) -> Result<Self, LaunchError> {
        let port = free_port().map_err(|e| start_error(binary, DriverStartError::Io(e)))?;
        // Its own process group, so the browser it starts can be killed with it.
        let mut child = Command::new(binary)
            .arg(format!("--port={port}"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| start_error(binary, DriverStartError::Io(e)))?;
        let guardian = child.id().and_then(guard_group);
        let stdout = child.stdout.take().ok_or_else(|| start_error(binary, DriverStartError::NoStdout))?;
        tokio::time::timeout(deadline, wait_until_listening(stdout, ready_line))
            .await
            .map_err(|_| start_error(binary, DriverStartError::NotListening(deadline)))?
            .map_err(|e| start_error(binary, e))?;
        Ok(Self { child, url: format!("http://127.0.0.1:{port}"), guardian })
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops the server and everything it started.
    pub async fn stop(mut self) {
        self.kill_group();
        let _ = self.child.kill().await;
    }

    /// Kills the driver's process group: the driver and the browser it launched. Without it a
    /// harness that dies (a panic, a signal) leaves the browser running, busy, forever.
    fn kill_group(&self) {
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stderr(Stdio::null())
                .status();
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.kill_group();
        // Its work is done; reaped here so it leaves no zombie behind.
        if let Some(mut guardian) = self.guardian.take() {
            let _ = guardian.kill();
            let _ = guardian.wait();
        }
    }
}

fn start_error(binary: &Path, source: DriverStartError) -> LaunchError {
    LaunchError::DriverStart { name: binary.display().to_string(), source }
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Reads the driver's output until it says it started; keeps draining it afterwards so the
/// pipe never fills.
async fn wait_until_listening(stdout: ChildStdout, ready_line: &str) -> Result<(), DriverStartError> {
    let mut lines = BufReader::new(stdout).lines();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) if line.contains(ready_line) => break,
            Ok(Some(line)) => tracing::debug!(target: "navguard::driver", "{line}"),
            Ok(None) => return Err(DriverStartError::Exited),
            Err(e) => return Err(DriverStartError::Io(e)),
        }
    }
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::debug!(target: "navguard::driver", "{line}");
        }
    });
    Ok(())
}
