//! The trace of every decision a task made: what assertions, reports and the terminal
//! timeline read.

use super::planner::ToolReply;
use super::progress::Pattern;
use super::stop::StopReason;
use crate::agent::closed_loop::Verdict;
use crate::agent::reliability::PauseReason;
use crate::agent::settle::SettleOutcome;
use crate::agent::tools::{Note, ToolName};
use crate::browser::DialogKind;
use serde::Serialize;
use serde_json::Value;
use std::time::{Duration, Instant};

crate::closed_set! {
    /// The kinds of [`GuardDecision`], by their names in the step language.
    pub enum GuardKind("guard decision");

    /// What the loop-top guard decided in a round. Serialised as `{"kind": <kind>, …}`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum GuardDecision by kind {
        /// The guard is switched off: only the restricted-URL and origin checks ran.
        Off = "off",
        /// No tab is focused yet.
        NoTab = "no-tab",
        /// The tab was not navigating: no wait.
        NotInFlight = "not-in-flight",
        /// A pending URL on another origin: stopped without waiting.
        FastFail { pending_url: String } = "fast-fail",
        /// Waited for the navigation to settle.
        Settled { outcome: SettleOutcome } = "settled",
        /// The page has a dialog open (one that opened while the guard waited included): a
        /// navigation it holds waits for its answer, so the guard does not.
        Dialog { kind: DialogKind } = "dialog",
    }
}

impl GuardDecision {
    /// The outcome name in the step language (`committed`, …, `fast-fail`), if it waited or
    /// fast-failed.
    pub fn outcome_name(&self) -> Option<&'static str> {
        match self {
            Self::FastFail { .. } => Some(GuardKind::FastFail.name()),
            Self::Settled { outcome } => Some(outcome.name()),
            _ => None,
        }
    }
}

impl Serialize for GuardDecision {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", &self.kind())?;
        match self {
            Self::FastFail { pending_url } => map.serialize_entry("pending_url", pending_url)?,
            Self::Settled { outcome } => map.serialize_entry("outcome", outcome)?,
            Self::Dialog { kind } => map.serialize_entry("dialog", kind)?,
            Self::Off | Self::NoTab | Self::NotInFlight => {}
        }
        map.end()
    }
}

crate::closed_set! {
    /// Why a round counts as a repair (docs/design/closed-loop.md: repairs follow only these).
    pub enum RepairReason("repair reason") {
        ExecuteError = "execute-error",
        FailedVerification = "failed-verification",
        RefusedDone = "refused-done",
        NoProgress = "no-progress",
    }
}

/// One recorded decision.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum TraceEvent {
    /// A run began with these tools offered to the model.
    ToolsOffered {
        tools: Vec<ToolName>,
    },
    /// A conversation turn prepared its page.
    PagePrepared {
        tab: String,
        /// The URL it was settled on.
        url: String,
        /// The task's tab was reused (navigated) rather than a new one opened.
        reused: bool,
    },
    /// A page of the task opened a tab: it joins the task's ledger and the model is told.
    ChildTab {
        tab: String,
        /// The tab whose page opened it.
        opener: String,
    },
    RoundStarted,
    /// The loop-top guard ran.
    Guard {
        /// The focused tab's URL when the guard read it.
        read_url: String,
        decision: GuardDecision,
        /// How long it waited, ms.
        waited_ms: u64,
    },
    Observed {
        url: String,
        title: String,
        /// The snapshot's number and its document's identity.
        snapshot: String,
        document: String,
    },
    /// An `expect` was checked after a call.
    Verification {
        tool: ToolName,
        verdict: Verdict,
    },
    /// `done` was refused; the model was told why and the task went on.
    DoneRefused {
        why: String,
    },
    /// With the loop-top guard off, `done` was accepted on a page that had changed since it
    /// was observed (the race the guard prevents).
    DoneOnLeavingPage {
        how: String,
    },
    /// The no-progress detector saw a pattern: a warning to the model, or the stop.
    NoProgress {
        pattern: Pattern,
        stopped: bool,
    },
    /// This round repairs what went wrong in the one before.
    Repair {
        reason: RepairReason,
    },
    ModelTurn {
        calls: usize,
    },
    /// What the model was told at the start of a round besides its observation (a page
    /// opened a tab, the user changed the page, a segment summary, a warning).
    Told {
        notices: Vec<String>,
    },
    /// A call (or the loop-top guard) is still waiting: reported at least once a second.
    Progress {
        text: String,
    },
    /// A failed call is tried again after a pause.
    Retry {
        tool: ToolName,
        /// Which retry this is (1-based).
        retry: u32,
        after_ms: u64,
        /// The failure it retries.
        error: String,
    },
    /// The summary of the last segment, given to the model at this round's start.
    SegmentSummary {
        text: String,
    },
    /// The task paused at a safe point; a checkpoint was saved.
    Paused {
        reason: PauseReason,
    },
    /// The task was resumed (in this agent, or in a new one from its checkpoint).
    Resumed,
    /// A tool call and its result.
    ToolCall {
        /// The tool as the model named it (which may be no tool).
        tool: String,
        args: Value,
        /// `Ok` text or the error message.
        result: ToolReply,
        /// For open_url: its guard's outcome and wait, if it waited.
        guard: Option<(SettleOutcome, u64)>,
    },
    /// Something the loop did on its own, and why (a focus fallback, a page observed again, …).
    Note {
        note: Note,
    },
    Stopped {
        reason: StopReason,
    },
}

