//! One task on the executor: its own browser user context (its own tabs), and the agent core's
//! loop whose "model" is the orchestrator. Each round the core guards the page (settle, quiet
//! window, never a page that is leaving), observes it, and asks [`RemotePlanner`] for a turn:
//! the planner reports the previous action's observation (with before/after screenshots), takes
//! the next action from the orchestrator, re-checks its risk on the page as it is now, and hands
//! it to the core as a tool call, which runs under the core's watchdog, settle and verification.

use super::client::{CallError, Client};
use super::journal::{Entry, Journal, JournalError};
use super::secrets::Secrets;
use crate::model::{
    Action, Artifacts, Observation, ObservationCode, ReportedError, Risk, TargetBy, TaskStatus, ToolName,
};
use crate::permissions::origin_of;
use crate::risk::RiskPolicy;
use async_trait::async_trait;
use base64::Engine as _;
use navguard::agent::{
    Agent, AgentConfig, CallResult, ModelTurn, Observation as Seen, PlanRequest, Planner, PlannerError, StopKind,
    StopReason, Task, ToolCall, observe,
};
use navguard::browser::BrowserPort;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// How often a runner asks for its task's next action while there is none (a confirmation is
/// awaited): a protocol poll, not a synchronization.
pub(super) const POLL_EVERY: Duration = Duration::from_millis(250);
/// Agent runs in a row that stopped before any action was reported: the runner gives the task
/// up (the orchestrator hands it out again later, and the journal keeps it from running twice).
const STOPS_IN_A_ROW: u32 = 3;

/// What every runner shares.
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) client: Client,
    pub(super) journal: Journal,
    pub(super) secrets: Secrets,
    pub(super) risk: RiskPolicy,
    /// The folder `upload_file` may take files from (`--files`).
    pub(super) files: Option<std::path::PathBuf>,
}

/// Why the planner gave no turn.
#[derive(Debug, thiserror::Error)]
enum Halt {
    #[error("the task ended ({0})")]
    Ended(TaskStatus),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Call(#[from] CallError),
}

/// The action the core is running now.
#[derive(Debug)]
struct InFlight {
    action: Action,
    before: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    /// The action that started this runner (from the any-task poll).
    first: Option<Action>,
    /// The task's url, until it is opened.
    open: Option<String>,
    in_flight: Option<InFlight>,
    ended: Option<TaskStatus>,
    /// Actions reported since the last agent stop.
    reported: u32,
    /// The page the latest turn was given: a `done` the core accepted was verified on it.
    observed: Option<Seen>,
}

/// The orchestrator as the core's planner.
pub(super) struct RemotePlanner<'a> {
    shared: &'a Shared,
    port: &'a dyn BrowserPort,
    task_id: String,
    state: Mutex<State>,
}

impl std::fmt::Debug for RemotePlanner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemotePlanner").field("task_id", &self.task_id).finish_non_exhaustive()
    }
}

#[async_trait]
impl Planner for RemotePlanner<'_> {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
        let mut state = self.state.lock().await;
        let turn = self.turn(&mut state, &request).await;
        turn.map_err(|halt| {
            if let Halt::Ended(status) = halt {
                state.ended = Some(status);
            }
            PlannerError::new(halt)
        })
    }
}

impl<'a> RemotePlanner<'a> {
    pub(super) fn new(shared: &'a Shared, port: &'a dyn BrowserPort, first: Action) -> Self {
        let state = State { open: first.task_url.clone(), first: Some(first.clone()), ..State::default() };
        Self { shared, port, task_id: first.task_id, state: Mutex::new(state) }
    }

