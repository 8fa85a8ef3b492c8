//! The action settle after click / type / press_key / handle_dialog: wait until what the action
//! itself started is done, then until the page has gone quiet ([`Quiet`]): by default until its
//! next frames have passed with nothing new begun, or, with the design's fixed window, until the
//! tab has had no navigation event for that window.
//!
//! By frames: the requests the page sent before its next frames after the action passed are
//! the action's; the wait holds until each is answered, then looks at the page's next frames
//! again, and ends once frames pass with nothing new. The browser's event of a request a
//! handler sent can come after the look at those frames (Chromium's network events take
//! another path than a script's answer, and lag behind it on a busy machine), so the look also
//! asks the page which requests its scripts began since the action and have not had answered
//! (the page watch): those the browser has not told of yet are waited for as the action's
//! (at most [`ASKED_TOLD_GRACE`], for a request the browser never reports as a network one).
//! A script goes on with an answer's data only once it has read the body, which can end long
//! after the headers: the look waits for the page's reads of the action's answers (a while),
//! and one still under way then holds the wait until the browser says its response ended.
//! A navigation that begins ends the wait at once: where it goes is the next look's to settle
//! (its guard waits for the commit), so an action that started nothing is answered in tens of
//! milliseconds and one that navigates is not held twice.
//!
//! By the window:
//! What the action started: the requests the page sent while the action was being delivered and
//! in a short follow window right after it ([`ACTION_FOLLOW`]): a click handler's `fetch`, say.
//! The wait holds until each of them is answered (its response has begun: where a script's
//! `await fetch(…)` goes on; Chromium never reports the end of a response whose body the page
//! does not read), and the quiet window runs again from each answer and each end, so a
//! navigation the handler starts once its request is answered (however long that took) is seen
//! and settled like any other. Requests the page sends later (a poll every 200 ms, the next
//! page's images) are not the action's and never hold the wait; documents are the navigations'
//! own to settle, and streams never end. The whole wait has a deadline of its own.
//!
//! [`ActionWait`] is a pure state machine fed with the tab's navigation and request events, the
//! frames passing and the clock; [`settle_action`] drives it.

use super::frames::{ACTION_TIMERS_MARGIN, After, Frames, LEAVING_TOLD_GRACE, Quiet, next_frames};
use super::page::LookedWith;
use crate::browser::{
    BrowserError, BrowserPort, EventStream, NavEventKind, RequestEvent, RequestEventKind, RequestId, RequestStream,
    TabId,
};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, SystemTime};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long after an action was delivered a request the page sends is still the action's. A
/// handler's `fetch` is reported within tens of milliseconds (Chromium 156: 2 to 160 ms on two
/// busy cores; Firefox ESR 153: while the input is delivered), so this leaves a wide margin,
/// while a page's own timers put only a few quick requests inside it (a poll every 200 ms: two
/// or three, which end at once). As long as the default quiet window and never longer than the
/// quiet window in force, so it never lengthens a wait by itself.
pub(in crate::agent) const ACTION_FOLLOW: Duration = Duration::from_millis(500);

/// How long the browser's event of a request the page says it asked for may lag behind the
/// page's word: a busy Chromium delivers it hundreds of milliseconds late. One the browser
/// never tells of (answered by a service worker) costs this much, once.
pub(in crate::agent) const ASKED_TOLD_GRACE: Duration = Duration::from_secs(2);

/// How an action settle ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::agent) enum ActionSettleEnd {
    /// The action's requests ended, and then the quiet window passed with no navigation event.
    Quiet,
    /// The settle cap was reached first (navigation events kept coming).
    Capped,
    /// The action deadline came while requests the action started were still in flight.
    Deadline,
    /// A navigation began (or the tab closed): where it goes is the next look's to settle.
    Leaving,
    /// The user stopped the task.
    Aborted,
    /// The page opened a dialog: nothing changes on it until the dialog is answered.
    Dialog,
}

/// The bounds of one action settle.
#[derive(Clone, Copy, Debug)]
pub(in crate::agent) struct ActionLimits {
    /// How the page is taken to have gone quiet.
    pub quiet: Quiet,
    /// The most the wait runs for navigation events once the action's requests are done.
    pub cap: Duration,
    /// The most the whole wait runs, whatever is in flight.
    pub deadline: Duration,
    /// With a fixed window: requests begun this long after the action's delivery are still the
    /// action's (at most the window). By frames, those begun before the next frames passed are.
    pub follow: Duration,
}

