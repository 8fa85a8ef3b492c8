//! Running one checked tool call against the port and the task's tabs.

use super::error::{ToolError, ToolFailure};
use super::note::Note;
use super::tabs::{TabRef, TaskTabs};
use super::tool::{Tool, ToolName};
use crate::agent::closed_loop::{ExpectKey, Expectation, check_now_and_on, snapshot_args, verify};
use crate::agent::guards::is_restricted_url;
use crate::agent::guards::{origin_text, safe_parse_origin};
use crate::agent::settle::{ACTION_FOLLOW, ActionLimits, ActionSettleEnd, ActionSettled, ActionStreams, settle_action};
use crate::agent::settle::{IdleOutcome, wait_for_network_idle};
use crate::agent::settle::{LookedWith, SettleOutcome};
use crate::agent::settle::{Phase, Quiet};
use crate::agent::settle::{SettleReport, UrlSettle};
use crate::browser::{BrowserError, BrowserPort, DialogKind, EventStream, NavEventKind, Staleness, TabId, Target};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// What a tool call did.
#[derive(Debug)]
pub(in crate::agent) struct ToolRun {
    /// Its result text, or its error.
    pub result: Result<String, ToolError>,
    /// open_url's guard: its outcome and wait.
    pub guard: Option<SettleReport>,
    /// `done`'s summary: the task succeeded.
    pub done: Option<String>,
    /// Things worth a trace note (a focus fallback, …).
    pub notes: Vec<Note>,
    /// `ask_user`'s question: the task pauses until the user resumes it.
    pub ask: Option<String>,
    /// The tab whose page the action settle saw go quiet after the action, and when: the look
    /// after it need not wait for that page's next frames again.
    pub quiet_seen: Option<(TabId, Instant)>,
    /// The snapshot the action settle took in its last look at that page: the look after it
    /// need not take another.
    pub looked: Option<LookedWith>,
    /// `screenshot`'s picture: a PNG.
    pub picture: Option<Arc<[u8]>>,
}

impl ToolRun {
    pub(in crate::agent) fn ok(text: String) -> Self {
        Self {
            result: Ok(text),
            guard: None,
            done: None,
            notes: Vec::new(),
            ask: None,
            quiet_seen: None,
            looked: None,
            picture: None,
        }
    }

    pub(in crate::agent) fn err(e: ToolError) -> Self {
        Self { result: Err(e), ..Self::ok(String::new()) }
    }
}

/// The round's settings as far as the tools read them (the round's `AgentConfig` makes them).
#[derive(Clone, Copy, Debug)]
pub(in crate::agent) struct ToolSettings<'a> {
    pub open_url_guard: bool,
    pub settle_timeout: Duration,
    pub quiet: Quiet,
    pub action_cap: Duration,
    pub action_deadline: Duration,
    pub target_wait: Duration,
    /// The folder files may be uploaded from, when the user allowed one.
    pub files: Option<&'a std::path::Path>,
}

/// What a tool needs.
pub(in crate::agent) struct ToolContext<'a> {
    pub port: &'a dyn BrowserPort,
    pub config: ToolSettings<'a>,
    pub cancel: &'a CancellationToken,
    /// What the call waits for now, for the watchdog's progress reports.
    pub phase: Phase,
}

impl std::fmt::Debug for ToolContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext").field("config", &self.config).finish_non_exhaustive()
    }
}

/// The browser's error as the call's failure; a dialog that blocked the call is the core's
/// own failure, which tells the model how to go on.
pub(super) fn browser(tool: ToolName) -> impl Fn(BrowserError) -> ToolError {
    move |e| match e {
        BrowserError::DialogOpen { dialog, .. } => ToolFailure::DialogOpen { dialog }.of(tool),
        e => ToolFailure::Browser(e).of(tool),
    }
}

pub(super) fn focused(tabs: &TaskTabs, tool: ToolName) -> Result<TabId, ToolError> {
    tabs.focused().cloned().ok_or(ToolFailure::NoFocusedTab.of(tool))
}

