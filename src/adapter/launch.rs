//! Finding and starting a WebDriver server (chromedriver, geckodriver) on a free loopback port.

use super::error::{DriverStartError, LaunchError};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};

/// Finds an executable: the environment variable `env` if set, else the first of `names` on PATH.
pub(super) fn find_binary(env: &str, names: &[&'static str], install_hint: String) -> Result<PathBuf, LaunchError> {
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
pub(super) struct Driver {
    child: Child,
    url: String,
    group: Option<GroupGuard>,
}

/// The start of every guardian's script: it blocks reading a pipe whose other end only this
/// process holds; the kernel closes that end when this process dies, however it dies (SIGKILL
/// included), and the script goes on with what the guardian is for.
/// A parent-death signal (`prctl`) would need unsafe code and follows the spawning thread, not
/// the process; a pipe follows the process.
/// It ignores SIGTERM, SIGINT and SIGHUP: they are sent to this process's whole group (Ctrl-C,
/// a closed terminal, a test runner ending a test), which the guardian shares, and a guardian
/// that died of them would leave the driver and its browser behind.
const UNTIL_THIS_PROCESS_ENDS: &str = "trap '' TERM INT HUP; while read -r _; do :; done; ";

/// The process group guardian's: it kills the process group `$0`, and, given a mark `$1`,
/// every process whose environment holds it (see [`GroupGuard::with_mark`]).
/// (`kill -s KILL --`: the form dash, Debian's sh, takes.)
const KILL_GROUP: &str = "kill -s KILL -- \"-$0\" 2>/dev/null; \
    [ -n \"$1\" ] && for e in /proc/[0-9]*/environ; do \
    if grep -qszF -- \"$1\" \"$e\"; then p=\"${e#/proc/}\"; kill -s KILL \"${p%/environ}\" 2>/dev/null; fi; done";

/// The temporary folder guardian's: it removes the folder `$0`. The browsers and agents the
/// folder served are being killed by their own guardians at the same moment, and a dying process
/// can still write into it: the removal is tried again, a few times a second apart, until the
/// folder is gone.
const REMOVE_FOLDER: &str =
    "for try in 1 2 3 4 5; do rm -rf -- \"$0\" 2>/dev/null; [ -e \"$0\" ] || exit 0; sleep 1; done";

/// Starts a guardian: `sh` running [`UNTIL_THIS_PROCESS_ENDS`], then `then`, with `args` as its
/// `$0`, `$1`…; its stdin is the pipe whose end tells it this process ended.
fn start_guardian(then: &str, args: &[&std::ffi::OsStr]) -> std::io::Result<std::process::Child> {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{UNTIL_THIS_PROCESS_ENDS}{then}"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
}

/// The names of the folder of a process's temporary files (below) and of the folders in it are
/// short: Chromium makes its singleton socket in its temporary folder
/// (`<folder>/org.chromium.Chromium.XXXXXX/SingletonSocket`, 45 characters below it), and a
/// socket's path has at most 107 bytes. With a run's `TMPDIR` of 34 characters (a test's
/// temporary folder inside CI's), a browser's folder named in full (`navguard-…/browser-…`)
/// took the socket's path to 110 and Chromium did not start; now it is `TMPDIR` and 64.
const ROOT_PREFIX: &str = "ng-";

/// The folder this process keeps its temporary files in: a driver's profile, an agent's
/// scratch, a scenario's files. Made once, in the system's temporary folder, and removed when
/// this process ends, however it ends (SIGKILL included), by a guardian ([`REMOVE_FOLDER`]): a
/// process killed with SIGKILL runs no destructor, and without it each killed run would leave
/// its folders behind. `None` where it cannot be made (a warning says
/// why): the folders then go to the system's temporary folder, as they would without it.
fn scratch_root() -> Option<&'static Path> {
    static ROOT: std::sync::OnceLock<Option<(PathBuf, std::process::Child)>> = std::sync::OnceLock::new();
    let made = ROOT.get_or_init(|| {
        let root = match tempfile::Builder::new().prefix(ROOT_PREFIX).tempdir() {
            Ok(dir) => dir.keep(),
            Err(e) => {
                tracing::warn!("no folder of navguard's own for temporary files ({e}): they go to the system's");
                return None;
            }
        };
        match start_guardian(REMOVE_FOLDER, &[root.as_os_str()]) {
            // The guardian and its pipe live as long as this process: kept in the static.
            Ok(guardian) => Some((root, guardian)),
            Err(e) => {
                tracing::warn!(
                    "no guardian for {} (sh: {e}): its files go to the system's temporary folder",
                    root.display()
                );
                let _ = std::fs::remove_dir(&root);
                None
            }
        }
    });
    made.as_ref().map(|(root, _)| root.as_path())
}

/// A new temporary folder named `prefix…`, removed when the returned guard is dropped, and
/// with all of this process's temporary folders when it dies (see [`scratch_root`]). A folder a
/// browser may take as its temporary folder gets a prefix of two characters (see [`ROOT_PREFIX`]).
pub fn scratch_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    match scratch_root() {
        Some(root) => builder.tempdir_in(root),
        None => builder.tempdir(),
    }
}

