//! The agent core's steps (navguard's own agent, run in process with a scripted model; not an
//! agent under test): set it up, run it, and read its trace.

use crate::error::{StepError, StepResult, expect_eq, expect_success};
use crate::world::parameters::{Guard, Switch, Trigger};
use crate::world::round_hook::user_script;
use crate::world::user_action::UserAction;
use crate::world::{EVENT_DEADLINE, NavWorld, Placeholders, same_url};
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use navguard::agent::{Agent, GuardDecision, ToolName, ToolReply, TraceEvent, UrlSettle, safe_parse_origin};
use navguard::browser::{BrowserPort, TabId};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

fn setup(e: impl std::fmt::Display) -> StepError {
    StepError::Setup(e.to_string())
}

#[given(expr = "the agent starts on {string}")]
async fn the_agent_starts_on(world: &mut NavWorld, url: String) -> StepResult {
    let tab = world.open_loaded_tab(&url).await?;
    let committed = world.port()?.tab(&tab).await?.url;
    let origin =
        safe_parse_origin(&committed).ok_or_else(|| setup(format!("the start page {committed} has no origin")))?;
    world.core.task.tabs.adopt_primary(tab, origin);
    Ok(())
}

#[given(expr = "the settle timeout is {int} ms")]
async fn settle_timeout(world: &mut NavWorld, ms: u64) {
    world.core.config.settle_timeout = Duration::from_millis(ms);
}

#[given(expr = "the action quiet window is {int} ms")]
async fn quiet_window(world: &mut NavWorld, ms: u64) {
    world.core.config.quiet = navguard::agent::Quiet::Window(Duration::from_millis(ms));
}

#[given(expr = "the action settle cap is {int} ms")]
async fn settle_cap(world: &mut NavWorld, ms: u64) {
    world.core.config.action_cap = Duration::from_millis(ms);
}

#[given(expr = "the {guard} guard is {switch}")]
async fn guard_switch(world: &mut NavWorld, guard: Guard, state: Switch) {
    let on = state == Switch::On;
    match guard {
        Guard::OpenUrl => world.core.config.open_url_guard = on,
        Guard::LoopTop => world.core.config.loop_top_guard = on,
    }
}

#[given(expr = "the loop-top guard uses the {trigger} in-flight trigger")]
async fn in_flight_trigger(world: &mut NavWorld, trigger: Trigger) {
    world.core.config.in_flight_trigger = trigger.in_flight();
}

#[given(expr = "the round limit is {int}")]
async fn round_limit(world: &mut NavWorld, n: u32) {
    world.core.config.round_limit = n;
}

#[given("the model plans:")]
async fn the_model_plans(world: &mut NavWorld, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or_else(|| setup("this step needs a table | round | tool | args |"))?;
    // A plan replaces the one before it (a Background's, say).
    world.core.plan.clear_calls();
    for (i, row) in table.rows.iter().enumerate().skip(1) {
        let cell = |n: usize| row.get(n).map(String::as_str).unwrap_or_default();
        let round: u32 =
            cell(0).trim().parse().map_err(|_| setup(format!("row {i}: round {:?} is not a number", cell(0))))?;
        let (tool, args) = (cell(1).trim(), world.expand(cell(2)));
        if tool.is_empty() {
            world.core.plan.add_empty_round(round);
            continue;
        }
        let args = if args.trim().is_empty() {
            serde_json::json!({})
        } else {
            serde_json::from_str(&args).map_err(|e| setup(format!("row {i}: args are not JSON ({e}): {args}")))?
        };
        world.core.plan.add(round, tool, args);
    }
    Ok(())
}

#[given(expr = "the model takes {int} ms to answer")]
async fn think_time(world: &mut NavWorld, ms: u64) {
    world.core.plan.think(Duration::from_millis(ms));
}

#[given(expr = "the model takes {int} ms to answer in round {int}")]
async fn think_time_in_round(world: &mut NavWorld, ms: u64, round: u32) {
    world.core.plan.think_in_round(round, Duration::from_millis(ms));
}

