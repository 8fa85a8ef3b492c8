//! [`BrowserPort`] over BiDi, for the tabs of one user context.

mod capture;
mod click;
mod gesture;

use super::error::{general, navigation_error, on_tab};
use super::restore::{AfterAnswer, report_if_restored};
use super::router::Scope;
use super::target::{Place, ctx, flatten_frames, value_of};
use crate::bidi::modules::browser::UserContext;
use crate::bidi::modules::browsing_context::{
    Activate, Close, ContextId, Create, GetTree, HandleUserPrompt, Info, Navigate, Readiness, Reload, TraverseHistory,
};
use crate::bidi::modules::input::PerformActions;
use crate::bidi::modules::script::{CallFunction, Evaluate, EvaluateResult, GetRealms, InRealm};
use crate::bidi::{BidiClient, BidiError, Command, ErrorCode, RemoteError};
use crate::browser::{
    BrowserError, BrowserPort, Dialog, EventStream, FrameId, FrameInfo, Gesture, Key, NavEvent, NavEventKind,
    PageScript, PortDiagnostics, PressLanded, RequestLog, Shot, TabId, TabInfo, Target,
};
use async_trait::async_trait;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a navigation command may stay unanswered in the background. Chromium answers
/// `browsingContext.navigate` only at commit, even with `wait: none`; the port never awaits
/// that answer past the navigation's start.
const NAVIGATION_COMMAND_TIMEOUT: Duration = Duration::from_secs(300);

/// The tabs of one user context, driven over BiDi.
#[derive(Clone)]
pub struct BidiPort {
    client: BidiClient,
    scope: Arc<Scope>,
    user_context: Option<UserContext>,
    call_timeout: Duration,
    focus: Arc<super::focus::FocusEmulation>,
    realms: Arc<super::realms::PageRealms>,
}

impl std::fmt::Debug for BidiPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BidiPort").field("user_context", &self.user_context).finish_non_exhaustive()
    }
}

/// A script's answer, or the dialog that held it.
fn page_answered(place: &Place, answer: PageAnswer<EvaluateResult>) -> Result<EvaluateResult, BrowserError> {
    match answer {
        PageAnswer::Answered(result) => Ok(result),
        PageAnswer::Held(dialog) => Err(BrowserError::DialogOpen { tab: place.tab.clone(), dialog }),
    }
}

/// The events that show a navigation command took effect. Not a failure: the one that shows
/// up may be an older navigation's (Chromium fails the superseded history traversal late); a
/// command that fails before starting says so in its answer. A dialog counts too: the page
/// asks whether to leave (`beforeunload`), and the navigation waits for the answer (Firefox
/// ESR 153 says it started only with no URL, which the port cannot use).
fn shows_navigation_began(kind: NavEventKind) -> bool {
    matches!(kind, NavEventKind::Started | NavEventKind::SameDocument | NavEventKind::DialogOpened)
}

/// How a command to the page ended, when a dialog may open while it is pending.
enum PageAnswer<T> {
    /// The page answered.
    Answered(T),
    /// The page opened a dialog first. Chromium 156 answers a script, an input or a
    /// screenshot only once the dialog is answered; the command goes on in the background
    /// until then (or its deadline).
    Held(Dialog),
}

impl BidiPort {
    pub(super) fn new(
        client: BidiClient,
        scope: Arc<Scope>,
        user_context: Option<UserContext>,
        call_timeout: Duration,
    ) -> Self {
        Self { client, scope, user_context, call_timeout, focus: Default::default(), realms: Default::default() }
    }

    /// The user context of its tabs (`None`: the default one).
    pub fn user_context(&self) -> Option<&UserContext> {
        self.user_context.as_ref()
    }

    /// The BiDi connection, for what the port does not cover.
    pub fn client(&self) -> &BidiClient {
        &self.client
    }

    async fn send<C: Command>(&self, tab: &TabId, cmd: &C) -> Result<C::Output, BrowserError> {
        self.client.send(cmd, self.call_timeout).await.map_err(|e| on_tab(tab, C::METHOD, e))
    }

