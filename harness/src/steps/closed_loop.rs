//! The closed loop's steps (docs/design/closed-loop.md): verification, refused `done`, no_progress. The language
//! is in docs/gherkin-language.md ("The snapshot, refs and verification").

use crate::error::{StepError, StepResult};
use crate::world::NavWorld;
use cucumber::{given, then};
use navguard::agent::{ToolName, TraceEvent};

#[given("done needs a verification")]
async fn done_needs_a_verification(world: &mut NavWorld) {
    world.core.config.done_needs_verification = true;
}

#[given("no-progress detection is off")]
async fn no_progress_off(world: &mut NavWorld) {
    world.core.config.no_progress = false;
}

fn tool_named(name: &str) -> StepResult<ToolName> {
    name.parse().map_err(|e: navguard::names::UnknownName| StepError::Setup(e.to_string()))
}

/// The verdicts of `tool`'s expectation checks in `round`.
fn verdicts(world: &NavWorld, tool: ToolName, round: u32) -> Vec<bool> {
    world
        .core
        .task
        .trace
        .verifications()
        .filter(|(r, t, _)| *r == round && *t == tool)
        .map(|(.., v)| v.held())
        .collect()
}

/// The last check of `tool`'s expectation in `round` held (`held`) or failed (`!held`).
fn last_verdict_is(world: &NavWorld, tool: &str, round: u32, held: bool) -> StepResult {
    match verdicts(world, tool_named(tool)?, round).last() {
        Some(&last) if last == held => Ok(()),
        Some(_) if held => Err(StepError::Expectation(format!("{tool} in round {round} failed its verification"))),
        Some(_) => Err(StepError::Expectation(format!("{tool} in round {round} was verified"))),
        None => {
            Err(StepError::Expectation(format!("{tool} in round {round} was not verified (no expect, or no call)")))
        }
    }
}

#[then(expr = "tool call {string} in round {int} was verified")]
async fn was_verified(world: &mut NavWorld, tool: String, round: u32) -> StepResult {
    last_verdict_is(world, &tool, round, true)
}

#[then(expr = "tool call {string} in round {int} failed verification")]
async fn failed_verification(world: &mut NavWorld, tool: String, round: u32) -> StepResult {
    last_verdict_is(world, &tool, round, false)
}

#[then(expr = "the done in round {int} was refused with {string}")]
async fn done_refused(world: &mut NavWorld, round: u32, text: String) -> StepResult {
    let refusals: Vec<&str> = world
        .core
        .task
        .trace
        .in_round(round)
        .filter_map(|event| match event {
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
    if world.core.task.trace.ended_verified() {
        return Ok(());
    }
    let stop = world.core.stop.as_ref().map_or_else(|| "no stop".into(), navguard::agent::StopReason::message);
    Err(StepError::Expectation(format!("the task did not end with a verified done (it ended: {stop})")))
}

fn warnings(world: &NavWorld) -> Vec<String> {
    let trace = &world.core.task.trace;
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

/// The element listed with selector `css` in round `round`'s observation, as the model saw it.
fn seen_element(world: &NavWorld, css: &str, round: u32) -> StepResult<navguard::agent::Element> {
    let played = world.core.played.as_ref().ok_or_else(|| StepError::Setup("the agent has not run".into()))?;
    let observations = played.observations();
    let observation =
        observations.get(&round).ok_or_else(|| StepError::Expectation(format!("round {round} observed nothing")))?;
    observation.elements.iter().find(|e| e.selector == css).cloned().ok_or_else(|| {
        let listed: Vec<&str> = observation.elements.iter().map(|e| e.selector.as_str()).collect();
        StepError::Expectation(format!("round {round}'s observation does not list {css:?} (it lists {listed:?})"))
    })
}

#[then(expr = "the model saw {string} in round {int} with role {string} and name {string}")]
async fn saw_role_and_name(world: &mut NavWorld, css: String, round: u32, role: String, name: String) -> StepResult {
    let element = seen_element(world, &css, round)?;
    crate::error::expect_eq(
        &format!("{css}'s role and name"),
        (role.as_str(), name.as_str()),
        (&element.role, &element.name),
    )
}

#[then(expr = "the model saw {string} in round {int} with value {string}")]
async fn saw_value(world: &mut NavWorld, css: String, round: u32, value: String) -> StepResult {
    let element = seen_element(world, &css, round)?;
    crate::error::expect_eq(&format!("{css}'s value"), Some(value.as_str()), element.value.as_deref())
}

#[then(expr = "the model saw {string} in round {int} in a form that posts to {string}")]
async fn saw_form(world: &mut NavWorld, css: String, round: u32, action: String) -> StepResult {
    let element = seen_element(world, &css, round)?;
    let form = element.form.map(|f| (f.method, f.action));
    crate::error::expect_eq(&format!("{css}'s form"), Some(("post".to_owned(), world.expand(&action))), form)
}

/// Nothing the model was shown holds `text`: no observation, in any round.
#[then(expr = "the model never saw {string}")]
async fn never_saw(world: &mut NavWorld, text: String) -> StepResult {
    let played = world.core.played.as_ref().ok_or_else(|| StepError::Setup("the agent has not run".into()))?;
    for (round, observation) in played.observations() {
        let shown = serde_json::to_string(&observation).unwrap_or_default();
        if shown.contains(&text) {
            return Err(StepError::Expectation(format!("round {round}'s observation holds {text:?}: {shown}")));
        }
    }
    Ok(())
}

#[then(expr = "round {int} was a repair after {string}")]
async fn was_a_repair(world: &mut NavWorld, round: u32, reason: String) -> StepResult {
    let repairs: Vec<String> = world
        .core
        .task
        .trace
        .in_round(round)
        .filter_map(|event| match event {
            TraceEvent::Repair { reason } => Some(reason.to_string()),
            _ => None,
        })
        .collect();
    crate::error::expect_eq(&format!("round {round}'s repair"), vec![reason], repairs)
}

#[then(expr = "the task made {int} repairs")]
#[then(expr = "the task made {int} repair")]
async fn repairs(world: &mut NavWorld, n: usize) -> StepResult {
    crate::error::expect_eq("repairs", n, world.core.task.trace.repairs())
}