#[given(expr = "before round {int} the user {action}")]
async fn before_round_the_user(world: &mut NavWorld, round: u32, action: UserAction) {
    world.core.user_actions.entry(round).or_default().push(action);
}

/// Runs the task; `during` runs beside it (the user's Stop, an action after a delay).
async fn run_task(world: &mut NavWorld, during: Option<(Duration, During)>) -> StepResult {
    let port = world.port()?.clone();
    let script = user_script(world)?;
    let placeholders = script.placeholders.clone();
    let mut task = std::mem::take(&mut world.core.task);
    let cancel = CancellationToken::new();
    let focused = task.tabs.focused().cloned();
    let side = during.map(|(after, what)| spawn_during(after, what, &cancel, &port, focused, placeholders));
    let plan = world.core.plan.clone();
    let agent = Agent { hook: Some(&script), ..Agent::new(&*port, &plan, world.core.effective_config()) };
    let started = Instant::now();
    let stop = agent.run(&mut task, &cancel).instrument(world.progress.span()).await;
    world.core.played = Some(plan.clone_played());
    world.core.took = Some(started.elapsed());
    world.core.stop = Some(stop);
    world.core.task = task;
    if let Some(side) = side {
        // Abort takes effect at the task's next poll; awaiting it makes sure the user's action
        // (and any event subscription it holds, e.g. a close still waiting for its reply on
        // Firefox, which reports the tab gone before answering) is dropped before the checks.
        side.abort();
        let _ = tokio::time::timeout(EVENT_DEADLINE, side).await;
    }
    match script.failures().as_slice() {
        [] => Ok(()),
        failures => Err(StepError::Setup(failures.join("\n"))),
    }
}

/// What happens beside the run.
enum During {
    Stop,
    User(UserAction),
}

fn spawn_during(
    after: Duration,
    what: During,
    cancel: &CancellationToken,
    port: &Arc<dyn BrowserPort>,
    tab: Option<TabId>,
    placeholders: Placeholders,
) -> tokio::task::JoinHandle<()> {
    let (cancel, port) = (cancel.clone(), port.clone());
    tokio::spawn(async move {
        // The user's pause is the scenario, not a synchronization.
        tokio::time::sleep(after).await;
        match what {
            During::Stop => cancel.cancel(),
            During::User(action) => {
                let tab = tab.unwrap_or(TabId(String::new()));
                if let Err(e) = action.perform(&*port, &tab, |t| placeholders.expand(t)).await {
                    tracing::warn!("the user's action failed: {e}");
                }
            }
        }
    })
}

#[when("the agent runs the task")]
async fn the_agent_runs(world: &mut NavWorld) -> StepResult {
    run_task(world, None).await
}

#[when(expr = "the agent runs the task and the user presses Stop after {int} ms")]
async fn the_agent_runs_then_stop(world: &mut NavWorld, ms: u64) -> StepResult {
    run_task(world, Some((Duration::from_millis(ms), During::Stop))).await
}

#[when(expr = "the agent runs the task and after {int} ms the user {action}")]
async fn the_agent_runs_then_the_user(world: &mut NavWorld, ms: u64, action: UserAction) -> StepResult {
    run_task(world, Some((Duration::from_millis(ms), During::User(action)))).await
}

fn origin_arg(world: &NavWorld, origin: &str) -> StepResult<url::Origin> {
    let origin = world.expand(origin);
    safe_parse_origin(&origin).ok_or_else(|| setup(format!("{origin:?} is not an origin")))
}

#[when(expr = "a new tab is opened on {string} and settled for {string}")]
async fn open_and_settle(world: &mut NavWorld, url: String, origin: String) -> StepResult {
    let origin = origin_arg(world, &origin)?;
    world.mark()?;
    let port = world.port()?.clone();
    let tab = port.create_tab(&world.expand(&url), true).await?;
    world.adopt(tab.clone());
    let timeout = world.core.config.settle_timeout;
    let report = UrlSettle::new(tab, origin).timeout(timeout).wait(&*port, &CancellationToken::new()).await?;
    world.core.settles.push(report);
    Ok(())
}

