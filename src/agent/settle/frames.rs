//! How the agent tells that a page has gone quiet: by the page's own next frames (the default),
//! or by the navigation design's fixed quiet window.
//!
//! The frames: what an input or a load sets off begins in the page's next turns of its event
//! loop: a click handler's `fetch` or `location` change at once, a form's submission or a
//! framework's re-render in the next task or animation frame, a redirect on load in the load
//! event's own task. So once the page has drawn its next frame and run the task after it, what
//! it was going to start has started; and the probe's answer comes over the same ordered
//! channel as the browser's events, so the events of what started are in when it returns. An
//! action that started nothing is answered then, tens of milliseconds after it, instead of
//! after a fixed window; and nothing the page does later (its own polling) is waited for.

use crate::browser::{BrowserError, BrowserPort, NavEvent, NavEventKind, PageScript, TabId};
use serde_json::{Value, json};
use std::time::{Duration, SystemTime};

/// For a page that has just loaded: every soon-due timer it has pending is its load's.
pub(in crate::agent) const ANY_TIMER: Duration = Duration::from_secs(3600);

/// For an action: timers set this long before the wait began are still the action's (its
/// delivery took part of it).
pub(in crate::agent) const ACTION_TIMERS_MARGIN: Duration = Duration::from_millis(250);

/// How the agent tells that a page has gone quiet after an action or a load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiet {
    /// Once the page has drawn its next frame and run the task after it, and the timers it
    /// set to fire within half a second have ([`next_frames`]).
    Frames,
    /// Once no navigation event came for this long (the navigation design's `withActionSettle`
    /// window, 500 ms there): slower, and kept for pages whose scripts start things on timers
    /// a little after an action or a load.
    Window(Duration),
}

impl Quiet {
    /// The navigation design's window.
    pub const DESIGN_WINDOW: Duration = Duration::from_millis(500);

    /// The fixed window in force, if any.
    pub fn window(self) -> Option<Duration> {
        match self {
            Self::Frames => None,
            Self::Window(window) => Some(window),
        }
    }
}

/// The page's next frame and the task after it; then, where the page counts its timers (the
/// adapter's page watch), the soon-due timers set in the last `since` ms and pending now, and
/// the frame after them: what those timers start has begun then. A hidden page draws no
/// frames: the task after the current one stands for its frame (posted as a message, since
/// Firefox holds a hidden page's every timer for a second), and a timer of 100 ms ends the
/// wait for a frame a visible page does not draw. With `asked` (ms since the epoch), then the
/// reads of the answers' bodies of the requests its scripts asked for since then (at most
/// `readCap` ms), and those frames and timers again after them: what a script does with an
/// answer happens once its body is read. Its answer: the navigation the page said it began
/// meanwhile (the page watch's `{url, at}`, or null), the requests its scripts asked for since
/// `asked` that are not yet answered and those whose bodies it is still reading (their URLs);
/// and, when it did not begin to leave, what `then` gave, run then (null if it threw).
const NEXT_FRAMES: PageScript = crate::page_script!("next frames", "next_frames.js");

/// [`NEXT_FRAMES`] with the snapshot run once the frames passed, in the same round trip: its
/// fourth argument is the snapshot's limits, passed on to it.
const NEXT_FRAMES_THEN_SNAPSHOT: PageScript = PageScript {
    name: "next frames, then the snapshot",
    function: concat!(
        "async (since, asked, readCap, limits, shown) => {\n  const snapshot = ",
        include_str!("../closed_loop/snapshot.js"),
        ";\n  const probe = ",
        include_str!("next_frames.js"),
        ";\n  return await probe(since, asked, readCap, () => snapshot(limits), shown);\n}\n"
    ),
};

/// The most the probe waits for a page whose script keeps its event loop busy: then the page
/// is taken as it is.
const PROBE_DEADLINE: Duration = Duration::from_secs(2);

/// The most one probe waits for the page to read the answers' bodies of the requests its
/// scripts asked for: a body still coming after this is told, and the wait holds for the
/// browser's word of its end instead, with the probe well within its own deadline.
const READ_CAP: Duration = Duration::from_millis(500);

/// How long the browser's word of a navigation the page said it started may lag behind the
/// page's: Firefox ESR 153 sends it from another process, after answers the page gave at the
/// same moment. A start the browser never tells of (the page's own script stopped it) costs
/// this much, once.
pub(in crate::agent) const LEAVING_TOLD_GRACE: Duration = Duration::from_secs(2);

/// What the probe of the page's next frames comes after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::agent) enum After {
    /// An action of the agent's: the frames after it are waited for.
    Action,
    /// The page's being shown (a load, a return from the back/forward cache), which the agent
    /// did not cause or has not looked at since: frames already past since then count.
    Shown,
}

