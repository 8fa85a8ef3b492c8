//! The watchdog around every tool call (docs/design/reliability-layer.md): a deadline per call, progress at least once
//! a second while a call waits, and retries of what may safely be tried again.
//!
//! A call that waits tells its [`Phase`] what it waits for; [`watch`] reads it on each tick and
//! reports `waiting for <what> (<s> s)`, so a user (or a UI) never mistakes a long wait for a
//! hang. The retry policy is pure ([`RetryPolicy::decide`]), so it unit-tests without a browser.

use crate::agent::settle::Phase;
use crate::agent::tools::Repeat;
use crate::agent::tools::ToolName;
use crate::agent::tools::{FailureKind, ToolError};
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

/// How often a waiting call reports progress: a quarter of the second the contract allows, so a
/// tick delayed by a loaded machine still keeps the promise.
pub(super) const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// The words of a progress report.
pub(super) fn progress_text(what: &str, waited: Duration) -> String {
    format!("waiting for {what} ({:.1} s)", waited.as_secs_f64())
}

/// Runs `call` until it ends or `deadline` passes (then `None`: the call is dropped, which
/// cancels whatever it waited for). Every [`PROGRESS_EVERY`] while it runs, `report` gets the
/// progress words of its current [`Phase`] (or `fallback`, if the call set none).
pub(in crate::agent) async fn watch<F: Future>(
    call: F,
    deadline: Duration,
    phase: &Phase,
    fallback: &str,
    mut report: impl FnMut(String),
) -> Option<F::Output> {
    let started = Instant::now();
    let cut_off = tokio::time::sleep(deadline);
    let mut ticks = tokio::time::interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(call, cut_off);
    loop {
        tokio::select! {
            biased;
            output = &mut call => return Some(output),
            () = &mut cut_off => return None,
            _ = ticks.tick() => {
                let what = phase.get().unwrap_or_else(|| fallback.to_owned());
                report(progress_text(&what, started.elapsed()));
            }
        }
    }
}

/// What to do after a failed attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RetryDecision {
    /// Try again after this pause.
    Retry { after: Duration },
    /// Keep the failure; `why` is for the trace when a retryable failure was kept.
    Keep { why: Option<&'static str> },
}

/// Retries with exponential backoff (docs/design/reliability-layer.md): at most `max_retries` more attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    /// The pause before the first retry; each next one doubles it.
    pub base: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { max_retries: 2, base: Duration::from_millis(250) }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub const OFF: Self = Self { max_retries: 0, base: Duration::ZERO };

    /// The pause before retry number `retry` (1-based).
    pub fn backoff(self, retry: u32) -> Duration {
        self.base.saturating_mul(1 << retry.saturating_sub(1).min(16))
    }

    /// Whether the call of `tool` that failed with `error`, after `retries` retries already,
    /// is tried again. `navigated` says a navigation of the tab began during the attempt.
    pub(crate) fn decide(self, tool: ToolName, error: &ToolError, retries: u32, navigated: bool) -> RetryDecision {
        let kind = error.kind();
        if !kind.may_pass() {
            return RetryDecision::Keep { why: None };
        }
        if let Some(why) = not_repeatable(tool, kind, navigated) {
            return RetryDecision::Keep { why: Some(why) };
        }
        if retries >= self.max_retries {
            return RetryDecision::Keep { why: None };
        }
        RetryDecision::Retry { after: self.backoff(retries + 1) }
    }
}

