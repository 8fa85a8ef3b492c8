//! Routes BiDi events to the scope (user context) that owns their tab, as port events.

use crate::bidi::modules::browser::UserContext;
use crate::bidi::modules::browsing_context::{ContextId, Event, Info, NavigationInfo, PromptOpened};
use crate::bidi::modules::network;
use crate::bidi::{EventSink, SocketClosed};
use crate::browser::{
    Dialog, DialogKind, EventLog, NavEvent, NavEventKind, NavigationId, RequestEvent, RequestEventKind, RequestId,
    RequestLog, TabId, TabTracker,
};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// One BiDi event as it came off the wire, for failure artifacts.
#[derive(Clone, Debug, Serialize)]
pub(super) struct RawEvent {
    /// Milliseconds since the scope's log began.
    t_ms: f64,
    method: String,
    params: Value,
}

/// The events and derived tab state of one user context.
#[derive(Debug, Default)]
pub(super) struct Scope {
    pub(super) log: Arc<EventLog>,
    /// Its tabs' network requests (frames' included), for the wait for network idle.
    pub(super) requests: Arc<RequestLog>,
    tracker: Mutex<TabTracker>,
    /// The wire events, when the browser keeps them ([`BrowserConfig::record_wire`]).
    ///
    /// [`BrowserConfig::record_wire`]: super::BrowserConfig::record_wire
    raw: Option<Mutex<Vec<RawEvent>>>,
    /// Tab creations under way in this scope (see `create.rs`).
    pub(super) creates_in_flight: std::sync::atomic::AtomicUsize,
    /// Navigations already reported ended without a commit: browsers say so in more than one
    /// way (Chromium's `navigationFailed` after the request's `fetchError`), the log says it once.
    ended: Mutex<std::collections::HashSet<NavigationId>>,
    /// Its frames with a navigation started and not yet committed or ended, by their events. A
    /// frame's navigations are not its tab's and stay out of the log; this only tells a
    /// snapshot which frames to give a short wait (Chromium holds a script sent to a frame
    /// until its navigation commits, and one that never commits, forever).
    frames_loading: Mutex<std::collections::HashSet<ContextId>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Scope {
    /// The state of its tabs, derived from their events.
    pub(super) fn tracker(&self) -> MutexGuard<'_, TabTracker> {
        lock(&self.tracker)
    }

    /// A scope that keeps its wire events when `record_wire`.
    fn new(record_wire: bool) -> Self {
        Self { raw: record_wire.then(Mutex::default), ..Self::default() }
    }

    /// Every BiDi event of its tabs so far (none when the browser does not keep them).
    pub(super) fn raw_events(&self) -> Vec<RawEvent> {
        self.raw.as_ref().map(|raw| lock(raw).clone()).unwrap_or_default()
    }

    /// Keeps the wire event for the failure artifacts, when the browser keeps them.
    fn record_raw(&self, method: &str, params: &Value) {
        if let Some(raw) = &self.raw {
            let t_ms = self.log.origin().elapsed().as_secs_f64() * 1000.0;
            lock(raw).push(RawEvent { t_ms, method: method.to_owned(), params: params.clone() });
        }
    }

    /// A navigation has started in the frame and not yet committed or ended, by its events.
    pub(super) fn frame_loading(&self, frame: &ContextId) -> bool {
        lock(&self.frames_loading).contains(frame)
    }

    fn frame_navigated(&self, frame: &ContextId, kind: NavEventKind) {
        let mut loading = lock(&self.frames_loading);
        if kind == NavEventKind::Started {
            loading.insert(frame.clone());
        } else if kind.proves_commit() || kind.ends_without_commit() {
            loading.remove(frame);
        }
    }

    pub(super) fn publish(&self, event: NavEvent) {
        if event.kind.ends_without_commit()
            && let Some(navigation) = &event.navigation
            && !lock(&self.ended).insert(navigation.clone())
        {
            return;
        }
        self.tracker().apply(&event);
        self.log.append(event);
    }
}

