//! The round: loop-top guard → observe → one model turn → its tool calls in order → next round.

use super::config::AgentConfig;
use super::error::{ToolError, ToolFailure};
use super::execute::{ToolContext, ToolRun};
use super::guard::loop_top_guard;
use super::observe::{Observation, observe};
use super::planner::{CallResult, PlanRequest, Planner, ToolCall, ToolReply};
use super::stop::StopReason;
use super::tabs::TaskTabs;
use super::tools::{Tool, ToolName, ToolSet, parse_args, parse_name};
use super::trace::{Trace, TraceEvent};
use crate::browser::{BrowserPort, EventStream, NavEventKind};
use async_trait::async_trait;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A task: its tabs and its trace. It outlives a run (a later turn reuses its tabs).
#[derive(Debug, Default)]
pub struct Task {
    pub tabs: TaskTabs,
    pub trace: Trace,
}

/// Called before each round: the embedding application (or the harness) may act here.
#[async_trait]
pub trait RoundHook: Send + Sync {
    /// Round `round` is about to begin.
    async fn before_round(&self, round: u32, tabs: &TaskTabs);
}

/// The agent: a browser, a model, settings, and optionally a hook.
pub struct Agent<'a> {
    pub port: &'a dyn BrowserPort,
    pub planner: &'a dyn Planner,
    pub config: AgentConfig,
    /// Called before each round.
    pub hook: Option<&'a dyn RoundHook>,
    /// The tools the model is offered.
    pub tools: ToolSet,
}

impl std::fmt::Debug for Agent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("config", &self.config).field("tools", &self.tools).finish_non_exhaustive()
    }
}

enum RoundEnd {
    Next(Vec<CallResult>),
    Stop(StopReason),
}

/// Adds the tabs that pages of the task opened since the last look to its ledger; returns what
/// the model should be told.
fn update_ledger(task: &mut Task, round: u32, events: &mut EventStream) -> Vec<String> {
    let mut notices = Vec::new();
    while let Some(event) = events.try_next() {
        let Some(opener) = event.opener.as_ref().filter(|_| event.kind == NavEventKind::TabCreated) else { continue };
        if task.tabs.adopt_child(event.tab.clone(), opener) {
            task.trace.record(round, TraceEvent::ChildTab { tab: event.tab.to_string(), opener: opener.to_string() });
            notices.push(format!("tab {} was opened by the page in tab {opener}", event.tab));
        }
    }
    notices
}

impl<'a> Agent<'a> {
    /// An agent with every tool offered and no hook.
    pub fn new(port: &'a dyn BrowserPort, planner: &'a dyn Planner, config: AgentConfig) -> Self {
        Self { port, planner, config, hook: None, tools: ToolSet::Creation }
    }

    /// Runs the task until it stops; returns why.
    pub async fn run(&self, task: &mut Task, cancel: &CancellationToken) -> StopReason {
        let mut previous = Vec::new();
        let mut events = self.port.subscribe();
        let tools = self.tools.tools();
        task.trace.record(0, TraceEvent::ToolsOffered { tools: tools.clone() });
        for round in 1..=self.config.round_limit {
            let notices = update_ledger(task, round, &mut events);
            match self.round(task, round, &tools, &previous, &notices, cancel).await {
                RoundEnd::Next(results) => previous = results,
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
        notices: &[String],
        cancel: &CancellationToken,
    ) -> RoundEnd {
        task.trace.record(round, TraceEvent::RoundStarted);
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
        let request = PlanRequest { round, observation: observation.as_ref(), tools, previous, notices };
        let turn = tokio::select! {
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
        self.run_calls(task, round, calls, cancel).await
    }

    async fn guard_and_observe(
        &self,
        task: &mut Task,
        round: u32,
        cancel: &CancellationToken,
    ) -> Result<Option<Observation>, StopReason> {
        let guard = loop_top_guard(self.port, &task.tabs, &self.config, cancel).await;
        let waited_ms = guard.waited.as_millis() as u64;
        task.trace.record(round, TraceEvent::Guard { read_url: guard.read_url, decision: guard.decision, waited_ms });
        guard.verdict?;
        let Some(tab) = task.tabs.focused().cloned() else { return Ok(None) };
        let observed = tokio::select! {
            () = cancel.cancelled() => return Err(StopReason::User),
            observed = observe(self.port, &tab) => observed,
        };
        match observed {
            Ok(o) => {
                task.trace.record(round, TraceEvent::Observed { url: o.url.clone(), title: o.title.clone() });
                Ok(Some(o))
            }
            Err(e) if e.is_tab_gone() => Err(StopReason::TabClosed),
            Err(e) if e.is_disconnected() => Err(StopReason::browser(e)),
            Err(e) => Err(StopReason::ObservationFailed { source: Arc::new(e) }),
        }
    }

    async fn run_calls(
        &self,
        task: &mut Task,
        round: u32,
        calls: Vec<ToolCall>,
        cancel: &CancellationToken,
    ) -> RoundEnd {
        let context = ToolContext { port: self.port, config: &self.config, cancel };
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            if cancel.is_cancelled() {
                return RoundEnd::Stop(StopReason::User);
            }
            let run = match self.check(&call) {
                Ok(tool) => context.run(&mut task.tabs, tool).await,
                Err(e) => ToolRun { result: Err(e), guard: None, done: None, notes: Vec::new() },
            };
            let end = record_call(task, round, &call, run, &mut results);
            if let Some(reason) = end {
                return RoundEnd::Stop(reason);
            }
        }
        if cancel.is_cancelled() {
            return RoundEnd::Stop(StopReason::User);
        }
        RoundEnd::Next(results)
    }
}

impl Agent<'_> {
    /// The call as a tool this run offers, with checked arguments.
    fn check(&self, call: &ToolCall) -> Result<Tool, ToolError> {
        let tool = parse_name(&call.name)?;
        if !self.tools.offers(tool) {
            return Err(ToolFailure::NotOffered { offered: self.tools }.of(tool));
        }
        parse_args(tool, &call.args)
    }
}

/// Records a call; returns a stop if the call ends the task.
fn record_call(
    task: &mut Task,
    round: u32,
    call: &ToolCall,
    run: ToolRun,
    results: &mut Vec<CallResult>,
) -> Option<StopReason> {
    for text in run.notes {
        task.trace.record(round, TraceEvent::Note { text });
    }
    let (result, disconnected) = match run.result {
        Ok(text) => (ToolReply::Ok(text), None),
        Err(e) => (ToolReply::Failed(e.to_string()), disconnected_stop(e)),
    };
    let guard = run.guard.map(|g| (g.outcome, g.waited.as_millis() as u64));
    task.trace.record(
        round,
        TraceEvent::ToolCall { tool: call.name.clone(), args: call.args.clone(), result: result.clone(), guard },
    );
    results.push(CallResult { tool: call.name.clone(), result });
    if let Some(summary) = run.done {
        return Some(StopReason::Done { summary });
    }
    disconnected
}

/// The stop for a call that lost the browser.
fn disconnected_stop(e: ToolError) -> Option<StopReason> {
    match e {
        ToolError::Call { tool, kind: ToolFailure::Browser(source) } if source.is_disconnected() => {
            Some(StopReason::Browser { tool: Some(tool), source: Arc::new(source) })
        }
        _ => None,
    }
}

fn stop(task: &mut Task, round: u32, reason: StopReason) -> StopReason {
    task.trace.record(round, TraceEvent::Stopped { reason: reason.clone() });
    reason
}
