//! Observe only a settled page (docs/design/closed-loop.md): after a commit the round waits until the page has
//! loaded and gone quiet — no navigation started — by its next frames or for the quiet window.
//! Pages that redirect themselves right after their load (a script on load, a meta refresh of
//! 0, a sign-in bounce) show their navigation by then, and are then handled as in flight.

use super::frames::{ANY_TIMER, After, Frames, LEAVING_TOLD_GRACE, Quiet, next_frames};
use super::network_idle::REQUEST_CAP;
use crate::browser::{
    BrowserError, BrowserPort, NavEvent, NavEventKind, RequestEvent, RequestEventKind, RequestId, TabId, TabInfo,
};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long a page whose own document and resources are in waits for its frames' documents
/// before it counts as loaded: the page's load event waits for every frame, and a frame whose
/// server never answers (an ad, a widget) holds it back for good. A frame that answers within
/// it is shown loaded.
const FRAMES_GRACE: Duration = Duration::from_millis(1000);

/// How long a frame's document, asked for and not yet answered and read, holds the page's look
/// back: on a busy machine a frame's server answers a second or more after the page's own
/// resources are in (Firefox ESR 153 beside a test run: its document committed 0.8 s after the
/// page's DOM, and the look taken at the grace had the frame empty). A frame whose server never
/// answers is given up after this.
const FRAME_DOCUMENT_CAP: Duration = Duration::from_millis(3000);

/// How the wait for a quiet page ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageState {
    /// Loaded, and no navigation started for the quiet window: observe it.
    Quiet,
    /// A navigation started: the page is leaving; settle it first.
    Leaving,
    /// The page has a dialog open: it will not change until the dialog is answered.
    Blocked,
}

/// Waits until `tab` has loaded and gone quiet after its load (by `quiet`: its next frames, or
/// no navigation for a window), at most `limit` (a page still loading at the limit is observed
/// as it is). A page that loaded longer than the design's window ago, or before `seen_quiet`
/// (when a wait last found it quiet), costs one tab read, or none when `read` is a read of the
/// tab just made (by the loop-top guard), with the event log's position before it: the events
/// since then are gone through as they would be after a read of its own. A page that says it
/// began to leave (its next frames' answer) is leaving once the browser tells of it too.
pub async fn wait_for_quiet_page(
    port: &dyn BrowserPort,
    tab: &TabId,
    quiet: Quiet,
    limit: Duration,
    seen_quiet: Option<Instant>,
    read: Option<(u64, TabInfo)>,
) -> Result<PageState, BrowserError> {
    wait_then_look(port, tab, quiet, limit, seen_quiet, read, None).await.map(|(state, _)| state)
}

/// What a script run in the same round trip as the look at the page's next frames gave (the
/// look's snapshot), and the event log's position when it was sent: events from there on are
/// the ones it may have missed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::agent) struct LookedWith {
    pub position: u64,
    pub value: serde_json::Value,
}