    async fn turn(&self, state: &mut State, request: &PlanRequest<'_>) -> Result<ModelTurn, Halt> {
        state.observed = request.observation.cloned();
        if let Some(flight) = state.in_flight.take() {
            let errors = request.previous.iter().filter_map(reported_error).collect();
            let after = self.screenshot(request.observation).await;
            let mut seen = self.observation(request.observation, errors, [flight.before, after]);
            self.add_evidence(&mut seen, request.previous);
            self.finish(state, &flight.action, &seen).await?;
        }
        if let Some(url) = state.open.take() {
            return Ok(ModelTurn { calls: vec![ToolCall { name: "open_url".into(), args: json!({ "url": url }) }] });
        }
        let mut waited = false;
        loop {
            let action = match state.first.take() {
                Some(action) => action,
                None => self.poll(&mut waited).await?,
            };
            match self.shared.journal.entry(&action.action_id)? {
                Some(Entry::Finished(seen)) => {
                    // Run before a restart: its recorded result again, never the action.
                    self.report(state, &action, &seen).await?;
                    continue;
                }
                Some(Entry::Started) => {
                    let seen = self.refusal(request.observation, ObservationCode::Interrupted, INTERRUPTED.into());
                    self.finish(state, &action, &seen).await?;
                    continue;
                }
                None => {}
            }
            // The last moment: the page as it is now (observed again if the action was waited
            // for), the action's risk judged on it.
            let fresh = match (waited, request.observation) {
                (true, Some(seen)) => observe(self.port, &seen.tab).await.ok(),
                _ => None,
            };
            let seen = fresh.as_ref().or(request.observation);
            if let Some(why) = self.not_permitted(&action, seen).await? {
                let observation = self.refusal(seen, ObservationCode::PermissionDenied, why);
                self.report(state, &action, &observation).await?;
                continue;
            }
            if let Some((code, why)) = self.refuse(&action, seen) {
                let observation = self.refusal(seen, code, why);
                self.report(state, &action, &observation).await?;
                continue;
            }
            let call = match self.tool_call(&action, seen) {
                Ok(call) => call,
                Err((code, why)) => {
                    let observation = self.refusal(seen, code, why);
                    self.report(state, &action, &observation).await?;
                    continue;
                }
            };
            let before = self.screenshot(seen).await;
            self.shared.journal.started(&self.task_id, &action.action_id)?;
            state.in_flight = Some(InFlight { action, before });
            return Ok(ModelTurn { calls: vec![call] });
        }
    }

    /// The task's next action; waits (polling) while there is none; `Ended` once it ended.
    async fn poll(&self, waited: &mut bool) -> Result<Action, Halt> {
        loop {
            let answer = match self.shared.client.next(Some(&self.task_id), &[]).await {
                Ok(answer) => answer,
                Err(CallError::Refused(refused)) if refused.is_no_such_task() => {
                    return Err(Halt::Ended(TaskStatus::Canceled));
                }
                Err(e) => return Err(e.into()),
            };
            if let Some(action) = answer.action {
                return Ok(action);
            }
            if let Some(status) = answer.status.filter(|s| s.is_final()) {
                return Err(Halt::Ended(status));
            }
            *waited = true;
            tokio::time::sleep(POLL_EVERY).await;
        }
    }

    /// Why the action must not run on the page as it is now, as far as site permissions go: it
    /// was granted on one origin, and the page is on another the user has not granted.
    async fn not_permitted(&self, action: &Action, seen: Option<&Seen>) -> Result<Option<String>, Halt> {
        let Some(granted) = &action.granted_origin else { return Ok(None) };
        let origin = origin_of(seen.map_or("", |s| s.url.as_str()));
        if &origin == granted || self.shared.client.granted(&origin).await? {
            return Ok(None);
        }
        Ok(Some(format!(
            "{} was granted on {granted}, and the page is on {origin} now, which the user has not granted: \
             it did not run; it waits for the user's permission",
            action.kind
        )))
    }

    /// Why the action must not run now, if it must not.
    fn refuse(&self, action: &Action, seen: Option<&Seen>) -> Option<(ObservationCode, String)> {
        if action.confirmed {
            return None;
        }
        let observed = self.observation(seen, Vec::new(), [None, None]);
        let risk = self.shared.risk.classify(action.kind, action.target.as_ref(), &action.params, Some(&observed));
        (action.requires_confirmation || risk == Risk::High).then(|| {
            let why = format!(
                "{} is a {} action and was not confirmed: it did not run; it waits for the user's confirmation",
                action.kind, risk
            );
            (ObservationCode::ConfirmationRequired, why)
        })
    }

