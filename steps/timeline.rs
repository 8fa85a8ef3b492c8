//! The terminal timeline of a scenario, in the seed's sequence-diagram style: relative times,
//! and lanes for the model, the agent and the browser. Also the one-line race verdict.

use navguard::agent::{GuardDecision, StopReason, Trace, TraceEvent};
use navguard::browser::{NavEvent, NavEventKind};
use std::time::Instant;

/// One line of the timeline.
struct Line {
    t_ms: f64,
    lane: &'static str,
    text: String,
}

fn agent_line(event: &TraceEvent) -> Option<(&'static str, String)> {
    let line = match event {
        TraceEvent::RoundStarted => ("agent", "round begins".to_owned()),
        TraceEvent::Guard { read_url, decision, waited_ms } => ("agent", guard_words(read_url, decision, *waited_ms)),
        TraceEvent::Observed { title, url } => ("agent", format!("observes {title:?} at {url}")),
        TraceEvent::ModelTurn { calls } => ("model", format!("answers with {calls} tool call(s)")),
        TraceEvent::ToolCall { tool, args, result, guard } => ("model", tool_words(tool, args, result, guard)),
        TraceEvent::Stopped { reason } => ("agent", format!("STOP: {}", reason.message())),
        TraceEvent::Note { text } => ("agent", format!("note: {text}")),
        TraceEvent::PagePrepared { url, reused, .. } => {
            ("agent", format!("page ready at {url} (tab reused: {reused})"))
        }
        TraceEvent::ChildTab { tab, opener } => {
            ("agent", format!("tab {tab} opened by {opener}'s page joins the task"))
        }
        TraceEvent::ToolsOffered { .. } => return None,
    };
    Some(line)
}

fn guard_words(read_url: &str, decision: &GuardDecision, waited_ms: u64) -> String {
    match decision {
        GuardDecision::Off => format!("guard OFF: reads {read_url}"),
        GuardDecision::NoTab => "guard: no tab yet".to_owned(),
        GuardDecision::NotInFlight => format!("guard: {read_url} not navigating"),
        GuardDecision::FastFail { pending_url } => format!("guard: pending {pending_url} on another origin: fast-fail"),
        GuardDecision::Settled { outcome } => format!("guard WAITED {waited_ms} ms ({read_url}): {}", outcome.name()),
    }
}

fn tool_words(
    tool: &str,
    args: &serde_json::Value,
    result: &Result<String, String>,
    guard: &Option<(navguard::agent::SettleOutcome, u64)>,
) -> String {
    let waited =
        guard.as_ref().map(|(o, ms)| format!(" [open_url guard waited {ms} ms: {}]", o.name())).unwrap_or_default();
    match result {
        Ok(_) => format!("{tool}({args}) ok{waited}"),
        Err(e) => format!("{tool}({args}) FAILED: {e}{waited}"),
    }
}

fn browser_words(event: &NavEvent) -> String {
    let url = event.url.as_deref().unwrap_or("");
    match event.kind {
        NavEventKind::TabCreated => format!("tab {} created", short(&event.tab.0)),
        NavEventKind::TabClosed => format!("tab {} closed", short(&event.tab.0)),
        kind => format!("{} {}: {url}", short(&event.tab.0), kind.name()),
    }
}

fn short(id: &str) -> &str {
    &id[..id.len().min(6)]
}

/// Renders the trace and the browser's events on one clock (the trace's start is 0).
pub fn render(trace: &Trace, events: &[NavEvent]) -> String {
    let start: Instant = trace.started();
    let mut lines: Vec<Line> = trace
        .entries
        .iter()
        .filter_map(|e| agent_line(&e.event).map(|(lane, text)| Line { t_ms: e.at_ms, lane, text }))
        .collect();
    lines.extend(events.iter().filter(|e| e.at >= start).map(|e| Line {
        t_ms: e.at.duration_since(start).as_secs_f64() * 1000.0,
        lane: "browser",
        text: browser_words(e),
    }));
    lines.sort_by(|a, b| a.t_ms.total_cmp(&b.t_ms));
    let origin = lines.first().map_or(0.0, |l| l.t_ms);
    lines
        .iter()
        .map(|l| format!("  T0+{:>6.0}ms  {:<7}  {}", l.t_ms - origin, l.lane, l.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether the run shows the race: the task stopped on a restricted URL, a different origin or
/// a failed snapshot in a round whose guard did not wait for the navigation (it was off, or
/// saw nothing in flight). A stop the guard decided after waiting is the guard doing its job.
pub fn race_reproduced(trace: &Trace) -> Option<String> {
    let (round, reason) = trace.entries.iter().rev().find_map(|e| match &e.event {
        TraceEvent::Stopped { reason } => Some((e.round, reason.clone())),
        _ => None,
    })?;
    let false_stop =
        matches!(reason, StopReason::Restricted | StopReason::OriginChanged | StopReason::ObservationFailed { .. });
    let unguarded = trace
        .guards()
        .filter(|(r, ..)| *r == round)
        .all(|(_, d, _)| matches!(d, GuardDecision::Off | GuardDecision::NotInFlight));
    (false_stop && unguarded).then(|| format!("{:?} in round {round}", reason.message()))
}