/// [`wait_for_quiet_page`]; when the page is found quiet by a look at its next frames, with
/// `then` (the snapshot's arguments) the snapshot is taken in that same look, and given with
/// the state, which saves the caller a round trip to the page.
pub(in crate::agent) async fn wait_then_look(
    port: &dyn BrowserPort,
    tab: &TabId,
    quiet: Quiet,
    limit: Duration,
    seen_quiet: Option<Instant>,
    read: Option<(u64, TabInfo)>,
    then: Option<&serde_json::Value>,
) -> Result<(PageState, Option<LookedWith>), BrowserError> {
    let state = |state| Ok((state, None));
    let (mut events, info) = match read.filter(|(_, info)| info.id == *tab) {
        Some((from, info)) => (port.subscribe_from(from), info),
        None => {
            let events = port.subscribe_from(port.position());
            (events, port.tab(tab).await?)
        }
    };
    if info.dialog.is_some() {
        return state(PageState::Blocked);
    }
    if info.pending_url.is_some() {
        return state(PageState::Leaving);
    }
    let mut loaded_at = if info.loading { None } else { last_load(&port.events(), tab) };
    // A page still loading is loaded once only its frames' documents hold its load event back
    // and the grace for them has passed: looked at now, and again whenever the page's own
    // events or requests move (the logs are read whole, so not on another tab's).
    let requests = port.request_log();
    let mut request_events = info.loading.then(|| requests.subscribe_from(requests.len()));
    let frames_only_now = || loaded_but_for_frames(&port.events(), &requests.snapshot_from(0), tab, Instant::now());
    let mut frames_only = if info.loading { frames_only_now() } else { None };
    if let Some(at) = frames_only.filter(|at| *at <= Instant::now()) {
        loaded_at = Some(at);
    }
    if !info.loading && loaded_at.is_none() {
        // The port saw no load of this page: it loaded before the port was there.
        return state(PageState::Quiet);
    }
    if quiet == Quiet::Frames && loaded_at.zip(seen_quiet).is_some_and(|(loaded, seen)| loaded < seen) {
        // Found quiet after this load already: what the load set off had begun by then.
        return state(PageState::Quiet);
    }
    let deadline = Instant::now() + limit;
    let window = quiet.window().unwrap_or(Quiet::DESIGN_WINDOW);
    // By frames, one probe per load: what the load sets off has begun once its next frames
    // passed. One the page could not run (a dialog, a navigation) leaves it to the events.
    let mut probe = None;
    let mut probe_position = 0;
    let mut held = false;
    // Set when the page said it began to leave: until when the browser's word of it is waited
    // for (a start it never tells of was stopped by the page: it stays).
    let mut told: Option<Instant> = None;
    loop {
        // Not loaded yet: when only its frames' documents are still coming, it is by the grace.
        if loaded_at.is_none()
            && let Some(at) = frames_only.filter(|at| *at <= Instant::now())
        {
            loaded_at = Some(at);
        }
        let until = match told {
            Some(at) => at.min(deadline),
            // A probe in flight ends by its own bound: it waits for the soon-due timers the page
            // set, and a page in a tab behind another has those held back (Firefox fires none
            // sooner than a second after it was set), past the window. Cut short, the page would
            // be taken as quiet just before its own redirect.
            None if probe.is_some() => deadline,
            None => match (loaded_at, frames_only) {
                (Some(at), _) => (at + window).min(deadline),
                (None, Some(at)) => at.min(deadline),
                (None, None) => deadline,
            },
        };
        if Instant::now() >= until {
            return state(PageState::Quiet);
        }
        if quiet == Quiet::Frames && loaded_at.is_some() && probe.is_none() && !held && told.is_none() {
            probe_position = port.position();
            probe = Some(Box::pin(next_frames(port, tab, ANY_TIMER, None, then, After::Shown)));
        }
        let next = tokio::select! {
            biased;
            event = tokio::time::timeout_at(until.into(), events.next()) => event.ok(),
            request = async { request_events.as_mut().expect("polled only while waiting for a load").next().await },
                if loaded_at.is_none() && request_events.is_some() =>
            {
                // A request of the page began or ended: whether only frames are left is
                // looked at again. A closed log has nothing more to say.
                match request {
                    Ok(request) if request.tab == *tab => frames_only = frames_only_now(),
                    Ok(_) => {}
                    Err(_) => (request_events, frames_only) = (None, None),
                }
                None
            },
            frames = async { probe.as_mut().expect("polled only while in flight").await }, if probe.is_some() => {
                probe = None;
                match frames? {
                    Frames::Passed { leaving: false, then, .. } => {
                        let looked = then.map(|value| LookedWith { position: probe_position, value });
                        return Ok((PageState::Quiet, looked));
                    }
                    Frames::Busy => return state(PageState::Quiet),
                    Frames::Passed { leaving: true, .. } => {
                        told = Some(Instant::now() + LEAVING_TOLD_GRACE);
                        None
                    }
                    Frames::Held(_) => {
                        held = true;
                        None
                    }
                }
            },
        };
        let Some(event) = next else { continue };
        let event = event.map_err(|_| BrowserError::Disconnected)?;
        if event.tab != *tab {
            continue;
        }
        if loaded_at.is_none() && request_events.is_some() {
            frames_only = frames_only_now();
        }
        match event.kind {
            NavEventKind::Started => return state(PageState::Leaving),
            NavEventKind::TabClosed => return Err(BrowserError::TabGone(tab.clone())),
            NavEventKind::Load | NavEventKind::Restored => {
                loaded_at = Some(event.at);
                (probe, held, told) = (None, false, None);
            }
            NavEventKind::DialogOpened => return state(PageState::Blocked),
            _ => {}
        }
    }
}

