//! The core as a tool layer: tools called one at a time by someone other than the round loop
//! (a conformance harness, a server that offers the core's tools), each answered with what the
//! loop would show its model next. A call runs as it does in a round (checked, under the
//! watchdog, refs checked against their document, the action settle, `expect` verified); then
//! the next round's look: the loop-top guard, the wait for a quiet page, the snapshot. A stop
//! the loop would make (the page went to another origin, the tab closed) is the look's answer,
//! and the session goes on: the caller decides what comes next.

use super::calls::record_call;
use super::look::Observed;
use super::planner::{CallResult, ToolCall, ToolReply};
use super::run::Agent;
use super::stop::StopReason;
use super::tab_list::{TabSummary, list_tabs};
use super::task::{Task, adopt_opened, update_ledger};
use super::trace::TraceEvent;
use crate::agent::ToolName;
use crate::agent::closed_loop::Observation;
use crate::browser::{EventStream, TabId};
use tokio_util::sync::CancellationToken;

/// The tools that name the task's tabs: before one runs, the task's tabs are caught up with
/// the browser's.
const TAB_TOOLS: [ToolName; 3] = [ToolName::ListTabs, ToolName::FocusTab, ToolName::CloseTabs];

/// A task driven one tool call at a time, by whichever agent (its port, its settings) the
/// caller hands each call.
#[derive(Default)]
pub struct Session {
    task: Task,
    cancel: CancellationToken,
    /// The latest look's page: `done` and the no-progress detector judge calls against it.
    observed: Option<Observed>,
    /// The port's events since the first call: the tabs the task's pages open join its ledger.
    events: Option<EventStream>,
    /// The tabs and the focus as the latest answer that showed them showed them.
    tabs_shown: Option<(Vec<TabId>, Option<TabId>)>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("round", &self.task.round).finish_non_exhaustive()
    }
}

/// What one call answered.
#[derive(Debug)]
pub struct SessionAnswer {
    /// The call's own result, as the model would be told it.
    pub call: CallResult,
    /// The page after it, as the next round would observe it; a stop if the loop would stop
    /// there (then the page was not observed); `None` when no tab is focused, or the call was
    /// `list_tabs`, which changes no page (the caller's last look and its refs still hold).
    pub page: Result<Option<Observation>, StopReason>,
    /// The task's tabs, when the call was `list_tabs` or they (or the focus) changed since an
    /// answer last showed them.
    pub tabs: Option<Vec<TabSummary>>,
}

impl Session {
    /// A session on a new task.
    pub fn new() -> Self {
        Self::default()
    }

    /// The task: its tabs and its trace.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// Runs `call` in the current round, then looks at the page as the next round would.
    pub async fn call(&mut self, agent: &Agent<'_>, mut call: ToolCall) -> SessionAnswer {
        // A caller's first navigate opens the task's first tab (its arguments are open_url's
        // too), as a person's first URL opens a window: there is no tab to navigate yet.
        if call.name == ToolName::Navigate.name() && self.task.tabs.focused().is_none() {
            ToolName::OpenUrl.name().clone_into(&mut call.name);
        }
        if self.task.round == 0 {
            self.begin_round();
        }
        // Tabs the task's pages opened since the last call (a script's window.open while the
        // model thought) are the task's before this call acts, so it can turn to them.
        if TAB_TOOLS.iter().any(|tool| call.name == tool.name()) {
            self.catch_up_with_browser(agent).await;
        } else {
            self.adopt_opened_tabs(agent);
        }
        let round = self.task.round;
        let observed = self.observed.take();
        let mut warnings = Vec::new();
        let (run, stuck) =
            agent.one_call(&mut self.task, round, &call, observed.as_ref(), &mut warnings, &self.cancel).await;
        let mut results = Vec::with_capacity(1);
        let ended = record_call(&mut self.task, round, &call, run, &mut results).or(stuck);
        let result = results.pop().unwrap_or_else(|| CallResult {
            tool: call.name.clone(),
            result: ToolReply::Failed(format!("{}: the call gave no result", call.name)),
            failure: None,
            picture: None,
        });
        let asked = call.name == ToolName::ListTabs.name();
        let page = match ended {
            // The call itself stopped the task (the browser went away): no look.
            Some(reason) if reason.kind() != super::stop::StopKind::Done => Err(reason),
            // Listing the tabs changes no page: the answer is the list, and the page the caller
            // last saw is still the one its refs belong to.
            None if asked => {
                self.begin_round();
                self.observed = observed;
                Ok(None)
            }
            _ => self.look(agent).await,
        };
        let tabs = self.tabs_to_show(agent, asked).await;
        SessionAnswer { call: result, page, tabs }
    }

    /// The task's tabs, when `asked` or when they or the focus changed since an answer last
    /// showed them; `None` when neither (or the browser could not list them).
    async fn tabs_to_show(&mut self, agent: &Agent<'_>, asked: bool) -> Option<Vec<TabSummary>> {
        let now = (self.task.tabs.listed(), self.task.tabs.focused().cloned());
        if !asked && self.tabs_shown.as_ref() == Some(&now) {
            return None;
        }
        let listed = list_tabs(agent.port, &self.task.tabs).await.ok()?;
        self.tabs_shown = Some(now);
        Some(listed)
    }

    /// Begins a round and looks at the page: the loop-top guard, the quiet page, the snapshot.
    pub async fn look(&mut self, agent: &Agent<'_>) -> Result<Option<Observation>, StopReason> {
        self.begin_round();
        let round = self.task.round;
        // As the loop does between rounds: tabs the pages opened join the task's ledger.
        self.adopt_opened_tabs_in(agent, round);
        match agent.guard_and_observe(&mut self.task, round, &self.cancel).await {
            Ok(observed) => {
                let page = observed.as_ref().map(|o| o.observation.clone());
                self.task.last_seen.clone_from(&page);
                self.observed = observed;
                Ok(page)
            }
            Err(reason) => {
                self.task.trace.record(round, TraceEvent::Stopped { reason: reason.clone() });
                Err(reason)
            }
        }
    }

    /// Adds the tabs the task's pages opened, at any time since the session's first call (by
    /// a script, a `target=_blank` link, a form), to the task's tabs: a caller about to list or
    /// choose the task's tabs calls it first, as [`Session::call`] and [`Session::look`] do.
    pub fn adopt_opened_tabs(&mut self, agent: &Agent<'_>) {
        let round = self.task.round;
        self.adopt_opened_tabs_in(agent, round);
    }

    /// Adopts the opened tabs as the browser has them now, not only as its events have told
    /// so far. A caller that learned of a new tab elsewhere (its own connection to the browser,
    /// a page that said so) may ask for it before the tab's creation event has reached this
    /// port: the browser's list of tabs, which names each tab's opener, is read first, and its
    /// answer also comes after every event the browser sent this port before it. A browser
    /// that cannot list its tabs leaves the events' word.
    async fn catch_up_with_browser(&mut self, agent: &Agent<'_>) {
        let listed = agent.port.tabs().await;
        self.adopt_opened_tabs(agent);
        let Ok(listed) = listed else { return };
        let round = self.task.round;
        for info in listed {
            if let Some(opener) = &info.opener {
                adopt_opened(&mut self.task, round, &info.id, opener);
            }
        }
    }

    fn adopt_opened_tabs_in(&mut self, agent: &Agent<'_>, round: u32) {
        let events = self.events.get_or_insert_with(|| agent.port.subscribe());
        update_ledger(&mut self.task, round, events);
    }

    fn begin_round(&mut self) {
        self.task.round += 1;
        self.task.trace.record(self.task.round, TraceEvent::RoundStarted);
    }
}