/// How an action settle ended, and what it saw of the action's requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::agent) struct ActionSettled {
    pub end: ActionSettleEnd,
    /// How many requests the action started.
    pub requests: usize,
    /// The URLs of those still in flight when the wait ended, sorted.
    pub pending: Vec<String>,
    /// When it ended quiet by a look at the page's next frames: what the script given to run
    /// in that look gave (the snapshot the call answers with).
    pub looked: Option<LookedWith>,
}

/// The wait's state machine, fed with events and the times they were read.
#[derive(Debug)]
pub(super) struct ActionWait {
    limits: ActionLimits,
    /// When the action had been delivered.
    started: Instant,
    /// Requests begun until then are the action's (`None`: by frames, until they pass).
    follow_until: Option<Instant>,
    /// The action's requests not yet answered, with their URLs.
    own: HashMap<RequestId, String>,
    /// The action's requests answered whose response has not ended yet, with their URLs: their
    /// end is activity (a handler that reads a long body goes on only then), but they hold
    /// nothing unless the page says it is reading their bodies (`reading`).
    answered: HashMap<RequestId, String>,
    /// Those of `answered` whose bodies the page said it was still reading: they hold the wait
    /// until the browser says their response ended.
    reading: HashSet<RequestId>,
    /// How many requests the action started.
    requests: usize,
    /// When a navigation event came or one of the action's requests ended, last.
    last_activity: Instant,
    /// When the action's last request ended: the settle cap runs from here.
    requests_done: Instant,
    /// A new document replaced the one the action was delivered to: what the page requests
    /// from now on is the new page's loading, not the action's.
    replaced: bool,
    /// How many requests to each URL the page sent since the action (the browser's events).
    sent: HashMap<String, usize>,
    /// Requests the page said it asked for since the action whose browser event has not come
    /// yet, by URL: the action's, waited for until `awaited_until`.
    awaited: HashMap<String, usize>,
    awaited_until: Option<Instant>,
}

impl ActionWait {
    /// The action was delivered at `started`; events before that (during its delivery) count.
    pub(super) fn new(started: Instant, limits: ActionLimits) -> Self {
        let follow_until = limits.quiet.window().map(|window| started + limits.follow.min(window));
        Self {
            limits,
            started,
            follow_until,
            own: HashMap::new(),
            answered: HashMap::new(),
            reading: HashSet::new(),
            requests: 0,
            last_activity: started,
            requests_done: started,
            replaced: false,
            sent: HashMap::new(),
            awaited: HashMap::new(),
            awaited_until: None,
        }
    }

    fn deadline_at(&self) -> Instant {
        self.started + self.limits.deadline
    }

    /// When the quiet window would end: never before the follow window has, so a request the
    /// action started is not missed for having been reported late. By frames, never: the
    /// frames passing decides.
    fn quiet_at(&self) -> Option<Instant> {
        let window = self.limits.quiet.window()?;
        Some((self.last_activity + window).max(self.follow_until.unwrap_or(self.started)))
    }

    /// The page's next frames after the action passed at `at`: requests it begins from now on
    /// are not the action's.
    pub(super) fn frames_passed(&mut self, at: Instant) {
        self.follow_until.get_or_insert(at);
    }

    /// No request the action started is still unanswered or its body still read by the page,
    /// nor one the page said it asked for still untold by the browser.
    pub(super) fn requests_answered(&self) -> bool {
        self.own.is_empty() && self.reading.is_empty() && self.awaited.is_empty()
    }

    /// The page said its scripts were still reading the bodies of answers to these URLs: those
    /// of the action's answered requests hold the wait until their response ends.
    pub(super) fn page_reading(&mut self, urls: &[String]) {
        if self.replaced {
            return;
        }
        let reading = self.answered.iter().filter(|(_, url)| urls.contains(url)).map(|(request, _)| request.clone());
        self.reading.extend(reading);
    }