/// When `tab`'s page, whose load event has not come, counts as loaded: [`FRAMES_GRACE`] after
/// its own document was parsed (`dom-loaded`) and the last of its requests since its commit
/// ended (its images, scripts, fonts, its frames' documents and their own), but not before each
/// frame's document still in flight has had [`FRAME_DOCUMENT_CAP`] since it was asked for. None
/// while its document is being parsed or a request that is not a document's is in flight (a
/// long poll no longer than [`REQUEST_CAP`]), or once it began to leave. What is left then are
/// its frames' documents whose server does not answer.
fn loaded_but_for_frames(events: &[NavEvent], requests: &[RequestEvent], tab: &TabId, now: Instant) -> Option<Instant> {
    // The document now: the last of the tab's events that prove a commit is its DOM's.
    let last = events.iter().rev().find(|e| e.tab == *tab && e.kind.proves_commit())?;
    if last.kind != NavEventKind::DomLoaded {
        return None;
    }
    // Its requests are those since its navigation started (the old document's in flight then
    // were cut off; the new one's resources are asked for between its commit and its DOM).
    let began = last.navigation.as_ref().and_then(|navigation| {
        events
            .iter()
            .find(|e| e.tab == *tab && e.kind == NavEventKind::Started && e.navigation.as_ref() == Some(navigation))
    });
    let committed = began.map_or(last.at, |e| e.at);
    let mut in_flight: HashMap<&RequestId, (Instant, bool)> = HashMap::new();
    let mut ended = last.at;
    for request in requests.iter().filter(|r| r.tab == *tab && r.at >= committed) {
        match request.kind {
            RequestEventKind::Sent if !request.stream => {
                in_flight.entry(&request.request).or_insert((request.at, request.document));
            }
            RequestEventKind::Sent | RequestEventKind::ResponseStarted if request.stream => {
                in_flight.remove(&request.request);
            }
            RequestEventKind::Sent | RequestEventKind::ResponseStarted => {}
            RequestEventKind::Completed | RequestEventKind::Failed => {
                if in_flight.remove(&request.request).is_some() {
                    ended = ended.max(request.at);
                }
            }
        }
    }
    let busy = in_flight.values().any(|(sent, document)| !document && now < *sent + REQUEST_CAP);
    let frames_given = in_flight.values().filter(|(_, document)| *document).map(|(sent, _)| *sent + FRAME_DOCUMENT_CAP);
    (!busy).then(|| frames_given.fold(ended + FRAMES_GRACE, Instant::max))
}

/// When the port last saw `tab` load or come back from the back/forward cache (or, with
/// neither yet, commit).
fn last_load(events: &[NavEvent], tab: &TabId) -> Option<Instant> {
    let mine = || events.iter().rev().filter(|e| e.tab == *tab);
    let loaded = |e: &&NavEvent| matches!(e.kind, NavEventKind::Load | NavEventKind::Restored);
    mine().find(loaded).or_else(|| mine().find(|e| e.kind.proves_commit())).map(|e| e.at)
}

/// [`left_since`], for a page that said it began to leave (the page watch) while the browser
/// may not have told yet: waits up to [`LEAVING_TOLD_GRACE`] for the browser's word. None when
/// it never comes: the page's own script stopped the navigation, and the page stays.
pub(in crate::agent) async fn told_left_since(port: &dyn BrowserPort, tab: &TabId, position: u64) -> Option<String> {
    let mut events = port.subscribe_from(position);
    let until = Instant::now() + LEAVING_TOLD_GRACE;
    loop {
        match tokio::time::timeout_at(until.into(), events.next()).await {
            Ok(Ok(event)) if began_to_leave(&event, tab) => return Some(event.url.unwrap_or_default()),
            Ok(Ok(_)) => {}
            // The log closed (the browser went) or the wait ran out: what the log holds decides.
            Ok(Err(_)) | Err(_) => return left_since(port, tab, position),
        }
    }
}

/// The URL of a navigation of `tab` that started at or after `position` in the event stream,
/// if one did: the page had begun to leave.
pub(in crate::agent) fn left_since(port: &dyn BrowserPort, tab: &TabId, position: u64) -> Option<String> {
    port.events().into_iter().find(|e| e.seq >= position && began_to_leave(e, tab)).map(|e| e.url.unwrap_or_default())
}

