//! What the event stream says of each tab: its pending navigation, whether it is loading, its
//! opener. The browser's own tab read-out lacks these (BiDi has no `pendingUrl`), so every port
//! derives them the same way, from the events.

use super::event::{NavEvent, NavEventKind};
use super::types::{Dialog, NavigationId, TabId, TabInfo};
use std::collections::HashMap;

/// The derived state of one tab.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TabState {
    /// The URL of the navigation in flight.
    pub pending_url: Option<String>,
    /// The id of the navigation in flight.
    pub pending_nav: Option<NavigationId>,
    /// Between a navigation's start and its load (or failure).
    pub loading: bool,
    /// The URL of the tab's last commit (or same-document move), as the events said.
    pub committed_url: Option<String>,
    pub opener: Option<TabId>,
    pub closed: bool,
    /// The latest navigation ended without a commit, and none started since.
    pub navigation_failed: bool,
    /// The dialog the page has open, if any.
    pub dialog: Option<Dialog>,
}

impl TabState {
    /// The tab as its events left it, at `url` where no commit says otherwise.
    pub(crate) fn into_info(self, tab: TabId, url: String) -> TabInfo {
        TabInfo {
            id: tab,
            url: self.committed_url.unwrap_or(url),
            pending_url: self.pending_url,
            pending_navigation: self.pending_nav,
            loading: self.loading,
            opener: self.opener,
            navigation_failed: self.navigation_failed,
            dialog: self.dialog,
        }
    }

    /// Whether a commit of `url` under `navigation` brings back a page from the back/forward
    /// cache, and the id of the navigation it ends: Chromium commits a restored page under the
    /// id of its first load, not under the pending traversal's (a page it loads again commits
    /// under the traversal's own).
    pub(crate) fn restored_by(&self, url: &str, navigation: Option<&NavigationId>) -> Option<NavigationId> {
        let pending = self.pending_nav.as_ref()?;
        let older = navigation.is_some_and(|n| n != pending);
        (older && self.pending_url.as_deref() == Some(url)).then(|| pending.clone())
    }
}

/// Tab states, fed with events in arrival order.
#[derive(Debug, Default)]
pub(crate) struct TabTracker {
    tabs: HashMap<TabId, TabState>,
    /// Most recently activated last; a closed tab leaves it.
    activation: Vec<TabId>,
}