/// One entry: when, in which round, what.
#[derive(Clone, Debug, Serialize)]
pub struct TraceEntry {
    /// Milliseconds since the trace began.
    pub at_ms: f64,
    /// The round (0 before the first).
    pub round: u32,
    #[serde(flatten)]
    pub event: TraceEvent,
}

/// The trace of a task.
#[derive(Clone, Debug, Serialize)]
pub struct Trace {
    #[serde(skip)]
    started: Instant,
    /// The entries, in order.
    pub entries: Vec<TraceEntry>,
}

impl Default for Trace {
    fn default() -> Self {
        Self { started: Instant::now(), entries: Vec::new() }
    }
}

impl Trace {
    /// Records `event` in `round`.
    pub fn record(&mut self, round: u32, event: TraceEvent) {
        let at_ms = self.started.elapsed().as_secs_f64() * 1000.0;
        self.entries.push(TraceEntry { at_ms, round, event });
    }

    /// When the trace began.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// How many rounds began.
    pub fn rounds(&self) -> u32 {
        self.entries.iter().filter(|e| matches!(e.event, TraceEvent::RoundStarted)).count() as u32
    }

    /// The guard decisions, with their rounds.
    pub fn guards(&self) -> impl Iterator<Item = (u32, &GuardDecision, u64)> {
        self.entries.iter().filter_map(|e| match &e.event {
            TraceEvent::Guard { decision, waited_ms, .. } => Some((e.round, decision, *waited_ms)),
            _ => None,
        })
    }

    /// The tool calls, with their rounds.
    pub fn tool_calls(&self) -> impl Iterator<Item = (u32, &TraceEvent)> {
        self.entries.iter().filter(|e| matches!(e.event, TraceEvent::ToolCall { .. })).map(|e| (e.round, &e.event))
    }

    /// What was recorded in `round`, in order.
    pub fn in_round(&self, round: u32) -> impl Iterator<Item = &TraceEvent> {
        self.entries.iter().filter(move |e| e.round == round).map(|e| &e.event)
    }

    /// The expectation checks, with their rounds.
    pub fn verifications(&self) -> impl Iterator<Item = (u32, ToolName, &Verdict)> {
        self.entries.iter().filter_map(|e| match &e.event {
            TraceEvent::Verification { tool, verdict } => Some((e.round, *tool, verdict)),
            _ => None,
        })
    }

    /// How many rounds were repairs.
    pub fn repairs(&self) -> usize {
        self.entries.iter().filter(|e| matches!(e.event, TraceEvent::Repair { .. })).count()
    }

    /// The task ended with a `done` whose expectation was checked and held (the closed loop's
    /// "done && verified", docs/design/closed-loop.md#done-only-when-verified).
    pub fn ended_verified(&self) -> bool {
        let Some(last) = self.entries.iter().rev().find(|e| matches!(e.event, TraceEvent::Stopped { .. })) else {
            return false;
        };
        let done = matches!(&last.event, TraceEvent::Stopped { reason } if reason.is_success());
        done && self.verifications().any(|(r, tool, v)| r == last.round && tool == ToolName::Done && v.held())
    }

    /// How the task stopped, if it did.
    pub fn stop(&self) -> Option<&StopReason> {
        self.entries.iter().rev().find_map(|e| match &e.event {
            TraceEvent::Stopped { reason } => Some(reason),
            _ => None,
        })
    }

    /// Time since the trace began.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// A progress report: in the trace, and live for whoever watches the logs.
pub(super) fn report_progress(trace: &mut Trace, round: u32, text: String) {
    tracing::info!(target: "navguard::progress", "round {round}: {text}");
    trace.record(round, TraceEvent::Progress { text });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_guard_decision_serialises_as_its_kind_with_its_fields() {
        let fast = GuardDecision::FastFail { pending_url: "https://x.test/".into() };
        assert_eq!(serde_json::to_value(fast).unwrap(), json!({"kind": "fast-fail", "pending_url": "https://x.test/"}));
        let settled = GuardDecision::Settled { outcome: SettleOutcome::Timeout };
        assert_eq!(
            serde_json::to_value(settled).unwrap(),
            json!({"kind": "settled", "outcome": {"outcome": "timeout"}})
        );
        assert_eq!(serde_json::to_value(GuardDecision::NoTab).unwrap(), json!({"kind": "no-tab"}));
    }
}
