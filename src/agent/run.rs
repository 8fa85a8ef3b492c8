//! The round: loop-top guard → observe → one model turn → its tool calls in order → next round.

use super::config::AgentConfig;
use super::error::Refusal;
use super::error::{ToolError, ToolFailure};
use super::execute::{ToolContext, ToolRun};
use super::guard::loop_top_guard;
use super::observe::{Observation, observe};
use super::page_settle::{PageState, left_since, wait_for_quiet_page};
use super::planner::{CallResult, PlanRequest, Planner, ToolCall, ToolReply};
use super::progress::{Progress, ProgressDetector, Signature};
use super::stop::StopReason;
use super::tabs::TaskTabs;
use super::tools::{Call, Tool, ToolName, ToolSet, parse_call, parse_name};
use super::trace::{RepairReason, Trace, TraceEvent};
use super::verify::{Expectation, verify};
use crate::browser::{BrowserError, BrowserPort, EventStream, NavEventKind, TabId};
use async_trait::async_trait;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A task: its tabs and its trace. It outlives a run (a later turn reuses its tabs).
#[derive(Debug, Default)]
pub struct Task {
    pub tabs: TaskTabs,
    pub trace: Trace,
    /// Snapshots taken so far (the next is `s<n+1>`).
    snapshots: u32,
    progress: ProgressDetector,
    /// What the next round repairs, if the last one went wrong.
    repair: Option<RepairReason>,
}

/// The round's observation, and where the event stream stood when it was taken: `done`
/// checks that nothing started to leave since.
struct Observed {
    observation: Observation,
    position: u64,
}

