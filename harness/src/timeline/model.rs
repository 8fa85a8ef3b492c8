//! A scenario's timeline: what the model, the agent and the browser did, on one clock, with each
//! wait as a span: the sequence diagrams of docs/design/navigation-transients.md (WAIT, the event
//! that ended it, the round going on). The terminal and the HTML report both draw from it.

use navguard::agent::{GuardDecision, SettleOutcome, ToolReply, Trace, TraceEvent};
use navguard::browser::{NavEvent, NavEventKind};
use std::collections::HashMap;

/// Who acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// The model (its answers and the tool calls it asked for).
    Model,
    /// The agent loop (guards, observations, stops).
    Agent,
    /// The browser's navigation events.
    Browser,
}

impl Lane {
    /// The lanes, left to right.
    pub const ALL: [Lane; 3] = [Lane::Model, Lane::Agent, Lane::Browser];

    /// The lane's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Agent => "agent",
            Self::Browser => "browser",
        }
    }
}

/// The design's legend (docs/design/navigation-transients.md): WAIT (should wait), STOP (task ended), OK (settled and going on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Nothing to flag.
    Plain,
    /// A guard begins to wait.
    Wait,
    Stop,
    /// The round goes on after a wait.
    Ok,
}

impl Mark {
    /// The tag printed beside the item (empty for [`Mark::Plain`]).
    pub fn tag(self) -> &'static str {
        match self {
            Self::Plain => "",
            Self::Wait => "WAIT",
            Self::Stop => "STOP",
            Self::Ok => "OK",
        }
    }
}

/// One thing that happened.
#[derive(Clone, Debug)]
pub struct Item {
    /// Milliseconds since the timeline's first item.
    pub t_ms: f64,
    pub lane: Lane,
    pub mark: Mark,
    /// What happened, in words.
    pub text: String,
}

/// A guard's wait, as indexes into [`Timeline::items`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wait {
    /// The item where the wait began.
    pub start: usize,
    /// The item where it ended (the guard's decision).
    pub end: usize,
    /// The browser event that ended it, if one did (a timeout or an abort has none).
    pub ended_by: Option<usize>,
    /// Where the round went on (its observation), if it did.
    pub resumed: Option<usize>,
    /// The settle outcome's name.
    pub outcome: &'static str,
    /// Which guard waited: `loop-top guard` or `open_url guard`.
    pub guard: &'static str,
}

/// A scenario's timeline.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// Everything, in time order.
    pub items: Vec<Item>,
    pub waits: Vec<Wait>,
}

impl Timeline {
    /// The wait that the browser event at `index` ended, if any.
    pub fn wait_ended_by(&self, index: usize) -> Option<&Wait> {
        self.waits.iter().find(|w| w.ended_by == Some(index))
    }
}

