//! What one scenario owns: its tabs (a port on a user context of its own), its fixture site, and
//! how it got them from the run.

use super::NavWorld;
use super::run::{ScenarioRun, SessionHold};
use crate::error::SetupError;
use crate::fixtures::FixtureSite;
use navguard::adapter::{BidiBrowser, BidiPort};
use navguard::browser::BrowserPort;
use std::sync::Arc;
use std::time::Instant;

/// What one scenario owns.
#[derive(Debug)]
pub struct ScenarioEnv {
    pub browser: Arc<BidiBrowser>,
    /// The scenario's hold on its session of the run's pool (`--sessions`); given back with
    /// the env. `None`: the browser is the scenario's own (an agent under test attaches to it),
    /// ended with the scenario.
    pub session: Option<Box<dyn SessionHold>>,
    /// The scenario's tabs, as everything but the teardown sees them.
    pub port: Arc<dyn BrowserPort>,
    /// The same tabs as the adapter made them: the teardown hands them back to the browser.
    pub user_context: BidiPort,
    /// The scenario's fixture site.
    pub site: FixtureSite,
    /// When the scenario began.
    pub started: Instant,
}

impl NavWorld {
    /// Gives the scenario its tabs and site (the before hook), as the run's settings say.
    pub async fn setup(&mut self, run: Arc<dyn ScenarioRun>) -> Result<(), SetupError> {
        let settings = run.settings();
        self.agent.force_guards_off = settings.guards_off;
        let (browser, session, port) = if settings.agent_attaches() {
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
        self.conformance.agent_description = settings.agent;
        self.conformance.call_timeout = settings.call_timeout;
        self.env = Some(ScenarioEnv { browser, session, port: shared, user_context: port, site, started });
        Ok(())
    }

    /// Takes the scenario's environment back (the after hook closes it).
    pub fn take_env(&mut self) -> Option<ScenarioEnv> {
        self.env.take()
    }
}
