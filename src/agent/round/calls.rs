//! The calls of a model turn, in order: each checked, run under the watchdog, verified, judged
//! by the no-progress detector, and recorded in the trace; a call that ends the task, or asks
//! the user, ends the turn.

use super::look::Observed;
use super::planner::{CallResult, ToolCall, ToolReply};
use super::progress::{Progress, Signature};
use super::run::{Agent, RoundEnd};
use super::stop::StopReason;
use super::task::Task;
use super::trace::{RepairReason, TraceEvent, report_progress};
use crate::agent::closed_loop::{Expectation, verify};
use crate::agent::reliability::{RetryDecision, watch};
use crate::agent::settle::Phase;
use crate::agent::settle::left_since;
use crate::agent::tools::Note;
use crate::agent::tools::{Call, FailureKind, Tool, ToolContext, ToolError, ToolFailure, ToolName, ToolRun};
use crate::agent::tools::{parse_call, parse_name};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

impl Agent<'_> {
    pub(super) async fn run_calls(
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
                    results.push(CallResult { tool: skipped.name, result, failure: None, picture: None });
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
            Ok(Call { tool, .. }) if let Some(blocked) = self.blocking_dialog(task, tool.name()).await => ToolRun::err(
                blocked.map_or_else(|e| e.of(tool.name()), |dialog| ToolFailure::DialogOpen { dialog }.of(tool.name())),
            ),
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
            let context =
                ToolContext { port: self.port, config: self.config.tool_settings(), cancel, phase: Phase::default() };
            return context.run(&mut task.tabs, tool).await;
        }
        let deadline = self.config.deadline_for(name, tool.own_wait());
        let mut retries = 0;
        loop {
            let phase = Phase::default();
            let context =
                ToolContext { port: self.port, config: self.config.tool_settings(), cancel, phase: phase.clone() };
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
                        biased;
                        // Stop wins over the end of the backoff: nothing is tried again after it.
                        () = cancel.cancelled() => return run,
                        () = tokio::time::sleep(after) => {}
                    }
                }
            }
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

    /// The dialog open on the focused tab, if `tool` needs that tab's page; asked of the
    /// browser only when the events say one is open (another client may just have answered it).
    async fn blocking_dialog(
        &self,
        task: &Task,
        tool: ToolName,
    ) -> Option<Result<crate::browser::Dialog, ToolFailure>> {
        let tab = task.tabs.focused().filter(|_| tool.needs_the_page())?;
        self.port.dialog_now(tab).await.map_err(ToolFailure::Browser).transpose()
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
        | FailureKind::NotInteractable
        | FailureKind::Timeout
        | FailureKind::WaitExpired
        | FailureKind::Restricted
        | FailureKind::NavigationFailed
        | FailureKind::NotCommitted
        | FailureKind::Dialog
        | FailureKind::NotApplied
        | FailureKind::NotSupported
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
    // Only the last call's snapshot is of the page as it is.
    task.looked = run.quiet_seen.as_ref().map(|(tab, _)| tab.clone()).zip(run.looked);
    if let Some(seen) = run.quiet_seen {
        task.quiet_seen = Some(seen);
    }
    let picture = run.picture;
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
    results.push(CallResult { tool: call.name.clone(), result, failure: kind, picture });
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
