//! The reliability layer's steps (docs/design/reliability-layer.md): the watchdog, retries, a task run in the
//! background that pauses, resumes and restarts from its checkpoint, and segments. The language
//! is in docs/gherkin-language.md ("Waits, the watchdog, intervention and segments").

use crate::error::{StepError, StepResult, expect_eq};
use crate::world::round_hook::{UserScript, user_script};
use crate::world::{CheckpointFile, EVENT_DEADLINE, Finished, NavWorld, RunningTask};
use async_trait::async_trait;
use cucumber::{given, then, when};
use navguard::agent::{
    Agent, PauseReason, RoundHook, StopReason, StoredCheckpoints, Task, TaskControl, TaskTabs, TraceEvent,
};
use navguard::browser::BrowserPort;
use navguard::store::TaskStore;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

/// How long `When the task ends` waits for the background run.
const END_DEADLINE: Duration = Duration::from_secs(60);
/// The task id the scenario's checkpoints are kept under.
const TASK_ID: &str = "scenario-task";

fn setup(text: impl Into<String>) -> StepError {
    StepError::Setup(text.into())
}

#[given(expr = "the tool timeout is {int} ms")]
async fn tool_timeout(world: &mut NavWorld, ms: u64) {
    world.core.config.tool_timeout = Duration::from_millis(ms);
}

#[given(expr = "click and type wait at most {int} ms for their target")]
async fn target_wait(world: &mut NavWorld, ms: u64) {
    world.core.config.target_wait = Duration::from_millis(ms);
}

#[given(expr = "a segment is {int} rounds")]
async fn segment_rounds(world: &mut NavWorld, n: u32) {
    world.core.config.segment_rounds = n;
}

#[given(expr = "the task may run {int} segments")]
async fn segments_allowed(world: &mut NavWorld, n: u32) {
    world.core.config.segments_allowed = Some(n);
}

/// Tells the step that started the run once round 1 has begun, so that what the user does
/// next happens during the run, not before it.
struct Started {
    inner: UserScript,
    begun: Arc<Notify>,
}

#[async_trait]
impl RoundHook for Started {
    async fn before_round(&self, round: u32, tabs: &TaskTabs) {
        self.inner.before_round(round, tabs).await;
        self.begun.notify_one();
    }
}

/// The scenario's checkpoint store, made on first use.
fn checkpoint_path(world: &mut NavWorld) -> StepResult<PathBuf> {
    if let Some(file) = &world.core.checkpoints {
        return Ok(file.path().to_owned());
    }
    let file = CheckpointFile::create().map_err(|e| setup(format!("no folder for the task store: {e}")))?;
    let path = file.path().to_owned();
    world.core.checkpoints = Some(file);
    Ok(path)
}

/// Starts `task` in the background with a fresh agent (its own control and store handle, as
/// a new process would have), and returns once its first round has begun (or it ended).
async fn start(world: &mut NavWorld, mut task: Task) -> StepResult {
    let port: Arc<dyn BrowserPort> = world.port()?.clone();
    let begun = Arc::new(Notify::new());
    let hook = Started { inner: user_script(world)?, begun: Arc::clone(&begun) };
    let plan = world.core.plan.clone();
    let config = world.core.effective_config();
    let store = TaskStore::open(&checkpoint_path(world)?).map_err(|e| setup(format!("the task store: {e}")))?;
    let (control, cancel) = (TaskControl::new(), CancellationToken::new());
    let (agent_control, agent_cancel) = (control.clone(), cancel.clone());
    let progress = world.progress.span();
    let handle = tokio::spawn(async move {
        let checkpoints = StoredCheckpoints { store: &store, task_id: TASK_ID.into() };
        let agent = Agent {
            hook: Some(&hook),
            control: Some(&agent_control),
            checkpoints: Some(&checkpoints),
            ..Agent::new(&*port, &plan, config)
        };
        let started = Instant::now();
        let stop = agent.run(&mut task, &agent_cancel).instrument(progress).await;
        Finished { task, stop, played: plan.clone_played(), took: started.elapsed(), failures: hook.inner.failures() }
    });
    world.core.running = Some(RunningTask { handle, control, cancel });
    world.core.ended_before_a_round = false;
    let background = world.core.running.as_mut().ok_or_else(|| setup("no background run"))?;
    // A run that began its round and has already ended is both begun and finished: taking the
    // round first keeps it in the background, where `the task ends` reads its end.
    tokio::select! {
        biased;
        () = begun.notified() => Ok(()),
        finished = &mut background.handle => {
            world.core.running = None;
            world.core.ended_before_a_round = true;
            keep(world, finished)
        }
        () = tokio::time::sleep(EVENT_DEADLINE) => Err(StepError::Timeout { what: "round 1 to begin".into(), after: EVENT_DEADLINE }),
    }
}