    /// The page said, at `at`, that its scripts asked for these requests since the action and
    /// have not had them answered: those the browser has not told of yet are the action's, to
    /// be waited for (a URL asked twice is two requests).
    pub(super) fn page_asked(&mut self, urls: &[String], at: Instant) {
        if self.replaced {
            return;
        }
        let mut asked: HashMap<&str, usize> = HashMap::new();
        urls.iter().for_each(|url| *asked.entry(url.as_str()).or_default() += 1);
        for (url, count) in asked {
            let untold = count.saturating_sub(self.sent.get(url).copied().unwrap_or(0));
            if untold > 0 {
                self.awaited.insert(url.to_owned(), untold);
            }
        }
        if !self.awaited.is_empty() && self.awaited_until.is_none() {
            self.awaited_until = Some(at + ASKED_TOLD_GRACE);
        }
    }

    /// The grace for the browser's word of the requests the page said it asked for is over at
    /// `now`: those are no longer waited for.
    pub(super) fn forget_untold(&mut self, now: Instant) {
        if self.awaited_until.is_some_and(|until| now >= until) {
            self.awaited.clear();
            self.awaited_until = None;
        }
    }

    fn cap_at(&self) -> Instant {
        self.requests_done + self.limits.cap
    }

    /// When to look again.
    pub(super) fn wake_at(&self) -> Instant {
        if !self.own.is_empty() || !self.reading.is_empty() {
            self.deadline_at()
        } else if let (false, Some(until)) = (self.awaited.is_empty(), self.awaited_until) {
            until.min(self.deadline_at())
        } else {
            let limit = self.cap_at().min(self.deadline_at());
            self.quiet_at().map_or(limit, |quiet| quiet.min(limit))
        }
    }

    /// A navigation event of the tab at `at`. A new document (or a closed tab) ends the old
    /// document's requests (the browser cancels them with it), and the requests after it are
    /// the new document's.
    pub(super) fn on_navigation(&mut self, kind: NavEventKind, at: Instant) {
        self.last_activity = self.last_activity.max(at);
        if kind.proves_commit() || kind == NavEventKind::TabClosed {
            self.replaced = true;
            if !self.own.is_empty() {
                self.own.clear();
                self.requests_done = self.requests_done.max(at);
            }
            self.answered.clear();
            self.reading.clear();
            self.awaited.clear();
            self.awaited_until = None;
        }
    }

    /// A request event of the tab at `at`; true when it is an answer or an end of one of the
    /// action's requests (what the page goes on from).
    pub(super) fn on_request(&mut self, event: &RequestEvent, at: Instant) -> bool {
        match event.kind {
            RequestEventKind::Sent => {
                let following = self.follow_until.is_none_or(|until| at <= until);
                // A redirect sends the same request again: it is still the one request.
                let new = !event.document && !event.stream && !self.own.contains_key(&event.request);
                let awaited = new && self.take_awaited(&event.url);
                if new {
                    *self.sent.entry(event.url.clone()).or_default() += 1;
                }
                if new && !self.replaced && (following || awaited) {
                    self.own.insert(event.request.clone(), event.url.clone());
                    self.requests += 1;
                }
                false
            }
            // Answered: a script waiting for it goes on now (a stream, too, is answered).
            RequestEventKind::ResponseStarted => {
                let Some(url) = self.own.remove(&event.request) else { return false };
                self.answered.insert(event.request.clone(), url);
                self.on_request_activity(at);
                true
            }
            RequestEventKind::Completed | RequestEventKind::Failed => {
                let unanswered = self.own.remove(&event.request).is_some();
                self.reading.remove(&event.request);
                let ended = self.answered.remove(&event.request).is_some() || unanswered;
                if ended {
                    self.on_request_activity(at);
                }
                ended
            }
        }
    }

    /// Whether a request to `url` was one the page said it asked for and the browser had not
    /// told of yet; it is told of now.
    fn take_awaited(&mut self, url: &str) -> bool {
        let Some(count) = self.awaited.get_mut(url) else { return false };
        *count -= 1;
        if *count == 0 {
            self.awaited.remove(url);
        }
        if self.awaited.is_empty() {
            self.awaited_until = None;
        }
        true
    }