/// Whether `event` says `tab`'s page began to leave: a navigation of it started or committed.
fn began_to_leave(event: &NavEvent, tab: &TabId) -> bool {
    event.tab == *tab && matches!(event.kind, NavEventKind::Started | NavEventKind::Committed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::settle::frames::told_and_ended;
    use crate::browser::NavigationId;

    fn event(seq: u64, tab: &TabId, kind: NavEventKind, navigation: &str, ts: u64) -> NavEvent {
        let mut e = NavEvent::new(tab.clone(), kind)
            .with_navigation(Some(NavigationId(navigation.into())))
            .with_browser_ts(Some(ts));
        e.seq = seq;
        e
    }

    fn at(mut e: NavEvent, when: Instant) -> NavEvent {
        e.at = when;
        e
    }

    fn request(kind: RequestEventKind, id: &str, when: Instant) -> RequestEvent {
        let mut r = RequestEvent::new(TabId("t".into()), kind, RequestId(id.into()), format!("http://a.test/{id}"));
        r.at = when;
        r
    }

    #[test]
    fn a_page_whose_frames_alone_hold_its_load_is_loaded_a_grace_after_its_own_last_request() {
        let tab = TabId("t".into());
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let page = [
            at(event(0, &tab, NavEventKind::Started, "n1", 0), ms(0)),
            at(event(1, &tab, NavEventKind::Committed, "n1", 0), ms(20)),
            at(event(2, &tab, NavEventKind::DomLoaded, "n1", 0), ms(40)),
        ];
        // Still being parsed: not yet.
        assert_eq!(loaded_but_for_frames(&page[..2], &[], &tab, ms(50)), None);
        // Parsed, nothing of its own in flight: the grace from its DOM.
        assert_eq!(loaded_but_for_frames(&page, &[], &tab, ms(50)), Some(ms(40) + FRAMES_GRACE));
        // A frame's document that never answers holds it for its cap only; one that ends, until
        // the grace after it.
        let frame = request(RequestEventKind::Sent, "frame", ms(45)).loading_document(true);
        assert_eq!(
            loaded_but_for_frames(&page, std::slice::from_ref(&frame), &tab, ms(50)),
            Some(ms(45) + FRAME_DOCUMENT_CAP)
        );
        let frame_in = request(RequestEventKind::Completed, "frame", ms(1500)).loading_document(true);
        assert_eq!(
            loaded_but_for_frames(&page, &[frame.clone(), frame_in], &tab, ms(1510)),
            Some(ms(1500) + FRAMES_GRACE)
        );
        // An image asked for before the DOM was in keeps it loading until it ends.
        let image = request(RequestEventKind::Sent, "image", ms(30));
        assert_eq!(loaded_but_for_frames(&page, &[image.clone(), frame.clone()], &tab, ms(50)), None);
        let done = request(RequestEventKind::Completed, "image", ms(300));
        assert_eq!(
            loaded_but_for_frames(&page, &[image, frame, done], &tab, ms(310)),
            Some(ms(45) + FRAME_DOCUMENT_CAP)
        );
        // An event stream never ends, and a request past the cap no longer counts.
        let stream = request(RequestEventKind::Sent, "events", ms(30)).streaming(true);
        assert_eq!(loaded_but_for_frames(&page, &[stream], &tab, ms(50)), Some(ms(40) + FRAMES_GRACE));
        let poll = request(RequestEventKind::Sent, "poll", ms(30));
        assert_eq!(
            loaded_but_for_frames(&page, std::slice::from_ref(&poll), &tab, ms(31) + REQUEST_CAP),
            Some(ms(40) + FRAMES_GRACE)
        );
        // The old document's request, from before the navigation began, is not this one's.
        let old = request(RequestEventKind::Sent, "old", t0 - Duration::from_millis(5));
        assert_eq!(loaded_but_for_frames(&page, &[old], &tab, ms(50)), Some(ms(40) + FRAMES_GRACE));
        // Loaded, or another tab's: nothing to say.
        let loaded = [
            page[0].clone(),
            page[1].clone(),
            page[2].clone(),
            at(event(3, &tab, NavEventKind::Load, "n1", 0), ms(60)),
        ];
        assert_eq!(loaded_but_for_frames(&loaded, &[], &tab, ms(70)), None);
        assert_eq!(loaded_but_for_frames(&page, &[], &TabId("o".into()), ms(50)), None);
    }

    #[test]
    fn a_tell_is_old_news_only_once_the_browser_told_of_its_navigation_and_ended_it_where_it_was() {
        let tab = TabId("t".into());
        let other = TabId("o".into());
        let told_at = 10_000;
        // A download: started after the tell (a moment before it, by the other clock), then ended.
        let download = [
            event(0, &tab, NavEventKind::Started, "n1", told_at - 20),
            event(1, &tab, NavEventKind::Failed, "n1", told_at + 5),
            event(2, &tab, NavEventKind::Aborted, "n1", told_at + 6),
        ];
        assert!(told_and_ended(&download, &tab, told_at));
        // Started, not ended yet: the page is leaving.
        assert!(!told_and_ended(&download[..1], &tab, told_at));
        // Not told by the browser yet: an earlier navigation, long before the tell, does not count.
        let earlier = [
            event(0, &tab, NavEventKind::Started, "n0", told_at - 5_000),
            event(1, &tab, NavEventKind::Aborted, "n0", told_at - 4_900),
        ];
        assert!(!told_and_ended(&earlier, &tab, told_at));
        // Another tab's navigation says nothing of this one's.
        let elsewhere = [
            event(0, &other, NavEventKind::Started, "n2", told_at + 1),
            event(1, &other, NavEventKind::Aborted, "n2", told_at + 2),
        ];
        assert!(!told_and_ended(&elsewhere, &tab, told_at));
        // Committed: a new document, not old news.
        let committed = [
            event(0, &tab, NavEventKind::Started, "n3", told_at + 1),
            event(1, &tab, NavEventKind::Committed, "n3", told_at + 50),
        ];
        assert!(!told_and_ended(&committed, &tab, told_at));
    }
}
