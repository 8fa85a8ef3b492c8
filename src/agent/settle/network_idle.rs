//! The wait for network idle (the reliability layer's `waitForNetworkIdle`): a tab is idle once it has had no
//! request in flight for the idle window. Long-lived streams (event streams, WebSockets) never
//! count, and neither does a request in flight for longer than [`REQUEST_CAP`] (a long poll, or a
//! stream we could not recognise), so a page with an endless stream still goes idle.
//!
//! [`IdleTracker`] is a pure state machine fed with the tab's request events (each stamped with
//! when the port received it) and the time; [`wait_for_network_idle`] drives it.

use crate::browser::{BrowserError, BrowserPort, RequestEvent, RequestEventKind, RequestId, TabId};
use std::collections::HashMap;
use std::time::Duration;
use tokio::time::Instant;

/// A request in flight longer than this no longer keeps the page busy.
pub(super) const REQUEST_CAP: Duration = Duration::from_secs(10);

#[derive(Clone, Debug)]
struct InFlight {
    started: Instant,
    url: String,
    stream: bool,
}

/// Where one tab's requests stand.
#[derive(Debug)]
pub(super) struct IdleTracker {
    idle: Duration,
    cap: Duration,
    in_flight: HashMap<RequestId, InFlight>,
    /// When a counted request last started, ended or stopped counting.
    last_change: Instant,
    /// Requests seen (a redirect is the same request).
    seen: usize,
}

/// Whether the tab is idle at a given time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum IdleState {
    Idle,
    /// Busy; with nothing new, look again at this time.
    BusyUntil(Instant),
}

impl IdleTracker {
    /// A tracker with nothing in flight since `since`.
    pub(super) fn new(idle: Duration, cap: Duration, since: Instant) -> Self {
        Self { idle, cap, in_flight: HashMap::new(), last_change: since, seen: 0 }
    }

    /// One request event of the tab, at its own time.
    pub(super) fn on_event(&mut self, event: &RequestEvent, at: Instant) {
        match event.kind {
            RequestEventKind::Sent => {
                if !self.in_flight.contains_key(&event.request) {
                    self.seen += 1;
                    let entry = InFlight { started: at, url: event.url.clone(), stream: event.stream };
                    self.in_flight.insert(event.request.clone(), entry);
                    if !event.stream {
                        self.last_change = at;
                    }
                }
            }
            RequestEventKind::ResponseStarted => {
                if let Some(request) = self.in_flight.get_mut(&event.request)
                    && event.stream
                    && !request.stream
                {
                    request.stream = true;
                    self.last_change = at;
                }
            }
            RequestEventKind::Completed | RequestEventKind::Failed => {
                if let Some(request) = self.in_flight.remove(&event.request)
                    && !request.stream
                {
                    self.last_change = at;
                }
            }
        }
    }

    /// The requests that keep the page busy at `now`.
    fn counted(&self, now: Instant) -> impl Iterator<Item = &InFlight> {
        self.in_flight.values().filter(move |r| !r.stream && now < r.started + self.cap)
    }

    pub(super) fn state(&self, now: Instant) -> IdleState {
        if let Some(expiry) = self.counted(now).map(|r| r.started + self.cap).min() {
            return IdleState::BusyUntil(expiry);
        }
        // A request that outlived the cap stopped counting when it reached it.
        let expired = self.in_flight.values().filter(|r| !r.stream).map(|r| r.started + self.cap).max();
        let quiet_since = expired.map_or(self.last_change, |e| e.max(self.last_change));
        let idle_at = quiet_since + self.idle;
        if now >= idle_at { IdleState::Idle } else { IdleState::BusyUntil(idle_at) }
    }

    /// The URLs still in flight and counted at `now` (for a timeout's message).
    pub(super) fn busy_urls(&self, now: Instant) -> Vec<String> {
        let mut urls: Vec<String> = self.counted(now).map(|r| r.url.clone()).collect();
        urls.sort();
        urls
    }

    /// How many requests the tracker saw.
    pub(super) fn seen(&self) -> usize {
        self.seen
    }
}

/// How a wait for network idle ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdleOutcome {
    Idle {
        /// How many requests of the tab the wait saw (those in flight when it began included).
        seen: usize,
    },
    TimedOut {
        /// What was still in flight.
        busy: Vec<String>,
    },
}

