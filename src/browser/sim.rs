//! A simulated browser, for unit tests of pure logic only (the loop, the guards, the waiters on
//! a paused clock). It is never evidence that a feature works: that is the real browser's job.

use super::error::BrowserError;
use super::event::{NavEvent, NavEventKind};
use super::event_log::{EventLog, EventStream};
use super::network::RequestLog;
use super::port::{BrowserPort, Key};
use super::script::PageScript;
use super::tab_state::TabTracker;
use super::types::{Dialog, NavigationId, TabId, TabInfo, Target};
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct SimTab {
    url: String,
    pending: Option<(NavigationId, String)>,
    closed: bool,
}

#[derive(Debug, Default)]
struct State {
    tabs: HashMap<TabId, SimTab>,
    next_id: u32,
    next_nav: u32,
    /// Navigations to a key commit on its value (a server redirect).
    redirects: HashMap<String, String>,
    /// A click on a selector starts a navigation to the URL.
    click_targets: HashMap<String, String>,
    /// Commit this tab's pending navigation when it is next read, before answering.
    commit_on_read: Option<TabId>,
}

/// The simulated browser. Clones share it.
#[derive(Clone, Debug)]
pub struct SimPort {
    state: Arc<Mutex<State>>,
    log: Arc<EventLog>,
    requests: Arc<RequestLog>,
    tracker: Arc<Mutex<TabTracker>>,
    /// Commit every navigation this long after it starts (`None`: only [`SimPort::commit`]).
    auto_commit: Option<Duration>,
}

impl SimPort {
    /// A browser whose navigations commit only when told to.
    pub fn new() -> Self {
        Self {
            state: Arc::default(),
            log: EventLog::new(),
            requests: RequestLog::new(),
            tracker: Arc::default(),
            auto_commit: None,
        }
    }

