//! What a scenario's world needs of the run it belongs to, and nothing more: a browser for the
//! scenario and three of the run's settings. The world names this interface and the runner's
//! `RunContext` provides it, so the world never sees the runner's output, results or reports,
//! and the arrows point one way: runner → world → steps.

use crate::error::SetupError;
use crate::under_test::description::Description;
use async_trait::async_trait;
use navguard::adapter::BidiBrowser;
use std::sync::Arc;
use std::time::Duration;

/// How long one call of the agent under test may take unless `--call-timeout` says otherwise.
/// It lives here, below the runner, because a world made without a run (its `Default`) needs it
/// too.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The run's settings that a scenario's world follows.
#[derive(Clone, Debug)]
pub struct WorldSettings {
    /// Both guards off whatever the scenario says, to see the original race
    /// (`navguard repro --guards off`).
    pub guards_off: bool,
    /// The agent under test of the conformance steps (`--agent`); navguard's core when `None`.
    pub agent: Option<Arc<Description>>,
    /// How long one call of the agent under test may take (`--call-timeout`).
    pub call_timeout: Duration,
}

impl WorldSettings {
    /// Whether the agent under test attaches to the whole browser (over CDP) rather than
    /// working in the scenario's own tabs.
    pub fn agent_attaches(&self) -> bool {
        self.agent.as_ref().is_some_and(|a| a.attaches())
    }
}

/// A scenario's hold on one of the run's browser sessions. The run counts how many scenarios
/// use each session; dropping the hold gives the session back.
pub trait SessionHold: std::fmt::Debug + Send + Sync {
    /// The session's browser.
    fn browser(&self) -> &Arc<BidiBrowser>;
}

/// The run, as a scenario's world sees it.
#[async_trait]
pub trait ScenarioRun: Send + Sync {
    /// The settings the scenario follows.
    fn settings(&self) -> WorldSettings;

    /// A session of the run's browsers for one scenario, shared with other scenarios (each in
    /// its own user context).
    async fn lease(&self) -> Result<Box<dyn SessionHold>, SetupError>;

    /// A browser of the scenario's own, ended with the scenario: an agent under test that
    /// attaches to the browser sees every tab of it, so it must not share one.
    async fn own_browser(&self) -> Result<Arc<BidiBrowser>, SetupError>;
}
