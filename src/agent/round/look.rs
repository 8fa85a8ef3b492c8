//! A round's look at the page: the loop-top guard (under the watchdog), the wait for a quiet
//! page, then the snapshot; again if the page began to leave meanwhile, and a page a dialog
//! blocks is shown as its dialog.

use super::loop_top::{GuardRead, GuardResult, loop_top_guard};
use super::run::Agent;
use super::stop::StopReason;
use super::task::Task;
use super::trace::TraceEvent;
use super::trace::report_progress;
use crate::agent::closed_loop::{Observation, blocked, observation_of, observe_told, snapshot_args};
use crate::agent::reliability::watch;
use crate::agent::settle::Phase;
use crate::agent::settle::{LookedWith, PageState, left_since, told_left_since, wait_then_look};
use crate::agent::tools::Note;
use crate::browser::{BrowserError, TabId};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The round's observation, and where the event stream stood when it was taken: `done`
/// checks that nothing started to leave since.
pub(super) struct Observed {
    pub(super) observation: Observation,
    pub(super) position: u64,
}

/// How many times a round tries to observe a page that keeps leaving before it gives up.
const OBSERVE_ATTEMPTS: usize = 4;

impl Agent<'_> {
    /// The loop-top guard, then the wait for a quiet page, then the snapshot; again if the page
    /// began to leave meanwhile (it is in flight then, and the guard settles it). With the
    /// loop-top guard off, the page is observed as it is (the original race).
    pub(super) async fn guard_and_observe(
        &self,
        task: &mut Task,
        round: u32,
        cancel: &CancellationToken,
    ) -> Result<Option<Observed>, StopReason> {
        for attempt in 0..OBSERVE_ATTEMPTS {
            // A look again after the page began to leave asks the browser itself.
            let how = if attempt == 0 { self.guard_read } else { GuardRead::Browser };
            let mut guard = self.watched_guard(task, round, cancel, how).await;
            let read = guard.read.take();
            // Where the events the snapshot is checked against begin: at the guard's read when it
            // may be of what the port knew (events still on their way come after it).
            let read_from = read.as_ref().filter(|_| how == GuardRead::Known).map(|(from, _)| *from);
            let waited_ms = guard.waited.as_millis() as u64;
            task.trace
                .record(round, TraceEvent::Guard { read_url: guard.read_url, decision: guard.decision, waited_ms });
            guard.verdict?;
            let Some(tab) = task.tabs.focused().cloned() else { return Ok(None) };
            // The snapshot the last action's settle took as it found this page quiet.
            let acted = task.looked.take().filter(|(of, _)| *of == tab).map(|(_, looked)| looked);
            if let Some(dialog) = self.port.dialog_now(&tab).await.map_err(observation_stop)? {
                return self.blocked(task, round, &tab, dialog).await;
            }
            // The snapshot, when the wait's look at the page's next frames took it too, or the
            // action's.
            let mut looked: Option<LookedWith> = None;
            if self.config.loop_top_guard {
                let seen = task.quiet_seen.as_ref().filter(|(of, _)| *of == tab).map(|(_, at)| *at);
                let (limit, quiet) = (self.config.settle_timeout, self.config.quiet);
                let quiet = wait_then_look(self.port, &tab, quiet, limit, seen, read, Some(snapshot_args()));
                let (state, with) = tokio::select! {
                    biased;
                    // Stop wins: a wait that ended together with it is not used, and its failure
                    // is not why the task ended.
                    () = cancel.cancelled() => return Err(StopReason::User),
                    state = quiet => state.map_err(observation_stop)?,
                };
                // A page that loaded again since the action was looked at anew by the wait.
                looked = with.or(acted.filter(|_| state == PageState::Quiet));
                if state == PageState::Blocked
                    && let Some(dialog) = self.port.open_dialog(&tab)
                {
                    return self.blocked(task, round, &tab, dialog).await;
                }
                if state == PageState::Leaving {
                    task.trace.record(round, TraceEvent::Note { note: Note::LeftBeforeObserved });
                    continue;
                }
                if state == PageState::Quiet {
                    task.quiet_seen = Some((tab.clone(), std::time::Instant::now()));
                }
            }
            // A snapshot taken in an earlier look is checked against the events since that look
            // was sent.
            let looked_at = looked.as_ref().map(|looked| looked.position);
            let position = match (read_from, looked_at) {
                (Some(read), Some(looked)) => read.min(looked),
                (read, looked) => read.or(looked).unwrap_or_else(|| self.port.position()),
            };
            let observe = async {
                match looked {
                    Some(looked) => observation_of(self.port, &tab, looked.value).await,
                    None => observe_told(self.port, &tab).await,
                }
            };
            let observed = tokio::select! {
                biased;
                // Stop wins: a snapshot that ended together with it is not used.
                () = cancel.cancelled() => return Err(StopReason::User),
                observed = observe => observed,
            };
            // A dialog that opened while the page was read blocks it now, whatever the read
            // gave: Chromium 156 holds the snapshot's script behind it, Firefox ESR 153 runs it.
            if let Some(dialog) = self.port.open_dialog(&tab) {
                return self.blocked(task, round, &tab, dialog).await;
            }
            let (mut observation, leaving) = match observed {
                Ok(observed) => observed,
                // Held by a dialog that is answered already: the page goes on, look again.
                Err(e) if e.is_dialog_open() => continue,
                // A snapshot cut off because the page began to leave under it (Chromium holds a
                // script sent to a navigating tab, then fails it): the page is in flight now,
                // and the guard settles it. With the guard off, the failure stands (the race).
                Err(e) if self.config.loop_top_guard && left_since(self.port, &tab, position).is_some() => {
                    let note = Note::LeftWhileObserved { to: None, error: Some(e.to_string()) };
                    task.trace.record(round, TraceEvent::Note { note });
                    continue;
                }
                Err(e) => return Err(observation_stop(e)),
            };
            // The checks go by the browser's events; a navigation the page began while it was
            // read can be told by the browser after the snapshot's answer (Firefox ESR 153 sends
            // it from another process), so when the page said it began to leave, its word is
            // waited for.
            let left = match (self.config.loop_top_guard, leaving) {
                (false, _) => None,
                (true, false) => left_since(self.port, &tab, position),
                (true, true) => tokio::select! {
                    biased;
                    // Stop wins, as in the looks above: nothing more is read after it.
                    () = cancel.cancelled() => return Err(StopReason::User),
                    left = told_left_since(self.port, &tab, position) => left,
                },
            };
            if let Some(url) = left {
                let note = Note::LeftWhileObserved { to: Some(url.to_string()), error: None };
                task.trace.record(round, TraceEvent::Note { note });
                continue;
            }
            task.snapshots += 1;
            observation.snapshot = format!("s{}", task.snapshots);
            task.tabs.note_document(&observation.document, &tab);
            // A frame's refs name its document: a ref of another tab's frame is refused as one
            // of that tab, not clicked there.
            for frame in observation.frames.iter().filter(|f| !f.document.is_empty()) {
                task.tabs.note_document(&frame.document, &tab);
            }
            task.trace.record(
                round,
                TraceEvent::Observed {
                    url: observation.url.clone(),
                    title: observation.title.clone(),
                    snapshot: observation.snapshot.clone(),
                    document: observation.document.clone(),
                },
            );
            return Ok(Some(Observed { observation, position }));
        }
        let kept_leaving = BrowserError::Timeout {
            op: format!("observing a page that stays put ({OBSERVE_ATTEMPTS} tries)"),
            after: self.config.settle_timeout,
        };
        Err(StopReason::ObservationFailed { source: Arc::new(kept_leaving) })
    }

    /// The observation of a page a dialog blocks: its URL and the dialog, for the model to
    /// answer (nothing else can be read of it until then).
    async fn blocked(
        &self,
        task: &mut Task,
        round: u32,
        tab: &TabId,
        dialog: crate::browser::Dialog,
    ) -> Result<Option<Observed>, StopReason> {
        let position = self.port.position();
        let url = self.port.tab(tab).await.map_err(observation_stop)?.url;
        task.snapshots += 1;
        let mut observation = blocked(tab, url, dialog);
        observation.snapshot = format!("s{}", task.snapshots);
        let dialog = observation.dialog.as_ref().map(ToString::to_string).unwrap_or_default();
        task.trace.record(round, TraceEvent::Note { note: Note::PageBlocked { dialog } });
        task.trace.record(
            round,
            TraceEvent::Observed {
                url: observation.url.clone(),
                title: String::new(),
                snapshot: observation.snapshot.clone(),
                document: String::new(),
            },
        );
        Ok(Some(Observed { observation, position }))
    }

    /// The loop-top guard, reporting progress while it waits for a navigation to commit.
    async fn watched_guard(
        &self,
        task: &mut Task,
        round: u32,
        cancel: &CancellationToken,
        how: GuardRead,
    ) -> GuardResult {
        let guard = loop_top_guard(self.port, &task.tabs, &self.config, cancel, how);
        if !self.config.watchdog {
            return guard.await;
        }
        let phase = Phase::default();
        // The guard's own settle timeout ends it; this deadline only backs that up.
        let deadline = self.config.settle_timeout + self.config.tool_timeout;
        let trace = &mut task.trace;
        let watched = watch(guard, deadline, &phase, "the navigation to commit", |t| report_progress(trace, round, t));
        match watched.await {
            Some(result) => result,
            None => GuardResult::timed_out(deadline),
        }
    }
}

/// Why a failed wait for a quiet page, or a failed snapshot, stops the task.
fn observation_stop(e: BrowserError) -> StopReason {
    if e.is_tab_gone() {
        StopReason::TabClosed
    } else if e.is_disconnected() {
        StopReason::browser(e)
    } else {
        StopReason::ObservationFailed { source: Arc::new(e) }
    }
}