/// How many times a round tries to observe a page that keeps leaving before it gives up.
const OBSERVE_ATTEMPTS: usize = 4;

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
    /// The calls' results, and warnings for the model's next turn.
    Next(Vec<CallResult>, Vec<String>),
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
        let mut warnings = Vec::new();
        let mut events = self.port.subscribe();
        let tools = self.tools.tools();
        task.trace.record(0, TraceEvent::ToolsOffered { tools: tools.clone() });
        for round in 1..=self.config.round_limit {
            let mut notices = update_ledger(task, round, &mut events);
            notices.append(&mut warnings);
            match self.round(task, round, &tools, &previous, &notices, cancel).await {
                RoundEnd::Next(results, said) => (previous, warnings) = (results, said),
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
        let request =
            PlanRequest { round, observation: observation.as_ref().map(|o| &o.observation), tools, previous, notices };
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
        self.run_calls(task, round, calls, observation.as_ref(), cancel).await
    }

    /// The loop-top guard, then the wait for a quiet page, then the snapshot; again if the page
    /// began to leave meanwhile (it is in flight then, and the guard settles it). With the
    /// loop-top guard off, the page is observed as it is (the original race).
    async fn guard_and_observe(
        &self,
        task: &mut Task,
        round: u32,
        cancel: &CancellationToken,
    ) -> Result<Option<Observed>, StopReason> {
        for _ in 0..OBSERVE_ATTEMPTS {
            let guard = loop_top_guard(self.port, &task.tabs, &self.config, cancel).await;
            let waited_ms = guard.waited.as_millis() as u64;
            task.trace
                .record(round, TraceEvent::Guard { read_url: guard.read_url, decision: guard.decision, waited_ms });
            guard.verdict?;
            let Some(tab) = task.tabs.focused().cloned() else { return Ok(None) };
            if self.config.loop_top_guard {
                let quiet = wait_for_quiet_page(self.port, &tab, self.config.action_quiet, self.config.settle_timeout);
                let state = tokio::select! {
                    () = cancel.cancelled() => return Err(StopReason::User),
                    state = quiet => state.map_err(observation_stop)?,
                };
                if state == PageState::Leaving {
                    task.trace.record(
                        round,
                        TraceEvent::Note { text: "the page began to leave before it was observed".into() },
                    );
                    continue;
                }
            }
            let position = self.port.position();
            let observed = tokio::select! {
                () = cancel.cancelled() => return Err(StopReason::User),
                observed = observe(self.port, &tab) => observed,
            };
            let mut observation = observed.map_err(observation_stop)?;
            if self.config.loop_top_guard
                && let Some(url) = left_since(self.port, &tab, position)
            {
                let text = format!("the page began to leave for {url} while it was observed: observed again");
                task.trace.record(round, TraceEvent::Note { text });
                continue;
            }
            task.snapshots += 1;
            observation.snapshot = format!("s{}", task.snapshots);
            task.tabs.note_document(&observation.document, &tab);
            task.trace.record(
                round,
                TraceEvent::Observed {
                    url: observation.url.clone(),
                    title: observation.title.clone(),
                    snapshot: observation.snapshot.clone(),
                    document: observation.document.clone(),
                },
            );
            return Ok(Some(Observed { observation, position }));
        }
        let kept_leaving = BrowserError::Timeout {
            op: format!("observing a page that stays put ({OBSERVE_ATTEMPTS} tries)"),
            after: self.config.settle_timeout,
        };
        Err(StopReason::ObservationFailed { source: Arc::new(kept_leaving) })
    }

    async fn run_calls(
        &self,
        task: &mut Task,
        round: u32,
        calls: Vec<ToolCall>,
        observed: Option<&Observed>,
        cancel: &CancellationToken,
    ) -> RoundEnd {
        let context = ToolContext { port: self.port, config: &self.config, cancel };
        let mut results = Vec::with_capacity(calls.len());
        let mut warnings = Vec::new();
        for call in calls {
            if cancel.is_cancelled() {
                return RoundEnd::Stop(StopReason::User);
            }
            let mut stuck = None;
            let run = match self.check(&call) {
                Ok(Call { tool: Tool::Done { summary }, expect }) => {
                    self.done(task, round, observed, summary, expect.as_ref()).await
                }
                Ok(Call { tool, expect }) => {
                    let name = tool.name();
                    let mut run = context.run(&mut task.tabs, tool).await;
                    if let (Ok(_), Some(expect)) = (&run.result, &expect) {
                        self.verify_call(task, round, name, expect, &mut run).await;
                    }
                    if self.config.no_progress {
                        let signature = signature_of(name, &call.args, observed);
                        stuck = Self::judge_progress(task, round, signature, &mut warnings);
                    }
                    run
                }
                Err(e) => ToolRun::err(e),
            };
            if let Err(e) = &run.result {
                task.repair.get_or_insert(repair_reason(e));
            }
            let end = record_call(task, round, &call, run, &mut results);
            if let Some(reason) = end.or(stuck) {
                return RoundEnd::Stop(reason);
            }
        }
        if cancel.is_cancelled() {
            return RoundEnd::Stop(StopReason::User);
        }
        RoundEnd::Next(results, warnings)
    }

    /// Checks `expect` after a call that succeeded; a failed check fails the call (the action
    /// is not undone).
    async fn verify_call(&self, task: &mut Task, round: u32, tool: ToolName, expect: &Expectation, run: &mut ToolRun) {
        let Some(tab) = task.tabs.focused().cloned() else {
            run.result = Err(ToolFailure::NoFocusedTab.of(tool));
            return;
        };
        match verify(self.port, &tab, expect, self.config.verify_timeout).await {
            Ok(verdict) => {
                if !verdict.held() {
                    run.result = Err(ToolFailure::FailedVerification { misses: verdict.words() }.of(tool));
                }
                task.trace.record(round, TraceEvent::Verification { tool, verdict });
            }
            Err(e) => run.result = Err(ToolFailure::Browser(e).of(tool)),
        }
    }

    /// `done`, accepted only on the page the model observed, still there, with its `expect`
    /// holding. A refusal fails the call and the task goes on.
    async fn done(
        &self,
        task: &mut Task,
        round: u32,
        observed: Option<&Observed>,
        summary: String,
        expect: Option<&Expectation>,
    ) -> ToolRun {
        const TOOL: ToolName = ToolName::Done;
        let refused = match self.refusal(task, round, observed, expect).await {
            Ok(None) => return ToolRun { done: Some(summary.clone()), ..ToolRun::ok(summary) },
            Ok(Some(refusal)) => refusal,
            Err(e) => return ToolRun::err(ToolFailure::Browser(e).of(TOOL)),
        };
        task.trace.record(round, TraceEvent::DoneRefused { why: refused.to_string() });
        ToolRun::err(ToolFailure::DoneRefused { why: refused }.of(TOOL))
    }

    async fn refusal(
        &self,
        task: &mut Task,
        round: u32,
        observed: Option<&Observed>,
        expect: Option<&Expectation>,
    ) -> Result<Option<Refusal>, BrowserError> {
        if self.config.done_needs_verification && expect.is_none() {
            return Ok(Some(Refusal::NoVerification));
        }
        let Some(tab) = task.tabs.focused().cloned() else { return Ok(None) };
        if let Some(Observed { observation, position }) = observed
            && let Some(how) = self.page_changed(&tab, observation, *position).await?
        {
            // The check belongs to the loop-top guard: switched off, the done goes through as
            // in the original race, and the trace says what it was accepted on.
            if self.config.loop_top_guard {
                return Ok(Some(Refusal::PageChanged { how }));
            }
            task.trace.record(round, TraceEvent::DoneOnLeavingPage { how });
        }
        let Some(expect) = expect else { return Ok(None) };
        let verdict = verify(self.port, &tab, expect, self.config.verify_timeout).await?;
        let refusal = (!verdict.held()).then(|| Refusal::VerificationFailed { misses: verdict.words() });
        task.trace.record(round, TraceEvent::Verification { tool: ToolName::Done, verdict });
        Ok(refusal)
    }

    /// How the focused tab is no longer the page the model observed, if it is not.
    async fn page_changed(
        &self,
        tab: &TabId,
        observation: &Observation,
        position: u64,
    ) -> Result<Option<String>, BrowserError> {
        if observation.tab != *tab {
            return Ok(Some(format!("the focused tab is {tab}, the observed one {}", observation.tab)));
        }
        if let Some(url) = left_since(self.port, tab, position) {
            return Ok(Some(format!("it began to leave for {url}")));
        }
        if self.port.tab(tab).await?.pending_url.is_some() {
            return Ok(Some("a navigation is in flight".into()));
        }
        let document = self.port.evaluate(tab, "document.__navguard?.id ?? null").await?;
        if document.as_str() != Some(observation.document.as_str()) {
            return Ok(Some("the tab shows another document".into()));
        }
        Ok(None)
    }

    /// Feeds the no-progress detector; a warning goes to the model, a stop ends the task.
    fn judge_progress(
        task: &mut Task,
        round: u32,
        signature: Signature,
        warnings: &mut Vec<String>,
    ) -> Option<StopReason> {
        match task.progress.record(signature) {
            Progress::Fine => None,
            Progress::Warn(pattern) => {
                warnings
                    .push(format!("no progress: {pattern}; the page did not move towards the goal, try another way"));
                task.trace.record(round, TraceEvent::NoProgress { pattern, stopped: false });
                task.repair.get_or_insert(RepairReason::NoProgress);
                None
            }
            Progress::Stop(pattern) => {
                task.trace.record(round, TraceEvent::NoProgress { pattern: pattern.clone(), stopped: true });
                Some(StopReason::NoProgress { pattern })
            }
        }
    }
}