fn same_nav(a: &Option<NavigationId>, b: &Option<NavigationId>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

impl TabTracker {
    /// The state of `tab`, if any event named it.
    pub(crate) fn get(&self, tab: &TabId) -> Option<&TabState> {
        self.tabs.get(tab)
    }

    /// Records that `tab` became the active tab.
    pub(crate) fn activated(&mut self, tab: &TabId) {
        self.activation.retain(|t| t != tab);
        self.activation.push(tab.clone());
    }

    /// The active tab: the last one activated that is still open.
    pub(crate) fn active(&self) -> Option<&TabId> {
        self.activation.last()
    }

    /// The browser said the tab has no dialog (it had none to answer, or closed one without
    /// saying): whatever the events left open is gone.
    pub(crate) fn dialog_gone(&mut self, tab: &TabId) {
        if let Some(state) = self.tabs.get_mut(tab) {
            state.dialog = None;
        }
    }

    pub(crate) fn apply(&mut self, event: &NavEvent) {
        match event.kind {
            // A page's popup comes to the front, as browsers show it.
            NavEventKind::TabCreated if event.opener.is_some() => self.activated(&event.tab),
            NavEventKind::TabClosed => self.activation.retain(|t| *t != event.tab),
            _ => {}
        }
        let state = self.tabs.entry(event.tab.clone()).or_default();
        match event.kind {
            NavEventKind::TabCreated => state.opener = event.opener.clone(),
            NavEventKind::Started => {
                state.navigation_failed = false;
                state.pending_url = event.url.clone();
                state.pending_nav = event.navigation.clone();
                state.loading = true;
            }
            NavEventKind::Committed => {
                // Matched by tab, not only by id: Chromium commits a history traversal under an
                // older navigation id than the one it started.
                let same_url = event.url.is_some() && event.url == state.pending_url;
                let same_id = same_nav(&state.pending_nav, &event.navigation);
                if same_url || same_id {
                    clear_pending(state);
                }
                state.committed_url = event.url.clone();
                state.navigation_failed = false;
                // A dialog goes with its document. Firefox ESR 153 says so (`userPromptClosed`)
                // only after the next document has loaded: till then the tab is not blocked.
                state.dialog = None;
                if !same_id {
                    // A page restored from the back/forward cache: no load event will follow.
                    state.loading = false;
                }
            }
            NavEventKind::DomLoaded | NavEventKind::Load => {
                // Chromium may skip `navigationCommitted`: a load of the pending navigation
                // proves its commit. A load of an older document proves nothing, even under
                // the pending navigation's id: Firefox ESR 153 sends the old document's
                // `domContentLoaded` with the id of the script redirect that replaces it.
                let of_old_document = state.pending_url.is_some()
                    && event.url.is_some()
                    && event.url == state.committed_url
                    && event.url != state.pending_url;
                if same_nav(&state.pending_nav, &event.navigation) && !of_old_document {
                    clear_pending(state);
                    state.committed_url = event.url.clone();
                    if event.kind == NavEventKind::Load {
                        state.loading = false;
                    }
                }
            }
            NavEventKind::Restored => {
                // The document of the pending navigation is back whole: its navigation is over.
                // A restore of another URL than the pending one is of an older navigation.
                if state.pending_url.is_none() || event.url == state.pending_url {
                    clear_pending(state);
                    state.committed_url = event.url.clone();
                    state.navigation_failed = false;
                    state.loading = false;
                    state.dialog = None;
                }
            }
            NavEventKind::Failed | NavEventKind::Aborted => {
                if same_nav(&state.pending_nav, &event.navigation) {
                    state.navigation_failed |= state.pending_url.is_some();
                    clear_pending(state);
                    state.loading = false;
                }
            }
            NavEventKind::SameDocument => state.committed_url = event.url.clone(),
            NavEventKind::TabClosed => {
                state.closed = true;
                state.dialog = None;
            }
            NavEventKind::DialogOpened => state.dialog.clone_from(&event.dialog),
            NavEventKind::DialogClosed => state.dialog = None,
        }
    }
}

fn clear_pending(state: &mut TabState) {
    state.pending_url = None;
    state.pending_nav = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: NavEventKind, nav: &str, url: &str) -> NavEvent {
        NavEvent::new(TabId::from("t"), kind).with_url(url).with_navigation(Some(NavigationId(nav.into())))
    }

    fn tracker(events: &[NavEvent]) -> TabState {
        let mut t = TabTracker::default();
        events.iter().for_each(|e| t.apply(e));
        t.get(&TabId::from("t")).cloned().unwrap()
    }

    #[test]
    fn a_started_navigation_is_pending_and_loading() {
        let s = tracker(&[ev(NavEventKind::Started, "1", "http://a/x")]);
        assert_eq!(s.pending_url.as_deref(), Some("http://a/x"));
        assert!(s.loading);
    }

    #[test]
    fn a_commit_under_an_older_navigation_id_still_ends_the_pending_one() {
        let s = tracker(&[
            ev(NavEventKind::Started, "2", "http://a/back"),
            ev(NavEventKind::Committed, "1", "http://a/back"),
        ]);
        assert_eq!(s.pending_url, None);
    }

    #[test]
    fn the_committed_url_follows_the_events() {
        let s = tracker(&[
            ev(NavEventKind::Started, "1", "http://a/x"),
            ev(NavEventKind::Committed, "1", "http://a/x"),
            ev(NavEventKind::Started, "2", "http://b/y"),
        ]);
        assert_eq!((s.committed_url.as_deref(), s.pending_url.as_deref()), (Some("http://a/x"), Some("http://b/y")));
    }

    #[test]
    fn a_page_restored_from_the_cache_is_not_loading() {
        let s = tracker(&[
            ev(NavEventKind::Started, "2", "http://a/back"),
            ev(NavEventKind::Committed, "1", "http://a/back"),
        ]);
        assert!(!s.loading);
    }

    #[test]
    fn a_restore_ends_the_pending_navigation_with_no_load_to_come() {
        // Firefox ESR 153: the traversal's start, then nothing but the port's `restored`.
        let restored = tracker(&[
            ev(NavEventKind::Load, "1", "http://a/next"),
            ev(NavEventKind::Started, "2", "http://a/back"),
            ev(NavEventKind::Restored, "2", "http://a/back"),
        ]);
        assert_eq!(
            (restored.pending_url, restored.committed_url.as_deref(), restored.loading),
            (None, Some("http://a/back"), false)
        );
        let newer = tracker(&[
            ev(NavEventKind::Started, "2", "http://a/back"),
            ev(NavEventKind::Started, "3", "http://a/elsewhere"),
            ev(NavEventKind::Restored, "2", "http://a/back"),
        ]);
        assert_eq!(newer.pending_url.as_deref(), Some("http://a/elsewhere"), "a newer navigation stays pending");
    }

    #[test]
    fn only_a_commit_under_an_older_id_of_the_pending_url_is_a_restore() {
        let pending = tracker(&[ev(NavEventKind::Started, "2", "http://a/back")]);
        let older = NavigationId("1".into());
        assert_eq!(pending.restored_by("http://a/back", Some(&older)), Some(NavigationId("2".into())));
        assert_eq!(pending.restored_by("http://a/back", Some(&NavigationId("2".into()))), None, "loaded again");
        assert_eq!(pending.restored_by("http://a/other", Some(&older)), None);
        assert_eq!(pending.restored_by("http://a/back", None), None);
        let settled = tracker(&[ev(NavEventKind::Committed, "1", "http://a/x")]);
        assert_eq!(settled.restored_by("http://a/x", Some(&older)), None, "nothing pending");
    }

    #[test]
    fn a_load_without_a_commit_event_proves_the_commit() {
        let s = tracker(&[
            ev(NavEventKind::Started, "1", "http://a/x"),
            ev(NavEventKind::DomLoaded, "1", "http://a/x"),
            ev(NavEventKind::Load, "1", "http://a/x"),
        ]);
        assert_eq!((s.pending_url, s.loading), (None, false));
    }

    #[test]
    fn a_late_load_of_the_old_document_keeps_the_new_navigation_pending() {
        let s = tracker(&[
            ev(NavEventKind::Started, "1", "http://a/x"),
            ev(NavEventKind::Committed, "1", "http://a/x"),
            ev(NavEventKind::Started, "2", "http://b/y"),
            ev(NavEventKind::Load, "1", "http://a/x"),
        ]);
        assert_eq!(s.pending_url.as_deref(), Some("http://b/y"));
        assert!(s.loading);
    }

    #[test]
    fn the_old_document_loading_under_the_new_navigation_id_keeps_it_pending() {
        // Firefox ESR 153, a script redirect from a page still loading.
        let state = tracker(&[
            ev(NavEventKind::Started, "1", "http://a/redirect"),
            ev(NavEventKind::Committed, "1", "http://a/redirect"),
            ev(NavEventKind::Failed, "1", "http://a/redirect"),
            ev(NavEventKind::Started, "2", "http://b/away"),
            ev(NavEventKind::DomLoaded, "2", "http://a/redirect"),
        ]);
        assert_eq!(state.pending_url.as_deref(), Some("http://b/away"));
        assert_eq!(state.committed_url.as_deref(), Some("http://a/redirect"));
    }

    #[test]
    fn a_failure_of_an_older_navigation_leaves_the_current_one_alone() {
        let s = tracker(&[ev(NavEventKind::Started, "2", "http://a/y"), ev(NavEventKind::Failed, "1", "http://a/x")]);
        assert_eq!(s.pending_url.as_deref(), Some("http://a/y"));
    }

    #[test]
    fn a_failed_navigation_is_no_longer_pending() {
        let s = tracker(&[ev(NavEventKind::Started, "1", "http://a/x"), ev(NavEventKind::Failed, "1", "http://a/x")]);
        assert_eq!((s.pending_url, s.loading, s.navigation_failed), (None, false, true));
    }

    fn dialog(kind: NavEventKind) -> NavEvent {
        let alert = Dialog { kind: crate::browser::DialogKind::Alert, message: "Saved".into() };
        NavEvent::new(TabId::from("t"), kind).with_dialog(Some(alert).filter(|_| kind == NavEventKind::DialogOpened))
    }

    #[test]
    fn a_dialog_is_open_from_its_opening_to_its_answer() {
        let loaded = [ev(NavEventKind::Committed, "1", "http://a/x"), ev(NavEventKind::Load, "1", "http://a/x")];
        let opened = [&loaded[..], &[dialog(NavEventKind::DialogOpened)]].concat();
        assert_eq!(tracker(&opened).dialog.map(|d| d.message), Some("Saved".to_owned()));
        let answered = [&opened[..], &[dialog(NavEventKind::DialogClosed)]].concat();
        assert_eq!(tracker(&answered).dialog, None);
    }

    #[test]
    fn a_dialog_goes_with_its_document_but_not_with_a_navigation_it_holds() {
        let held = [
            ev(NavEventKind::Committed, "1", "http://a/x"),
            ev(NavEventKind::Started, "2", "http://a/y"),
            dialog(NavEventKind::DialogOpened),
        ];
        assert!(tracker(&held).dialog.is_some(), "a leave-page question holds the navigation");
        let committed = [&held[..], &[ev(NavEventKind::Committed, "2", "http://a/y")]].concat();
        assert_eq!(tracker(&committed).dialog, None, "the next document has no dialog");
    }

    #[test]
    fn a_new_navigation_or_a_commit_clears_a_failure() {
        let failed = [ev(NavEventKind::Started, "1", "http://a/x"), ev(NavEventKind::Failed, "1", "http://a/x")];
        let restarted = [&failed[..], &[ev(NavEventKind::Started, "2", "http://a/y")]].concat();
        assert!(!tracker(&restarted).navigation_failed);
        let committed = [&restarted[..], &[ev(NavEventKind::Committed, "2", "http://a/y")]].concat();
        assert!(!tracker(&committed).navigation_failed);
        let stray = tracker(&[ev(NavEventKind::Failed, "9", "http://a/z")]);
        assert!(!stray.navigation_failed, "a failure of nothing pending says nothing");
    }
}
