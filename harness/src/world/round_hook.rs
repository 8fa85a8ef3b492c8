//! The user's planned actions, performed just before the agent core's rounds. The agent core's,
//! the conversation and the reliability steps all run the core with them.

use super::NavWorld;
use super::user_action::UserAction;
use crate::error::StepResult;
use crate::fixtures::Placeholders;
use async_trait::async_trait;
use navguard::agent::{RoundHook, TaskTabs};
use navguard::browser::BrowserPort;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;

/// Performs `Given before round <n> the user <action>` on the task's focused tab.
pub(crate) struct UserScript {
    pub port: Arc<dyn BrowserPort>,
    /// The actions, by round.
    pub actions: BTreeMap<u32, Vec<UserAction>>,
    /// Expands `{site}` / `{other}`.
    pub placeholders: Placeholders,
    /// Actions that failed (the scenario fails on them after the run).
    pub failures: Mutex<Vec<String>>,
}

/// The user's planned actions, taken from the world, as a round hook.
pub(crate) fn user_script(world: &mut NavWorld) -> StepResult<UserScript> {
    Ok(UserScript {
        port: world.port()?.clone(),
        actions: std::mem::take(&mut world.core.user_actions),
        placeholders: world.site()?.placeholders(),
        failures: Mutex::new(Vec::new()),
    })
}

#[async_trait]
impl RoundHook for UserScript {
    async fn before_round(&self, round: u32, tabs: &TaskTabs) {
        for action in self.actions.get(&round).into_iter().flatten() {
            let Some(tab) = tabs.focused().cloned() else {
                self.fail(format!("before round {round}: the task has no focused tab for {action:?}"));
                continue;
            };
            if let Err(e) = action.perform(&*self.port, &tab, |u| self.placeholders.expand(u)).await {
                self.fail(format!("before round {round}: {action:?} failed: {e}"));
            }
        }
    }
}

impl UserScript {
    fn fail(&self, text: String) {
        self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(text);
    }

    /// The failures so far.
    pub(crate) fn failures(&self) -> Vec<String> {
        self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}