/// How the probe of the page's next frames ended.
#[derive(Debug)]
pub(in crate::agent) enum Frames {
    /// The page drew its next frame and ran the task after it (or its fallback timer fired);
    /// `leaving`: it said it began to leave meanwhile, and the browser's events of that
    /// navigation may not be in yet (wait for them, at most [`LEAVING_TOLD_GRACE`]). `asked`:
    /// the URLs of the requests the page's scripts asked for since the instant given and have
    /// not had answered yet, whose browser events may not be in yet either. `reading`: the URLs
    /// of those answered whose bodies the page was still reading at the probe's read cap.
    /// `then`: the snapshot taken once the frames passed, when one was asked for and the page
    /// was not leaving.
    Passed { leaving: bool, asked: Vec<String>, reading: Vec<String>, then: Option<serde_json::Value> },
    /// The page's event loop stayed busy past the probe's deadline.
    Busy,
    /// The page could not run the probe: a dialog holds it, or its document went (a
    /// navigation replaced it, the tab closed). The events say which.
    Held(BrowserError),
}

/// Waits for the page of `tab` to draw its next frame and run the task after it, and for the
/// soon-due timers it set in the last `since` to fire; with `asked_since`, asks which requests
/// the page's scripts began from then on and have not had answered; with `then` (the
/// snapshot's arguments), takes the snapshot once they passed, in the same round trip. With
/// [`After::Shown`], the probe is for what the page's being shown set off (its load, its return
/// from the back/forward cache): a next frame and a task after it that already passed since
/// then (the page watch counts them) are not waited for again; its soon-due timers still are.
pub(in crate::agent) async fn next_frames(
    port: &dyn BrowserPort,
    tab: &TabId,
    since: Duration,
    asked_since: Option<SystemTime>,
    then: Option<&Value>,
    after: After,
) -> Result<Frames, BrowserError> {
    let asked_since = asked_since.map_or(Value::Null, |at| json!(epoch_ms(at)));
    let ms = |d: Duration| json!(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let (script, then) = match then {
        Some(limits) => (&NEXT_FRAMES_THEN_SNAPSHOT, limits.clone()),
        None => (&NEXT_FRAMES, Value::Null),
    };
    let args = [ms(since), asked_since, ms(READ_CAP), then, json!(after == After::Shown)];
    match tokio::time::timeout(PROBE_DEADLINE, port.call(tab, script, &args)).await {
        Ok(Ok(answer)) => {
            let leaving = answer.get("leaving").is_some_and(|tell| told_leaving(port, tab, tell));
            let urls = |key: &str| {
                answer.get(key).and_then(serde_json::Value::as_array).map_or_else(Vec::new, |urls| {
                    urls.iter().filter_map(serde_json::Value::as_str).map(str::to_owned).collect()
                })
            };
            let then = answer.get("then").filter(|value| !value.is_null()).cloned();
            Ok(Frames::Passed { leaving, asked: urls("asked"), reading: urls("reading"), then })
        }
        Err(_) => Ok(Frames::Busy),
        Ok(Err(e)) if e.is_disconnected() => Err(e),
        Ok(Err(e)) => Ok(Frames::Held(e)),
    }
}

/// Milliseconds since the epoch, as a page's `Date.now()` counts them (on the same machine's
/// clock), rounded down as the page's are.
fn epoch_ms(at: SystemTime) -> u64 {
    at.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
}

/// Whether the page's tell (`{url, at}` from the page watch, or null) says it began to leave
/// with a navigation the browser has not yet shown to have ended where it was: a tell the
/// browser already told of and ended without a new document (a download, a 204, a stopped
/// load) leaves the page where it was, and there is nothing to wait for; the browser's word of
/// it may well have come before the look that reads the tell began.
pub(in crate::agent) fn told_leaving(port: &dyn BrowserPort, tab: &TabId, tell: &serde_json::Value) -> bool {
    if tell.is_null() {
        return false;
    }
    let Some(at) = tell.get("at").and_then(serde_json::Value::as_u64) else { return true };
    !told_and_ended(&port.events(), tab, at)
}

/// How much earlier than the page's tell the browser may stamp the start of the same navigation
/// (two clocks of one machine, each read a moment apart).
const TELL_SLACK_MS: u64 = 100;

/// Whether `events` hold the start of a navigation of `tab` at `at` (ms since the epoch) or
/// after, and its end without a commit.
pub(super) fn told_and_ended(events: &[NavEvent], tab: &TabId, at: u64) -> bool {
    let started = events.iter().find(|e| {
        e.tab == *tab && e.kind == NavEventKind::Started && e.browser_ts.is_some_and(|ts| ts + TELL_SLACK_MS >= at)
    });
    let Some(started) = started.filter(|e| e.navigation.is_some()) else { return false };
    events.iter().any(|e| {
        e.seq > started.seq
            && e.tab == *tab
            && e.navigation == started.navigation
            && matches!(e.kind, NavEventKind::Failed | NavEventKind::Aborted)
    })
}