    fn on_request_activity(&mut self, at: Instant) {
        self.last_activity = self.last_activity.max(at);
        self.requests_done = self.requests_done.max(at);
    }

    /// The time is `now`: ended?
    pub(super) fn on_time(&self, now: Instant) -> Option<ActionSettleEnd> {
        if now >= self.deadline_at() {
            return Some(if self.requests_answered() { ActionSettleEnd::Capped } else { ActionSettleEnd::Deadline });
        }
        if !self.requests_answered() {
            None
        } else if now >= self.cap_at() {
            Some(ActionSettleEnd::Capped)
        } else if self.quiet_at().is_some_and(|quiet| now >= quiet) {
            Some(ActionSettleEnd::Quiet)
        } else {
            None
        }
    }

    /// How the wait ended with `end`, and what it saw of the action's requests.
    pub(super) fn settled(&self, end: ActionSettleEnd) -> ActionSettled {
        let mut pending: Vec<String> = self.own.values().cloned().collect();
        pending.extend(self.reading.iter().filter_map(|request| self.answered.get(request).cloned()));
        pending.extend(self.awaited.iter().flat_map(|(url, count)| std::iter::repeat_n(url.clone(), *count)));
        pending.sort();
        ActionSettled { end, requests: self.requests, pending, looked: None }
    }
}

/// The event streams an action settle reads, taken before the action so that nothing it
/// starts is missed.
#[derive(Debug)]
pub(in crate::agent) struct ActionStreams {
    navigations: EventStream,
    requests: RequestStream,
    /// When they were taken: the requests the page's scripts ask for from then on may be the
    /// action's.
    taken: SystemTime,
}

impl ActionStreams {
    /// Both streams from now on.
    pub(in crate::agent) fn subscribe(port: &dyn BrowserPort) -> Self {
        let taken = SystemTime::now();
        Self { navigations: port.subscribe(), requests: port.request_log().subscribe(), taken }
    }

    /// Both streams from positions taken earlier (navigation events, request events), at
    /// `taken`.
    pub(in crate::agent) fn from(port: &dyn BrowserPort, navigations: u64, requests: u64, taken: SystemTime) -> Self {
        Self {
            navigations: port.subscribe_from(navigations),
            requests: port.request_log().subscribe_from(requests),
            taken,
        }
    }
}

