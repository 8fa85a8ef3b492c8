//! A task of the agent core running in the background (`When the agent starts the task`), and
//! the task store its checkpoints go to. The reliability steps start, pause, resume and end it;
//! it lives in the world because the world holds it between steps and the after hook stops a
//! run a failed scenario left behind.

use navguard::agent::{ScriptedPlanner, StopReason, Task, TaskControl};
use std::path::PathBuf;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A task running in the background, and the user's handle on it.
#[derive(Debug)]
pub struct RunningTask {
    pub(crate) handle: tokio::task::JoinHandle<Finished>,
    pub control: TaskControl,
    pub(crate) cancel: CancellationToken,
}

impl RunningTask {
    /// Stops the run (the user's Stop) and waits for it, at most `deadline`; then drops it.
    pub async fn stop(self, deadline: Duration) {
        self.cancel.cancel();
        let abort = self.handle.abort_handle();
        if tokio::time::timeout(deadline, self.handle).await.is_err() {
            abort.abort();
        }
    }
}

/// How a background run ended.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) task: Task,
    pub(crate) stop: StopReason,
    pub(crate) played: ScriptedPlanner,
    pub(crate) took: Duration,
    /// The user's planned actions that failed during the run.
    pub(crate) failures: Vec<String>,
}

/// The scenario's task store for checkpoints: a file in a folder removed with the scenario.
#[derive(Debug)]
pub struct CheckpointFile {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl CheckpointFile {
    /// A store file in a new temporary folder.
    pub(crate) fn create() -> std::io::Result<Self> {
        let dir = navguard::__private::scratch_dir("checkpoints-")?;
        let path = dir.path().join("tasks.db");
        Ok(Self { _dir: dir, path })
    }

    /// Where the store is.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }
}