#[when(expr = "the tab is settled for {string}")]
async fn settle_focused(world: &mut NavWorld, origin: String) -> StepResult {
    let origin = origin_arg(world, &origin)?;
    let tab = match world.core.task.tabs.focused() {
        Some(tab) => tab.clone(),
        None => world.current_tab()?,
    };
    let port = world.port()?.clone();
    let timeout = world.core.config.settle_timeout;
    let report = UrlSettle::new(tab, origin).timeout(timeout).wait(&*port, &CancellationToken::new()).await?;
    world.core.settles.push(report);
    Ok(())
}

#[when("these tabs are opened and settled at once:")]
async fn open_and_settle_at_once(world: &mut NavWorld, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or_else(|| setup("this step needs a table | url | origin |"))?;
    let port = world.port()?.clone();
    let timeout = world.core.config.settle_timeout;
    let mut waits = Vec::new();
    for row in table.rows.iter().skip(1) {
        let (url, origin) = (world.expand(&row[0]), origin_arg(world, &row[1])?);
        let port = port.clone();
        waits.push(async move {
            let tab = port.create_tab(&url, true).await?;
            UrlSettle::new(tab, origin).timeout(timeout).wait(&*port, &CancellationToken::new()).await
        });
    }
    for report in futures::future::join_all(waits).await {
        world.core.settles.push(report?);
    }
    Ok(())
}

fn stop_of(world: &NavWorld) -> StepResult<&navguard::agent::StopReason> {
    world.core.stop.as_ref().ok_or_else(|| setup("the agent has not run"))
}

#[then("the task succeeds")]
async fn the_task_succeeds(world: &mut NavWorld) -> StepResult {
    expect_success("the task", stop_of(world)?)
}

#[then(expr = "the task stops with {string}")]
async fn the_task_stops_with(world: &mut NavWorld, message: String) -> StepResult {
    let stop = stop_of(world)?;
    if stop.message() == message {
        return Ok(());
    }
    Err(StepError::Expectation(format!(
        "the task stopped with {:?} ({}), not {message:?}",
        stop.message(),
        stop.detail().unwrap_or_else(|| "no detail".into())
    )))
}

#[then("the task is aborted")]
async fn the_task_is_aborted(world: &mut NavWorld) -> StepResult {
    expect_eq("the task was stopped by the user", true, stop_of(world)?.is_aborted())
}

#[then(expr = "the task ran {int} rounds")]
#[then(expr = "the task ran {int} round")]
async fn rounds(world: &mut NavWorld, n: u32) -> StepResult {
    expect_eq("rounds", n, world.core.task.trace.rounds())
}

#[then(expr = "the task took less than {int} ms")]
async fn took_less_than(world: &mut NavWorld, ms: u64) -> StepResult {
    let took = world.core.took.ok_or_else(|| setup("the agent has not run"))?;
    if took < Duration::from_millis(ms) {
        return Ok(());
    }
    Err(StepError::Expectation(format!("the task took {} ms", took.as_millis())))
}

/// The decisions of round `round`'s loop-top guard, in order (a round runs it again when its
/// page begins to leave before it is observed), by their outcome names.
fn guard_decisions(world: &NavWorld, round: u32) -> StepResult<Vec<String>> {
    let names: Vec<String> = world
        .core
        .task
        .trace
        .guards()
        .filter(|(r, ..)| *r == round)
        .map(|(_, d, _)| d.outcome_name().unwrap_or_else(|| d.kind().name()).to_owned())
        .collect();
    if names.is_empty() {
        return Err(StepError::Expectation(format!("no guard ran in round {round}")));
    }
    Ok(names)
}

/// Judges round `round`'s guard decisions (in order) with `holds`; the failure lists them.
fn judge_guard(world: &NavWorld, round: u32, holds: impl Fn(&[String]) -> bool) -> StepResult {
    let decisions = guard_decisions(world, round)?;
    if holds(&decisions) {
        return Ok(());
    }
    Err(StepError::Expectation(format!("round {round}'s guard decided {}", decisions.join(", then "))))
}