#[derive(Default)]
struct Routes {
    by_user_context: HashMap<UserContext, Arc<Scope>>,
    /// Top-level contexts (tabs) and their scope.
    tabs: HashMap<ContextId, Arc<Scope>>,
    /// Child frames and the tab they live in.
    frames: HashMap<ContextId, ContextId>,
    default_scope: Arc<Scope>,
    closed: Option<String>,
}

/// The [`EventSink`] of a browser connection; clones share the routes.
#[derive(Clone, Default)]
pub(super) struct Router {
    routes: Arc<Mutex<Routes>>,
    /// Its scopes keep their wire events.
    record_wire: bool,
}

impl Router {
    /// A router whose scopes keep their wire events when `record_wire`.
    pub(super) fn new(record_wire: bool) -> Self {
        let routes = Routes { default_scope: Arc::new(Scope::new(record_wire)), ..Routes::default() };
        Self { routes: Arc::new(Mutex::new(routes)), record_wire }
    }

    /// Registers a scope for a user context (`None`: the default one).
    pub(super) fn add_scope(&self, user_context: Option<&UserContext>) -> Arc<Scope> {
        let mut routes = lock(&self.routes);
        let Some(uc) = user_context else { return Arc::clone(&routes.default_scope) };
        let scope = Arc::new(Scope::new(self.record_wire));
        if let Some(reason) = &routes.closed {
            scope.log.close(reason.clone());
            scope.requests.close(reason.clone());
        }
        routes.by_user_context.insert(uc.clone(), Arc::clone(&scope));
        scope
    }

    /// Forgets a scope once its user context is removed.
    pub(super) fn remove_scope(&self, user_context: &UserContext) {
        let mut routes = lock(&self.routes);
        if let Some(scope) = routes.by_user_context.remove(user_context) {
            routes.tabs.retain(|_, s| !Arc::ptr_eq(s, &scope));
        }
    }

    fn on_context_created(routes: &mut Routes, info: &Info, method: &str, params: &Value) {
        if let Some(parent) = &info.parent {
            let tab = routes.frames.get(parent).cloned().unwrap_or_else(|| parent.clone());
            routes.frames.insert(info.context.clone(), tab);
            return;
        }
        let scope = info
            .user_context
            .as_ref()
            .and_then(|uc| routes.by_user_context.get(uc))
            .cloned()
            .unwrap_or_else(|| Arc::clone(&routes.default_scope));
        routes.tabs.insert(info.context.clone(), Arc::clone(&scope));
        scope.record_raw(method, params);
        let opener = info.original_opener.as_ref().map(|c| TabId(c.0.clone()));
        scope.publish(
            NavEvent::new(TabId(info.context.0.clone()), NavEventKind::TabCreated)
                .with_url(info.url.clone())
                .with_opener(opener),
        );
    }

    fn on_context_destroyed(routes: &mut Routes, info: &Info, method: &str, params: &Value) {
        if let Some(tab) = routes.frames.remove(&info.context) {
            if let Some(scope) = routes.tabs.get(&tab) {
                lock(&scope.frames_loading).remove(&info.context);
            }
            return;
        }
        let Some(scope) = routes.tabs.get(&info.context).cloned() else { return };
        scope.record_raw(method, params);
        scope.publish(NavEvent::new(TabId(info.context.0.clone()), NavEventKind::TabClosed).with_url(info.url.clone()));
    }