/// Waits until `tab` has had no counted request in flight for `idle`, at most `timeout`.
/// Requests already in flight when the wait begins count: the tab's whole request history is
/// replayed first.
pub async fn wait_for_network_idle(
    port: &dyn BrowserPort,
    tab: &TabId,
    idle: Duration,
    timeout: Duration,
) -> Result<IdleOutcome, BrowserError> {
    let log = port.request_log();
    let mut stream = log.subscribe_from(0);
    let origin = Instant::from_std(log.origin());
    let mut tracker = IdleTracker::new(idle, REQUEST_CAP, origin);
    let deadline = Instant::now() + timeout;
    loop {
        while let Some(event) = stream.try_next() {
            if event.tab == *tab {
                tracker.on_event(&event, Instant::from_std(event.at));
            }
        }
        let now = Instant::now();
        let wake = match tracker.state(now) {
            IdleState::Idle => return Ok(IdleOutcome::Idle { seen: tracker.seen() }),
            IdleState::BusyUntil(at) => at,
        };
        if now >= deadline {
            return Ok(IdleOutcome::TimedOut { busy: tracker.busy_urls(now) });
        }
        match tokio::time::timeout_at(wake.min(deadline), stream.next()).await {
            Ok(Ok(event)) if event.tab == *tab => tracker.on_event(&event, Instant::from_std(event.at)),
            Ok(Ok(_)) | Err(_) => {}
            Ok(Err(_)) => return Err(BrowserError::Disconnected),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_millis(500);

    fn ev(kind: RequestEventKind, id: &str, stream: bool) -> RequestEvent {
        RequestEvent::new(TabId::from("t"), kind, RequestId(id.into()), format!("http://a.test/{id}")).streaming(stream)
    }

    fn ms(start: Instant, n: u64) -> Instant {
        start + Duration::from_millis(n)
    }

    #[tokio::test(start_paused = true)]
    async fn idle_comes_an_idle_window_after_the_last_request_ends() {
        let t0 = Instant::now();
        let mut tracker = IdleTracker::new(IDLE, REQUEST_CAP, t0);
        tracker.on_event(&ev(RequestEventKind::Sent, "a", false), ms(t0, 0));
        tracker.on_event(&ev(RequestEventKind::Sent, "b", false), ms(t0, 10));
        assert_eq!(tracker.state(ms(t0, 100)), IdleState::BusyUntil(t0 + REQUEST_CAP));
        tracker.on_event(&ev(RequestEventKind::Completed, "a", false), ms(t0, 300));
        assert!(matches!(tracker.state(ms(t0, 900)), IdleState::BusyUntil(_)));
        tracker.on_event(&ev(RequestEventKind::Failed, "b", false), ms(t0, 400));
        assert_eq!(tracker.state(ms(t0, 899)), IdleState::BusyUntil(ms(t0, 900)));
        assert_eq!(tracker.state(ms(t0, 900)), IdleState::Idle);
        assert_eq!(tracker.seen(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_redirect_is_the_same_request() {
        let t0 = Instant::now();
        let mut tracker = IdleTracker::new(IDLE, REQUEST_CAP, t0);
        tracker.on_event(&ev(RequestEventKind::Sent, "a", false), ms(t0, 0));
        tracker.on_event(&ev(RequestEventKind::Sent, "a", false), ms(t0, 50));
        tracker.on_event(&ev(RequestEventKind::Completed, "a", false), ms(t0, 100));
        assert_eq!(tracker.seen(), 1);
        assert_eq!(tracker.state(ms(t0, 600)), IdleState::Idle);
    }

    #[tokio::test(start_paused = true)]
    async fn an_event_stream_never_counts_whether_known_at_once_or_by_its_response() {
        let t0 = Instant::now();
        let mut tracker = IdleTracker::new(IDLE, REQUEST_CAP, t0);
        tracker.on_event(&ev(RequestEventKind::Sent, "sse", true), ms(t0, 0));
        assert_eq!(tracker.state(ms(t0, 500)), IdleState::Idle);
        tracker.on_event(&ev(RequestEventKind::Sent, "ws", false), ms(t0, 600));
        tracker.on_event(&ev(RequestEventKind::ResponseStarted, "ws", true), ms(t0, 700));
        assert_eq!(tracker.state(ms(t0, 1199)), IdleState::BusyUntil(ms(t0, 1200)));
        assert_eq!(tracker.state(ms(t0, 1200)), IdleState::Idle);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_older_than_the_cap_stops_counting_at_the_cap() {
        let t0 = Instant::now();
        let mut tracker = IdleTracker::new(IDLE, REQUEST_CAP, t0);
        tracker.on_event(&ev(RequestEventKind::Sent, "poll", false), ms(t0, 0));
        assert_eq!(tracker.busy_urls(ms(t0, 1)), ["http://a.test/poll"]);
        let cap = t0 + REQUEST_CAP;
        assert_eq!(tracker.state(cap - Duration::from_millis(1)), IdleState::BusyUntil(cap));
        assert_eq!(tracker.state(cap), IdleState::BusyUntil(cap + IDLE));
        assert_eq!(tracker.state(cap + IDLE), IdleState::Idle);
        assert!(tracker.busy_urls(cap).is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_page_quiet_for_longer_than_the_window_is_idle_at_once() {
        let t0 = Instant::now();
        let tracker = IdleTracker::new(IDLE, REQUEST_CAP, t0);
        assert_eq!(tracker.state(ms(t0, 500)), IdleState::Idle);
    }
}