/// Records a finished background run in the world, as `the agent runs the task` does.
fn keep(world: &mut NavWorld, finished: Result<Finished, tokio::task::JoinError>) -> StepResult {
    let finished = finished.map_err(|e| setup(format!("the background run failed: {e}")))?;
    world.core.task = finished.task;
    world.core.stop = Some(finished.stop);
    world.core.played = Some(finished.played);
    world.core.took = Some(finished.took);
    match finished.failures.as_slice() {
        [] => Ok(()),
        failures => Err(setup(failures.join("\n"))),
    }
}

fn background(world: &mut NavWorld) -> StepResult<&mut RunningTask> {
    world
        .core
        .running
        .as_mut()
        .ok_or_else(|| setup("no task runs in the background (`When the agent starts the task`)"))
}

#[when("the agent starts the task")]
async fn the_agent_starts_the_task(world: &mut NavWorld) -> StepResult {
    let task = std::mem::take(&mut world.core.task);
    start(world, task).await
}

/// Waits until the background task is paused; a task that ends instead fails the step.
async fn until_paused(world: &mut NavWorld) -> StepResult {
    let background = background(world)?;
    let control = background.control.clone();
    tokio::select! {
        biased;
        _ = control.until_paused() => Ok(()),
        finished = &mut background.handle => {
            world.core.running = None;
            keep(world, finished)?;
            let stop = world.core.stop.as_ref().map(StopReason::message).unwrap_or_default();
            Err(StepError::Expectation(format!("the task ended ({stop}) instead of pausing")))
        }
        () = tokio::time::sleep(EVENT_DEADLINE) => Err(StepError::Timeout { what: "the task to pause".into(), after: EVENT_DEADLINE }),
    }
}

#[when("the task pauses")]
async fn the_task_pauses(world: &mut NavWorld) -> StepResult {
    until_paused(world).await
}

#[when("the user pauses the task")]
async fn the_user_pauses(world: &mut NavWorld) -> StepResult {
    background(world)?.control.request_pause();
    until_paused(world).await
}

#[when("the user resumes the task")]
async fn the_user_resumes(world: &mut NavWorld) -> StepResult {
    background(world)?.control.resume();
    Ok(())
}

/// The agent goes away while the task is paused (its Stop, as a closing application would
/// press it), and a new agent takes the task up from the checkpoint in the store on disk.
#[when("the agent is restarted from the task's checkpoint")]
async fn restarted_from_checkpoint(world: &mut NavWorld) -> StepResult {
    let RunningTask { handle, cancel, .. } =
        world.core.running.take().ok_or_else(|| setup("no task runs in the background"))?;
    cancel.cancel();
    let old = tokio::time::timeout(EVENT_DEADLINE, handle)
        .await
        .map_err(|_| StepError::Timeout { what: "the old agent to stop".into(), after: EVENT_DEADLINE })?
        .map_err(|e| setup(format!("the old agent failed: {e}")))?;
    let store = TaskStore::open(&checkpoint_path(world)?).map_err(|e| setup(format!("the task store: {e}")))?;
    let checkpoint = StoredCheckpoints { store: &store, task_id: TASK_ID.into() }
        .load()
        .map_err(|e| setup(e.to_string()))?
        .ok_or_else(|| StepError::Expectation("the task store holds no checkpoint".into()))?;
    let mut task = Task::from_checkpoint(checkpoint);
    // The scenario reads one trace; a real restart would start a new one.
    task.trace = old.task.trace;
    start(world, task).await
}

#[when("the task ends")]
async fn the_task_ends(world: &mut NavWorld) -> StepResult {
    if world.core.running.is_none() && std::mem::take(&mut world.core.ended_before_a_round) {
        return Ok(());
    }
    let RunningTask { handle, .. } =
        world.core.running.take().ok_or_else(|| setup("no task runs in the background"))?;
    let finished = tokio::time::timeout(END_DEADLINE, handle)
        .await
        .map_err(|_| StepError::Timeout { what: "the task to end".into(), after: END_DEADLINE })?;
    keep(world, finished)
}