    /// The action as the core's tool call: its target as `selector` or `ref` (a `text` or `role`
    /// target found in the page as observed now), `{secret:NAME}` replaced in its strings.
    fn tool_call(&self, action: &Action, seen: Option<&Seen>) -> Result<ToolCall, (ObservationCode, String)> {
        let mut args = action.params.clone();
        if let Some(target) = &action.target {
            let (key, value) = match target.by {
                TargetBy::Selector | TargetBy::Ref => (target.by.to_string(), Value::String(target.value.clone())),
                TargetBy::Text | TargetBy::Role => {
                    let element = seen.and_then(|s| s.elements.iter().find(|e| names(e, target.by, &target.value)));
                    let Some(element) = element else {
                        let why = format!("no element with {} {:?} on the page", target.by, target.value);
                        return Err((ObservationCode::TargetNotFound, why));
                    };
                    ("ref".to_owned(), serde_json::to_value(&element.reference).unwrap_or(Value::Null))
                }
            };
            args.insert(key, value);
        }
        for value in args.values_mut() {
            self.put_secrets(value)?;
        }
        Ok(ToolCall { name: action.kind.name().to_owned(), args: Value::Object(args) })
    }

    /// `{secret:NAME}` replaced in every string `value` holds, nested ones too (`fill_form`'s
    /// fields).
    fn put_secrets(&self, value: &mut Value) -> Result<(), (ObservationCode, String)> {
        match value {
            Value::String(text) => {
                *text = self
                    .shared
                    .secrets
                    .substitute(text)
                    .map_err(|e| (ObservationCode::UnknownSecret, e.to_string()))?;
            }
            Value::Array(items) => items.iter_mut().try_for_each(|v| self.put_secrets(v))?,
            Value::Object(map) => map.values_mut().try_for_each(|v| self.put_secrets(v))?,
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        Ok(())
    }

    /// Journals the action's result, then reports it.
    async fn finish(&self, state: &mut State, action: &Action, seen: &Observation) -> Result<(), Halt> {
        self.shared.journal.finished(&action.action_id, seen)?;
        // Where a test kills the executor: the action ran and is journaled, not yet reported.
        fail::fail_point!("executor-before-report", |_| std::process::abort());
        self.report(state, action, seen).await
    }

    async fn report(&self, state: &mut State, action: &Action, seen: &Observation) -> Result<(), Halt> {
        match self.shared.client.report(&self.task_id, &action.action_id, seen).await {
            Ok(_) => {
                state.reported += 1;
                Ok(())
            }
            // The task ended (canceled) or is unknown: the next poll says which.
            Err(CallError::Refused(refused)) if (400..500).contains(&refused.status) => {
                tracing::warn!(target: "navguard::executor", "{refused}");
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// What the action's own calls brought back, into its observation: a `screenshot`'s picture
    /// among the screenshots (after the before and after pictures), an `extract`'s JSON as
    /// `extracted.extract`, the secrets' values redacted as everywhere in an observation.
    fn add_evidence(&self, seen: &mut Observation, calls: &[CallResult]) {
        for call in calls.iter().filter(|c| c.failure.is_none()) {
            if let Some(png) = &call.picture {
                seen.artifacts.screenshots.push(base64::engine::general_purpose::STANDARD.encode(png));
            }
            if call.tool == ToolName::Extract.name()
                && let Ok(mut read) = serde_json::from_str::<Value>(call.result.text())
            {
                self.shared.secrets.redact(&mut read);
                seen.extracted.insert("extract".into(), read);
            }
        }
    }

    /// A base64 PNG of the observed tab, if it can be had.
    async fn screenshot(&self, seen: Option<&Seen>) -> Option<String> {
        let png = self.port.screenshot(&seen?.tab).await.ok()?;
        Some(base64::engine::general_purpose::STANDARD.encode(png))
    }

    /// An observation that says the action did not run (or was not run again), and why.
    fn refusal(&self, seen: Option<&Seen>, code: ObservationCode, message: String) -> Observation {
        self.observation(seen, vec![ReportedError { code: code.name().into(), message }], [None, None])
    }

    /// The core's observation in the contract's words, the secrets' values redacted.
    fn observation(&self, seen: Option<&Seen>, errors: Vec<ReportedError>, shots: [Option<String>; 2]) -> Observation {
        let page = seen.map(Observation::of_page).unwrap_or_default();
        let secrets = &self.shared.secrets;
        let mut extracted = Value::Object(page.extracted);
        secrets.redact(&mut extracted);
        Observation {
            url: secrets.redact_text(&page.url),
            title: secrets.redact_text(&page.title),
            visible_text_snippet: secrets.redact_text(&page.visible_text_snippet),
            extracted: match extracted {
                Value::Object(map) => map,
                _ => Map::new(),
            },
            artifacts: Artifacts { screenshots: shots.into_iter().flatten().collect() },
            errors: errors
                .into_iter()
                .map(|e| ReportedError { message: secrets.redact_text(&e.message), ..e })
                .collect(),
        }
    }

    /// The core accepted the `done` in flight (its page unchanged since it was observed, its
    /// `expect` holding): it is reported without error, with that page as the evidence.
    async fn report_done(&self) -> Result<(), Halt> {
        let mut state = self.state.lock().await;
        let Some(flight) = state.in_flight.take() else { return Ok(()) };
        let seen = state.observed.take();
        let after = self.screenshot(seen.as_ref()).await;
        let mut observation = self.observation(seen.as_ref(), Vec::new(), [flight.before, after]);
        observation.extracted.insert("verdict".into(), Value::String(done_verdict(&flight.action)));
        self.finish(&mut state, &flight.action, &observation).await
    }

    /// After the agent stopped on its own: the action it ran is reported with the stop.
    async fn report_stop(&self, stop: &StopReason) -> Result<(), Halt> {
        let mut state = self.state.lock().await;
        if let Some(flight) = state.in_flight.take() {
            let seen = self.refusal(None, ObservationCode::PageNotObserved, stop.explained());
            let seen =
                Observation { artifacts: Artifacts { screenshots: flight.before.into_iter().collect() }, ..seen };
            self.finish(&mut state, &flight.action, &seen).await?;
        }
        Ok(())
    }
}

const INTERRUPTED: &str = "the executor stopped while this action ran (it was restarted): it is not run again, \
                           since it may have had its effect";

/// The element a `text` or `role` target names: by its accessible name or text; a role as
/// `button` or `button Delete account`.
fn names(element: &navguard::agent::Element, by: TargetBy, value: &str) -> bool {
    match by {
        TargetBy::Text => element.name == value || element.text == value,
        _ => element.role == value || format!("{} {}", element.role, element.name) == value,
    }
}

/// What the core checked before it accepted a `done`, in words for the audit.
fn done_verdict(action: &Action) -> String {
    const PAGE: &str = "verified: the page the model observed was still there and not leaving";
    match action.params.get("expect") {
        Some(expect) => format!("{PAGE}, and its expect {expect} held"),
        None => format!("{PAGE} (no expect was given)"),
    }
}

/// A failed call's error in the contract's codes.
fn reported_error(result: &CallResult) -> Option<ReportedError> {
    let code = ObservationCode::of_failure(result.failure?);
    Some(ReportedError { code: code.name().into(), message: result.result.text().to_owned() })
}

/// Runs one task until it ends, on its own user context of `browser`.
pub(super) async fn run_task(shared: Arc<Shared>, port: &dyn BrowserPort, first: Action, cancel: CancellationToken) {
    let task_id = first.task_id.clone();
    let planner = RemotePlanner::new(&shared, port, first);
    // The orchestrator plans and judges progress; the core keeps the page right under it.
    let config = AgentConfig {
        round_limit: u32::MAX,
        no_progress: false,
        files: shared.files.clone(),
        ..AgentConfig::default()
    };
    let agent = Agent::new(port, &planner, config);
    let mut task = Task::default();
    let mut stops = 0;
    loop {
        let stop = agent.run(&mut task, &cancel).await;
        let (ended, reported) = {
            let mut state = planner.state.lock().await;
            (state.ended, std::mem::take(&mut state.reported))
        };
        if let Some(status) = ended {
            tracing::info!(target: "navguard::executor", "task {task_id}: {status}");
            return;
        }
        if cancel.is_cancelled() || stop.kind() == StopKind::Browser {
            return;
        }
        if stop.kind() == StopKind::Done {
            if let Err(halt) = planner.report_done().await {
                tracing::warn!(target: "navguard::executor", "task {task_id}: {halt}");
            }
            return;
        }
        tracing::warn!(target: "navguard::executor", "task {task_id}: the agent stopped ({}); it goes on", stop.message());
        if let Err(halt) = planner.report_stop(&stop).await {
            tracing::warn!(target: "navguard::executor", "task {task_id}: {halt}");
            return;
        }
        stops = if reported > 0 { 1 } else { stops + 1 };
        if stops >= STOPS_IN_A_ROW {
            tracing::warn!(target: "navguard::executor", "task {task_id}: given up after {stops} stops in a row");
            return;
        }
    }
}
