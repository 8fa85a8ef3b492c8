//! The processes a test's child started, watched while it runs: every descendant of the child,
//! and every member of a process group one of them leads or belongs to (a driver runs in a
//! group of its own, and a browser helper re-parented to init stays in its group). The test's
//! own process group is never counted: other tests of this binary run in it. A process is
//! known by its pid and start time, so a pid the kernel hands out again is not mistaken for it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// How often the watcher looks at /proc: the processes live outside the test, and asking the
/// kernel is the only event there is.
const POLL: Duration = Duration::from_millis(50);

/// A process as /proc shows it.
#[derive(Clone, Debug)]
struct Proc {
    pid: u32,
    ppid: u32,
    group: u32,
    /// Clock ticks after boot: with the pid, the process's identity.
    started: u64,
    zombie: bool,
}

/// A process the watcher has seen, by pid and start time, with its latest command line.
pub(crate) type Seen = BTreeMap<(u32, u64), String>;

/// Watches the processes `root` starts, on a thread of its own (reading /proc blocks: not on
/// the runtime that serves the fixture site), until stopped or dropped.
pub(crate) struct Watch {
    seen: Arc<Mutex<Seen>>,
    /// Dropped to stop the watcher: its wait for the next look then ends at once.
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    pub(crate) fn new(root: u32) -> Self {
        let seen = Arc::new(Mutex::new(Seen::new()));
        let ours = rustix::process::getpgrp().as_raw_nonzero().get().unsigned_abs();
        let record = Arc::clone(&seen);
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            loop {
                look(root, ours, &record);
                if !matches!(stopped.recv_timeout(POLL), Err(mpsc::RecvTimeoutError::Timeout)) {
                    return;
                }
            }
        });
        Self { seen, stop: Some(stop), thread: Some(thread) }
    }

    /// Stops the watcher once it has finished its look.
    fn stop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Every process seen so far.
    pub(crate) fn seen(&self) -> Seen {
        self.seen.lock().expect("the watcher's record").clone()
    }

    /// Waits, at most `deadline`, until a process whose command line holds each of `needles`
    /// has been seen (a driver, a browser); panics naming what was seen.
    pub(crate) async fn wait_for(&self, needles: &[&str], deadline: Duration) {
        let started = Instant::now();
        let mut tick = tokio::time::interval(POLL);
        loop {
            let seen = self.seen();
            if needles.iter().all(|n| seen.values().any(|line| line.contains(n))) {
                return;
            }
            assert!(started.elapsed() < deadline, "within {deadline:?}, no process for each of {needles:?}: {seen:#?}");
            tick.tick().await;
        }
    }

    /// Stops watching, then waits at most `deadline` for every process seen to be gone
    /// (exited, or a zombie its new parent has yet to reap); panics naming those left.
    pub(crate) async fn all_gone(mut self, deadline: Duration) -> Seen {
        self.stop();
        let seen = self.seen();
        let started = Instant::now();
        let mut tick = tokio::time::interval(POLL);
        loop {
            let running = running();
            let left: Vec<&String> = seen.iter().filter(|(id, _)| running.contains(id)).map(|(_, line)| line).collect();
            if left.is_empty() {
                return seen;
            }
            assert!(started.elapsed() < deadline, "after {deadline:?}, still running: {left:#?}");
            tick.tick().await;
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Records what `root` has started, as /proc shows it now.
fn look(root: u32, ours: u32, record: &Mutex<Seen>) {
    let found = started_by(root, ours);
    let mut seen = record.lock().expect("the watcher's record");
    for p in found {
        // Read again each time: between its fork and its exec a child still shows its
        // parent's command line.
        let line = command_line(p.pid);
        if !line.is_empty() {
            seen.insert((p.pid, p.started), line);
        }
    }
}

/// The processes of /proc, as far as they can be read.
fn processes() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries.flatten().filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok()).filter_map(read).collect()
}

fn read(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command's closing parenthesis: state, ppid, pgrp, ..., starttime (the 20th).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(Proc {
        pid,
        ppid: fields.get(1)?.parse().ok()?,
        group: fields.get(2)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
        zombie: fields.first() == Some(&"Z"),
    })
}

/// `root`, its descendants, and the other members of their process groups, but for group
/// `ours`.
fn started_by(root: u32, ours: u32) -> Vec<Proc> {
    let all = processes();
    let mut tree = BTreeSet::from([root]);
    // Parents come before their children in no particular order: repeat until nothing is added.
    loop {
        let children: Vec<u32> =
            all.iter().filter(|p| tree.contains(&p.ppid) && !tree.contains(&p.pid)).map(|p| p.pid).collect();
        if children.is_empty() {
            break;
        }
        tree.extend(children);
    }
    let groups: BTreeSet<u32> =
        all.iter().filter(|p| tree.contains(&p.pid) && p.group != ours).map(|p| p.group).collect();
    all.into_iter().filter(|p| !p.zombie && (tree.contains(&p.pid) || groups.contains(&p.group))).collect()
}

/// The processes running now (not zombies), by pid and start time.
fn running() -> BTreeSet<(u32, u64)> {
    processes().into_iter().filter(|p| !p.zombie).map(|p| (p.pid, p.started)).collect()
}

fn command_line(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " ").trim_end().to_owned())
        .unwrap_or_default()
}