    /// Sends a navigation command in the background and returns once the tab's navigation has
    /// begun, within the call deadline. The command's answer alone is not enough: Chromium may
    /// answer before it sends `navigationStarted`, and a caller that reads the tab then would
    /// see the old page with nothing pending. So after a successful answer the port still waits
    /// for the tab's start (or commit) event; only the deadline ends that wait, successfully.
    async fn start_navigation<C>(
        &self,
        tab: &TabId,
        cmd: C,
        mut events: EventStream,
        after: AfterAnswer,
    ) -> Result<(), BrowserError>
    where
        C: Command + Send + Sync + 'static,
    {
        let (client, scope, on, deadline) =
            (self.client.clone(), Arc::clone(&self.scope), tab.clone(), self.call_timeout);
        let (tx, mut reply) = tokio::sync::oneshot::channel::<Result<(), BidiError>>();
        tokio::spawn(async move {
            let result = client.send(&cmd, NAVIGATION_COMMAND_TIMEOUT).await.map(|_| ());
            if let Err(e) = &result {
                tracing::debug!(method = C::METHOD, error = %e, "background navigation command");
            }
            let answered = result.is_ok();
            let _ = tx.send(result);
            if answered && after == AfterAnswer::LookForRestore {
                report_if_restored(&client, &scope, &on, deadline).await;
            }
        });
        let deadline = tokio::time::sleep(self.call_timeout);
        tokio::pin!(deadline);
        let mut answered = false;
        loop {
            tokio::select! {
                biased;
                // Events first: the reader hands them over before any later reply, so a
                // navigation that began and then failed (a download) is seen to have begun
                // before the command's error is read, and the error is not taken for a
                // navigation that never started (which the caller would send again).
                event = events.next() => match event {
                    Ok(e) if e.tab == *tab && (shows_navigation_began(e.kind) || e.kind.proves_commit()) => return Ok(()),
                    Ok(_) => {}
                    Err(_) => return Err(BrowserError::Disconnected),
                },
                answer = &mut reply, if !answered => match answer {
                    Ok(Ok(())) => answered = true,
                    Ok(Err(e)) => return Err(navigation_error(tab, C::METHOD, e)),
                    Err(_) => return Err(BrowserError::Disconnected),
                },
                () = &mut deadline => {
                    return match answered {
                        true => Ok(()),
                        false => Err(BrowserError::Timeout { op: C::METHOD.to_owned(), after: self.call_timeout }),
                    };
                }
            }
        }
    }

