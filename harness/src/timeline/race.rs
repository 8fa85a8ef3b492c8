//! The one-line verdict of `navguard repro`: did the race show?

use navguard::agent::{GuardDecision, StopReason, Trace, TraceEvent};

/// Whether the run shows the race: the task stopped on a restricted URL, a different origin or
/// a failed snapshot in a round whose guard did not wait for the navigation (it was off, or
/// saw nothing in flight), or a `done` was accepted on a page that had begun to leave (seed
/// 003's race; with the guard on, that done is refused). A stop the guard decided after
/// waiting is the guard doing its job.
pub fn race_reproduced(trace: &Trace) -> Option<String> {
    let leaving_done = trace.entries.iter().find_map(|e| match &e.event {
        TraceEvent::DoneOnLeavingPage { how } => Some(format!("done accepted in round {} although {how}", e.round)),
        _ => None,
    });
    if leaving_done.is_some() {
        return leaving_done;
    }
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