/// A child's process group (the child and everything it started), killed when this guard is
/// dropped, and by a guardian process when this process dies any other way, SIGKILL included.
/// For a child started with `process_group(0)`: its pid is its group's id.
#[derive(Debug)]
pub struct GroupGuard {
    group: u32,
    /// `NAME=value`: an environment entry the child was started with, which its descendants
    /// inherit even when they leave its group.
    mark: Option<String>,
    guardian: Option<std::process::Child>,
}

impl GroupGuard {
    /// Guards process group `group`. Without `sh` there is no guardian (a warning says so): the
    /// group still dies with the guard, but not with a killed navguard.
    pub fn new(group: u32) -> Self {
        Self::guard(group, None)
    }

    /// Guards process group `group` and every process whose environment holds `mark`
    /// (`NAME=value`, given to the child when it was started): a daemon the child starts in a
    /// session of its own leaves the group, but keeps the environment it was started with.
    pub fn with_mark(group: u32, mark: String) -> Self {
        Self::guard(group, Some(mark))
    }

    fn guard(group: u32, mark: Option<String>) -> Self {
        let group_id = group.to_string();
        let args = [group_id.as_ref(), mark.as_deref().unwrap_or_default().as_ref()];
        let guardian = match start_guardian(KILL_GROUP, &args) {
            Ok(child) => Some(child),
            Err(e) => {
                tracing::warn!("no guardian for process group {group} (sh: {e}): it may outlive a killed navguard");
                None
            }
        };
        Self { group, mark, guardian }
    }

    /// Kills every process of the group now, and every process that carries the mark.
    pub fn kill(&self) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.group)])
            .stderr(Stdio::null())
            .status();
        if let Some(mark) = &self.mark {
            for pid in marked(mark) {
                let _ =
                    std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).stderr(Stdio::null()).status();
            }
        }
    }
}

/// The processes whose environment holds `mark` (`NAME=value`, a whole entry), as far as this
/// user may read their environment.
fn marked(mark: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|entry| entry == mark.as_bytes()))
        })
        .collect()
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
        // Its work is done; reaped here so it leaves no zombie behind.
        if let Some(mut guardian) = self.guardian.take() {
            let _ = guardian.kill();
            let _ = guardian.wait();
        }
    }
}

impl Driver {
    /// Starts `binary --port=N [args]` on a free port and waits (up to `deadline`) for it to
    /// print `ready_line`. The driver and its browser keep their temporary files in `scratch`
    /// (geckodriver copies a whole Firefox profile there, about 40 MB, and leaves it behind
    /// when stopped), so removing that one folder removes them all. `scratch` is their home
    /// folder too: both browsers write beside the profile into the user's (crash reports'
    /// settings, caches, the list of recently used files a download adds to).
    pub(super) async fn start(
        binary: &Path,
        args: &[&str],
        ready_line: &'static str,
        scratch: &Path,
        deadline: Duration,
    ) -> Result<Self, LaunchError> {
        let port = free_port().map_err(|e| start_error(binary, DriverStartError::Io(e)))?;
        // Its own process group, so the browser it starts can be killed with it.
        let mut child = Command::new(binary)
            .arg(format!("--port={port}"))
            .args(args)
            .env("TMPDIR", scratch)
            .env("HOME", scratch)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| start_error(binary, DriverStartError::Io(e)))?;
        let group = child.id().map(GroupGuard::new);
        let stdout = child.stdout.take().ok_or_else(|| start_error(binary, DriverStartError::NoStdout))?;
        tokio::time::timeout(deadline, wait_until_listening(stdout, ready_line))
            .await
            .map_err(|_| start_error(binary, DriverStartError::NotListening(deadline)))?
            .map_err(|e| start_error(binary, e))?;
        Ok(Self { child, url: format!("http://127.0.0.1:{port}"), group })
    }

    pub(super) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    pub(super) fn url(&self) -> &str {
        &self.url
    }

    /// Stops the server and everything it started (its browser).
    pub(super) async fn stop(mut self) {
        if let Some(group) = self.group.take() {
            group.kill();
        }
        let _ = self.child.kill().await;
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
