//! Pause and resume (docs/design/reliability-layer.md): the user may pause a task, the model may ask the user
//! (`ask_user`), and a long task pauses after its allowed segments to ask whether to go on. A
//! task stops only at a safe point, between tool calls, never halfway through one.

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

/// Why a task paused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PauseReason {
    /// The user asked for the pause.
    User,
    /// The model called `ask_user`.
    Question { question: String },
    /// The task ran its allowed segments: go on?
    SegmentLimit { segments: u32 },
}

impl std::fmt::Display for PauseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::User => f.write_str("the user paused the task"),
            Self::Question { question } => write!(f, "the model asks the user: {question}"),
            Self::SegmentLimit { segments } => {
                write!(f, "the task ran its {segments} allowed segments; continue?")
            }
        }
    }
}

/// A pause: after which round, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pause {
    /// The last round that ran before it.
    pub after_round: u32,
    pub reason: PauseReason,
}

/// Where a task stands with respect to pausing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlState {
    Running,
    /// The user asked for a pause; the task pauses at its next safe point.
    PauseRequested,
    Paused(Pause),
}

/// The handle the user (or an embedding UI) pauses and resumes a running task with. Cheap to
/// share: the agent holds it by reference, the user's side by clone.
#[derive(Clone, Debug)]
pub struct TaskControl {
    state: watch::Sender<ControlState>,
}

impl Default for TaskControl {
    fn default() -> Self {
        Self { state: watch::Sender::new(ControlState::Running) }
    }
}

impl TaskControl {
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the task to pause at its next safe point (no effect on a paused task).
    pub fn request_pause(&self) {
        self.state.send_if_modified(|state| {
            let running = *state == ControlState::Running;
            if running {
                *state = ControlState::PauseRequested;
            }
            running
        });
    }

    /// Lets a paused task go on (and withdraws a pause not yet taken).
    pub fn resume(&self) {
        self.state.send_replace(ControlState::Running);
    }

    pub fn state(&self) -> ControlState {
        self.state.borrow().clone()
    }

    /// The pause the task is in, if it is paused.
    pub fn paused(&self) -> Option<Pause> {
        match &*self.state.borrow() {
            ControlState::Paused(pause) => Some(pause.clone()),
            _ => None,
        }
    }

    /// Waits until the task is paused; returns the pause.
    pub async fn until_paused(&self) -> Pause {
        let mut seen = self.state.subscribe();
        loop {
            if let ControlState::Paused(pause) = &*seen.borrow_and_update() {
                return pause.clone();
            }
            // The sender lives in `self`, so the channel cannot close while we wait; should it
            // ever, waiting on is all there is to do.
            if seen.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    pub(in crate::agent) fn pause_requested(&self) -> bool {
        *self.state.borrow() == ControlState::PauseRequested
    }

    pub(in crate::agent) fn enter_pause(&self, after_round: u32, reason: PauseReason) {
        self.state.send_replace(ControlState::Paused(Pause { after_round, reason }));
    }

    /// Waits until the task is resumed.
    pub(in crate::agent) async fn until_resumed(&self) {
        let mut seen = self.state.subscribe();
        while matches!(&*seen.borrow_and_update(), ControlState::Paused(_)) {
            if seen.changed().await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_requested_pause_is_taken_then_resumed() {
        let control = TaskControl::new();
        control.request_pause();
        assert!(control.pause_requested());
        let waiter = tokio::spawn({
            let control = control.clone();
            async move { control.until_paused().await }
        });
        control.enter_pause(2, PauseReason::User);
        assert_eq!(waiter.await.unwrap(), Pause { after_round: 2, reason: PauseReason::User });
        let resumed = tokio::spawn({
            let control = control.clone();
            async move { control.until_resumed().await }
        });
        control.resume();
        resumed.await.unwrap();
        assert_eq!(control.state(), ControlState::Running);
    }

    #[test]
    fn a_pause_request_does_not_overwrite_a_pause() {
        let control = TaskControl::new();
        control.enter_pause(1, PauseReason::Question { question: "which?".into() });
        control.request_pause();
        assert_eq!(control.paused().map(|p| p.reason), Some(PauseReason::Question { question: "which?".into() }));
    }
}
