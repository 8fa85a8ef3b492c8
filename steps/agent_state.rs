//! The agent's part of the world: settings, the scripted model, the user's planned actions,
//! the task and how it ended.

use crate::steps::user_action::UserAction;
use navguard::agent::{AgentConfig, ScriptedPlanner, SettleReport, StopReason, Task};
use std::collections::BTreeMap;
use std::time::Duration;

/// What the agent steps set up and record.
#[derive(Debug, Default)]
pub struct AgentState {
    /// The agent's settings.
    pub config: AgentConfig,
    /// The scripted model.
    pub plan: ScriptedPlanner,
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
}