/// Why a failure of `tool` that may pass must not be repeated blindly, if it must not: the
/// first attempt may already have had its effect (the tool table says which tools that can be).
fn not_repeatable(tool: ToolName, kind: FailureKind, navigated: bool) -> Option<&'static str> {
    match tool.spec().repeat {
        Repeat::Freely => None,
        Repeat::Never(why) => Some(why),
        // A timed-out input may have been delivered: a click that submits, an Enter.
        Repeat::UnlessDelivered if kind == FailureKind::Timeout => Some("the input may already have taken effect"),
        Repeat::UnlessDelivered if navigated => Some("the page began to navigate after the input"),
        Repeat::UnlessDelivered => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tools::ToolFailure;
    use crate::browser::{BrowserError, TabId};

    fn browser(e: BrowserError, tool: ToolName) -> ToolError {
        ToolFailure::Browser(e).of(tool)
    }

    fn not_found(tool: ToolName) -> ToolError {
        browser(BrowserError::NoSuchElement { tab: TabId("t".into()), selector: "#x".into() }, tool)
    }

    fn timed_out(tool: ToolName) -> ToolError {
        ToolFailure::TimedOut { after: Duration::from_secs(15) }.of(tool)
    }

    #[test]
    fn a_timeout_a_missing_target_or_a_failed_navigation_may_pass_and_nothing_else() {
        assert!(timed_out(ToolName::Navigate).kind().may_pass());
        assert!(not_found(ToolName::Click).kind().may_pass());
        let refused = BrowserError::NavigationFailed { url: "http://a.test".into(), reason: "net".into() };
        assert!(browser(refused, ToolName::Navigate).kind().may_pass());
        assert!(!browser(BrowserError::Disconnected, ToolName::Click).kind().may_pass());
        assert!(!ToolFailure::NoFocusedTab.of(ToolName::Click).kind().may_pass());
        let passing: Vec<FailureKind> = FailureKind::ALL.iter().copied().filter(|k| k.may_pass()).collect();
        assert_eq!(passing, [FailureKind::NotFound, FailureKind::Timeout, FailureKind::NavigationFailed]);
    }

    #[test]
    fn what_only_looks_like_a_passing_failure_is_kept_without_a_word() {
        // Each is the answer of a tool the table never repeats; none is a failure that may
        // pass, so none is worth a "not retried" in the trace.
        let policy = RetryPolicy::default();
        let tab = || TabId("t".into());
        let expired = ToolFailure::WaitTimedOut { after: Duration::from_secs(1), misses: "#x".into() };
        let no_dialog = browser(BrowserError::NoDialog(tab()), ToolName::HandleDialog);
        let not_committed = ToolFailure::NotCommitted {
            tab: tab(),
            origin: "http://a.test".into(),
            timeout: Duration::from_secs(10),
            outcome: crate::agent::settle::SettleKind::Failed,
        };
        for (tool, error) in [
            (ToolName::WaitFor, expired.of(ToolName::WaitFor)),
            (ToolName::HandleDialog, no_dialog),
            (ToolName::OpenUrl, not_committed.of(ToolName::OpenUrl)),
        ] {
            assert_eq!(policy.decide(tool, &error, 0, false), RetryDecision::Keep { why: None }, "{error}");
        }
    }

    #[test]
    fn backoff_doubles_from_the_base() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.backoff(1), Duration::from_millis(250));
        assert_eq!(policy.backoff(2), Duration::from_millis(500));
        assert_eq!(policy.backoff(3), Duration::from_millis(1000));
    }

    #[test]
    fn a_missing_element_is_retried_twice_then_kept() {
        let policy = RetryPolicy::default();
        let e = not_found(ToolName::Click);
        assert_eq!(policy.decide(ToolName::Click, &e, 0, false), RetryDecision::Retry { after: policy.backoff(1) });
        assert_eq!(policy.decide(ToolName::Click, &e, 1, false), RetryDecision::Retry { after: policy.backoff(2) });
        assert_eq!(policy.decide(ToolName::Click, &e, 2, false), RetryDecision::Keep { why: None });
    }

    #[test]
    fn an_input_that_may_have_had_its_effect_is_never_repeated() {
        let policy = RetryPolicy::default();
        for tool in [ToolName::Click, ToolName::Type, ToolName::PressKey] {
            let kept = policy.decide(tool, &timed_out(tool), 0, false);
            assert_eq!(kept, RetryDecision::Keep { why: Some("the input may already have taken effect") });
            let navigated = policy.decide(tool, &not_found(tool), 0, true);
            assert_eq!(navigated, RetryDecision::Keep { why: Some("the page began to navigate after the input") });
        }
    }

    #[test]
    fn a_navigation_that_timed_out_is_retried_and_what_is_not_retryable_is_kept_silently() {
        let policy = RetryPolicy::default();
        assert!(matches!(
            policy.decide(ToolName::Navigate, &timed_out(ToolName::Navigate), 0, true),
            RetryDecision::Retry { .. }
        ));
        let gone = browser(BrowserError::TabGone(TabId("t".into())), ToolName::Navigate);
        assert_eq!(policy.decide(ToolName::Navigate, &gone, 0, false), RetryDecision::Keep { why: None });
        assert_eq!(
            RetryPolicy::OFF.decide(ToolName::Click, &not_found(ToolName::Click), 0, false),
            RetryDecision::Keep { why: None }
        );
    }

    #[test]
    fn an_answer_to_a_dialog_is_never_repeated() {
        let policy = RetryPolicy::default();
        let e = timed_out(ToolName::HandleDialog);
        let kept = policy.decide(ToolName::HandleDialog, &e, 0, false);
        assert_eq!(kept, RetryDecision::Keep { why: Some("the dialog may already have been answered") });
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_call_reports_its_phase_every_tick_and_is_cut_off_at_its_deadline() {
        let phase = Phase::default();
        let mut reports = Vec::new();
        let call = {
            let phase = phase.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(1200)).await;
                phase.set("the navigation to commit");
                std::future::pending::<()>().await;
            }
        };
        let out = watch(call, Duration::from_millis(1600), &phase, "click", |r| reports.push(r)).await;
        assert!(out.is_none());
        assert_eq!(
            reports,
            [
                "waiting for click (0.2 s)",
                "waiting for click (0.5 s)",
                "waiting for click (0.8 s)",
                "waiting for click (1.0 s)",
                "waiting for the navigation to commit (1.2 s)",
                "waiting for the navigation to commit (1.5 s)",
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_that_ends_in_time_gives_its_output_and_no_report_before_the_first_tick() {
        let mut reports = Vec::new();
        let out = watch(async { 7 }, Duration::from_secs(15), &Phase::default(), "wait", |r| reports.push(r)).await;
        assert_eq!(out, Some(7));
        assert!(reports.is_empty());
    }
}