/// Any of the round's guard decisions: the first (the wait at the round's top) or a later one
/// (the guard run again when the page began to leave before it was observed).
#[then(expr = "the loop-top guard resolved {string} in round {int}")]
async fn guard_resolved(world: &mut NavWorld, outcome: String, round: u32) -> StepResult {
    judge_guard(world, round, |d| d.contains(&outcome))
}

#[then(expr = "the loop-top guard last resolved {string} in round {int}")]
async fn guard_last_resolved(world: &mut NavWorld, outcome: String, round: u32) -> StepResult {
    judge_guard(world, round, |d| d.last() == Some(&outcome))
}

#[then(expr = "the loop-top guard first resolved {string} in round {int}")]
async fn guard_first_resolved(world: &mut NavWorld, outcome: String, round: u32) -> StepResult {
    judge_guard(world, round, |d| d.first() == Some(&outcome))
}

#[then(expr = "the loop-top guard resolved {string} then {string} in round {int}")]
async fn guard_resolved_in_order(world: &mut NavWorld, first: String, then: String, round: u32) -> StepResult {
    judge_guard(world, round, |d| d == [first.as_str(), then.as_str()])
}

#[then("the loop-top guard never waited")]
async fn guard_never_waited(world: &mut NavWorld) -> StepResult {
    let waits: Vec<String> = world
        .core
        .task
        .trace
        .guards()
        .filter(|(_, d, _)| matches!(d, GuardDecision::Settled { .. }))
        .map(|(r, d, ms)| format!("round {r}: {d:?} after {ms} ms"))
        .collect();
    if waits.is_empty() {
        Ok(())
    } else {
        Err(StepError::Expectation(format!("the guard waited: {}", waits.join("; "))))
    }
}

#[then(expr = "the open_url guard resolved {string}")]
async fn open_url_guard_resolved(world: &mut NavWorld, outcome: String) -> StepResult {
    let guards: Vec<&str> = world
        .core
        .task
        .trace
        .tool_calls()
        .filter_map(|(_, c)| match c {
            TraceEvent::ToolCall { tool, guard: Some((o, _)), .. } if *tool == ToolName::OpenUrl.name() => {
                Some(o.name())
            }
            _ => None,
        })
        .collect();
    match guards.last() {
        Some(name) => expect_eq("the open_url guard's outcome", outcome.as_str(), name),
        None => Err(StepError::Expectation("no open_url call waited on its guard".into())),
    }
}

fn call_result(world: &NavWorld, tool: &str, round: u32) -> StepResult<ToolReply> {
    world
        .core
        .task
        .trace
        .tool_calls()
        .find_map(|(r, c)| match c {
            TraceEvent::ToolCall { tool: t, result, .. } if r == round && t == tool => Some(result.clone()),
            _ => None,
        })
        .ok_or_else(|| StepError::Expectation(format!("no {tool:?} call in round {round}")))
}

#[then(expr = "tool call {string} in round {int} succeeded")]
async fn call_succeeded(world: &mut NavWorld, tool: String, round: u32) -> StepResult {
    match call_result(world, &tool, round)? {
        ToolReply::Ok(_) => Ok(()),
        ToolReply::Failed(e) => Err(StepError::Expectation(format!("{tool} in round {round} failed: {e}"))),
    }
}

/// Passes if a call of `tool` in `round` (there may be several) succeeded with an answer that
/// holds `text`.
#[then(expr = "tool call {string} in round {int} answered {string}")]
async fn call_answered(world: &mut NavWorld, tool: String, round: u32, text: String) -> StepResult {
    let text = world.expand(&text);
    let results = calls_of(world, &tool, round);
    match results.iter().find(|r| matches!(r, ToolReply::Ok(answer) if answer.contains(&text))) {
        Some(_) => Ok(()),
        None if results.is_empty() => Err(StepError::Expectation(format!("no {tool:?} call in round {round}"))),
        None => Err(StepError::Expectation(format!("no {tool} call in round {round} answered {text:?}: {results:?}"))),
    }
}