impl ToolContext<'_> {
    /// Runs `tool`.
    pub(in crate::agent) async fn run(&self, tabs: &mut TaskTabs, tool: Tool) -> ToolRun {
        match tool {
            Tool::OpenUrl { url, active } => self.open_url(tabs, url, active).await,
            Tool::FocusTab { tab } => self.focus_tab(tabs, &tab).await,
            Tool::Navigate { url } => self.navigate(tabs, url).await.map_or_else(ToolRun::err, ToolRun::ok),
            Tool::GoBack => self.go_back(tabs).await.map_or_else(ToolRun::err, ToolRun::ok),
            Tool::Click { target } => self.click(tabs, &target).await,
            Tool::Type { target, text, submit } => self.type_into(tabs, &target, &text, submit).await,
            Tool::PressKey { key } => self.press(tabs, key).await,
            Tool::HandleDialog { accept, text } => self.handle_dialog(tabs, accept, text.as_deref()).await,
            Tool::CloseTabs { tabs: refs } => self.close_tabs(tabs, &refs).await,
            Tool::Wait { duration } => self.wait(duration).await,
            Tool::WaitFor { until, timeout } => self.wait_for(tabs, &until, timeout).await,
            Tool::WaitForNetworkIdle { idle, timeout } => self.network_idle(tabs, idle, timeout).await,
            Tool::AskUser { question } => ToolRun {
                ask: Some(question.clone()),
                ..ToolRun::ok(format!("asked the user: {question}; the task pauses until the user resumes it"))
            },
            Tool::Done { summary } => ToolRun { done: Some(summary.clone()), ..ToolRun::ok(summary) },
            // Both are a caller's, whose session answers with the page it looks at next (for
            // snapshot) or the tabs (for list_tabs, which changes no page) (`SessionAnswer`):
            // the call itself does nothing.
            Tool::Snapshot => ToolRun::ok("looked at the page".to_owned()),
            Tool::ListTabs => ToolRun::ok("listed the task's tabs".to_owned()),
            Tool::Scroll { how } => self.scroll(tabs, &how).await,
            Tool::Extract { what } => self.extract(tabs, &what).await,
            Tool::Screenshot { target, full_page } => self.screenshot(tabs, target.as_ref(), full_page).await,
            Tool::SelectOption { target, values } => self.select_option(tabs, &target, &values).await,
            Tool::Hover { target } => self.hover(tabs, &target).await,
            Tool::Drag { from, to } => self.drag(tabs, &from, &to).await,
            Tool::UploadFile { target, paths } => self.upload_file(tabs, &target, &paths).await,
            Tool::FillForm { fields } => self.fill_form(tabs, &fields).await,
        }
    }

    /// Creates the tab, waits for it to commit on the target origin (the first guard), then
    /// pins it. A failure fails the call; the tab stays open for the model to close.
    async fn open_url(&self, tabs: &mut TaskTabs, url: String, active: bool) -> ToolRun {
        const TOOL: ToolName = ToolName::OpenUrl;
        let origin = safe_parse_origin(&url).filter(|_| !is_restricted_url(&url));
        let Some(origin) = origin else { return ToolRun::err(ToolFailure::Restricted { url }.of(TOOL)) };
        let tab = match self.port.create_tab(&url, active).await {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(browser(TOOL)(e)),
        };
        tabs.record_opened(tab.clone());
        let mut run = ToolRun::ok(format!("opened tab {tab} on {url}"));
        if self.config.open_url_guard {
            self.phase.set(format!("the navigation to commit on {}", origin_text(&origin)));
            let settle = UrlSettle::new(tab.clone(), origin.clone()).timeout(self.config.settle_timeout);
            let report = match settle.wait(self.port, self.cancel).await {
                Ok(report) => report,
                Err(e) => return ToolRun::err(browser(TOOL)(e)),
            };
            if !matches!(report.outcome, SettleOutcome::Committed { .. }) {
                let error = ToolFailure::NotCommitted {
                    tab,
                    origin: origin_text(&origin),
                    timeout: self.config.settle_timeout,
                    outcome: report.outcome.kind(),
                }
                .of(TOOL);
                return ToolRun { guard: Some(report), ..ToolRun::err(error) };
            }
            run.guard = Some(report);
        }
        Self::pin_new_tab(tabs, tab, origin, &mut run);
        run
    }

    fn pin_new_tab(tabs: &mut TaskTabs, tab: TabId, origin: url::Origin, run: &mut ToolRun) {
        if tabs.primary().is_none() {
            tabs.adopt_primary(tab, origin);
            run.notes.push(Note::FirstTab);
        } else {
            tabs.pin(tab, origin);
        }
    }

    /// Only moves the pointer (the next round's guard settles a loading tab).
    async fn focus_tab(&self, tabs: &mut TaskTabs, reference: &TabRef) -> ToolRun {
        let tab = match reference {
            TabRef::Active => match self.port.active_tab().await {
                Ok(Some(tab)) => Some(tab),
                Ok(None) => None,
                Err(e) => return ToolRun::err(browser(ToolName::FocusTab)(e)),
            },
            other => tabs.resolve(other),
        };
        match tab {
            Some(tab) => {
                tabs.focus(tab.clone());
                ToolRun::ok(format!("focused tab {tab}"))
            }
            None => ToolRun::err(ToolFailure::UnknownTab { reference: describe(reference) }.of(ToolName::FocusTab)),
        }
    }

    /// Navigates the focused tab and re-pins it to the new origin: the agent chose to go there.
    async fn navigate(&self, tabs: &mut TaskTabs, url: String) -> Result<String, ToolError> {
        const TOOL: ToolName = ToolName::Navigate;
        let tab = focused(tabs, TOOL)?;
        let origin = safe_parse_origin(&url).filter(|_| !is_restricted_url(&url));
        let Some(origin) = origin else { return Err(ToolFailure::Restricted { url }.of(TOOL)) };
        self.phase.set(format!("the navigation to {url} to start"));
        self.port.navigate(&tab, &url).await.map_err(browser(TOOL))?;
        tabs.pin(tab.clone(), origin);
        Ok(format!("tab {tab} is navigating to {url}"))
    }

    /// Goes back in the focused tab's history; like `navigate`, it returns once the navigation
    /// has started, and the next round's guard settles it. The page it goes back to is one the
    /// task was on, so its origin stays pinned: a history entry on another origin stops the task
    /// at the next round as any change of origin does.
    async fn go_back(&self, tabs: &TaskTabs) -> Result<String, ToolError> {
        const TOOL: ToolName = ToolName::GoBack;
        let tab = focused(tabs, TOOL)?;
        self.phase.set("the navigation back to start");
        self.port.back(&tab).await.map_err(browser(TOOL))?;
        Ok(format!("tab {tab} is going back"))
    }

    /// The focused tab, once each target of an input is ready for it: a ref of the focused
    /// tab's document (not of another tab's), a selector's element present and visible.
    pub(super) async fn ready_for_input<'t>(
        &self,
        tabs: &TaskTabs,
        tool: ToolName,
        targets: impl IntoIterator<Item = &'t Target>,
    ) -> Result<TabId, ToolError> {
        let tab = focused(tabs, tool)?;
        let targets: Vec<&Target> = targets.into_iter().collect();
        for target in &targets {
            match target {
                Target::Ref(reference) => {
                    if let Some(owner) = tabs.document_tab(&reference.document).filter(|owner| **owner != tab) {
                        let failure = ToolFailure::RefOfAnotherTab {
                            reference: reference.clone(),
                            owner: owner.clone(),
                            focused: tab,
                        };
                        return Err(failure.of(tool));
                    }
                }
                Target::Css(selector) => self.wait_for_target(&tab, selector, tool).await?,
            }
        }
        // A ref names an element of the observed document; while a navigation replaces that
        // document (the user reloaded, the page redirects itself), acting on it would act on a
        // page that is going: the ref is stale, observe again. The events tell it without a
        // round trip; the port looks at them again once it has found the element, whose
        // answer brings in what was on its way, before it sends any input.
        let first_ref = targets.iter().find_map(|t| match t {
            Target::Ref(reference) => Some(reference),
            Target::Css(_) => None,
        });
        if let Some(reference) = first_ref
            && self.port.tab_from_events(&tab).await.is_ok_and(|info| info.pending_url.is_some())
        {
            let stale = BrowserError::StaleRef { reference: reference.clone(), why: Staleness::DocumentLeaving };
            return Err(browser(tool)(stale));
        }
        Ok(tab)
    }

    /// The action settle's bounds, from the settings.
    pub(super) fn action_limits(&self) -> ActionLimits {
        ActionLimits {
            quiet: self.config.quiet,
            cap: self.config.action_cap,
            deadline: self.config.action_deadline,
            follow: ACTION_FOLLOW,
        }
    }

    /// Answers the focused tab's dialog, then waits as after an input: the page goes on (an
    /// alert's script resumes, a leave-page question accepted lets its navigation go), and
    /// the next round's guard settles wherever it went.
    async fn handle_dialog(&self, tabs: &TaskTabs, accept: bool, text: Option<&str>) -> ToolRun {
        const TOOL: ToolName = ToolName::HandleDialog;
        let tab = match focused(tabs, TOOL) {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        let Some(dialog) = self.port.open_dialog(&tab) else {
            return ToolRun::err(browser(TOOL)(BrowserError::NoDialog(tab)));
        };
        self.phase.set(format!("{} to close", dialog.what()));
        let position = self.port.position();
        let request_position = self.port.request_log().len();
        let taken = std::time::SystemTime::now();
        if let Err(e) = self.port.handle_dialog(&tab, accept, text).await {
            return ToolRun::err(browser(TOOL)(e));
        }
        let verb = if accept { "accepted" } else { "dismissed" };
        let answered = format!("{verb} {}{}", dialog.what(), dialog.quoted_message());
        if accept && dialog.kind == DialogKind::BeforeUnload {
            // The page lets its navigation go only now. Wait until the navigation shows, so
            // that the next look cannot take the page that is going for where it went.
            self.phase.set("the navigation the page held to go on");
            let leaving = wait_for_leaving(self.port.subscribe_from(position), &tab, self.config.action_cap);
            match leaving.await {
                Ok(true) => {}
                Ok(false) => return ToolRun::ok(format!("{answered}; the page did not leave")),
                Err(e) => return ToolRun::err(browser(TOOL)(e)),
            }
        }
        self.phase.set("what the answer started to end and the page to go quiet");
        let streams = ActionStreams::from(self.port, position, request_position, taken);
        match settle_action(self.port, streams, &tab, self.action_limits(), self.cancel, Some(snapshot_args())).await {
            Ok(settled) => {
                let text = format!("{answered}; the page {}", self.settle_words(&tab, &settled));
                ToolRun { quiet_seen: quiet_seen(&tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
            }
            Err(e) => ToolRun::err(browser(TOOL)(e)),
        }
    }

    /// How the page ended an action settle, in words; requests the action started and that
    /// held the wait are counted, those still in flight at the deadline named, and a dialog
    /// named with what to do.
    pub(super) fn settle_words(&self, tab: &TabId, settled: &ActionSettled) -> String {
        let words = match settled.end {
            ActionSettleEnd::Quiet if settled.requests == 1 => {
                "went quiet once the request the action started had ended".into()
            }
            ActionSettleEnd::Quiet if settled.requests > 1 => {
                format!("went quiet once the {} requests the action started had ended", settled.requests)
            }
            ActionSettleEnd::Quiet => "went quiet".to_owned(),
            ActionSettleEnd::Capped => "was still busy at the settle cap".to_owned(),
            ActionSettleEnd::Deadline => {
                let pending: Vec<String> = settled.pending.iter().map(|u| path_of(u)).collect();
                format!(
                    "was still busy at the action deadline ({} ms), waiting for what the action started: {}",
                    self.config.action_deadline.as_millis(),
                    pending.join(", ")
                )
            }
            ActionSettleEnd::Leaving => "began to navigate".to_owned(),
            ActionSettleEnd::Aborted => "was left when the user pressed Stop".to_owned(),
            ActionSettleEnd::Dialog => "opened a dialog".to_owned(),
        };
        match self.port.open_dialog(tab) {
            Some(dialog) => format!("{words}; {dialog}; answer it with handle_dialog"),
            None => words,
        }
    }

    async fn close_tabs(&self, tabs: &mut TaskTabs, refs: &[TabRef]) -> ToolRun {
        let mut targets = Vec::with_capacity(refs.len());
        for reference in refs {
            let tab = match reference {
                TabRef::Active => self.port.active_tab().await.ok().flatten(),
                other => tabs.resolve(other),
            };
            match tab {
                Some(tab) => targets.push(tab),
                None => {
                    let failure = ToolFailure::UnknownTab { reference: describe(reference) };
                    return ToolRun::err(failure.of(ToolName::CloseTabs));
                }
            }
        }
        let mut run = ToolRun::ok(String::new());
        for tab in &targets {
            match self.port.close(tab).await {
                Ok(()) => {}
                Err(e) if e.is_tab_gone() => run.notes.push(Note::TabAlreadyGone { tab: tab.clone() }),
                Err(e) => return ToolRun::err(browser(ToolName::CloseTabs)(e)),
            }
            Self::forget_closed(tabs, tab, &mut run);
        }
        let closed: Vec<String> = targets.iter().map(ToString::to_string).collect();
        run.result = Ok(format!("closed {}", closed.join(", ")));
        run
    }

    /// A closed focused tab hands the focus back to the primary tab (the explicit fallback).
    fn forget_closed(tabs: &mut TaskTabs, tab: &TabId, run: &mut ToolRun) {
        let was_focused = tabs.focused() == Some(tab);
        tabs.forget(tab);
        if let (true, Some(primary)) = (was_focused, tabs.primary().cloned()) {
            tabs.focus(primary.clone());
            run.notes.push(Note::FocusFellBack { primary: primary.clone() });
        }
    }

    /// Waits until a click's or a typing's target is present and visible (Playwright's
    /// actionability wait), at most the configured target wait.
    pub(super) async fn wait_for_target(&self, tab: &TabId, selector: &str, tool: ToolName) -> Result<(), ToolError> {
        self.phase.set(format!("{selector} to be present and visible"));
        let until = Expectation(vec![(ExpectKey::Visible, selector.to_owned())]);
        let verdict = check_now_and_on(self.port, tab, &until, self.config.target_wait).await.map_err(browser(tool))?;
        if verdict.held() {
            return Ok(());
        }
        Err(ToolFailure::TargetNotFound { selector: selector.to_owned(), waited: self.config.target_wait }.of(tool))
    }

    /// `wait_for`: event-driven (the page's `MutationObserver`, re-armed on a new document
    /// when a navigation replaces the one it watched), until `until` holds or `timeout`.
    async fn wait_for(&self, tabs: &TaskTabs, until: &Expectation, timeout: Duration) -> ToolRun {
        const TOOL: ToolName = ToolName::WaitFor;
        let tab = match focused(tabs, TOOL) {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        self.phase.set(describe_until(until));
        let started = std::time::Instant::now();
        match verify(self.port, &tab, until, timeout).await {
            Ok(verdict) if verdict.held() => {
                ToolRun::ok(format!("waited {} ms for {}", started.elapsed().as_millis(), describe_until(until)))
            }
            Ok(verdict) => ToolRun::err(ToolFailure::WaitTimedOut { after: timeout, misses: verdict.words() }.of(TOOL)),
            Err(e) => ToolRun::err(browser(TOOL)(e)),
        }
    }

    /// `wait_for_network_idle`: until the focused tab has had no request in flight (streams and
    /// requests older than the cap aside) for `idle`.
    async fn network_idle(&self, tabs: &TaskTabs, idle: Duration, timeout: Duration) -> ToolRun {
        const TOOL: ToolName = ToolName::WaitForNetworkIdle;
        let tab = match focused(tabs, TOOL) {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        self.phase.set(format!("the network to be idle for {} ms", idle.as_millis()));
        let started = std::time::Instant::now();
        match wait_for_network_idle(self.port, &tab, idle, timeout).await {
            Ok(IdleOutcome::Idle { seen }) => ToolRun::ok(format!(
                "the network was idle for {} ms after {} ms ({seen} requests seen)",
                idle.as_millis(),
                started.elapsed().as_millis()
            )),
            Ok(IdleOutcome::TimedOut { busy }) => ToolRun::err(
                ToolFailure::NetworkBusy { after: timeout, busy: busy.iter().map(|u| path_of(u)).collect() }.of(TOOL),
            ),
            Err(e) => ToolRun::err(browser(TOOL)(e)),
        }
    }

    async fn wait(&self, duration: Duration) -> ToolRun {
        self.phase.set(format!("the wait of {} ms to end", duration.as_millis()));
        tokio::select! {
            biased;
            // A wait that ran its full time was not cut short: its own end is taken first.
            () = tokio::time::sleep(duration) => ToolRun::ok(format!("waited {} ms", duration.as_millis())),
            () = self.cancel.cancelled() => ToolRun::ok("the wait was cut short by Stop".into()),
        }
    }
}

/// The tab and the instant, when an action settle ended with the page quiet.
pub(super) fn quiet_seen(tab: &TabId, settled: &ActionSettled) -> Option<(TabId, Instant)> {
    (settled.end == ActionSettleEnd::Quiet).then(|| (tab.clone(), Instant::now()))
}

fn describe(reference: &TabRef) -> String {
    match reference {
        TabRef::Primary => "@primary".into(),
        TabRef::Opened(None) => "@opened".into(),
        TabRef::Opened(Some(n)) => format!("@opened#{n}"),
        TabRef::Active => "@active".into(),
        TabRef::Listed(n) => format!("@tab#{n}"),
        TabRef::Id(id) => id.to_string(),
    }
}

/// A URL without its query (a message names the request, not what it carried).
fn path_of(url: &str) -> String {
    url::Url::parse(url)
        .map_or_else(|_| url.to_owned(), |u| format!("{}{}", u.origin().ascii_serialization(), u.path()))
}

/// What `wait_for` waits for, in words ("#late to be present and the URL to start with …").
fn describe_until(until: &Expectation) -> String {
    let parts: Vec<String> = until
        .0
        .iter()
        .map(|(key, value)| match key {
            ExpectKey::Url => format!("the URL to start with {value:?}"),
            ExpectKey::Title => format!("the title to be {value:?}"),
            ExpectKey::Text => format!("the text {value:?} to show"),
            ExpectKey::Present => format!("{value} to be present"),
            ExpectKey::Absent => format!("{value} to be absent"),
            ExpectKey::Visible => format!("{value} to be visible"),
        })
        .collect();
    parts.join(" and ")
}

/// Waits (at most `limit`) until `tab` shows that a navigation went on, failed, or asked again;
/// whether it did. Chromium 156 starts the navigation a leave-page question held only once it
/// is accepted; Firefox ESR 153 says it started without its URL (which the port drops) and
/// shows it only at its commit.
async fn wait_for_leaving(mut events: EventStream, tab: &TabId, limit: Duration) -> Result<bool, BrowserError> {
    let showed = async {
        loop {
            let event = events.next().await.map_err(|_| BrowserError::Disconnected)?;
            let went_on = event.kind.proves_commit()
                || event.kind.ends_without_commit()
                || matches!(event.kind, NavEventKind::Started | NavEventKind::TabClosed | NavEventKind::DialogOpened);
            if event.tab == *tab && went_on {
                return Ok(true);
            }
        }
    };
    tokio::time::timeout(limit, showed).await.unwrap_or(Ok(false))
}
