//! The agent under test's part of the world (the conformance steps' agent: navguard's core
//! through the neutral tools, or another agent the run names with `--agent`): the agent, what
//! happens before each call, and the log of its calls and answers. The runner reads the log
//! after the scenario; the reports build their records from it.

use super::run::DEFAULT_CALL_TIMEOUT;
use super::user_action::UserAction;
use crate::under_test::description::Description;
use crate::under_test::process::StderrKept;
use crate::under_test::{AgentUnderTest, Answer, NeutralTool};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// What happens just before a call is sent.
#[derive(Clone, Debug)]
pub(crate) enum BeforeCall {
    /// The user acts on the agent's tab.
    User(UserAction),
    /// The model thinks.
    Pause(Duration),
    /// The page has opened a dialog (by the browser's event).
    Dialog,
    /// A page has opened a tab by itself and that tab's first page has loaded (by the
    /// browser's events).
    OpenedTab,
}

/// The agent under test in one scenario, and what its calls answered.
pub struct Conformance {
    /// The run's agent (navguard's core when `None`).
    pub agent_description: Option<Arc<Description>>,
    /// The agent, once a step started it.
    pub(crate) agent: Option<Box<dyn AgentUnderTest>>,
    /// The calls made, by number.
    pub(crate) calls: BTreeMap<u32, CallMade>,
    /// What happens before which call.
    pub(crate) before: BTreeMap<u32, Vec<BeforeCall>>,
    /// Why the scenario does not apply to this agent, once a step found out.
    pub not_applicable: Option<String>,
    /// How long one call may take (`--call-timeout`).
    pub call_timeout: Duration,
    /// How many tabs opened by a page the scenario has waited for: the next wait is for the
    /// one after them.
    pub(crate) opened_tabs_awaited: usize,
    /// What the agent wrote to stderr, kept once it was closed.
    ended_stderr: Option<StderrKept>,
}

/// One call made, and what it answered.
#[derive(Debug)]
pub struct CallMade {
    pub tool: NeutralTool,
    pub args: Value,
    pub answer: Answer,
    /// It gave no answer in time: that fails the scenario once its table is sent.
    pub unanswered: bool,
}

impl std::fmt::Debug for Conformance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conformance")
            .field("agent", &self.agent_description.as_ref().map(|d| &d.name))
            .field("calls", &self.calls.len())
            .finish_non_exhaustive()
    }
}

impl Default for Conformance {
    fn default() -> Self {
        Self {
            agent_description: None,
            agent: None,
            calls: BTreeMap::new(),
            before: BTreeMap::new(),
            not_applicable: None,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            opened_tabs_awaited: 0,
            ended_stderr: None,
        }
    }
}

impl Conformance {
    /// Ends the agent (its process and whatever it started).
    pub async fn close(&mut self) {
        if let Some(agent) = self.agent.take() {
            self.ended_stderr = agent.stderr();
            agent.close().await;
        }
    }

    /// The calls made, by number, in order (the set-up navigate, call 0, is not one once the
    /// set-up has passed).
    pub fn calls(&self) -> impl Iterator<Item = (u32, &CallMade)> {
        self.calls.iter().map(|(n, c)| (*n, c))
    }

    /// Each call's tool, args and whole answer, as JSON; `None` when no call was made.
    pub fn transcript(&self) -> Option<String> {
        if self.calls.is_empty() {
            return None;
        }
        let calls: Vec<Value> = self
            .calls
            .iter()
            .map(|(n, c)| serde_json::json!({ "call": n, "tool": c.tool.name(), "args": c.args, "answer": c.answer }))
            .collect();
        serde_json::to_string_pretty(&calls).ok()
    }

    /// The end of what the agent under test wrote to stderr, bounded, if it wrote anything
    /// (all of it once the agent is closed).
    pub fn agent_stderr(&self) -> Option<String> {
        self.agent.as_ref().and_then(|a| a.stderr()).or_else(|| self.ended_stderr.clone()).and_then(|s| s.text())
    }

    /// Call `n`'s answer.
    pub(crate) fn answer(&self, n: u32) -> Option<&Answer> {
        self.calls.get(&n).map(|c| &c.answer)
    }

    /// The latest call whose answer held a snapshot.
    pub(crate) fn latest_snapshot(&self) -> Option<u32> {
        self.calls.iter().rev().find(|(_, c)| c.answer.elements.is_some()).map(|(n, _)| *n)
    }

    /// The first call the agent gave no answer of its own to (none in time, or its process
    /// broke off), with what happened.
    pub(crate) fn first_unanswered(&self) -> Option<(u32, &str)> {
        self.calls
            .iter()
            .find(|(_, c)| c.unanswered || c.answer.broken)
            .map(|(n, c)| (*n, c.answer.failure.as_ref().map_or("", |f| f.message.as_str())))
    }

    /// The agent's name as the steps' messages give it.
    pub(crate) fn name(&self) -> String {
        self.agent_description.as_ref().map_or_else(|| "navguard".to_owned(), |d| d.name.clone())
    }
}