#[then("the task is paused")]
async fn the_task_is_paused(world: &mut NavWorld) -> StepResult {
    let paused = background(world)?.control.paused();
    expect_eq("the task is paused", true, paused.is_some())
}

#[then(expr = "the task paused after round {int} to ask whether to continue")]
async fn paused_for_segments(world: &mut NavWorld, round: u32) -> StepResult {
    if let Some(background) = &world.core.running {
        return match background.control.paused() {
            Some(pause) if matches!(pause.reason, PauseReason::SegmentLimit { .. }) => {
                expect_eq("the round the task paused after", round, pause.after_round)
            }
            other => Err(StepError::Expectation(format!("the task is not paused for its segments: {other:?}"))),
        };
    }
    let rounds: Vec<u32> = trace_entries(world)?
        .filter_map(|(r, e)| matches!(e, TraceEvent::Paused { reason: PauseReason::SegmentLimit { .. } }).then_some(r))
        .collect();
    if rounds.contains(&round) {
        return Ok(());
    }
    Err(StepError::Expectation(format!("the task paused for its segments after rounds {rounds:?}")))
}

/// The finished task's trace; a task still running has none to read yet.
fn trace_entries(world: &NavWorld) -> StepResult<impl Iterator<Item = (u32, &TraceEvent)>> {
    if world.core.running.is_some() {
        return Err(setup("the task still runs in the background: say `When the task ends` first"));
    }
    Ok(world.core.task.trace.entries.iter().map(|e| (e.round, &e.event)))
}

#[then(expr = "round {int} began with a segment summary")]
async fn began_with_summary(world: &mut NavWorld, round: u32) -> StepResult {
    let summaries: Vec<u32> = trace_entries(world)?
        .filter_map(|(r, e)| matches!(e, TraceEvent::SegmentSummary { .. }).then_some(r))
        .collect();
    if summaries.contains(&round) {
        return Ok(());
    }
    Err(StepError::Expectation(format!("segment summaries began rounds {summaries:?}")))
}

#[then(expr = "round {int} told the model that the user changed {string}")]
async fn told_user_changed(world: &mut NavWorld, round: u32, text: String) -> StepResult {
    let told: Vec<&String> = trace_entries(world)?
        .filter(|(r, _)| *r == round)
        .filter_map(|(_, e)| match e {
            TraceEvent::Told { notices } => Some(notices),
            _ => None,
        })
        .flatten()
        .collect();
    if told.iter().any(|n| n.starts_with("the user changed") && n.contains(&text)) {
        return Ok(());
    }
    Err(StepError::Expectation(format!("round {round} told the model {told:?}")))
}

#[then(expr = "the task reported progress {string} in round {int}")]
async fn reported_progress(world: &mut NavWorld, text: String, round: u32) -> StepResult {
    let reports: Vec<&String> = trace_entries(world)?
        .filter(|(r, _)| *r == round)
        .filter_map(|(_, e)| match e {
            TraceEvent::Progress { text } => Some(text),
            _ => None,
        })
        .collect();
    if reports.iter().any(|r| r.contains(&text)) {
        return Ok(());
    }
    Err(StepError::Expectation(format!("round {round}'s progress reports: {reports:?}")))
}

#[then(expr = "tool call {string} in round {int} was retried {int} times")]
async fn retried(world: &mut NavWorld, tool: String, round: u32, times: u32) -> StepResult {
    let retries = trace_entries(world)?
        .filter(|(r, e)| *r == round && matches!(e, TraceEvent::Retry { tool: t, .. } if t.name() == tool))
        .count();
    expect_eq(&format!("retries of {tool} in round {round}"), times as usize, retries)
}

#[then(expr = "round {int}'s progress reports came at most {int} ms apart, {int} at least")]
async fn progress_cadence(world: &mut NavWorld, round: u32, gap_ms: u64, least: usize) -> StepResult {
    let times: Vec<f64> = world
        .core
        .task
        .trace
        .entries
        .iter()
        .filter(|e| e.round == round && matches!(e.event, TraceEvent::Progress { .. }))
        .map(|e| e.at_ms)
        .collect();
    if times.len() < least {
        return Err(StepError::Expectation(format!("round {round} reported progress {} times", times.len())));
    }
    let widest = times.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    if widest <= gap_ms as f64 {
        return Ok(());
    }
    Err(StepError::Expectation(format!("round {round}'s progress reports came up to {widest:.0} ms apart")))
}