    fn on_navigation(routes: &Routes, kind: NavEventKind, nav: &NavigationInfo, method: &str, params: &Value) {
        if let Some(tab) = routes.frames.get(&nav.context) {
            // A frame's navigation is not the tab's: keep it for the record, and whether the
            // frame is loading, only.
            if let Some(scope) = routes.tabs.get(tab) {
                scope.record_raw(method, params);
                scope.frame_navigated(&nav.context, kind);
            }
            return;
        }
        let Some(scope) = routes.tabs.get(&nav.context) else { return };
        scope.record_raw(method, params);
        let tab = TabId(nav.context.0.clone());
        let navigation = nav.navigation.as_ref().map(|n| NavigationId(n.0.clone()));
        let restored = (kind == NavEventKind::Committed)
            .then(|| scope.tracker().get(&tab).and_then(|s| s.restored_by(&nav.url, navigation.as_ref())))
            .flatten();
        scope.publish(
            NavEvent::new(tab.clone(), kind)
                .with_url(nav.url.clone())
                .with_navigation(navigation)
                .with_browser_ts(nav.timestamp),
        );
        // Chromium's word for a page back from the back/forward cache is that commit; the log
        // says `restored` after it, as it does for Firefox (see `restore.rs`).
        if let Some(pending) = restored {
            scope.publish(
                NavEvent::new(tab, NavEventKind::Restored).with_url(nav.url.clone()).with_navigation(Some(pending)),
            );
        }
    }
}

impl Router {
    /// A dialog of a tab, or of a frame in it: the whole tab is blocked until it is answered,
    /// and it is answered through the tab (`handleUserPrompt` takes a top-level context).
    fn on_prompt(routes: &Routes, context: &ContextId, event: NavEvent, method: &str, params: &Value) {
        let tab = routes.frames.get(context).unwrap_or(context);
        let Some(scope) = routes.tabs.get(tab) else { return };
        scope.record_raw(method, params);
        scope.publish(NavEvent { tab: TabId(tab.0.clone()), ..event });
    }
}

/// The dialog a `userPromptOpened` announces; `None` for a kind that asks nothing of the agent
/// (a file picker).
fn dialog_of(opened: &PromptOpened) -> Option<Dialog> {
    let kind = match opened.kind.parse::<DialogKind>() {
        Ok(kind) => kind,
        Err(e) => {
            tracing::debug!(target: "navguard::adapter", error = %e, "a user prompt that is no dialog");
            return None;
        }
    };
    Some(Dialog { kind, message: opened.message.clone() })
}

fn nav_kind(event: &Event) -> Option<(NavEventKind, &NavigationInfo)> {
    let pair = match event {
        Event::NavigationStarted(n) => (NavEventKind::Started, n),
        Event::NavigationCommitted(n) => (NavEventKind::Committed, n),
        Event::DomContentLoaded(n) => (NavEventKind::DomLoaded, n),
        Event::Load(n) => (NavEventKind::Load, n),
        Event::NavigationFailed(n) => (NavEventKind::Failed, n),
        Event::NavigationAborted(n) => (NavEventKind::Aborted, n),
        Event::FragmentNavigated(n) | Event::HistoryUpdated(n) => (NavEventKind::SameDocument, n),
        Event::DownloadWillBegin(n) => (NavEventKind::Aborted, n),
        Event::ContextCreated(_)
        | Event::ContextDestroyed(_)
        | Event::UserPromptOpened(_)
        | Event::UserPromptClosed(_) => return None,
    };
    Some(pair)
}

impl Router {
    /// A request event of a tab (or of a frame in it) goes to the tab's request log.
    fn on_request(routes: &Routes, event: &network::Event) {
        tracing::debug!(target: "navguard::network", method = %event.method, context = ?event.params.context, request = %event.params.request.request.0, url = %event.params.request.url, "request event");
        let Some(context) = &event.params.context else { return };
        let tab = routes.frames.get(context).unwrap_or(context);
        let Some(scope) = routes.tabs.get(tab) else { return };
        let kind = match event.method {
            network::EventMethod::BeforeRequestSent => RequestEventKind::Sent,
            network::EventMethod::ResponseStarted => RequestEventKind::ResponseStarted,
            network::EventMethod::ResponseCompleted => RequestEventKind::Completed,
            network::EventMethod::FetchError => RequestEventKind::Failed,
        };
        let request = &event.params.request;
        let id = RequestId(request.request.0.clone());
        scope.requests.append(
            RequestEvent::new(TabId(tab.0.clone()), kind, id, request.url.clone())
                .streaming(event.params.is_stream())
                .loading_document(event.params.navigation.is_some()),
        );
        // A tab's document request that fails ends its navigation without a commit. Firefox
        // says so only here (a 204 or 205 answer: `fetchError` NS_BINDING_ABORTED, and no
        // `navigationFailed`); Chromium says it again with `navigationFailed`, published once.
        if kind == RequestEventKind::Failed
            && tab == context
            && let Some(navigation) = &event.params.navigation
        {
            scope.publish(
                NavEvent::new(TabId(tab.0.clone()), NavEventKind::Failed)
                    .with_url(request.url.clone())
                    .with_navigation(Some(NavigationId(navigation.0.clone()))),
            );
        }
    }
}

