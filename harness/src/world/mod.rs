//! The scenario's world, which every step module uses and none defines: the cucumber `World`
//! ([`NavWorld`]), what the scenario owns (its env: tabs and fixture site), the tabs it met, the
//! agent core's state, the agent under test's state, the user's actions, the round hook that
//! plays them, the typed step parameters, and the interface through which the run gives the
//! world its browser and settings ([`ScenarioRun`]). Nothing here prints or reports: the runner
//! reads the world after a scenario and does that.

mod agent_core;
mod conformance;
mod env;
mod orchestrator;
pub(crate) mod parameters;
pub(crate) mod round_hook;
mod run;
mod running_task;
mod tabs;
pub(crate) mod user_action;

pub(crate) use crate::fixtures::Placeholders;
pub use agent_core::{AgentCoreState, ConversationState};
pub(crate) use conformance::BeforeCall;
pub use conformance::{CallMade, Conformance};
pub use env::ScenarioEnv;
pub use orchestrator::Orchestrated;
pub use parameters::Switch;
pub use run::{DEFAULT_CALL_TIMEOUT, ScenarioRun, SessionHold, WorldSettings};
pub(crate) use running_task::Finished;
pub use running_task::{CheckpointFile, RunningTask};
pub(crate) use tabs::same_url;

use crate::error::{StepError, StepResult};
use crate::fixtures::FixtureSite;
use navguard::browser::{BrowserPort, TabId};
use std::sync::Arc;
use std::time::Duration;

/// How long a step waits for something the scenario says will happen. Generous: these machines
/// are small and noisy, and a wait that is met returns at once anyway.
pub const EVENT_DEADLINE: Duration = Duration::from_secs(15);

/// The cucumber world.
#[derive(Debug, Default, cucumber::World)]
pub struct NavWorld {
    env: Option<ScenarioEnv>,
    /// Tabs the scenario met, in order; tab 1 is the first.
    tabs: Vec<TabId>,
    current: Option<usize>,
    /// The event-log position before the latest action: waits look from here on.
    mark: u64,
    /// The agent core, run in process: its settings, its scripted model, its task and what came
    /// of it.
    pub core: AgentCoreState,
    /// A question put to the page that has not been answered yet.
    pub pending_answer: Option<tokio::task::JoinHandle<Result<serde_json::Value, navguard::browser::BrowserError>>>,
    /// The agent under test of the conformance steps, its calls and what they answered.
    pub conformance: Conformance,
    /// The orchestrator the scenario serves, with its console.
    pub orchestrator: Option<Orchestrated>,
    /// The task of the orchestrator's that waits for the user.
    pub orchestrator_task: Option<String>,
    /// The span the scenario's agents run in: their progress is named after the scenario
    /// ([`crate::progress`]).
    pub progress: crate::progress::ScenarioSpan,
}

impl NavWorld {
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

    /// Expands `{site}`, `{other}` and `{files}`.
    pub fn expand(&self, text: &str) -> String {
        match &self.env {
            Some(env) => env.site.expand(text).replace("{files}", &env.files.path().to_string_lossy()),
            None => text.to_owned(),
        }
    }
}