    /// A browser whose navigations commit `after` their start (on the tokio clock).
    pub fn committing_after(after: Duration) -> Self {
        Self { auto_commit: Some(after), ..Self::new() }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn emit(&self, tab: &TabId, kind: NavEventKind, url: &str, nav: Option<&NavigationId>) {
        let event = NavEvent::new(tab.clone(), kind).with_url(url).with_navigation(nav.cloned());
        self.tracker.lock().unwrap_or_else(std::sync::PoisonError::into_inner).apply(&event);
        self.log.append(event);
    }

    /// Navigations to `from` commit on `to`.
    pub fn redirect(&self, from: &str, to: &str) {
        self.state().redirects.insert(from.to_owned(), to.to_owned());
    }

    /// A click on `selector` navigates to `url`.
    pub fn click_navigates(&self, selector: &str, url: &str) {
        self.state().click_targets.insert(selector.to_owned(), url.to_owned());
    }

    /// The next read of `tab` commits its navigation first (an event between subscribe and read).
    pub fn commit_on_next_read(&self, tab: &TabId) {
        self.state().commit_on_read = Some(tab.clone());
    }

    /// Starts a navigation of `tab` to `url`.
    pub fn start(&self, tab: &TabId, url: &str) {
        let nav = {
            let mut state = self.state();
            state.next_nav += 1;
            let nav = NavigationId(format!("nav-{}", state.next_nav));
            if let Some(t) = state.tabs.get_mut(tab) {
                t.pending = Some((nav.clone(), url.to_owned()));
            }
            nav
        };
        self.emit(tab, NavEventKind::Started, url, Some(&nav));
        if let Some(after) = self.auto_commit {
            let (sim, tab) = (self.clone(), tab.clone());
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                sim.commit_navigation(&tab, &nav);
            });
        }
    }

    /// Commits `tab`'s pending navigation (following a redirect), if it has one.
    pub fn commit(&self, tab: &TabId) {
        let nav = self.state().tabs.get(tab).and_then(|t| t.pending.as_ref().map(|p| p.0.clone()));
        if let Some(nav) = nav {
            self.commit_navigation(tab, &nav);
        }
    }

    fn commit_navigation(&self, tab: &TabId, nav: &NavigationId) {
        let url = {
            let mut state = self.state();
            let redirects = state.redirects.clone();
            let Some(t) = state.tabs.get_mut(tab).filter(|t| !t.closed) else { return };
            let Some((_, url)) = t.pending.take_if(|p| p.0 == *nav) else { return };
            let url = redirects.get(&url).cloned().unwrap_or(url);
            t.url = url.clone();
            url
        };
        for kind in [NavEventKind::Committed, NavEventKind::DomLoaded, NavEventKind::Load] {
            self.emit(tab, kind, &url, Some(nav));
        }
    }

    /// The page of `tab` opens `dialog`.
    pub fn open_dialog_in(&self, tab: &TabId, dialog: Dialog) {
        let event = NavEvent::new(tab.clone(), NavEventKind::DialogOpened).with_dialog(Some(dialog));
        self.tracker().apply(&event);
        self.log.append(event);
    }

    fn tracker(&self) -> MutexGuard<'_, TabTracker> {
        self.tracker.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Fails as the real port does when the page is blocked by a dialog.
    /// The identity of the tab's document and its URL: one document per URL.
    fn document(&self, tab: &TabId) -> Result<(String, String), BrowserError> {
        let url = self.info(tab)?.url;
        let document = format!("d{}", url.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))));
        Ok((document, url))
    }

    fn unblocked(&self, tab: &TabId) -> Result<(), BrowserError> {
        match self.tracker().get(tab).and_then(|s| s.dialog.clone()) {
            Some(dialog) => Err(BrowserError::DialogOpen { tab: tab.clone(), dialog }),
            None => Ok(()),
        }
    }

    /// Closes a tab as the user would.
    pub fn close_tab(&self, tab: &TabId) {
        let url = {
            let mut state = self.state();
            let Some(t) = state.tabs.get_mut(tab).filter(|t| !t.closed) else { return };
            t.closed = true;
            t.url.clone()
        };
        self.emit(tab, NavEventKind::TabClosed, &url, None);
    }

    /// How many tabs were ever created.
    pub fn tabs_created(&self) -> u32 {
        self.state().next_id
    }

    fn open_tab(&self, tab: &TabId) -> Result<(), BrowserError> {
        match self.state().tabs.get(tab) {
            Some(t) if !t.closed => Ok(()),
            _ => Err(BrowserError::TabGone(tab.clone())),
        }
    }

    fn info(&self, tab: &TabId) -> Result<TabInfo, BrowserError> {
        let commit_first = self.state().commit_on_read.take_if(|t| t == tab).is_some();
        if commit_first {
            self.commit(tab);
        }
        let state = self.state();
        let t = state.tabs.get(tab).filter(|t| !t.closed).ok_or_else(|| BrowserError::TabGone(tab.clone()))?;
        let tracker = self.tracker.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let derived = tracker.get(tab).cloned().unwrap_or_default();
        Ok(TabInfo {
            id: tab.clone(),
            url: t.url.clone(),
            pending_url: t.pending.as_ref().map(|p| p.1.clone()),
            pending_navigation: t.pending.as_ref().map(|p| p.0.clone()),
            loading: derived.loading,
            opener: derived.opener,
            navigation_failed: derived.navigation_failed,
            dialog: derived.dialog,
        })
    }
}

impl Default for SimPort {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl BrowserPort for SimPort {
    async fn create_tab(&self, url: &str, active: bool) -> Result<TabId, BrowserError> {
        let tab = {
            let mut state = self.state();
            state.next_id += 1;
            let tab = TabId(format!("tab-{}", state.next_id));
            state.tabs.insert(tab.clone(), SimTab { url: "about:blank".into(), ..SimTab::default() });
            tab
        };
        self.emit(&tab, NavEventKind::TabCreated, "about:blank", None);
        if active {
            self.tracker.lock().unwrap_or_else(std::sync::PoisonError::into_inner).activated(&tab);
        }
        self.start(&tab, url);
        Ok(tab)
    }

    async fn tab(&self, tab: &TabId) -> Result<TabInfo, BrowserError> {
        self.info(tab)
    }

    async fn tabs(&self) -> Result<Vec<TabInfo>, BrowserError> {
        let ids: Vec<TabId> = self.state().tabs.iter().filter(|(_, t)| !t.closed).map(|(id, _)| id.clone()).collect();
        ids.iter().map(|id| self.info(id)).collect()
    }