/// Waits after an action on `tab` that has just been delivered, with streams taken before it;
/// a dialog the page opens ends the wait at once. By frames, with `look` (the snapshot's
/// arguments) the snapshot is taken in each look at the page's next frames, and what the last
/// one gave comes with a quiet end: the caller's answer needs no round trip of its own.
pub(in crate::agent) async fn settle_action(
    port: &dyn BrowserPort,
    streams: ActionStreams,
    tab: &TabId,
    limits: ActionLimits,
    cancel: &CancellationToken,
    look: Option<&serde_json::Value>,
) -> Result<ActionSettled, BrowserError> {
    let ActionStreams { mut navigations, mut requests, taken } = streams;
    let by_frames = limits.quiet == Quiet::Frames;
    let mut wait = ActionWait::new(Instant::now(), limits);
    // By frames: the probe of the page's next frames in flight, and whether anything of the
    // action's happened since it began (then the frames after it are looked at again).
    let since = |wait: &ActionWait| wait.started.elapsed() + ACTION_TIMERS_MARGIN;
    let mut probe_position = port.position();
    let mut probe = by_frames.then(|| Box::pin(next_frames(port, tab, since(&wait), Some(taken), look, After::Action)));
    // What the last look's script gave, with where the events stood when it was sent.
    let mut looked: Option<LookedWith> = None;
    let mut stirred = false;
    let mut held = false;
    // Set when the page said it began to leave: until when the browser's word of it (which
    // ends the wait as leaving) is waited for.
    let mut told: Option<Instant> = None;
    loop {
        // Events first: what already happened is taken in before the clock decides. Each is
        // timed as it is read (on the tokio clock, which a test may pause): those the action's
        // delivery produced are read first, at the wait's start, inside the follow window.
        let end = tokio::select! {
            biased;
            () = cancel.cancelled() => Some(ActionSettleEnd::Aborted),
            event = navigations.next() => match event {
                Ok(e) if e.tab == *tab && e.kind == NavEventKind::DialogOpened => Some(ActionSettleEnd::Dialog),
                // A dialog closing (answered by the action itself, or by the user) changes
                // neither the document nor its loading: what the page's script does once it
                // resumes shows as its own events, and in the frames after it.
                Ok(e) if e.tab == *tab && e.kind == NavEventKind::DialogClosed => None,
                Ok(e) if by_frames && e.tab == *tab && matches!(e.kind, NavEventKind::Started | NavEventKind::TabClosed) => {
                    Some(ActionSettleEnd::Leaving)
                }
                Ok(e) if e.tab == *tab => {
                    wait.on_navigation(e.kind, Instant::now());
                    stirred = true;
                    None
                }
                Ok(_) => None,
                Err(_) => return Err(BrowserError::Disconnected),
            },
            event = requests.next() => match event {
                Ok(e) if e.tab == *tab => {
                    let before = wait.requests;
                    stirred |= wait.on_request(&e, Instant::now());
                    if wait.requests > before {
                        let after_ms = wait.started.elapsed().as_millis();
                        tracing::debug!(target: "navguard::action", url = %e.url, after_ms, "a request the action started");
                    }
                    None
                }
                Ok(_) => None,
                Err(_) => return Err(BrowserError::Disconnected),
            },
            frames = async { probe.as_mut().expect("polled only while in flight").await }, if probe.is_some() => {
                probe = None;
                wait.frames_passed(Instant::now());
                match frames? {
                    Frames::Passed { leaving, asked, reading, then } => {
                        looked = then.map(|value| LookedWith { position: probe_position, value });
                        wait.page_asked(&asked, Instant::now());
                        wait.page_reading(&reading);
                        if leaving {
                            told = Some(Instant::now() + LEAVING_TOLD_GRACE);
                        }
                        None
                    }
                    Frames::Busy => None,
                    Frames::Held(e) if e.is_dialog_open() => Some(ActionSettleEnd::Dialog),
                    // The document went: the navigation's events are on their way; look once
                    // more. A page that cannot run the probe at all (its script broke it) is
                    // taken as it is the second time, not probed until the cap.
                    Frames::Held(_) => {
                        stirred |= !held;
                        held = true;
                        None
                    }
                }
            },
            () = tokio::time::sleep_until(wait.wake_at()) => {
                wait.forget_untold(Instant::now());
                wait.on_time(Instant::now())
            }
            () = async { tokio::time::sleep_until(told.expect("polled only while set")).await }, if told.is_some() => {
                told = None;
                None
            }
        };
        if let Some(end) = end {
            return Ok(wait.settled(end));
        }
        if by_frames && probe.is_none() && told.is_none() && wait.requests_answered() {
            if !stirred {
                return Ok(ActionSettled { looked, ..wait.settled(ActionSettleEnd::Quiet) });
            }
            stirred = false;
            looked = None;
            probe_position = port.position();
            probe = Some(Box::pin(next_frames(port, tab, since(&wait), Some(taken), look, After::Action)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: ActionLimits = ActionLimits {
        quiet: Quiet::Window(Duration::from_millis(500)),
        cap: Duration::from_millis(3000),
        deadline: Duration::from_millis(8000),
        follow: Duration::from_millis(500),
    };

    fn ms(t0: Instant, n: u64) -> Instant {
        t0 + Duration::from_millis(n)
    }

    fn request(kind: RequestEventKind, id: &str) -> RequestEvent {
        RequestEvent::new(TabId::from("t"), kind, RequestId(id.into()), format!("http://a.test/{id}"))
    }

    /// The first instant from `from` on, in steps of 1 ms up to `until`, at which the wait ends.
    fn ends_at(wait: &ActionWait, t0: Instant, from: u64, until: u64) -> Option<(u64, ActionSettleEnd)> {
        (from..=until).find_map(|n| wait.on_time(ms(t0, n)).map(|end| (n, end)))
    }

    #[test]
    fn ends_quiet_after_the_window_with_no_event() {
        let t0 = Instant::now();
        let w = ActionWait::new(t0, LIMITS);
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((500, ActionSettleEnd::Quiet)));
        assert_eq!(w.wake_at(), ms(t0, 500));
    }

    #[test]
    fn a_navigation_event_restarts_the_quiet_window() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_navigation(NavEventKind::Started, ms(t0, 400));
        assert_eq!(w.wake_at(), ms(t0, 900));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((900, ActionSettleEnd::Quiet)));
    }

    #[test]
    fn a_page_busy_navigating_is_capped() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        (1..=12).for_each(|i| w.on_navigation(NavEventKind::Started, ms(t0, 250 * i)));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((3000, ActionSettleEnd::Capped)));
    }

    #[test]
    fn the_actions_request_holds_the_wait_and_the_navigation_it_leads_to_is_seen() {
        // A click handler fetches (reported 40 ms after delivery), the answer takes 2.5 s, then
        // the handler sets location: the navigation starts 5 ms after the answer. The page never
        // reads the body, so Chromium never reports the response's end.
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "save"), ms(t0, 40));
        assert_eq!(ends_at(&w, t0, 0, 2539), None, "ended while the click's own request was in flight");
        assert_eq!(w.wake_at(), ms(t0, 8000));
        w.on_request(&request(RequestEventKind::ResponseStarted, "save"), ms(t0, 2540));
        assert_eq!(w.wake_at(), ms(t0, 3040));
        w.on_navigation(NavEventKind::Started, ms(t0, 2545));
        w.on_navigation(NavEventKind::Committed, ms(t0, 2600));
        w.on_navigation(NavEventKind::Load, ms(t0, 2650));
        assert_eq!(ends_at(&w, t0, 2540, 10_000), Some((3150, ActionSettleEnd::Quiet)));
        assert_eq!(
            w.settled(ActionSettleEnd::Quiet),
            ActionSettled { end: ActionSettleEnd::Quiet, requests: 1, pending: Vec::new(), looked: None }
        );
    }

    #[test]
    fn the_end_of_an_answered_requests_long_body_restarts_the_quiet_window() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "report"), ms(t0, 10));
        w.on_request(&request(RequestEventKind::ResponseStarted, "report"), ms(t0, 100));
        assert_eq!(w.wake_at(), ms(t0, 600));
        w.on_request(&request(RequestEventKind::Completed, "report"), ms(t0, 450));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((950, ActionSettleEnd::Quiet)));
    }

    #[test]
    fn a_request_begun_while_the_action_was_delivered_is_the_actions() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(ms(t0, 100), LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "early"), ms(t0, 60));
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 1);
    }

    #[test]
    fn the_pages_own_polling_after_the_follow_window_never_holds_the_wait() {
        // A poll every 200 ms, each answered in 10 ms but the sixth, which hangs: the three in
        // the follow window count and end at once; the later ones are the page's own.
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        for i in 0..40_u64 {
            let id = format!("poll{i}");
            w.on_request(&request(RequestEventKind::Sent, &id), ms(t0, 50 + 200 * i));
            if i != 5 {
                w.on_request(&request(RequestEventKind::Completed, &id), ms(t0, 60 + 200 * i));
            }
        }
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((960, ActionSettleEnd::Quiet)));
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 3);
    }

    #[test]
    fn a_document_or_a_stream_is_not_the_actions_to_wait_for() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "doc").loading_document(true), ms(t0, 10));
        w.on_request(&request(RequestEventKind::Sent, "sse").streaming(true), ms(t0, 20));
        w.on_request(&request(RequestEventKind::Sent, "ws"), ms(t0, 30));
        w.on_request(&request(RequestEventKind::ResponseStarted, "ws").streaming(true), ms(t0, 40));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((540, ActionSettleEnd::Quiet)));
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 1);
    }

    #[test]
    fn a_redirected_request_is_one_request() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "r"), ms(t0, 10));
        w.on_request(&request(RequestEventKind::Sent, "r"), ms(t0, 400));
        w.on_request(&request(RequestEventKind::Failed, "r"), ms(t0, 600));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((1100, ActionSettleEnd::Quiet)));
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 1);
    }

    #[test]
    fn a_request_that_never_ends_is_cut_at_the_deadline_and_named() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "held"), ms(t0, 20));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((8000, ActionSettleEnd::Deadline)));
        let settled = w.settled(ActionSettleEnd::Deadline);
        assert_eq!(settled.pending, ["http://a.test/held"]);
    }

    #[test]
    fn the_cap_runs_from_the_end_of_the_actions_requests() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "slow"), ms(t0, 20));
        w.on_request(&request(RequestEventKind::Completed, "slow"), ms(t0, 4000));
        (1..=12).for_each(|i| w.on_navigation(NavEventKind::Started, ms(t0, 4000 + 250 * i)));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((7000, ActionSettleEnd::Capped)));
    }

    #[test]
    fn a_new_document_ends_the_old_ones_requests() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, LIMITS);
        w.on_request(&request(RequestEventKind::Sent, "beacon"), ms(t0, 10));
        w.on_navigation(NavEventKind::Started, ms(t0, 20));
        w.on_navigation(NavEventKind::Committed, ms(t0, 100));
        // The new document's own loading (its icon), inside the follow window, is not the action's.
        w.on_request(&request(RequestEventKind::Sent, "favicon.ico"), ms(t0, 150));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((600, ActionSettleEnd::Quiet)));
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 1);
    }

    #[test]
    fn a_short_quiet_window_shortens_the_follow_window_too() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, ActionLimits { quiet: Quiet::Window(Duration::from_millis(20)), ..LIMITS });
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((20, ActionSettleEnd::Quiet)));
        w.on_request(&request(RequestEventKind::Sent, "late"), ms(t0, 25));
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 0);
    }

    const BY_FRAMES: ActionLimits = ActionLimits { quiet: Quiet::Frames, ..LIMITS };

    #[test]
    fn by_frames_the_clock_alone_never_ends_the_wait_quiet() {
        let t0 = Instant::now();
        let w = ActionWait::new(t0, BY_FRAMES);
        // Only the cap and the deadline are the clock's: the frames passing decides the rest.
        assert_eq!(w.wake_at(), ms(t0, 3000));
        assert_eq!(ends_at(&w, t0, 0, 10_000), Some((3000, ActionSettleEnd::Capped)));
    }

    #[test]
    fn by_frames_the_requests_begun_before_the_frames_passed_are_the_actions() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, BY_FRAMES);
        // Reported late (900 ms, on a busy machine) but before the frames passed: the action's.
        w.on_request(&request(RequestEventKind::Sent, "save"), ms(t0, 900));
        w.frames_passed(ms(t0, 950));
        w.on_request(&request(RequestEventKind::Sent, "poll"), ms(t0, 960));
        assert!(!w.requests_answered());
        assert!(w.on_request(&request(RequestEventKind::ResponseStarted, "save"), ms(t0, 1500)));
        assert!(w.requests_answered());
        assert!(!w.on_request(&request(RequestEventKind::Completed, "poll"), ms(t0, 1600)));
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 1);
    }

    #[test]
    fn a_request_the_page_asked_for_before_the_browser_told_of_it_holds_the_wait() {
        // The handler's fetch: the page says it asked for it when the frames passed (400 ms),
        // the browser's event of it comes at 700 ms, its answer at 1500 ms. A poll the browser
        // already told of is not waited for twice.
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, BY_FRAMES);
        w.on_request(&request(RequestEventKind::Sent, "poll"), ms(t0, 100));
        w.on_request(&request(RequestEventKind::ResponseStarted, "poll"), ms(t0, 150));
        w.frames_passed(ms(t0, 400));
        w.page_asked(&["http://a.test/save".to_owned(), "http://a.test/poll".to_owned()], ms(t0, 400));
        assert!(!w.requests_answered(), "the wait ended before the browser told of the page's request");
        assert_eq!(w.wake_at(), ms(t0, 400) + ASKED_TOLD_GRACE);
        w.on_request(&request(RequestEventKind::Sent, "save"), ms(t0, 700));
        assert!(!w.requests_answered());
        assert_eq!(w.wake_at(), ms(t0, 8000), "the told request is the action's, held to the deadline");
        assert!(w.on_request(&request(RequestEventKind::ResponseStarted, "save"), ms(t0, 1500)));
        assert!(w.requests_answered());
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 2);
    }

    #[test]
    fn a_request_the_browser_never_tells_of_is_waited_for_only_its_grace() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, BY_FRAMES);
        w.frames_passed(ms(t0, 300));
        w.page_asked(&["http://a.test/worker".to_owned()], ms(t0, 300));
        let grace_over = ms(t0, 300) + ASKED_TOLD_GRACE;
        w.forget_untold(grace_over - Duration::from_millis(1));
        assert_eq!(w.on_time(grace_over - Duration::from_millis(1)), None);
        assert_eq!(w.settled(ActionSettleEnd::Deadline).pending, vec!["http://a.test/worker".to_owned()]);
        w.forget_untold(grace_over);
        assert!(w.requests_answered());
        assert_eq!(w.settled(ActionSettleEnd::Quiet).requests, 0);
    }

    #[test]
    fn a_body_the_page_is_still_reading_holds_the_wait_until_the_response_ends() {
        // The handler's fetch is answered at 100 ms (its headers), its body ends at 900 ms; the
        // look at 600 ms finds the page still reading it. A poll's body read holds nothing.
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, BY_FRAMES);
        w.on_request(&request(RequestEventKind::Sent, "data"), ms(t0, 10));
        w.frames_passed(ms(t0, 50));
        w.on_request(&request(RequestEventKind::Sent, "poll"), ms(t0, 60));
        assert!(w.on_request(&request(RequestEventKind::ResponseStarted, "data"), ms(t0, 100)));
        assert!(w.requests_answered());
        w.page_reading(&["http://a.test/data".to_owned(), "http://a.test/poll".to_owned()]);
        assert!(!w.requests_answered(), "the wait ended while the page read the action's answer");
        assert_eq!(w.wake_at(), ms(t0, 8000));
        assert_eq!(w.settled(ActionSettleEnd::Deadline).pending, vec!["http://a.test/data".to_owned()]);
        assert!(w.on_request(&request(RequestEventKind::Completed, "data"), ms(t0, 900)));
        assert!(w.requests_answered());
        assert_eq!(w.settled(ActionSettleEnd::Quiet).pending, Vec::<String>::new());
    }

    #[test]
    fn a_read_the_browser_already_saw_end_holds_nothing() {
        let t0 = Instant::now();
        let mut w = ActionWait::new(t0, BY_FRAMES);
        w.on_request(&request(RequestEventKind::Sent, "data"), ms(t0, 10));
        w.on_request(&request(RequestEventKind::ResponseStarted, "data"), ms(t0, 100));
        w.on_request(&request(RequestEventKind::Completed, "data"), ms(t0, 120));
        w.page_reading(&["http://a.test/data".to_owned()]);
        assert!(w.requests_answered());
    }

    /// The driver on a simulated browser and a paused clock: the click's request is answered
    /// after 2.5 s, then the handler navigates; a poll the page sends meanwhile and never
    /// answers holds nothing.
    #[tokio::test(start_paused = true)]
    async fn the_driver_waits_for_the_actions_request_then_the_navigation_it_led_to() {
        let sim = crate::browser::SimPort::new();
        let tab = sim.create_tab("http://a.test/", true).await.unwrap();
        sim.commit(&tab);
        let streams = ActionStreams::subscribe(&sim);
        let log = sim.request_log();
        let on = |tab: &TabId, kind, id: &str| RequestEvent::new(tab.clone(), kind, RequestId(id.into()), id);
        log.append(on(&tab, RequestEventKind::Sent, "save"));
        let page = {
            let (sim, tab) = (sim.clone(), tab.clone());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(1000)).await;
                log.append(on(&tab, RequestEventKind::Sent, "poll"));
                tokio::time::sleep(Duration::from_millis(1500)).await;
                log.append(on(&tab, RequestEventKind::Completed, "save"));
                tokio::time::sleep(Duration::from_millis(5)).await;
                sim.start(&tab, "http://a.test/next");
            })
        };
        let started = Instant::now();
        let settled = settle_action(&sim, streams, &tab, LIMITS, &CancellationToken::new(), None).await.unwrap();
        page.await.unwrap();
        assert_eq!(
            settled,
            ActionSettled { end: ActionSettleEnd::Quiet, requests: 1, pending: Vec::new(), looked: None }
        );
        assert_eq!(started.elapsed(), Duration::from_millis(3005));
    }
}
