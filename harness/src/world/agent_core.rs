//! The agent core's part of the world (navguard's own agent, run in process, not an agent under
//! test): settings, the scripted model, the user's planned actions, the task and how it ended.

use super::running_task::{CheckpointFile, RunningTask};
use super::user_action::UserAction;
use navguard::agent::{AgentConfig, ScriptedPlanner, SettleReport, StopReason, Task};
use std::collections::BTreeMap;
use std::time::Duration;

/// What the agent core's steps set up and record.
#[derive(Debug, Default)]
pub struct AgentCoreState {
    pub config: AgentConfig,
    pub plan: ScriptedPlanner,
    /// The plan as the last run played it: what the model was shown.
    pub played: Option<ScriptedPlanner>,
    /// The task (its tabs and trace).
    pub task: Task,
    /// What the user does before which round.
    pub user_actions: BTreeMap<u32, Vec<UserAction>>,
    /// How the last run ended.
    pub stop: Option<StopReason>,
    /// How long it took.
    pub took: Option<Duration>,
    /// What the settle helper steps decided, in order.
    pub settles: Vec<SettleReport>,
    /// Conversation turns on a stored task.
    pub conversation: ConversationState,
    /// `navguard repro --guards off`: both guards off, whatever the scenario says.
    pub force_guards_off: bool,
    /// A task running in the background (`When the agent starts the task`).
    pub running: Option<RunningTask>,
    /// The background run ended before its first round began: `the task ends` finds it over.
    pub ended_before_a_round: bool,
    /// The task store its checkpoints go to.
    pub checkpoints: Option<CheckpointFile>,
}

impl AgentCoreState {
    /// The settings a run uses: the scenario's, with both guards off when forced.
    pub fn effective_config(&self) -> navguard::agent::AgentConfig {
        let mut config = self.config.clone();
        if self.force_guards_off {
            (config.open_url_guard, config.loop_top_guard) = (false, false);
        }
        config
    }
}

/// A stored task, its browser clients and its turns.
#[derive(Debug, Default)]
pub struct ConversationState {
    /// The store's folder (removed with the scenario).
    pub dir: Option<tempfile::TempDir>,
    pub store: Option<navguard::store::TaskStore>,
    /// The registered browser clients.
    pub clients: navguard::conversation::Clients,
    /// Ports of the clients beyond the scenario's own, to close afterwards.
    pub extra_ports: Vec<navguard::adapter::BidiPort>,
    pub task_id: String,
    /// Each turn's outcome, in order.
    pub turns: Vec<navguard::conversation::TurnOutcome>,
    /// Where each turn's entries begin in the task's trace.
    pub turn_starts: Vec<usize>,
    /// The last turn's failure, if it failed before the loop ran.
    pub turn_error: Option<String>,
}
