//! The closed loop's steps (seed 003): verification, refused `done`, no_progress. The language
//! is in docs/gherkin-language.md ("The snapshot, refs and verification").

use crate::error::{StepError, StepResult};
use crate::world::NavWorld;
use cucumber::{given, then};
use navguard::agent::{ToolName, TraceEvent};

#[given("done needs a verification")]
async fn done_needs_a_verification(world: &mut NavWorld) {
    world.agent.config.done_needs_verification = true;
}

#[given("no-progress detection is off")]
async fn no_progress_off(world: &mut NavWorld) {
    world.agent.config.no_progress = false;
}

fn tool_named(name: &str) -> StepResult<ToolName> {
    name.parse().map_err(|e: navguard::names::UnknownName| StepError::Setup(e.to_string()))
}

/// The verdicts of `tool`'s expectation checks in `round`.
fn verdicts(world: &NavWorld, tool: ToolName, round: u32) -> Vec<bool> {
    world.agent.task.trace.verifications().filter(|(r, t, _)| *r == round && *t == tool).map(|(.., v)| v.held()).collect()
}

#[then(expr = "tool call {string} in round {int} was verified")]
async fn was_verified(world: &mut NavWorld, tool: String, round: u32) -> StepResult {
    match verdicts(world, tool_named(&tool)?, round).as_slice() {
        [.., true] => Ok(()),
        [.., false] => Err(StepError::Expectation(format!("{tool} in round {round} failed its verification"))),
        [] => Err(StepError::Expectation(format!("{tool} in round {round} was not verified (no expect, or no call)"))),
    }
}

#[then(expr = "tool call {string} in round {int} failed verification")]
async fn failed_verification(world: &mut NavWorld, tool: String, round: u32) -> StepResult {
    match verdicts(world, tool_named(&tool)?, round).as_slice() {
        [.., false] => Ok(()),
        [.., true] => Err(StepError::Expectation(format!("{tool} in round {round} was verified"))),
        [] => Err(StepError::Expectation(format!("{tool} in round {round} was not verified (no expect, or no call)"))),
    }
}

#[then(expr = "the done in round {int} was refused with {string}")]
async fn done_refused(world: &mut NavWorld, round: u32, text: String) -> StepResult {
    let refusals: Vec<&str> = world
        .agent
        .task
        .trace
        .entries
        .iter()
        .filter(|e| e.round == round)
        .filter_map(|e| match &e.event {
            TraceEvent::DoneRefused { why } => Some(why.as_str()),
            _ => None,
        })
        .collect();
    match refusals.as_slice() {
        [] => Err(StepError::Expectation(format!("no done was refused in round {round}"))),
        found if found.iter().any(|why| why.contains(&text)) => Ok(()),
        found => Err(StepError::Expectation(format!("round {round}'s done was refused with {found:?}, not {text:?}"))),
    }
}

#[then("the task ended verified")]
async fn ended_verified(world: &mut NavWorld) -> StepResult {
    if world.agent.task.trace.ended_verified() {
        return Ok(());
    }
    let stop = world.agent.stop.as_ref().map_or_else(|| "no stop".into(), navguard::agent::StopReason::message);
    Err(StepError::Expectation(format!("the task did not end with a verified done (it ended: {stop})")))
}

fn warnings(world: &NavWorld) -> Vec<String> {
    let trace = &world.agent.task.trace;
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::NoProgress { pattern, stopped: false } => Some(format!("round {}: {pattern}", e.round)),
            _ => None,
        })
        .collect()
}

#[then("the model was warned of no progress")]
async fn warned(world: &mut NavWorld) -> StepResult {
    if warnings(world).is_empty() {
        return Err(StepError::Expectation("the model was never warned of no progress".into()));
    }
    Ok(())
}

#[then("the model was never warned of no progress")]
async fn never_warned(world: &mut NavWorld) -> StepResult {
    match warnings(world).as_slice() {
        [] => Ok(()),
        found => Err(StepError::Expectation(format!("the model was warned: {}", found.join("; ")))),
    }
}
