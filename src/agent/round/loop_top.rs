//! The loop-top guard, before every snapshot: tab gone → stop; a navigation in flight → a
//! pending URL on another origin stops at once (fast-fail), otherwise wait for the commit; then
//! the restricted-URL check and the origin check.

use crate::agent::guards::is_restricted_url;
use crate::agent::guards::{safe_parse_origin, same_origin};
use crate::agent::round::GuardDecision;
use crate::agent::round::StopReason;
use crate::agent::round::{AgentConfig, InFlightTrigger};
use crate::agent::settle::UrlSettle;
use crate::agent::settle::{SettleOutcome, is_transient};
use crate::agent::tools::TaskTabs;
use crate::browser::{BrowserError, BrowserPort, TabId, TabInfo};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use url::Origin;

/// What the guard did and whether the round may go on.
#[derive(Clone, Debug)]
pub struct GuardResult {
    /// The tab's URL when the guard read it.
    pub read_url: String,
    pub decision: GuardDecision,
    pub waited: Duration,
    /// `Ok(url)`: observe the page at `url`; `Err`: stop the task.
    pub verdict: Result<String, StopReason>,
    /// The tab as the guard read it, and the event log's position just before the read, when
    /// the guard found nothing in flight: the wait for a quiet page starts from that read
    /// instead of reading the tab again.
    pub read: Option<(u64, TabInfo)>,
}

impl GuardResult {
    /// The guard itself did not end by its deadline (a browser that stopped answering).
    pub(in crate::agent) fn timed_out(after: Duration) -> Self {
        let cause = BrowserError::Timeout { op: "the loop-top guard".into(), after };
        Self {
            read_url: String::new(),
            decision: GuardDecision::Settled { outcome: crate::agent::settle::SettleOutcome::Timeout },
            waited: after,
            verdict: Err(StopReason::ObservationFailed { source: std::sync::Arc::new(cause) }),
            read: None,
        }
    }
}

/// Whether the tab is navigating, as `trigger` defines it.
pub(super) fn in_flight(info: &TabInfo, trigger: InFlightTrigger) -> bool {
    match trigger {
        InFlightTrigger::Seed => is_transient(&info.url),
        InFlightTrigger::Extended => is_transient(&info.url) || info.pending_url.is_some(),
    }
}

fn browser_stop(e: BrowserError) -> StopReason {
    if e.is_tab_gone() { StopReason::TabClosed } else { StopReason::browser(e) }
}

/// The settle outcome's meaning at the top of a round (docs/design/navigation-transients.md#the-error-matrix, left column).
fn verdict_of(outcome: &SettleOutcome) -> Result<String, StopReason> {
    match outcome {
        SettleOutcome::Committed { url } => Ok(url.clone()),
        SettleOutcome::OriginMismatch { .. } => Err(StopReason::OriginChanged),
        SettleOutcome::TabGone => Err(StopReason::TabClosed),
        // The design's decision: a timeout reuses the restricted-URL message.
        SettleOutcome::Timeout => Err(StopReason::Restricted),
        SettleOutcome::Aborted => Err(StopReason::User),
        // A blank tab that nothing will load is no page to operate: the same words, at once.
        SettleOutcome::Failed => Err(StopReason::Restricted),
    }
}

/// The standard checks, run whatever the guard did: restricted URL, then origin.
fn check_url(url: &str, pinned: Option<&Origin>) -> Result<String, StopReason> {
    if is_restricted_url(url) {
        return Err(StopReason::Restricted);
    }
    match pinned {
        Some(origin) if !same_origin(url, origin) => Err(StopReason::OriginChanged),
        _ => Ok(url.to_owned()),
    }
}

/// Where the loop-top guard's read of the tab comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GuardRead {
    /// The browser, whose answer comes after every event it sent before: the guard sees all
    /// that happened up to its read. A round of the loop reads so.
    #[default]
    Browser,
    /// What the port's events said so far, without a round trip; the browser is asked when they
    /// say nothing of the tab. What is still on its way comes in with the snapshot's answer,
    /// and a look that then finds the page began to leave looks again, reading the browser. A
    /// caller's call (MCP, the conformance steps) reads so: one round trip fewer each.
    Known,
}

