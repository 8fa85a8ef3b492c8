//! The pause between rounds: a segment boundary (its summary, and the pause when the allowed
//! segments ran out), the user's pause, and what the model is told after the resume.

use super::run::Agent;
use super::segment::summarise;
use super::stop::StopReason;
use super::task::Task;
use super::trace::TraceEvent;
use crate::agent::reliability::{PauseReason, TaskControl};
use crate::agent::tools::Note;
use tokio_util::sync::CancellationToken;

impl Agent<'_> {
    /// The safe point between rounds: a segment boundary (its summary, and the pause when the
    /// allowed segments ran out), then the user's pause if one was asked for.
    pub(super) async fn between_rounds(
        &self,
        task: &mut Task,
        round: u32,
        cancel: &CancellationToken,
    ) -> Result<(), StopReason> {
        let size = self.config.segment_rounds;
        if size > 0 && round > 1 && (round - 1).is_multiple_of(size) && task.boundary < round {
            task.boundary = round;
            task.segments += 1;
            task.summary = Some(summarise(&task.trace, round - size, round - 1));
            if let Some(allowed) = self.config.segments_allowed
                && task.segments >= allowed
            {
                task.segments = 0;
                self.pause(task, PauseReason::SegmentLimit { segments: allowed }, cancel).await?;
            }
        }
        if self.control.is_some_and(TaskControl::pause_requested) {
            self.pause(task, PauseReason::User, cancel).await?;
        }
        Ok(())
    }

    /// Pauses at a safe point: saves the checkpoint, then waits for the user to resume (or
    /// Stop). The next round observes again and tells the model what changed meanwhile.
    pub(super) async fn pause(
        &self,
        task: &mut Task,
        reason: PauseReason,
        cancel: &CancellationToken,
    ) -> Result<(), StopReason> {
        let Some(control) = self.control else { return Err(StopReason::NeedsUser { reason }) };
        if let Some(store) = self.checkpoints
            && let Err(e) = store.save(&task.checkpoint(reason.clone()))
        {
            task.trace.record(task.round, TraceEvent::Note { note: Note::CheckpointNotSaved { error: e.to_string() } });
        }
        task.trace.record(task.round, TraceEvent::Paused { reason: reason.clone() });
        control.enter_pause(task.round, reason);
        tokio::select! {
            biased;
            // Stop wins over a resume that came with it: the task starts no other round.
            () = cancel.cancelled() => return Err(StopReason::User),
            () = control.until_resumed() => {}
        }
        task.trace.record(task.round, TraceEvent::Resumed);
        task.resumed_from = Some(task.last_seen.clone());
        Ok(())
    }
}