/// The results of every call of `tool` in `round`, in order.
fn calls_of<'w>(world: &'w NavWorld, tool: &str, round: u32) -> Vec<&'w ToolReply> {
    world
        .core
        .task
        .trace
        .tool_calls()
        .filter_map(|(r, c)| match c {
            TraceEvent::ToolCall { tool: t, result, .. } if r == round && t == tool => Some(result),
            _ => None,
        })
        .collect()
}

/// Passes if a call of `tool` in `round` (there may be several) failed with `text`.
#[then(expr = "tool call {string} in round {int} failed with {string}")]
async fn call_failed_with(world: &mut NavWorld, tool: String, round: u32, text: String) -> StepResult {
    let text = world.expand(&text);
    let results = calls_of(world, &tool, round);
    match results.iter().find(|r| matches!(r, ToolReply::Failed(e) if e.contains(&text))) {
        Some(_) => Ok(()),
        None if results.is_empty() => Err(StepError::Expectation(format!("no {tool:?} call in round {round}"))),
        None => {
            Err(StepError::Expectation(format!("no {tool} call in round {round} failed with {text:?}: {results:?}")))
        }
    }
}

#[then(expr = "round {int} observed the page titled {string}")]
async fn round_observed(world: &mut NavWorld, round: u32, title: String) -> StepResult {
    let seen: Vec<String> = world
        .core
        .task
        .trace
        .in_round(round)
        .filter_map(|event| match event {
            TraceEvent::Observed { title, .. } => Some(title.clone()),
            _ => None,
        })
        .collect();
    expect_eq(&format!("round {round}'s observation"), vec![title], seen)
}

#[then(expr = "round {int} observed the page at {string}")]
async fn round_observed_url(world: &mut NavWorld, round: u32, url: String) -> StepResult {
    let url = world.expand(&url);
    let seen = world.core.task.trace.in_round(round).find_map(|event| match event {
        TraceEvent::Observed { url, .. } => Some(url.clone()),
        _ => None,
    });
    match seen {
        Some(seen) if same_url(&seen, &url) => Ok(()),
        other => expect_eq(&format!("round {round}'s observed URL"), Some(url), other),
    }
}

#[then(expr = "the browser has {int} tabs open for the task")]
#[then(expr = "the browser has {int} tab open for the task")]
async fn tabs_for_the_task(world: &mut NavWorld, n: usize) -> StepResult {
    let open = world.port()?.tabs().await?;
    let tabs = &world.core.task.tabs;
    let mine = open.iter().filter(|t| tabs.knows(&t.id)).count();
    expect_eq("the task's open tabs", n, mine)
}

#[then(expr = "the settle outcome is {string}")]
async fn the_settle_outcome_is(world: &mut NavWorld, outcome: String) -> StepResult {
    let last = world.core.settles.last().ok_or_else(|| setup("nothing was settled"))?;
    expect_eq("the settle outcome", outcome.as_str(), last.outcome.name())
}

#[then(expr = "the settle outcomes are {string}")]
async fn the_settle_outcomes_are(world: &mut NavWorld, outcomes: String) -> StepResult {
    let expected: Vec<&str> = outcomes.split(',').map(str::trim).collect();
    let actual: Vec<&str> = world.core.settles.iter().map(|r| r.outcome.name()).collect();
    expect_eq("the settle outcomes", expected, actual)
}

#[then("no navigation listener is left registered")]
async fn no_listener_left(world: &mut NavWorld) -> StepResult {
    let port = world.port()?;
    let live = port.diagnostics().map(navguard::browser::PortDiagnostics::listener_count);
    expect_eq("live navigation listeners", Some(0), live)
}

#[then(expr = "the trace of round {int} shows the guard {string}")]
async fn guard_kind(world: &mut NavWorld, round: u32, kind: String) -> StepResult {
    let decisions: BTreeMap<u32, String> =
        world.core.task.trace.guards().map(|(r, d, _)| (r, d.kind().name().to_owned())).collect();
    expect_eq(&format!("round {round}'s guard"), Some(&kind), decisions.get(&round))
}
