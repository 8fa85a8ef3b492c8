//! The timeline from a hand-made trace and event list: spans, the ending event, the resumption.

use super::model::{Lane, Mark, build};
use super::{picture, render};
use navguard::agent::{GuardDecision, SettleOutcome, Trace, TraceEntry, TraceEvent};
use navguard::browser::{NavEvent, NavEventKind, TabId};
use std::time::Duration;

fn entry(at_ms: f64, event: TraceEvent) -> TraceEntry {
    TraceEntry { at_ms, round: 1, event }
}

fn event(trace: &Trace, at_ms: u64, kind: NavEventKind, url: &str) -> NavEvent {
    NavEvent {
        seq: 0,
        at: trace.started() + Duration::from_millis(at_ms),
        browser_ts: None,
        tab: TabId("ABCDEF0123".into()),
        kind,
        url: Some(url.into()),
        navigation: None,
        opener: None,
        dialog: None,
    }
}

fn guard(outcome: SettleOutcome, waited_ms: u64) -> TraceEvent {
    TraceEvent::Guard { read_url: "about:blank".into(), decision: GuardDecision::Settled { outcome }, waited_ms }
}

const SLOW: &str = "http://a.test/slow";

/// A round whose guard waits 1000 ms for a commit, then observes.
fn waited_round(outcome: SettleOutcome) -> (Trace, Vec<NavEvent>) {
    let mut trace = Trace::default();
    trace.entries = vec![
        entry(100.0, TraceEvent::RoundStarted),
        entry(1110.0, guard(outcome, 1000)),
        entry(
            1120.0,
            TraceEvent::Observed {
                url: SLOW.into(),
                title: "Slow".into(),
                snapshot: "s1".into(),
                document: "d1".into(),
            },
        ),
    ];
    let events = vec![
        event(&trace, 50, NavEventKind::Committed, "http://a.test/home"),
        event(&trace, 1109, NavEventKind::Committed, SLOW),
        event(&trace, 1115, NavEventKind::Load, SLOW),
    ];
    (trace, events)
}

#[test]
fn a_wait_spans_from_its_start_to_the_guard_decision_and_names_the_commit_that_ended_it() {
    let (trace, events) = waited_round(SettleOutcome::Committed { url: SLOW.into() });
    let timeline = build(&trace, &events);
    let lanes: Vec<(Lane, Mark)> = timeline.items.iter().map(|i| (i.lane, i.mark)).collect();
    assert_eq!(
        lanes,
        [
            (Lane::Browser, Mark::Plain), // home committed (T0)
            (Lane::Agent, Mark::Plain),   // round begins
            (Lane::Agent, Mark::Wait),    // the guard starts waiting at 110
            (Lane::Browser, Mark::Plain), // slow committed
            (Lane::Agent, Mark::Plain),   // the guard's decision
            (Lane::Browser, Mark::Plain), // load
            (Lane::Agent, Mark::Ok),      // the round resumes
        ]
    );
    assert_eq!(timeline.items[0].t_ms, 0.0, "times are relative to the first item");
    assert_eq!(timeline.items[2].t_ms, 60.0);
    let wait = &timeline.waits[..];
    assert_eq!(wait.len(), 1);
    assert_eq!((wait[0].start, wait[0].end, wait[0].ended_by, wait[0].resumed), (2, 4, Some(3), Some(6)));
    assert_eq!((wait[0].outcome, wait[0].guard), ("committed", "loop-top guard"));
}

#[test]
fn a_timeout_has_no_ending_event_and_the_round_does_not_resume() {
    let (mut trace, events) = waited_round(SettleOutcome::Timeout);
    trace.entries[2] = entry(1120.0, TraceEvent::Stopped { reason: navguard::agent::StopReason::Restricted });
    let timeline = build(&trace, &events);
    assert_eq!((timeline.waits[0].ended_by, timeline.waits[0].resumed), (None, None));
    assert_eq!(timeline.items.last().map(|i| i.mark), Some(Mark::Stop));
}

#[test]
fn a_commit_to_another_url_does_not_end_the_wait() {
    let (trace, mut events) = waited_round(SettleOutcome::Committed { url: SLOW.into() });
    events[1].url = Some("http://a.test/other".into());
    assert_eq!(build(&trace, &events).waits[0].ended_by, None);
}

#[test]
fn the_terminal_shows_the_legend_tags_and_the_ending_event() {
    let (trace, events) = waited_round(SettleOutcome::Committed { url: SLOW.into() });
    let text = render(&build(&trace, &events));
    assert!(text.contains("WAIT  guard waits"), "{text}");
    assert!(text.contains(&format!("ABCDEF committed: {SLOW}   <- ends the wait (committed)")), "{text}");
    assert!(text.contains("OK    observes \"Slow\""), "{text}");
}

#[test]
fn the_picture_draws_the_wait_band_and_the_arrow_and_escapes_page_text() {
    let (mut trace, events) = waited_round(SettleOutcome::Committed { url: SLOW.into() });
    trace.entries[2] = entry(
        1120.0,
        TraceEvent::Observed {
            url: SLOW.into(),
            title: "<script>x</script>".into(),
            snapshot: "s1".into(),
            document: "d1".into(),
        },
    );
    let svg = picture(&build(&trace, &events), "arrow-x-L3").into_string();
    assert!(svg.contains("marker id=\"arrow-x-L3\""), "no marker: {svg}");
    assert!(svg.contains("marker-end=\"url(#arrow-x-L3)\""), "no arrow: {svg}");
    assert!(svg.contains("guard wait: committed"), "no band: {svg}");
    assert!(!svg.contains("<script>") && svg.contains("&lt;script&gt;"), "page text not escaped");
}

#[test]
fn an_empty_timeline_draws_nothing() {
    assert_eq!(picture(&build(&Trace::default(), &[]), "arrow").into_string(), "");
}