    async fn navigate(&self, tab: &TabId, url: &str) -> Result<(), BrowserError> {
        self.open_tab(tab)?;
        self.start(tab, url);
        Ok(())
    }

    async fn reload(&self, tab: &TabId) -> Result<(), BrowserError> {
        let url = self.info(tab)?.url;
        self.start(tab, &url);
        Ok(())
    }

    async fn back(&self, tab: &TabId) -> Result<(), BrowserError> {
        self.reload(tab).await
    }

    async fn close(&self, tab: &TabId) -> Result<(), BrowserError> {
        self.open_tab(tab)?;
        self.close_tab(tab);
        Ok(())
    }

    async fn activate(&self, tab: &TabId) -> Result<(), BrowserError> {
        self.open_tab(tab)?;
        self.tracker.lock().unwrap_or_else(std::sync::PoisonError::into_inner).activated(tab);
        Ok(())
    }

    async fn active_tab(&self) -> Result<Option<TabId>, BrowserError> {
        Ok(self.tracker.lock().unwrap_or_else(std::sync::PoisonError::into_inner).active().cloned())
    }

    async fn click(&self, tab: &TabId, target: &Target) -> Result<(), BrowserError> {
        self.open_tab(tab)?;
        let Target::Css(selector) = target else { return Ok(()) };
        let target = self.state().click_targets.get(selector).cloned();
        if let Some(url) = target {
            self.start(tab, &url);
        }
        Ok(())
    }

    async fn type_text(&self, tab: &TabId, _target: &Target, _text: &str) -> Result<(), BrowserError> {
        self.open_tab(tab)
    }

    async fn press_key(&self, tab: &TabId, _key: Key) -> Result<(), BrowserError> {
        self.open_tab(tab)
    }

    /// Answers any expression with a snapshot of the committed page (title = URL).
    async fn evaluate(&self, tab: &TabId, _expression: &str) -> Result<Value, BrowserError> {
        self.unblocked(tab)?;
        let (document, url) = self.document(tab)?;
        Ok(json!({ "document": document, "url": url, "title": url, "text": "", "elements": [] }))
    }

    /// Answers the agent's document probe with the document's identity (one document per
    /// URL is enough for the loop's unit tests), and any other script with a snapshot of the
    /// committed page (title = URL).
    async fn call(&self, tab: &TabId, script: &PageScript, _args: &[Value]) -> Result<Value, BrowserError> {
        self.unblocked(tab)?;
        let (document, url) = self.document(tab)?;
        if script.name == "document id" {
            return Ok(json!(document));
        }
        Ok(json!({ "document": document, "url": url, "title": url, "text": "", "elements": [] }))
    }

    async fn screenshot(&self, tab: &TabId) -> Result<Vec<u8>, BrowserError> {
        self.open_tab(tab).map(|()| Vec::new())
    }

    fn open_dialog(&self, tab: &TabId) -> Option<Dialog> {
        self.tracker().get(tab).and_then(|s| s.dialog.clone())
    }

    async fn handle_dialog(&self, tab: &TabId, _accept: bool, _text: Option<&str>) -> Result<(), BrowserError> {
        self.open_tab(tab)?;
        if self.open_dialog(tab).is_none() {
            return Err(BrowserError::NoDialog(tab.clone()));
        }
        let event = NavEvent::new(tab.clone(), NavEventKind::DialogClosed);
        self.tracker().apply(&event);
        self.log.append(event);
        Ok(())
    }

    fn subscribe(&self) -> EventStream {
        self.log.subscribe()
    }

    fn subscribe_from(&self, from: u64) -> EventStream {
        self.log.subscribe_from(from)
    }

    fn position(&self) -> u64 {
        self.log.len()
    }

    fn events(&self) -> Vec<NavEvent> {
        self.log.snapshot_from(0)
    }

    fn events_origin(&self) -> Instant {
        self.log.origin()
    }

    fn request_log(&self) -> Arc<RequestLog> {
        Arc::clone(&self.requests)
    }

    fn diagnostics(&self) -> Option<&dyn super::PortDiagnostics> {
        Some(self)
    }
}

impl super::PortDiagnostics for SimPort {
    fn listener_count(&self) -> usize {
        self.log.listener_count()
    }
}
