//! The round: loop-top guard → observe → one model turn → its tool calls in order → next round.

use super::config::AgentConfig;
use super::planner::{CallResult, PlanRequest, Planner, ToolCall, ToolReply};
use super::stop::StopReason;
use super::tabs::TaskTabs;
use super::trace::{Note, RepairReason, Trace, TraceEvent};
use crate::agent::closed_loop::{Expectation, verify};
use crate::agent::closed_loop::{Observation, blocked, observe};
use crate::agent::closed_loop::{Progress, ProgressDetector, Signature};
use crate::agent::guards::{GuardResult, loop_top_guard};
use crate::agent::reliability::summarise;
use crate::agent::reliability::{Checkpoint, Checkpoints, changes};
use crate::agent::reliability::{PauseReason, TaskControl};
use crate::agent::reliability::{Phase, RetryDecision, watch};
use crate::agent::settle::{PageState, left_since, wait_for_quiet_page};
use crate::agent::tools::Refusal;
use crate::agent::tools::{Call, Tool, ToolName, ToolSet, parse_call, parse_name};
use crate::agent::tools::{FailureKind, ToolError, ToolFailure};
use crate::agent::tools::{ToolContext, ToolRun};
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
    /// The last round that ran (a resumed task goes on with the next).
    pub(super) round: u32,
    /// Segments run since the task was last allowed to go on.
    segments: u32,
    /// The round whose segment boundary was last counted (so a resume does not count it again).
    boundary: u32,
    /// The last segment's summary, for the model at the next round's start.
    summary: Option<String>,
    /// The page as the model last saw it.
    pub(super) last_seen: Option<Observation>,
    /// Set by a resume: the page at the pause, compared with the next observation.
    resumed_from: Option<Option<Observation>>,
}

impl Task {
    /// A task as its checkpoint left it: the next run goes on after the checkpoint's round and
    /// tells the model what changed since the pause.
    pub fn from_checkpoint(checkpoint: Checkpoint) -> Self {
        Self {
            tabs: TaskTabs::restore(checkpoint.tabs),
            round: checkpoint.round,
            segments: checkpoint.segments,
            boundary: checkpoint.boundary,
            summary: checkpoint.summary,
            last_seen: checkpoint.observation.clone(),
            resumed_from: Some(checkpoint.observation),
            ..Self::default()
        }
    }

    /// The task's state, to resume from after a pause.
    pub fn checkpoint(&self, reason: PauseReason) -> Checkpoint {
        Checkpoint {
            round: self.round,
            reason,
            tabs: self.tabs.saved(),
            observation: self.last_seen.clone(),
            digest: self.last_seen.as_ref().map(Observation::digest),
            segments: self.segments,
            boundary: self.boundary,
            summary: self.summary.clone(),
        }
    }

    /// The last round that ran.
    pub fn round(&self) -> u32 {
        self.round
    }
}

/// The round's observation, and where the event stream stood when it was taken: `done`
/// checks that nothing started to leave since.
pub(super) struct Observed {
    pub(super) observation: Observation,
    pub(super) position: u64,
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
    /// The user's pause and resume; without it, nobody can be asked.
    pub control: Option<&'a TaskControl>,
    /// Where a pause saves its checkpoint.
    pub checkpoints: Option<&'a dyn Checkpoints>,
}

impl std::fmt::Debug for Agent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("config", &self.config).field("tools", &self.tools).finish_non_exhaustive()
    }
}

enum RoundEnd {
    /// The calls' results, warnings for the model's next turn, and a question for the user
    /// (`ask_user`: the task pauses).
    Next(Vec<CallResult>, Vec<String>, Option<String>),
    Stop(StopReason),
}