    /// Sends a command that needs the page itself (a script, an input, a screenshot): not at
    /// all while the tab has a dialog open, and without waiting behind one that opens
    /// meanwhile. It runs in the background under the call deadline, so one held behind a
    /// dialog is still given up in time.
    async fn send_to_page<C>(
        &self,
        place: &Place,
        cmd: C,
        deadline: Duration,
    ) -> Result<PageAnswer<C::Output>, BrowserError>
    where
        C: Command + Send + Sync + 'static,
        C::Output: Send + 'static,
    {
        let tab = &place.tab;
        // Subscribe before looking: a dialog that opens in between is still seen.
        let mut events = self.scope.log.subscribe();
        if let Some(dialog) = self.dialog_now(tab).await? {
            return Err(BrowserError::DialogOpen { tab: tab.clone(), dialog });
        }
        let (client, on) = (self.client.clone(), place.clone());
        let (tx, mut reply) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let _ = tx.send(client.send(&cmd, deadline).await.map_err(|e| on.error(C::METHOD, e)));
        });
        let answered = |answer: Result<Result<C::Output, BrowserError>, _>| match answer {
            Ok(answer) => answer.map(PageAnswer::Answered),
            Err(_) => Err(BrowserError::Disconnected),
        };
        loop {
            tokio::select! {
                biased;
                answer = &mut reply => return answered(answer),
                event = events.next() => match event {
                    Ok(NavEvent { kind: NavEventKind::DialogOpened, tab: of, dialog: Some(dialog), .. })
                        if of == *tab => return Ok(PageAnswer::Held(dialog)),
                    Ok(_) => {}
                    // The connection closed: the command's own answer says so.
                    Err(_) => return answered(reply.await),
                },
            }
        }
    }

    /// Returns once every event the browser sent before now is in: the reader hands events to
    /// the log in arrival order, before any later reply, so one round trip (the cheapest
    /// command that goes through the same ordered channel as the events) is enough.
    async fn catch_up(&self, tab: &TabId) -> Result<(), BrowserError> {
        self.send(tab, &GetTree { root: Some(ctx(tab)), max_depth: Some(0) }).await.map(|_| ())
    }

    /// The page realm of the place's document, if it has one yet. Scripts go to the realm, not
    /// the context: Chromium 156 never answers context-targeted `script.evaluate` or
    /// `locateNodes` in a `window.open` popup, while realm-targeted calls work everywhere.
    /// Just after a commit the new document may have no realm yet: then `None`, and the caller
    /// targets the context (which Chromium holds until the realm exists).
    async fn page_realm(&self, place: &Place, deadline: Duration) -> Result<Option<String>, BrowserError> {
        let get = GetRealms { context: place.context(), kind: "window" };
        let realms = self.client.send(&get, deadline).await.map_err(|e| place.error(GetRealms::METHOD, e))?;
        Ok(realms.realms.into_iter().find(|r| r.sandbox.is_none()).map(|r| r.realm))
    }

    /// A script command (`script.evaluate` or `script.callFunction`) at the place, in its page
    /// realm when there is one; each of the two commands within `deadline`. The realm of a
    /// tab's own document is read once and kept while no event of the tab comes (`realms.rs`).
    async fn evaluate_raw<C>(
        &self,
        place: &Place,
        command: C,
        deadline: Duration,
    ) -> Result<EvaluateResult, BrowserError>
    where
        C: InRealm + Send + Sync + 'static,
    {
        let top = place.frame.is_none();
        if top && let Some(realm) = self.realms.get(&place.tab, &self.scope.log) {
            match self.send_to_page(place, command.clone().to_realm(&realm), deadline).await {
                // The realm went with its document, whose events are still on the way.
                Err(BrowserError::TabGone(_) | BrowserError::InvalidArgument(_)) => self.realms.forget(&place.tab),
                answer => return page_answered(place, answer?),
            }
        }
        let from = self.scope.log.len();
        let command = match self.page_realm(place, deadline).await? {
            Some(realm) => {
                if top {
                    self.realms.keep(&place.tab, &realm, from);
                }
                command.to_realm(&realm)
            }
            None => command,
        };
        page_answered(place, self.send_to_page(place, command, deadline).await?)
    }

    /// An input to the page. One held by a dialog that opened meanwhile was taken: the dialog
    /// is what it set off (a click on a link whose page asks whether to leave), or it is
    /// delivered once the dialog is answered.
    async fn input(&self, place: &Place, actions: PerformActions) -> Result<(), BrowserError> {
        self.focus.ensure(&self.client, &place.tab, self.call_timeout).await;
        self.send_to_page(place, actions, self.call_timeout).await.map(|_| ())
    }

    /// The tab read-out. The committed URL comes from the events once the tab has committed
    /// anything: `getTree` can still report the old URL after `navigationCommitted` was sent
    /// (seen with a commit 70 ms after its start), while the events are ordered with the
    /// pending state. Before any commit (a new tab's about:blank), `getTree` says.
    fn info(&self, tab: TabId, tree_url: String) -> TabInfo {
        let state = self.scope.tracker().get(&tab).cloned().unwrap_or_default();
        state.into_info(tab, tree_url)
    }

    fn owns(&self, info: &Info) -> bool {
        let mine = self.user_context.as_ref().map_or("default", |u| u.0.as_str());
        info.user_context.as_ref().map_or("default", |u| u.0.as_str()) == mine
    }
}

