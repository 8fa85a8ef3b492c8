//! Segments (docs/design/reliability-layer.md): a long task is cut into segments of a few rounds; at the start of each
//! new segment the model is given a summary of the last one (its calls, their outcomes, the
//! pages it saw), so a task of many steps keeps its thread without the whole history.

use crate::agent::round::ToolReply;
use crate::agent::round::{Trace, TraceEvent};
use std::fmt::Write;

/// The longest call result a summary repeats.
const RESULT_CHARS: usize = 80;

/// The summary of rounds `first..=last` of `trace`.
pub(in crate::agent) fn summarise(trace: &Trace, first: u32, last: u32) -> String {
    let mut calls = Vec::new();
    let mut pages: Vec<String> = Vec::new();
    let (mut ok, mut failed) = (0, 0);
    for entry in trace.entries.iter().filter(|e| (first..=last).contains(&e.round)) {
        match &entry.event {
            TraceEvent::ToolCall { tool, result, .. } => {
                let outcome = match result {
                    ToolReply::Ok(text) => {
                        ok += 1;
                        format!("ok: {}", shorten(text))
                    }
                    ToolReply::Failed(text) => {
                        failed += 1;
                        format!("failed: {}", shorten(text))
                    }
                };
                calls.push(format!("round {}: {tool} ({outcome})", entry.round));
            }
            TraceEvent::Observed { url, title, .. } => {
                let page = format!("{title:?} at {url}");
                if pages.last() != Some(&page) {
                    pages.push(page);
                }
            }
            _ => {}
        }
    }
    let mut text = format!("summary of rounds {first} to {last}: {} calls, {ok} ok, {failed} failed", ok + failed);
    if !pages.is_empty() {
        let _ = write!(text, "; pages seen: {}", pages.join(", then "));
    }
    for call in calls {
        let _ = write!(text, "\n- {call}");
    }
    text
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(RESULT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(trace: &mut Trace, round: u32, tool: &str, result: ToolReply) {
        trace.record(round, TraceEvent::ToolCall { tool: tool.into(), args: json!({}), result, guard: None });
    }

    fn observed(trace: &mut Trace, round: u32, title: &str) {
        trace.record(
            round,
            TraceEvent::Observed {
                url: format!("http://a.test/{title}"),
                title: title.into(),
                snapshot: format!("s{round}"),
                document: "d".into(),
            },
        );
    }

    #[test]
    fn a_summary_counts_the_calls_names_their_outcomes_and_the_pages_seen() {
        let mut trace = Trace::default();
        observed(&mut trace, 1, "Home");
        call(&mut trace, 1, "click", ToolReply::Ok("clicked #go".into()));
        observed(&mut trace, 2, "Home");
        call(&mut trace, 2, "type", ToolReply::Failed("type: not found".into()));
        observed(&mut trace, 3, "Next");
        call(&mut trace, 3, "wait", ToolReply::Ok("waited".into()));
        let text = summarise(&trace, 1, 2);
        assert_eq!(
            text,
            "summary of rounds 1 to 2: 2 calls, 1 ok, 1 failed; pages seen: \"Home\" at http://a.test/Home\n- round 1: \
             click (ok: clicked #go)\n- round 2: type (failed: type: not found)"
        );
    }

    #[test]
    fn a_long_result_is_shortened() {
        assert_eq!(shorten(&"x".repeat(200)).chars().count(), RESULT_CHARS + 1);
        assert_eq!(shorten("short"), "short");
    }
}
