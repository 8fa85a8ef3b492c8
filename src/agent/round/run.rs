//! The round: loop-top guard → observe → one model turn → its tool calls in order → next round.
//!
//! The agent and its loop live here; a round's pieces are beside it: the look at the page
//! (look.rs), the calls of a turn (calls.rs), `done` (done.rs) and the pause between rounds
//! (pause.rs).

use super::config::AgentConfig;
use super::loop_top::GuardRead;
use super::planner::{CallResult, PlanRequest, Planner};
use super::stop::StopReason;
use super::task::{Task, resume_notices, update_ledger};
use super::trace::TraceEvent;
use crate::agent::reliability::{Checkpoints, PauseReason, TaskControl};
use crate::agent::tools::TaskTabs;
use crate::agent::tools::{ToolName, ToolSet};
use crate::browser::BrowserPort;
use async_trait::async_trait;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Called before each round: the embedding application (or the harness) may act here.
#[async_trait]
pub trait RoundHook: Send + Sync {
    /// Round `round` is about to begin.
    async fn before_round(&self, round: u32, tabs: &TaskTabs);
}

/// The agent: a browser, a model, settings, and optionally a hook.
///
/// ```no_run
/// use navguard::prelude::*;
/// use serde_json::json;
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let browser = BidiBrowser::launch(BrowserConfig::default()).await?; // Chromium, headless
///     let port = browser.open_port().await?; // a set of tabs of its own
///     let mut plan = ScriptedPlanner::new(); // your model goes here
///     plan.add(1, "open_url", json!({ "url": "https://example.com/" }));
///     plan.add(2, "done", json!({ "summary": "opened it", "expect": { "title": "Example Domain" } }));
///
///     let mut task = Task::default();
///     let cancel = CancellationToken::new(); // cancel() is the user's Stop
///     let stop = Agent::new(&port, &plan, AgentConfig::default()).run(&mut task, &cancel).await;
///     println!("{}", stop.message());
///     for entry in &task.trace.entries {
///         println!("round {}: {:?}", entry.round, entry.event);
///     }
///     browser.shutdown().await;
///     Ok(())
/// }
/// ```
pub struct Agent<'a> {
    pub port: &'a dyn BrowserPort,
    pub planner: &'a dyn Planner,
    pub config: AgentConfig,
    /// Called before each round.
    pub hook: Option<&'a dyn RoundHook>,
    /// The tools the model is offered.
    pub tools: ToolSet,
    /// The user's pause and resume; without it, nobody can be asked.
    pub control: Option<&'a TaskControl>,
    /// Where a pause saves its checkpoint.
    pub checkpoints: Option<&'a dyn Checkpoints>,
    /// Where the first loop-top guard of a look reads the tab from.
    pub guard_read: GuardRead,
}

impl std::fmt::Debug for Agent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("config", &self.config).field("tools", &self.tools).finish_non_exhaustive()
    }
}

/// How a round ended: the loop goes on to the next, or the task stops.
pub(super) enum RoundEnd {
    /// The calls' results, warnings for the model's next turn, and a question for the user
    /// (`ask_user`: the task pauses).
    Next(Vec<CallResult>, Vec<String>, Option<String>),
    Stop(StopReason),
}

impl<'a> Agent<'a> {
    /// An agent with every tool offered and no hook.
    pub fn new(port: &'a dyn BrowserPort, planner: &'a dyn Planner, config: AgentConfig) -> Self {
        let guard_read = GuardRead::Browser;
        Self {
            port,
            planner,
            config,
            hook: None,
            tools: ToolSet::Creation,
            control: None,
            checkpoints: None,
            guard_read,
        }
    }

    /// An agent for a caller that drives a [`Session`](super::Session) one call at a time (an
    /// MCP client, a conformance harness): offered the caller's tools, planned by nobody.
    pub fn for_caller(port: &'a dyn BrowserPort, config: AgentConfig) -> Self {
        Self {
            tools: ToolSet::Caller,
            guard_read: GuardRead::Known,
            ..Self::new(port, &super::planner::NoPlanner, config)
        }
    }

    /// Runs the task until it stops; returns why. A task from a checkpoint goes on after the
    /// checkpoint's round.
    pub async fn run(&self, task: &mut Task, cancel: &CancellationToken) -> StopReason {
        let mut previous = Vec::new();
        let mut warnings = Vec::new();
        let mut events = self.port.subscribe();
        let tools = self.tools.tools();
        task.trace.record(task.round, TraceEvent::ToolsOffered { tools: tools.clone() });
        while task.round < self.config.round_limit {
            let round = task.round + 1;
            if let Err(reason) = self.between_rounds(task, round, cancel).await {
                return stop(task, task.round, reason);
            }
            let mut notices = update_ledger(task, round, &mut events);
            notices.append(&mut warnings);
            match self.round(task, round, &tools, &previous, notices, cancel).await {
                RoundEnd::Next(results, said, ask) => {
                    (previous, warnings, task.round) = (results, said, round);
                    if let Some(question) = ask
                        && let Err(reason) = self.pause(task, PauseReason::Question { question }, cancel).await
                    {
                        return stop(task, round, reason);
                    }
                }
                RoundEnd::Stop(reason) => return stop(task, round, reason),
            }
        }
        stop(task, self.config.round_limit, StopReason::RoundLimit)
    }

    async fn round(
        &self,
        task: &mut Task,
        round: u32,
        tools: &[ToolName],
        previous: &[CallResult],
        mut notices: Vec<String>,
        cancel: &CancellationToken,
    ) -> RoundEnd {
        task.trace.record(round, TraceEvent::RoundStarted);
        if let Some(reason) = task.repair.take() {
            task.trace.record(round, TraceEvent::Repair { reason });
        }
        if let Some(hook) = self.hook {
            hook.before_round(round, &task.tabs).await;
        }
        if cancel.is_cancelled() {
            return RoundEnd::Stop(StopReason::User);
        }
        let observation = match self.guard_and_observe(task, round, cancel).await {
            Ok(observation) => observation,
            Err(reason) => return RoundEnd::Stop(reason),
        };
        notices.extend(resume_notices(task, observation.as_ref().map(|o| &o.observation)));
        if let Some(summary) = task.summary.take() {
            task.trace.record(round, TraceEvent::SegmentSummary { text: summary.clone() });
            notices.push(summary);
        }
        if !notices.is_empty() {
            task.trace.record(round, TraceEvent::Told { notices: notices.clone() });
        }
        task.last_seen = observation.as_ref().map(|o| o.observation.clone());
        let request = PlanRequest {
            round,
            observation: observation.as_ref().map(|o| &o.observation),
            tools,
            previous,
            notices: &notices,
        };
        let turn = tokio::select! {
            biased;
            // Stop wins over a turn that came with it: the turn would not be run, and its
            // failure is not why the task ended.
            () = cancel.cancelled() => return RoundEnd::Stop(StopReason::User),
            turn = self.planner.next_turn(request) => turn,
        };
        let calls = match turn {
            Ok(turn) => turn.calls,
            Err(e) => return RoundEnd::Stop(StopReason::PlannerFailed { source: Arc::new(e) }),
        };
        task.trace.record(round, TraceEvent::ModelTurn { calls: calls.len() });
        if calls.is_empty() {
            return RoundEnd::Stop(StopReason::NoAction);
        }
        self.run_calls(task, round, calls, observation.as_ref(), cancel).await
    }
}

fn stop(task: &mut Task, round: u32, reason: StopReason) -> StopReason {
    task.trace.record(round, TraceEvent::Stopped { reason: reason.clone() });
    reason
}