/// Waits (at most `limit`) for the tab's load event, or its end.
async fn wait_for_load(mut events: EventStream, tab: &TabId, limit: Duration) {
    let loaded = async {
        while let Ok(e) = events.next().await {
            if e.tab == *tab && matches!(e.kind, NavEventKind::Load | NavEventKind::TabClosed | NavEventKind::Failed) {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(limit, loaded).await;
}

fn check_url(url: &str) -> Result<(), BrowserError> {
    url::Url::parse(url).map(|_| ()).map_err(|source| BrowserError::InvalidUrl { url: url.to_owned(), source })
}

impl BidiPort {
    /// How a new tab is made. A user context of its own gets a window of its own, its later
    /// tabs opening beside its first: its tabs are never behind another context's, and a tab
    /// behind another draws no frames (a page that loads more as it is scrolled, or waits for
    /// its tab to be seen, would wait for a context it knows nothing of). The browser's default
    /// user context opens tabs where a person's would open.
    async fn create_command(&self, active: bool) -> Result<Create, BrowserError> {
        let user_context = self.user_context.clone();
        let (kind, reference_context) = match &user_context {
            None => ("tab", None),
            Some(_) => match self.tabs().await?.into_iter().next() {
                Some(beside) => ("tab", Some(ctx(&beside.id))),
                None => ("window", None),
            },
        };
        Ok(Create { kind, reference_context, background: !active, user_context })
    }
}

#[async_trait]
impl BrowserPort for BidiPort {
    async fn create_tab(&self, url: &str, active: bool) -> Result<TabId, BrowserError> {
        check_url(url)?;
        let create = self.create_command(active).await?;
        let created = super::create::create_tab(&self.client, &self.scope, &create, self.call_timeout).await;
        let tab = created.map_err(|e| general(Create::METHOD, e))?;
        if active {
            self.scope.tracker().activated(&tab);
        }
        let events = self.scope.log.subscribe();
        let navigate = Navigate { context: ctx(&tab), url: url.to_owned(), wait: Readiness::None };
        match self.start_navigation(&tab, navigate, events, AfterAnswer::Nothing).await {
            // The tab exists, and its navigation ended before the command was answered (a 204:
            // Chromium now and then fails the command itself with net::ERR_ABORTED, as well as
            // sending navigationFailed). That is the tab's state, as when the failure comes
            // after the answer: the caller's settle wait reads it and reports it did not commit.
            Err(BrowserError::NavigationFailed { reason, .. }) => {
                tracing::info!(target: "navguard::adapter", "tab {tab}: its navigation to {url} failed at once: {reason}");
                Ok(tab)
            }
            Err(e) => Err(e),
            Ok(()) => Ok(tab),
        }
    }

    async fn tab(&self, tab: &TabId) -> Result<TabInfo, BrowserError> {
        let tree = self.send(tab, &GetTree { root: Some(ctx(tab)), max_depth: Some(0) }).await?;
        // Another port's tab is not one of this port's: to it, that tab does not exist.
        let info = tree.contexts.into_iter().next().filter(|i| self.owns(i));
        let info = info.ok_or_else(|| BrowserError::TabGone(tab.clone()))?;
        Ok(self.info(tab.clone(), info.url))
    }

    fn tab_known(&self, tab: &TabId) -> Option<TabInfo> {
        let state = self.scope.tracker().get(tab).filter(|state| !state.closed).cloned()?;
        let url = state.committed_url.clone()?;
        Some(state.into_info(tab.clone(), url))
    }

    async fn tabs(&self) -> Result<Vec<TabInfo>, BrowserError> {
        let tree = self.client.send(&GetTree { root: None, max_depth: Some(0) }, self.call_timeout).await;
        let tree = tree.map_err(|e| general(GetTree::METHOD, e))?;
        let listed = tree.contexts.into_iter().filter(|i| self.owns(i)).map(|i| {
            let opener = i.original_opener.map(|o| TabId(o.0));
            let mut info = self.info(TabId(i.context.0), i.url);
            // The tree names a tab's opener even when the tab's creation event has not reached
            // this connection yet (another connection to the session may have heard it first).
            info.opener = info.opener.or(opener);
            info
        });
        Ok(listed.collect())
    }

    async fn navigate(&self, tab: &TabId, url: &str) -> Result<(), BrowserError> {
        check_url(url)?;
        let events = self.scope.log.subscribe();
        let navigate = Navigate { context: ctx(tab), url: url.to_owned(), wait: Readiness::None };
        self.start_navigation(tab, navigate, events, AfterAnswer::Nothing).await
    }

    async fn reload(&self, tab: &TabId) -> Result<(), BrowserError> {
        let events = self.scope.log.subscribe();
        self.start_navigation(tab, Reload { context: ctx(tab), wait: Readiness::None }, events, AfterAnswer::Nothing)
            .await
    }

    async fn back(&self, tab: &TabId) -> Result<(), BrowserError> {
        let events = self.scope.log.subscribe();
        let traverse = TraverseHistory { context: ctx(tab), delta: -1 };
        self.start_navigation(tab, traverse, events, AfterAnswer::LookForRestore).await
    }

    /// Closes the tab. Chromium 156 silently drops a `browsingContext.close` sent between a
    /// page's commit and its load about one time in eight (measured: 8 of 60; 0 of 60 once
    /// loaded), and a second close sent while the first is pending can stall the browser. So a
    /// tab that has committed but not loaded is given until its load (at most half the call
    /// deadline) before the one close is sent.
    async fn close(&self, tab: &TabId) -> Result<(), BrowserError> {
        let events = self.scope.log.subscribe();
        let committed_not_loaded = self.scope.tracker().get(tab).is_some_and(|s| s.loading && s.pending_url.is_none());
        if committed_not_loaded {
            wait_for_load(events, tab, self.call_timeout / 2).await;
        }
        self.send(tab, &Close { context: ctx(tab) }).await.map(|_| ())
    }

    async fn activate(&self, tab: &TabId) -> Result<(), BrowserError> {
        self.send(tab, &Activate { context: ctx(tab) }).await?;
        self.scope.tracker().activated(tab);
        Ok(())
    }

    async fn active_tab(&self) -> Result<Option<TabId>, BrowserError> {
        Ok(self.scope.tracker().active().cloned())
    }

    async fn click(&self, tab: &TabId, target: &Target) -> Result<(), BrowserError> {
        self.click_target(tab, target).await
    }

    async fn press_landed(&self, tab: &TabId, target: &Target) -> Result<Option<PressLanded>, BrowserError> {
        self.last_press(tab, target).await
    }

    async fn gesture(&self, tab: &TabId, gesture: &Gesture) -> Result<(), BrowserError> {
        self.perform_gesture(tab, gesture).await
    }

    async fn set_files(&self, tab: &TabId, target: &Target, paths: &[std::path::PathBuf]) -> Result<(), BrowserError> {
        self.put_files(tab, target, paths).await
    }

    async fn type_text(&self, tab: &TabId, target: &Target, text: &str) -> Result<(), BrowserError> {
        self.click_to_focus(tab, target).await?;
        let place = Place::of_target(tab, target);
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let keys = PerformActions::keys(place.context(), chars.iter().map(String::as_str));
        self.input(&place, keys).await
    }

    async fn press_key(&self, tab: &TabId, key: Key) -> Result<(), BrowserError> {
        self.input(&Place::top(tab), PerformActions::keys(ctx(tab), [key.webdriver_value()])).await
    }

    async fn evaluate(&self, tab: &TabId, expression: &str) -> Result<Value, BrowserError> {
        let result =
            self.evaluate_raw(&Place::top(tab), Evaluate::new(&ctx(tab), expression), self.call_timeout).await?;
        value_of(result)
    }

    /// The tab's tree below it, from `getTree` rooted at the tab, parents before children.
    async fn frames(&self, tab: &TabId) -> Result<Vec<FrameInfo>, BrowserError> {
        let tree = self.send(tab, &GetTree { root: Some(ctx(tab)), max_depth: None }).await?;
        let top = tree.contexts.into_iter().next().filter(|i| self.owns(i));
        let top = top.ok_or_else(|| BrowserError::TabGone(tab.clone()))?;
        let mut frames = Vec::new();
        flatten_frames(top.children.unwrap_or_default(), None, &mut frames);
        for frame in &mut frames {
            frame.loading = self.scope.frame_loading(&ContextId(frame.id.0.clone()));
        }
        Ok(frames)
    }

    async fn call(&self, tab: &TabId, script: &PageScript, args: &[Value]) -> Result<Value, BrowserError> {
        let command = CallFunction::new(&ctx(tab), script.function, args);
        value_of(self.evaluate_raw(&Place::top(tab), command, self.call_timeout).await?)
    }

    async fn call_in_frame(
        &self,
        tab: &TabId,
        frame: &FrameId,
        script: &PageScript,
        args: &[Value],
        deadline: Duration,
    ) -> Result<Value, BrowserError> {
        let place = Place { tab: tab.clone(), frame: Some(frame.clone()) };
        let command = CallFunction::new(&place.context(), script.function, args);
        // The realm lookup and the script together: a command given up here goes on in the
        // background until its own deadline, the same.
        match tokio::time::timeout(deadline, self.evaluate_raw(&place, command, deadline)).await {
            Ok(result) => value_of(result?),
            Err(_) => Err(BrowserError::Timeout {
                op: format!("{} ({}) in frame {frame}", CallFunction::METHOD, script.name),
                after: deadline,
            }),
        }
    }

    async fn screenshot(&self, tab: &TabId) -> Result<Vec<u8>, BrowserError> {
        self.capture_shot(tab, &Shot::Viewport).await
    }

    async fn capture(&self, tab: &TabId, shot: &Shot) -> Result<Vec<u8>, BrowserError> {
        self.capture_shot(tab, shot).await
    }

    fn open_dialog(&self, tab: &TabId) -> Option<Dialog> {
        self.scope.tracker().get(tab).and_then(|state| state.dialog.clone())
    }

    async fn dialog_now(&self, tab: &TabId) -> Result<Option<Dialog>, BrowserError> {
        if self.open_dialog(tab).is_none() {
            return Ok(None);
        }
        self.catch_up(tab).await?;
        Ok(self.open_dialog(tab))
    }

    async fn handle_dialog(&self, tab: &TabId, accept: bool, text: Option<&str>) -> Result<(), BrowserError> {
        let mut events = self.scope.log.subscribe();
        let answer = HandleUserPrompt { context: ctx(tab), accept, user_text: text.map(str::to_owned) };
        match self.client.send(&answer, self.call_timeout).await {
            Ok(_) => {}
            Err(BidiError::Remote { error: RemoteError { code: ErrorCode::NoSuchAlert, .. }, .. }) => {
                // The browser knows best: a dialog the events left open (its close never
                // said) must not block the tab for good.
                self.scope.tracker().dialog_gone(tab);
                return Err(BrowserError::NoDialog(tab.clone()));
            }
            Err(e) => return Err(on_tab(tab, HandleUserPrompt::METHOD, e)),
        }
        // Both browsers say `userPromptClosed` before they answer; should one not, the next
        // call would still find the tab blocked, so wait for it (within the call deadline).
        let closed = async {
            while self.open_dialog(tab).is_some() {
                if events.next().await.is_err() {
                    return;
                }
            }
        };
        if tokio::time::timeout(self.call_timeout, closed).await.is_err() {
            tracing::debug!(target: "navguard::adapter", %tab, "no userPromptClosed after handleUserPrompt");
            self.scope.tracker().dialog_gone(tab);
        }
        Ok(())
    }

    fn subscribe(&self) -> EventStream {
        self.scope.log.subscribe()
    }

    fn subscribe_from(&self, from: u64) -> EventStream {
        self.scope.log.subscribe_from(from)
    }

    fn position(&self) -> u64 {
        self.scope.log.len()
    }

    fn events(&self) -> Vec<NavEvent> {
        self.scope.log.snapshot_from(0)
    }

    fn events_origin(&self) -> Instant {
        self.scope.log.origin()
    }

    fn request_log(&self) -> Arc<RequestLog> {
        Arc::clone(&self.scope.requests)
    }

    fn diagnostics(&self) -> Option<&dyn PortDiagnostics> {
        Some(self)
    }
}

impl PortDiagnostics for BidiPort {
    fn listener_count(&self) -> usize {
        self.scope.log.listener_count()
    }

    fn wire_record(&self) -> Vec<String> {
        self.scope.raw_events().iter().filter_map(|e| serde_json::to_string(e).ok()).collect()
    }
}
