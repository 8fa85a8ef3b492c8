//! The task: what a run works on and leaves behind (its tabs, its trace, the state a pause
//! keeps), and the ledger of the tabs its pages open.

use super::progress::ProgressDetector;
use super::trace::{RepairReason, Trace, TraceEvent};
use crate::agent::closed_loop::Observation;
use crate::agent::reliability::{Checkpoint, PauseReason, changes};
use crate::agent::settle::LookedWith;
use crate::agent::tools::TaskTabs;
use crate::browser::{EventStream, NavEventKind, TabId};

/// A task: its tabs and its trace. It outlives a run (a later turn reuses its tabs).
#[derive(Debug, Default)]
pub struct Task {
    pub tabs: TaskTabs,
    pub trace: Trace,
    /// Snapshots taken so far (the next is `s<n+1>`).
    pub(super) snapshots: u32,
    pub(super) progress: ProgressDetector,
    /// What the next round repairs, if the last one went wrong.
    pub(super) repair: Option<RepairReason>,
    /// The last round that ran (a resumed task goes on with the next).
    pub(super) round: u32,
    /// Segments run since the task was last allowed to go on.
    pub(super) segments: u32,
    /// The round whose segment boundary was last counted (so a resume does not count it again).
    pub(super) boundary: u32,
    /// The last segment's summary, for the model at the next round's start.
    pub(super) summary: Option<String>,
    /// The page as the model last saw it.
    pub(super) last_seen: Option<Observation>,
    /// Set by a resume: the page at the pause, compared with the next observation.
    pub(super) resumed_from: Option<Option<Observation>>,
    /// The tab a look or an action settle last found quiet, and when: a page that has not
    /// loaded again since is quiet without looking at its frames again.
    pub(super) quiet_seen: Option<(TabId, std::time::Instant)>,
    /// The snapshot the last call's action settle took as it found that tab's page quiet: the
    /// look after the call answers with it, unless something happened to the page since.
    pub(super) looked: Option<(TabId, LookedWith)>,
}

impl Task {
    /// A task as its checkpoint left it: the next run goes on after the checkpoint's round and
    /// tells the model what changed since the pause.
    pub fn from_checkpoint(checkpoint: Checkpoint) -> Self {
        Self {
            tabs: checkpoint.tabs,
            round: checkpoint.round,
            segments: checkpoint.segments,
            boundary: checkpoint.boundary,
            summary: checkpoint.summary,
            last_seen: checkpoint.observation.clone(),
            resumed_from: Some(checkpoint.observation),
            ..Self::default()
        }
    }

    /// The task's state, to resume from after a pause.
    pub fn checkpoint(&self, reason: PauseReason) -> Checkpoint {
        Checkpoint {
            round: self.round,
            reason,
            tabs: self.tabs.clone(),
            observation: self.last_seen.clone(),
            digest: self.last_seen.as_ref().map(Observation::digest),
            segments: self.segments,
            boundary: self.boundary,
            summary: self.summary.clone(),
        }
    }

    /// The last round that ran.
    pub fn round(&self) -> u32 {
        self.round
    }
}

/// Adds the tabs that pages of the task opened since the last look to its ledger; returns what
/// the model should be told.
pub(super) fn update_ledger(task: &mut Task, round: u32, events: &mut EventStream) -> Vec<String> {
    let mut notices = Vec::new();
    while let Some(event) = events.try_next() {
        let Some(opener) = event.opener.as_ref().filter(|_| event.kind == NavEventKind::TabCreated) else { continue };
        if adopt_opened(task, round, &event.tab, opener) {
            notices.push(format!("tab {} was opened by the page in tab {opener}", event.tab));
        }
    }
    notices
}

/// Adds `tab`, which a page in `opener` opened, to the task's tabs, and the trace says so;
/// `false` when it is not the task's to take (its opener is not the task's) or is already.
pub(super) fn adopt_opened(task: &mut Task, round: u32, tab: &TabId, opener: &TabId) -> bool {
    let adopted = task.tabs.adopt_child(tab.clone(), opener);
    if adopted {
        task.trace.record(round, TraceEvent::ChildTab { tab: tab.to_string(), opener: opener.to_string() });
    }
    adopted
}

/// After a resume: what the user changed between the pause and this observation.
pub(super) fn resume_notices(task: &mut Task, now: Option<&Observation>) -> Vec<String> {
    let Some(before) = task.resumed_from.take() else { return Vec::new() };
    let told = match (before.as_ref(), now) {
        (Some(before), Some(now)) => changes(before, now),
        _ => Vec::new(),
    };
    if told.is_empty() {
        return vec!["the task was resumed; the user changed nothing the model can see".to_owned()];
    }
    told
}
