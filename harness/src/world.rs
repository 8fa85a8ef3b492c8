//! The scenario's world: its own tabs (a port on a fresh user context), its own fixture site,
//! and the tabs it has met, in order.

use crate::error::{SetupError, StepError, StepResult};
use crate::fixtures::FixtureSite;
use crate::run_context::{RunContext, SessionLease};
use navguard::adapter::{BidiBrowser, BidiPort};
use navguard::browser::{BrowserPort, NavEvent, TabId};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a step waits for something the scenario says will happen. Generous: these machines
/// are small and noisy, and a wait that is met returns at once anyway.
pub const EVENT_DEADLINE: Duration = Duration::from_secs(15);

/// What one scenario owns.
#[derive(Debug)]
pub struct ScenarioEnv {
    pub browser: Arc<BidiBrowser>,
    /// The scenario's hold on its session of the run's pool (`--sessions`); given back with
    /// the env. `None`: the browser is the scenario's own (an agent under test attaches to it),
    /// ended with the scenario.
    pub session: Option<SessionLease>,
    /// The scenario's tabs, as everything but the teardown sees them.
    pub port: Arc<dyn BrowserPort>,
    /// The same tabs as the adapter made them: the teardown hands them back to the browser.
    pub user_context: BidiPort,
    /// The scenario's fixture site.
    pub site: FixtureSite,
    /// When the scenario began.
    pub started: Instant,
}

/// The cucumber world.
#[derive(Debug, Default, cucumber::World)]
pub struct NavWorld {
    run: Option<Arc<RunContext>>,
    env: Option<ScenarioEnv>,
    /// Tabs the scenario met, in order; tab 1 is the first.
    tabs: Vec<TabId>,
    current: Option<usize>,
    /// The event-log position before the latest action: waits look from here on.
    mark: u64,
    /// The agent: its settings, its scripted model, its task and what came of it.
    pub agent: crate::agent_state::AgentState,
    /// A question put to the page that has not been answered yet.
    pub pending_answer: Option<tokio::task::JoinHandle<Result<serde_json::Value, navguard::browser::BrowserError>>>,
    /// The agent under test of the conformance steps, its calls and what they answered.
    pub conformance: crate::conformance_steps::Conformance,
    /// The span the scenario's agents run in: their progress is named after the scenario
    /// ([`crate::progress`]).
    pub progress: crate::progress::ScenarioSpan,
}

impl NavWorld {
    /// Gives the scenario its tabs and site (the before hook).
    pub async fn setup(&mut self, run: Arc<RunContext>) -> Result<(), SetupError> {
        self.run = Some(Arc::clone(&run));
        self.agent.force_guards_off = run.mode.guards_off;
        let attaches = run.mode.agent.as_ref().is_some_and(|a| a.attaches());
        let (browser, session, port) = if attaches {
            // The agent sees the whole browser: the scenario's tabs are the default context's.
            let browser = run.own_browser().await?;
            let port = browser.default_port();
            (browser, None, port)
        } else {
            let session = run.lease().await?;
            let browser = Arc::clone(session.browser());
            let port = browser.open_port().await.map_err(SetupError::Tabs)?;
            (browser, Some(session), port)
        };
        let site = FixtureSite::start().await.map_err(SetupError::Site)?;
        let shared: Arc<dyn BrowserPort> = Arc::new(port.clone());
        let started = Instant::now();
        self.conformance.agent_description = run.mode.agent.clone();
        self.conformance.call_timeout = run.mode.call_timeout;
        self.env = Some(ScenarioEnv { browser, session, port: shared, user_context: port, site, started });
        Ok(())
    }

    /// Takes the scenario's environment back (the after hook closes it).
    pub fn take_env(&mut self) -> Option<ScenarioEnv> {
        self.env.take()
    }

    /// The scenario's environment.
    pub fn env(&self) -> StepResult<&ScenarioEnv> {
        self.env.as_ref().ok_or_else(|| StepError::Setup("the scenario has no browser (its set-up failed)".into()))
    }

    /// The scenario's port.
    /// Steps reach the browser only through the port's trait, as the agent does.
    pub fn port(&self) -> StepResult<&Arc<dyn BrowserPort>> {
        Ok(&self.env()?.port)
    }

    /// The scenario's fixture site.
    pub fn site(&self) -> StepResult<&FixtureSite> {
        Ok(&self.env()?.site)
    }

    /// Expands `{site}` and `{other}`.
    pub fn expand(&self, text: &str) -> String {
        match &self.env {
            Some(env) => env.site.expand(text),
            None => text.to_owned(),
        }
    }

    /// The tab the steps act on: the latest one the scenario opened or saw appear.
    pub fn current_tab(&self) -> StepResult<TabId> {
        self.current.map(|i| self.tabs[i].clone()).ok_or_else(|| StepError::Setup("no tab yet: open one first".into()))
    }

    /// Tab `n` (1-based, in the order the scenario met them).
    pub fn tab_number(&self, n: usize) -> StepResult<TabId> {
        n.checked_sub(1)
            .and_then(|i| self.tabs.get(i))
            .cloned()
            .ok_or_else(|| StepError::Setup(format!("there is no tab {n}: the scenario met {}", self.tabs.len())))
    }

    /// Makes `tab` the current tab, numbering it if it is new.
    pub fn adopt(&mut self, tab: TabId) {
        let index = self.tabs.iter().position(|t| *t == tab).unwrap_or_else(|| {
            self.tabs.push(tab);
            self.tabs.len() - 1
        });
        self.current = Some(index);
    }

    /// Whether the scenario already met `tab`.
    pub fn knows(&self, tab: &TabId) -> bool {
        self.tabs.contains(tab)
    }

    /// Remembers where the event log is, before an action: later waits look from here.
    pub fn mark(&mut self) -> StepResult {
        self.mark = self.port()?.position();
        Ok(())
    }

    /// The event-log position of the latest action.
    pub fn mark_position(&self) -> u64 {
        self.mark
    }

    /// Waits for the first event since the mark that matches, up to [`EVENT_DEADLINE`].
    pub async fn wait_for_event(&self, what: &str, matches: impl Fn(&NavEvent) -> bool) -> StepResult<NavEvent> {
        let mut events = self.port()?.subscribe_from(self.mark);
        let found = async {
            loop {
                match events.next().await {
                    Ok(event) if matches(&event) => return Ok(event),
                    Ok(_) => {}
                    Err(closed) => return Err(StepError::Setup(closed.to_string())),
                }
            }
        };
        match tokio::time::timeout(EVENT_DEADLINE, found).await {
            Ok(result) => result,
            Err(_) => Err(StepError::Timeout { what: what.to_owned(), after: EVENT_DEADLINE }),
        }
    }

    /// Every event of `tab` in the scenario so far.
    pub fn events_of(&self, tab: &TabId) -> StepResult<Vec<NavEvent>> {
        let all = self.port()?.events();
        Ok(all.into_iter().filter(|e| e.tab == *tab).collect())
    }
}