/// Adds the tabs that pages of the task opened since the last look to its ledger; returns what
/// the model should be told.
pub(super) fn update_ledger(task: &mut Task, round: u32, events: &mut EventStream) -> Vec<String> {
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
        Self { port, planner, config, hook: None, tools: ToolSet::Creation, control: None, checkpoints: None }
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

    /// The safe point between rounds: a segment boundary (its summary, and the pause when the
    /// allowed segments ran out), then the user's pause if one was asked for.
    async fn between_rounds(&self, task: &mut Task, round: u32, cancel: &CancellationToken) -> Result<(), StopReason> {
        let size = self.config.segment_rounds;
        if size > 0 && round > 1 && (round - 1).is_multiple_of(size) && task.boundary < round {
            task.boundary = round;
            task.segments += 1;
            task.summary = Some(summarise(&task.trace, round - size, round - 1));
            if let Some(allowed) = self.config.segments_allowed
                && task.segments >= allowed
            {
                task.segments = 0;
                self.pause(task, PauseReason::SegmentLimit { segments: allowed }, cancel).await?;
            }
        }
        if self.control.is_some_and(TaskControl::pause_requested) {
            self.pause(task, PauseReason::User, cancel).await?;
        }
        Ok(())
    }

    /// Pauses at a safe point: saves the checkpoint, then waits for the user to resume (or
    /// Stop). The next round observes again and tells the model what changed meanwhile.
    async fn pause(&self, task: &mut Task, reason: PauseReason, cancel: &CancellationToken) -> Result<(), StopReason> {
        let Some(control) = self.control else { return Err(StopReason::NeedsUser { reason }) };
        if let Some(store) = self.checkpoints
            && let Err(e) = store.save(&task.checkpoint(reason.clone()))
        {
            task.trace.record(task.round, TraceEvent::Note { note: Note::CheckpointNotSaved { error: e.to_string() } });
        }
        task.trace.record(task.round, TraceEvent::Paused { reason: reason.clone() });
        control.enter_pause(task.round, reason);
        tokio::select! {
            () = cancel.cancelled() => return Err(StopReason::User),
            () = control.until_resumed() => {}
        }
        task.trace.record(task.round, TraceEvent::Resumed);
        task.resumed_from = Some(task.last_seen.clone());
        Ok(())
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
    pub(super) async fn guard_and_observe(
        &self,
        task: &mut Task,
        round: u32,
        cancel: &CancellationToken,
    ) -> Result<Option<Observed>, StopReason> {
        for _ in 0..OBSERVE_ATTEMPTS {
            let guard = self.watched_guard(task, round, cancel).await;
            let waited_ms = guard.waited.as_millis() as u64;
            task.trace
                .record(round, TraceEvent::Guard { read_url: guard.read_url, decision: guard.decision, waited_ms });
            guard.verdict?;
            let Some(tab) = task.tabs.focused().cloned() else { return Ok(None) };
            if let Some(dialog) = self.port.open_dialog(&tab) {
                return self.blocked(task, round, &tab, dialog).await;
            }
            if self.config.loop_top_guard {
                let quiet = wait_for_quiet_page(self.port, &tab, self.config.action_quiet, self.config.settle_timeout);
                let state = tokio::select! {
                    () = cancel.cancelled() => return Err(StopReason::User),
                    state = quiet => state.map_err(observation_stop)?,
                };
                if state == PageState::Blocked
                    && let Some(dialog) = self.port.open_dialog(&tab)
                {
                    return self.blocked(task, round, &tab, dialog).await;
                }
                if state == PageState::Leaving {
                    task.trace.record(round, TraceEvent::Note { note: Note::LeftBeforeObserved });
                    continue;
                }
            }
            let position = self.port.position();
            let observed = tokio::select! {
                () = cancel.cancelled() => return Err(StopReason::User),
                observed = observe(self.port, &tab) => observed,
            };
            // A dialog that opened while the page was read blocks it now, whatever the read
            // gave: Chromium 156 holds the snapshot's script behind it, Firefox ESR 153 runs it.
            if let Some(dialog) = self.port.open_dialog(&tab) {
                return self.blocked(task, round, &tab, dialog).await;
            }
            let mut observation = match observed {
                Ok(observation) => observation,
                // Held by a dialog that is answered already: the page goes on, look again.
                Err(e) if e.is_dialog_open() => continue,
                // A snapshot cut off because the page began to leave under it (Chromium holds a
                // script sent to a navigating tab, then fails it): the page is in flight now,
                // and the guard settles it. With the guard off, the failure stands (the race).
                Err(e) if self.config.loop_top_guard && left_since(self.port, &tab, position).is_some() => {
                    let note = Note::LeftWhileObserved { to: None, error: Some(e.to_string()) };
                    task.trace.record(round, TraceEvent::Note { note });
                    continue;
                }
                Err(e) => return Err(observation_stop(e)),
            };
            if self.config.loop_top_guard
                && let Some(url) = left_since(self.port, &tab, position)
            {
                let note = Note::LeftWhileObserved { to: Some(url.to_string()), error: None };
                task.trace.record(round, TraceEvent::Note { note });
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

    /// The observation of a page a dialog blocks: its URL and the dialog, for the model to
    /// answer (nothing else can be read of it until then).
    async fn blocked(
        &self,
        task: &mut Task,
        round: u32,
        tab: &TabId,
        dialog: crate::browser::Dialog,
    ) -> Result<Option<Observed>, StopReason> {
        let position = self.port.position();
        let url = self.port.tab(tab).await.map_err(observation_stop)?.url;
        task.snapshots += 1;
        let mut observation = blocked(tab, url, dialog);
        observation.snapshot = format!("s{}", task.snapshots);
        let dialog = observation.dialog.as_ref().map(ToString::to_string).unwrap_or_default();
        task.trace.record(round, TraceEvent::Note { note: Note::PageBlocked { dialog } });
        task.trace.record(
            round,
            TraceEvent::Observed {
                url: observation.url.clone(),
                title: String::new(),
                snapshot: observation.snapshot.clone(),
                document: String::new(),
            },
        );
        Ok(Some(Observed { observation, position }))
    }

    async fn run_calls(
        &self,
        task: &mut Task,
        round: u32,
        calls: Vec<ToolCall>,
        observed: Option<&Observed>,
        cancel: &CancellationToken,
    ) -> RoundEnd {
        let mut results = Vec::with_capacity(calls.len());
        let mut warnings = Vec::new();
        let mut calls = calls.into_iter();
        while let Some(call) = calls.next() {
            if cancel.is_cancelled() {
                return RoundEnd::Stop(StopReason::User);
            }
            let (run, stuck) = self.one_call(task, round, &call, observed, &mut warnings, cancel).await;
            let ask = run.ask.clone();
            let end = record_call(task, round, &call, run, &mut results);
            if let Some(reason) = end.or(stuck) {
                return RoundEnd::Stop(reason);
            }
            if ask.is_some() {
                // The user may change anything while asked: the rest of this turn was planned
                // on a page that may be gone. The model plans again after the resume.
                for skipped in calls.by_ref() {
                    let result =
                        ToolReply::Failed(format!("{}: not run: the task paused to ask the user", skipped.name));
                    let (tool, args) = (skipped.name.clone(), skipped.args);
                    task.trace.record(round, TraceEvent::ToolCall { tool, args, result: result.clone(), guard: None });
                    results.push(CallResult { tool: skipped.name, result, failure: None });
                }
                return RoundEnd::Next(results, warnings, ask);
            }
        }
        if cancel.is_cancelled() {
            return RoundEnd::Stop(StopReason::User);
        }
        RoundEnd::Next(results, warnings, None)
    }

    /// One call of a turn: checked, then run (`done` judged on the page the model observed,
    /// the rest under the watchdog, then verified); a stop if the agent keeps repeating itself.
    pub(super) async fn one_call(
        &self,
        task: &mut Task,
        round: u32,
        call: &ToolCall,
        observed: Option<&Observed>,
        warnings: &mut Vec<String>,
        cancel: &CancellationToken,
    ) -> (ToolRun, Option<StopReason>) {
        let mut stuck = None;
        let run = match self.check(call) {
            // A dialog blocks the page: the model must answer it before anything else happens
            // to the page (Chromium would hold the call behind it until its deadline).
            Ok(Call { tool, .. }) if let Some(dialog) = self.blocking_dialog(task, tool.name()) => {
                ToolRun::err(ToolFailure::DialogOpen { dialog }.of(tool.name()))
            }
            Ok(Call { tool: Tool::Done { summary }, expect }) => {
                self.done(task, round, observed, summary, expect.as_ref()).await
            }
            Ok(Call { tool: Tool::AskUser { .. }, .. }) if self.control.is_none() => {
                ToolRun::err(ToolFailure::NobodyToAsk.of(ToolName::AskUser))
            }
            Ok(Call { tool, expect }) => {
                let name = tool.name();
                let mut run = self.run_watched(task, round, tool, cancel).await;
                if let (Ok(_), Some(expect)) = (&run.result, &expect) {
                    self.verify_call(task, round, name, expect, &mut run).await;
                }
                if self.config.no_progress {
                    let signature = signature_of(name, &call.args, observed);
                    stuck = Self::judge_progress(task, round, signature, warnings);
                }
                run
            }
            Err(e) => ToolRun::err(e),
        };
        if let Err(e) = &run.result {
            task.repair.get_or_insert(repair_reason(e));
        }
        (run, stuck)
    }

    /// Runs one call under the watchdog: its deadline, progress at least once a second, and
    /// retries of failures worth another try (never of an input that may have had its effect).
    async fn run_watched(&self, task: &mut Task, round: u32, tool: Tool, cancel: &CancellationToken) -> ToolRun {
        let name = tool.name();
        if !self.config.watchdog {
            let context = ToolContext { port: self.port, config: &self.config, cancel, phase: Phase::default() };
            return context.run(&mut task.tabs, tool).await;
        }
        let deadline = self.config.deadline_for(name, tool.own_wait());
        let mut retries = 0;
        loop {
            let phase = Phase::default();
            let context = ToolContext { port: self.port, config: &self.config, cancel, phase: phase.clone() };
            let position = self.port.position();
            let (tabs, trace) = (&mut task.tabs, &mut task.trace);
            let fallback = format!("{name} to finish");
            let attempt = context.run(tabs, tool.clone());
            let run = watch(attempt, deadline, &phase, &fallback, |text| report_progress(trace, round, text))
                .await
                .unwrap_or_else(|| ToolRun::err(ToolFailure::TimedOut { after: deadline }.of(name)));
            let Err(error) = &run.result else { return run };
            let navigated = task.tabs.focused().is_some_and(|tab| left_since(self.port, tab, position).is_some());
            match self.config.retry.decide(name, error, retries, navigated) {
                RetryDecision::Keep { why: Some(why) } => {
                    task.trace.record(round, TraceEvent::Note { note: Note::NotRetried { tool: name, why } });
                    return run;
                }
                RetryDecision::Keep { why: None } => return run,
                RetryDecision::Retry { after } => {
                    retries += 1;
                    let (error, after_ms) = (error.to_string(), after.as_millis() as u64);
                    task.trace.record(round, TraceEvent::Retry { tool: name, retry: retries, after_ms, error });
                    tokio::select! {
                        () = cancel.cancelled() => return run,
                        () = tokio::time::sleep(after) => {}
                    }
                }
            }
        }
    }

    /// The loop-top guard, reporting progress while it waits for a navigation to commit.
    async fn watched_guard(&self, task: &mut Task, round: u32, cancel: &CancellationToken) -> GuardResult {
        let guard = loop_top_guard(self.port, &task.tabs, &self.config, cancel);
        if !self.config.watchdog {
            return guard.await;
        }
        let phase = Phase::default();
        // The guard's own settle timeout ends it; this deadline only backs that up.
        let deadline = self.config.settle_timeout + self.config.tool_timeout;
        let trace = &mut task.trace;
        let watched = watch(guard, deadline, &phase, "the navigation to commit", |t| report_progress(trace, round, t));
        match watched.await {
            Some(result) => result,
            None => GuardResult::timed_out(deadline),
        }
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
    /// The dialog open on the focused tab, if `tool` needs that tab's page.
    fn blocking_dialog(&self, task: &Task, tool: ToolName) -> Option<crate::browser::Dialog> {
        let tab = task.tabs.focused().filter(|_| tool.needs_the_page())?;
        self.port.open_dialog(tab)
    }

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

/// Why the round after a failed call repairs it: the call's kind, every kind named (a new one is
/// placed here, not dropped into the execute errors unseen).
fn repair_reason(e: &ToolError) -> RepairReason {
    match e.kind() {
        FailureKind::FailedVerification => RepairReason::FailedVerification,
        FailureKind::Refused => RepairReason::RefusedDone,
        FailureKind::BadInput
        | FailureKind::NotFound
        | FailureKind::NoDialog
        | FailureKind::StaleRef
        | FailureKind::Timeout
        | FailureKind::WaitExpired
        | FailureKind::Restricted
        | FailureKind::NavigationFailed
        | FailureKind::NotCommitted
        | FailureKind::Dialog
        | FailureKind::Browser => RepairReason::ExecuteError,
    }
}

/// Records a call; returns a stop if the call ends the task.
pub(super) fn record_call(
    task: &mut Task,
    round: u32,
    call: &ToolCall,
    run: ToolRun,
    results: &mut Vec<CallResult>,
) -> Option<StopReason> {
    for note in run.notes {
        task.trace.record(round, TraceEvent::Note { note });
    }
    let (result, failure) = match run.result {
        Ok(text) => (ToolReply::Ok(text), None),
        Err(e) => (ToolReply::Failed(e.to_string()), Some(e)),
    };
    let kind = failure.as_ref().map(ToolError::kind);
    let disconnected = failure.and_then(disconnected_stop);
    let guard = run.guard.map(|g| (g.outcome, g.waited.as_millis() as u64));
    task.trace.record(
        round,
        TraceEvent::ToolCall { tool: call.name.clone(), args: call.args.clone(), result: result.clone(), guard },
    );
    results.push(CallResult { tool: call.name.clone(), result, failure: kind });
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

/// A progress report: in the trace, and live for whoever watches the logs.
fn report_progress(trace: &mut Trace, round: u32, text: String) {
    tracing::info!(target: "navguard::progress", "round {round}: {text}");
    trace.record(round, TraceEvent::Progress { text });
}

/// After a resume: what the user changed between the pause and this observation.
fn resume_notices(task: &mut Task, now: Option<&Observation>) -> Vec<String> {
    let Some(before) = task.resumed_from.take() else { return Vec::new() };
    let told = match (before.as_ref(), now) {
        (Some(before), Some(now)) => changes(before, now),
        _ => Vec::new(),
    };
    if told.is_empty() {
        return vec!["the task was resumed; the user changed nothing the model can see".to_owned()];
    }
    told
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