/// Runs the guard on the task's focused tab, reading it as `how` says.
pub async fn loop_top_guard(
    port: &dyn BrowserPort,
    tabs: &TaskTabs,
    config: &AgentConfig,
    cancel: &CancellationToken,
    how: GuardRead,
) -> GuardResult {
    let Some(tab) = tabs.focused().cloned() else {
        return GuardResult {
            read_url: String::new(),
            decision: GuardDecision::NoTab,
            waited: Duration::ZERO,
            verdict: Ok(String::new()),
            read: None,
        };
    };
    let pinned = tabs.origin_of(&tab).cloned();
    // Subscribe before reading: a commit between the two is still seen.
    let from = port.position();
    let events = port.subscribe_from(from);
    let known = if how == GuardRead::Known { port.tab_known(&tab) } else { None };
    let read = match known {
        Some(info) => Ok(info),
        None => port.tab(&tab).await,
    };
    let info = match read {
        Ok(info) => info,
        Err(e) => {
            let decision = if config.loop_top_guard { GuardDecision::NotInFlight } else { GuardDecision::Off };
            return GuardResult {
                read_url: String::new(),
                decision,
                waited: Duration::ZERO,
                verdict: Err(browser_stop(e)),
                read: None,
            };
        }
    };
    let read_url = info.url.clone();
    if config.loop_top_guard
        && let Some(dialog) = &info.dialog
    {
        let decision = GuardDecision::Dialog { kind: dialog.kind };
        let verdict = check_url(&info.url, pinned.as_ref());
        return GuardResult { read_url, decision, waited: Duration::ZERO, verdict, read: None };
    }
    if !config.loop_top_guard || !in_flight(&info, config.in_flight_trigger) {
        let decision = if config.loop_top_guard { GuardDecision::NotInFlight } else { GuardDecision::Off };
        let verdict = check_url(&info.url, pinned.as_ref());
        let read = Some((from, info));
        return GuardResult { read_url, decision, waited: Duration::ZERO, verdict, read };
    }
    if let Some(pending) = fast_fail(&info, pinned.as_ref()) {
        let decision = GuardDecision::FastFail { pending_url: pending };
        return GuardResult {
            read_url,
            decision,
            waited: Duration::ZERO,
            verdict: Err(StopReason::OriginChanged),
            read: None,
        };
    }
    // A dialog that opens meanwhile (Chromium 156 starts a navigation, then its page asks
    // whether to leave) holds the navigation until it is answered: waiting for its commit
    // would only run out the settle timeout.
    let started = tokio::time::Instant::now();
    let dialog = dialog_opens(port, port.subscribe_from(from), &tab);
    tokio::select! {
        biased;
        // The settle's own verdict (a commit, another origin, Stop) is the fact: it wins; the
        // look after it finds the dialog open anyway.
        result = settle_then_check(port, tab.clone(), pinned.clone(), info, events, config, cancel) => result,
        kind = dialog => GuardResult {
            verdict: check_url(&read_url, pinned.as_ref()),
            read_url,
            decision: GuardDecision::Dialog { kind },
            waited: started.elapsed(),
            read: None,
        },
    }
}

/// Resolves once the page of `tab` has a dialog open, with its kind; never otherwise.
async fn dialog_opens(
    port: &dyn BrowserPort,
    mut events: crate::browser::EventStream,
    tab: &TabId,
) -> crate::browser::DialogKind {
    loop {
        match events.next().await {
            // Still open: the events from before the tab was read may hold one already answered.
            Ok(event) if event.tab == *tab && event.kind == crate::browser::NavEventKind::DialogOpened => {
                if let Some(dialog) = port.open_dialog(tab) {
                    return dialog.kind;
                }
            }
            Ok(_) => {}
            // The settle sees the same closed log and ends the guard.
            Err(_) => std::future::pending::<()>().await,
        }
    }
}

/// A pending URL on another origin than the pinned one: the design's fast-fail
/// (docs/design/navigation-transients.md#fast-fail-on-a-pending-url).
fn fast_fail(info: &TabInfo, pinned: Option<&Origin>) -> Option<String> {
    let pending = info.pending_url.as_ref()?;
    let pending_origin = safe_parse_origin(pending)?;
    (pinned? != &pending_origin).then(|| pending.clone())
}

async fn settle_then_check(
    port: &dyn BrowserPort,
    tab: TabId,
    pinned: Option<Origin>,
    info: TabInfo,
    events: crate::browser::EventStream,
    config: &AgentConfig,
    cancel: &CancellationToken,
) -> GuardResult {
    let read_url = info.url.clone();
    let settle = match &pinned {
        Some(origin) => UrlSettle::new(tab.clone(), origin.clone()),
        None => UrlSettle::any_origin(tab.clone()),
    };
    match settle.timeout(config.settle_timeout).wait_after_read(port, events, Ok(info), cancel).await {
        Err(e) => GuardResult {
            read_url,
            decision: GuardDecision::NotInFlight,
            waited: Duration::ZERO,
            verdict: Err(browser_stop(e)),
            read: None,
        },
        Ok(report) => {
            let verdict = verdict_of(&report.outcome).and_then(|url| check_url(&url, pinned.as_ref()));
            // Settled by the browser's events: what they say of the tab now is as good as a read
            // of it, and the look after goes on from here without asking the browser again.
            let from = port.position();
            let read = matches!(report.outcome, SettleOutcome::Committed { .. })
                .then(|| port.tab_known(&tab))
                .flatten()
                .map(|info| (from, info));
            GuardResult {
                read_url,
                decision: GuardDecision::Settled { outcome: report.outcome },
                waited: report.waited,
                verdict,
                read,
            }
        }
    }
}