impl Agent<'_> {
    /// The call as a tool this run offers, with checked arguments.
    fn check(&self, call: &ToolCall) -> Result<Call, ToolError> {
        let tool = parse_name(&call.name)?;
        if !self.tools.offers(tool) {
            return Err(ToolFailure::NotOffered { offered: self.tools }.of(tool));
        }
        parse_call(tool, &call.args)
    }
}

/// The action as the no-progress detector sees it: its tool, its arguments without `expect`
/// (canonical JSON), and the page it was decided on.
fn signature_of(tool: ToolName, args: &serde_json::Value, observed: Option<&Observed>) -> Signature {
    let mut args = args.clone();
    if let Some(map) = args.as_object_mut() {
        map.remove("expect");
    }
    let page = observed.map_or(0, |o| o.observation.digest());
    Signature { tool, target: args.to_string(), page }
}

fn repair_reason(e: &ToolError) -> RepairReason {
    match e {
        ToolError::Call { kind: ToolFailure::FailedVerification { .. }, .. } => RepairReason::FailedVerification,
        ToolError::Call { kind: ToolFailure::DoneRefused { .. }, .. } => RepairReason::RefusedDone,
        _ => RepairReason::ExecuteError,
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

/// Why a failed wait for a quiet page, or a failed snapshot, stops the task.
fn observation_stop(e: BrowserError) -> StopReason {
    if e.is_tab_gone() {
        StopReason::TabClosed
    } else if e.is_disconnected() {
        StopReason::browser(e)
    } else {
        StopReason::ObservationFailed { source: Arc::new(e) }
    }
}