/// What an item is, beyond its words: enough to find which event ended a wait.
#[derive(Clone, Debug)]
enum Role {
    Other,
    WaitStart(usize),
    WaitEnd(usize, SettleOutcome, &'static str),
    Observed,
    Browser(NavEventKind, Option<String>),
}

/// An item before sorting.
struct Draft {
    item: Item,
    role: Role,
}

/// Builds the timeline of `trace` and `events` on the trace's clock; times are then made
/// relative to the first item (T0).
pub fn build(trace: &Trace, events: &[NavEvent]) -> Timeline {
    let mut drafts = trace_drafts(trace);
    let start = trace.started();
    drafts.extend(events.iter().filter(|e| e.at >= start).map(|e| Draft {
        item: Item {
            t_ms: e.at.duration_since(start).as_secs_f64() * 1000.0,
            lane: Lane::Browser,
            mark: Mark::Plain,
            text: browser_words(e),
        },
        role: Role::Browser(e.kind, e.url.clone()),
    }));
    // Stable: an agent item and a browser event at the same instant keep the agent's first.
    drafts.sort_by(|a, b| a.item.t_ms.total_cmp(&b.item.t_ms));
    let origin = drafts.first().map_or(0.0, |d| d.item.t_ms);
    for draft in &mut drafts {
        draft.item.t_ms -= origin;
    }
    let waits = find_waits(&mut drafts);
    Timeline { items: drafts.into_iter().map(|d| d.item).collect(), waits }
}

/// The trace's items; a guard that waited becomes two (its start and its decision).
fn trace_drafts(trace: &Trace) -> Vec<Draft> {
    let mut drafts = Vec::new();
    for (n, entry) in trace.entries.iter().enumerate() {
        let at = entry.at_ms;
        let mut push = |t_ms: f64, lane: Lane, mark: Mark, text: String, role: Role| {
            drafts.push(Draft { item: Item { t_ms, lane, mark, text }, role });
        };
        match &entry.event {
            TraceEvent::Guard { read_url, decision: GuardDecision::Settled { outcome }, waited_ms } => {
                let begun = at - *waited_ms as f64;
                let words = format!("guard waits: the tab reads {read_url:?}, a navigation is in flight");
                push(begun, Lane::Agent, Mark::Wait, words, Role::WaitStart(n));
                let (lane, mark, text) = trace_words(&entry.event);
                push(at, lane, mark, text, Role::WaitEnd(n, outcome.clone(), "loop-top guard"));
            }
            TraceEvent::ToolCall { guard: Some((outcome, waited_ms)), .. } => {
                let begun = at - *waited_ms as f64;
                push(begun, Lane::Agent, Mark::Wait, "open_url waits for the commit".into(), Role::WaitStart(n));
                let (lane, mark, text) = trace_words(&entry.event);
                push(at, lane, mark, text, Role::WaitEnd(n, outcome.clone(), "open_url guard"));
            }
            TraceEvent::ToolsOffered { .. } => {}
            event => {
                let (lane, mark, text) = trace_words(event);
                let role = if matches!(event, TraceEvent::Observed { .. }) { Role::Observed } else { Role::Other };
                push(at, lane, mark, text, role);
            }
        }
    }
    drafts
}

/// Pairs each wait's start and end, finds the event that ended it and where the round went
/// on, and marks that resumption OK.
fn find_waits(drafts: &mut [Draft]) -> Vec<Wait> {
    let mut starts: HashMap<usize, usize> = HashMap::new();
    let mut waits = Vec::new();
    for (i, draft) in drafts.iter().enumerate() {
        match &draft.role {
            Role::WaitStart(n) => {
                starts.insert(*n, i);
            }
            Role::WaitEnd(n, outcome, guard) => {
                let start = starts.get(n).copied().unwrap_or(i);
                waits.push(Wait {
                    start,
                    end: i,
                    ended_by: ending_event(drafts, start, i, outcome),
                    resumed: resumption(drafts, i),
                    outcome: outcome.name(),
                    guard,
                });
            }
            _ => {}
        }
    }
    for wait in &waits {
        if let Some(i) = wait.resumed {
            drafts[i].item.mark = Mark::Ok;
        }
    }
    waits
}

/// Slack for the two clocks' readings of one instant (the event is stamped on arrival, the
/// wait's start is computed back from its length).
const SLACK_MS: f64 = 2.0;

/// The last browser event within the wait that its outcome names: the commit for
/// `committed`/`origin-mismatch`, the close for `tab-gone`.
fn ending_event(drafts: &[Draft], start: usize, end: usize, outcome: &SettleOutcome) -> Option<usize> {
    let wanted: &[NavEventKind] = match outcome {
        SettleOutcome::Committed { .. } | SettleOutcome::OriginMismatch { .. } => &[NavEventKind::Committed],
        SettleOutcome::TabGone => &[NavEventKind::TabClosed, NavEventKind::Failed],
        SettleOutcome::Failed => &[NavEventKind::Failed, NavEventKind::Aborted],
        SettleOutcome::Timeout | SettleOutcome::Aborted => return None,
    };
    let url = match outcome {
        SettleOutcome::Committed { url } => Some(url.as_str()),
        SettleOutcome::OriginMismatch { observed_url } => Some(observed_url.as_str()),
        _ => None,
    };
    let (from, to) = (drafts[start].item.t_ms - SLACK_MS, drafts[end].item.t_ms + SLACK_MS);
    let matches = |d: &Draft| match &d.role {
        Role::Browser(kind, event_url) => {
            wanted.contains(kind) && url.is_none_or(|u| event_url.as_deref() == Some(u) || event_url.is_none())
        }
        _ => false,
    };
    (0..drafts.len()).rev().find(|&i| {
        let t = drafts[i].item.t_ms;
        t >= from && t <= to && matches(&drafts[i])
    })
}

/// The round's observation right after a wait, if the next thing the agent did was observe.
fn resumption(drafts: &[Draft], end: usize) -> Option<usize> {
    let next = (end + 1..drafts.len()).find(|&i| drafts[i].item.lane != Lane::Browser)?;
    matches!(drafts[next].role, Role::Observed).then_some(next)
}

fn trace_words(event: &TraceEvent) -> (Lane, Mark, String) {
    let (lane, text) = match event {
        TraceEvent::RoundStarted => (Lane::Agent, "round begins".to_owned()),
        TraceEvent::Guard { read_url, decision, waited_ms } => {
            (Lane::Agent, guard_words(read_url, decision, *waited_ms))
        }
        TraceEvent::Observed { title, url, snapshot, .. } => {
            (Lane::Agent, format!("observes {title:?} at {url} (snapshot {snapshot})"))
        }
        TraceEvent::Verification { tool, verdict } if verdict.held() => {
            return (Lane::Agent, Mark::Ok, format!("verifies {tool}: its expectation held"));
        }
        TraceEvent::Verification { tool, verdict } => {
            return (Lane::Agent, Mark::Stop, format!("verifies {tool}: FAILED: {}", verdict.words()));
        }
        TraceEvent::DoneRefused { why } => return (Lane::Agent, Mark::Stop, format!("refuses done: {why}")),
        TraceEvent::DoneOnLeavingPage { how } => {
            return (Lane::Agent, Mark::Stop, format!("guard OFF: accepts done on a page that changed ({how})"));
        }
        TraceEvent::NoProgress { pattern, stopped: false } => {
            return (Lane::Agent, Mark::Wait, format!("warns the model of no progress: {pattern}"));
        }
        TraceEvent::NoProgress { pattern, stopped: true } => (Lane::Agent, format!("no progress: {pattern}")),
        TraceEvent::Repair { reason } => (Lane::Agent, format!("repair round (after {reason})")),
        TraceEvent::ModelTurn { calls } => (Lane::Model, format!("answers with {calls} tool call(s)")),
        TraceEvent::ToolCall { tool, args, result, guard } => (Lane::Model, tool_words(tool, args, result, guard)),
        TraceEvent::Stopped { reason } if reason.is_success() => {
            return (Lane::Agent, Mark::Ok, format!("done: {}", reason.message()));
        }
        TraceEvent::Stopped { reason } => return (Lane::Agent, Mark::Stop, reason.message()),
        TraceEvent::Note { note } => (Lane::Agent, format!("note: {note}")),
        TraceEvent::PagePrepared { url, reused, .. } => {
            (Lane::Agent, format!("page ready at {url} (tab reused: {reused})"))
        }
        TraceEvent::ChildTab { tab, opener } => {
            (Lane::Agent, format!("tab {} opened by {}'s page joins the task", short(tab), short(opener)))
        }
        TraceEvent::ToolsOffered { tools } => {
            let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
            (Lane::Agent, format!("offers {}", names.join(", ")))
        }
        TraceEvent::Told { notices } => (Lane::Model, format!("is told: {}", notices.join(" / "))),
        TraceEvent::Progress { text } => return (Lane::Agent, Mark::Wait, format!("progress: {text}")),
        TraceEvent::Retry { tool, retry, after_ms, error } => {
            return (Lane::Agent, Mark::Wait, format!("retries {tool} (retry {retry}, after {after_ms} ms): {error}"));
        }
        TraceEvent::SegmentSummary { text } => {
            (Lane::Model, format!("is given the segment summary: {}", text.lines().next().unwrap_or_default()))
        }
        TraceEvent::Paused { reason } => return (Lane::Agent, Mark::Wait, format!("pauses: {reason}")),
        TraceEvent::Resumed => (Lane::Agent, "resumes".to_owned()),
    };
    let mark = match event {
        TraceEvent::Guard { decision: GuardDecision::FastFail { .. }, .. } => Mark::Stop,
        _ => Mark::Plain,
    };
    (lane, mark, text)
}

fn guard_words(read_url: &str, decision: &GuardDecision, waited_ms: u64) -> String {
    match decision {
        GuardDecision::Off => format!("guard OFF: reads {read_url}"),
        GuardDecision::NoTab => "guard: no tab yet".to_owned(),
        GuardDecision::NotInFlight => format!("guard: {read_url} not navigating"),
        GuardDecision::FastFail { pending_url } => format!("guard: pending {pending_url} on another origin: fast-fail"),
        GuardDecision::Settled { outcome } => format!("guard: {} after {waited_ms} ms", outcome.name()),
        GuardDecision::Dialog { kind } => format!("guard: {read_url} has {kind} dialog open: no wait"),
    }
}

fn tool_words(
    tool: &str,
    args: &serde_json::Value,
    result: &ToolReply,
    guard: &Option<(SettleOutcome, u64)>,
) -> String {
    let waited =
        guard.as_ref().map(|(o, ms)| format!(" [open_url guard: {} after {ms} ms]", o.name())).unwrap_or_default();
    match result {
        ToolReply::Ok(_) => format!("{tool}({args}) ok{waited}"),
        ToolReply::Failed(e) => format!("{tool}({args}) FAILED: {e}{waited}"),
    }
}

fn browser_words(event: &NavEvent) -> String {
    let url = event.url.as_deref().unwrap_or("");
    match event.kind {
        NavEventKind::TabCreated => format!("tab {} created", short(&event.tab.0)),
        NavEventKind::TabClosed => format!("tab {} closed", short(&event.tab.0)),
        NavEventKind::DialogOpened => match &event.dialog {
            Some(dialog) => format!("{}: {dialog}", short(&event.tab.0)),
            None => format!("{} dialog-opened", short(&event.tab.0)),
        },
        kind => format!("{} {}: {url}", short(&event.tab.0), kind.name()),
    }
}

/// A tab id's first characters: enough to tell a scenario's few tabs apart.
fn short(id: &str) -> &str {
    id.get(..6).unwrap_or(id)
}