impl EventSink for Router {
    fn on_event(&mut self, method: &str, params: Value) {
        if method.starts_with("network.") {
            match network::Event::parse(method, params) {
                Ok(Some(event)) => Self::on_request(&lock(&self.routes), &event),
                Ok(None) => {}
                Err(e) => tracing::warn!(%method, error = %e, "BiDi event with an unexpected shape"),
            }
            return;
        }
        let event = match Event::parse(method, params.clone()) {
            Ok(Some(event)) => event,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(%method, error = %e, "BiDi event with an unexpected shape");
                return;
            }
        };
        let mut routes = lock(&self.routes);
        match &event {
            Event::ContextCreated(info) => Self::on_context_created(&mut routes, info, method, &params),
            Event::ContextDestroyed(info) => Self::on_context_destroyed(&mut routes, info, method, &params),
            Event::UserPromptOpened(opened) => {
                if let Some(dialog) = dialog_of(opened) {
                    let event = NavEvent::new(TabId(opened.context.0.clone()), NavEventKind::DialogOpened)
                        .with_dialog(Some(dialog));
                    Self::on_prompt(&routes, &opened.context, event, method, &params);
                }
            }
            Event::UserPromptClosed(closed) => {
                let event = NavEvent::new(TabId(closed.context.0.clone()), NavEventKind::DialogClosed);
                Self::on_prompt(&routes, &closed.context, event, method, &params);
            }
            other => {
                if let Some((kind, nav)) = nav_kind(other) {
                    Self::on_navigation(&routes, kind, nav, method, &params);
                }
            }
        }
    }

    fn on_close(&mut self, reason: &SocketClosed) {
        let mut routes = lock(&self.routes);
        let reason = format!("browser disconnected ({reason})");
        routes.default_scope.log.close(reason.clone());
        routes.default_scope.requests.close(reason.clone());
        routes.by_user_context.values().for_each(|s| {
            s.log.close(reason.clone());
            s.requests.close(reason.clone());
        });
        routes.closed = Some(reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A router with a tab `T` and a frame `F` in it, in the default user context.
    fn router_with_a_framed_tab() -> (Router, Arc<Scope>) {
        let mut router = Router::default();
        let scope = router.add_scope(None);
        let created = "browsingContext.contextCreated";
        router
            .on_event(created, json!({"context": "T", "url": "about:blank", "parent": null, "userContext": "default"}));
        router
            .on_event(created, json!({"context": "F", "url": "about:blank", "parent": "T", "userContext": "default"}));
        (router, scope)
    }

    #[test]
    fn a_dialog_of_a_frame_blocks_its_tab_until_it_is_closed() {
        let (mut router, scope) = router_with_a_framed_tab();
        let tab = TabId::from("T");
        // As Chromium 156 words it, with the session's handler at `ignore`.
        router.on_event(
            "browsingContext.userPromptOpened",
            json!({"context": "F", "handler": "ignore", "message": "Sure?", "type": "confirm", "userContext": "default"}),
        );
        let dialog = scope.tracker().get(&tab).and_then(|s| s.dialog.clone());
        assert_eq!(dialog, Some(Dialog { kind: DialogKind::Confirm, message: "Sure?".into() }));
        let last = scope.log.snapshot_from(0).pop().unwrap();
        assert_eq!((last.tab, last.kind), (tab.clone(), NavEventKind::DialogOpened));
        router.on_event(
            "browsingContext.userPromptClosed",
            json!({"context": "F", "accepted": false, "type": "confirm"}),
        );
        assert_eq!(scope.tracker().get(&tab).and_then(|s| s.dialog.clone()), None);
    }

    #[test]
    fn a_frame_loads_from_its_start_until_its_commit_or_its_end_and_its_tab_never_hears_of_it() {
        let (mut router, scope) = router_with_a_framed_tab();
        let frame = ContextId("F".into());
        let events_before = scope.log.len();
        let nav = |url: &str| json!({"context": "F", "navigation": "n1", "url": url});
        router.on_event("browsingContext.navigationStarted", nav("http://x/never"));
        assert!(scope.frame_loading(&frame));
        router.on_event("browsingContext.navigationCommitted", nav("http://x/never"));
        assert!(!scope.frame_loading(&frame));
        router.on_event("browsingContext.navigationStarted", nav("http://x/204"));
        router.on_event("browsingContext.navigationFailed", nav("http://x/204"));
        assert!(!scope.frame_loading(&frame));
        router.on_event("browsingContext.navigationStarted", nav("http://x/gone"));
        router.on_event(
            "browsingContext.contextDestroyed",
            json!({"context": "F", "url": "about:blank", "parent": "T", "userContext": "default"}),
        );
        assert!(!scope.frame_loading(&frame));
        assert_eq!(scope.log.len(), events_before, "a frame's navigation is not its tab's");
    }

    #[test]
    fn a_commit_under_the_id_of_an_earlier_load_is_followed_by_restored() {
        // Chromium 156 going back to a page it kept in its back/forward cache.
        let (mut router, scope) = router_with_a_framed_tab();
        let nav = |method: &str, id: &str, url: &str| {
            (method.to_owned(), json!({"context": "T", "navigation": id, "timestamp": 1, "url": url}))
        };
        for (method, params) in [
            nav("browsingContext.navigationStarted", "1", "http://a/kept"),
            nav("browsingContext.navigationCommitted", "1", "http://a/kept"),
            nav("browsingContext.load", "1", "http://a/kept"),
            nav("browsingContext.navigationStarted", "2", "http://a/next"),
            nav("browsingContext.navigationCommitted", "2", "http://a/next"),
            nav("browsingContext.navigationStarted", "3", "http://a/kept"),
            nav("browsingContext.navigationCommitted", "1", "http://a/kept"),
        ] {
            router.on_event(&method, params);
        }
        let tail: Vec<_> = scope.log.snapshot_from(0).into_iter().rev().take(2).collect();
        assert_eq!(
            (tail[0].kind, tail[0].navigation.as_ref().map(|n| n.0.as_str())),
            (NavEventKind::Restored, Some("3"))
        );
        assert_eq!(tail[1].kind, NavEventKind::Committed);
        let state = scope.tracker().get(&TabId::from("T")).cloned().unwrap();
        assert_eq!((state.pending_url, state.loading), (None, false));
    }

    #[test]
    fn a_leave_page_question_without_words_is_a_dialog_and_a_file_picker_is_not() {
        let (mut router, scope) = router_with_a_framed_tab();
        let opened = "browsingContext.userPromptOpened";
        router.on_event(opened, json!({"context": "T", "handler": "ignore", "type": "file"}));
        assert_eq!(scope.tracker().get(&TabId::from("T")).and_then(|s| s.dialog.clone()), None);
        router.on_event(opened, json!({"context": "T", "handler": "ignore", "message": "", "type": "beforeunload"}));
        let dialog = scope.tracker().get(&TabId::from("T")).and_then(|s| s.dialog.clone()).unwrap();
        assert_eq!(dialog.kind, DialogKind::BeforeUnload);
        assert_eq!(dialog.to_string(), "a leave-page dialog (beforeunload) is open");
    }
}
