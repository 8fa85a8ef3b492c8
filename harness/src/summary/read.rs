//! A scenario's result read from cucumber: what its steps say of its task's end, and why it
//! failed, from cucumber's event.

use super::Expects;
use crate::world::NavWorld;
use cucumber::event::ScenarioFinished;

/// Reads what a scenario's steps say of its task's end.
pub fn expects_of(steps: &[cucumber::gherkin::Step]) -> Expects {
    let says = |prefix: &str| steps.iter().any(|s| s.value.starts_with(prefix));
    if says("the task succeeds")
        || (says("turn ") && steps.iter().any(|s| s.value.ends_with("succeeded") && s.value.starts_with("turn ")))
    {
        Expects::Success
    } else if says("the task stops with") || says("the task is aborted") {
        Expects::Stop
    } else {
        Expects::Nothing
    }
}

/// The steps of a scenario that no step definition matches, or that several match.
pub fn unmatched_steps(steps: &[cucumber::gherkin::Step]) -> Vec<String> {
    let collection = <NavWorld as cucumber::World>::collection();
    steps
        .iter()
        .filter_map(|step| match collection.find(step) {
            Ok(Some(_)) => None,
            Ok(None) => Some(format!("undefined step at line {}: {}{}", step.position.line, step.keyword, step.value)),
            Err(_) => Some(format!("ambiguous step at line {}: {}{}", step.position.line, step.keyword, step.value)),
        })
        .collect()
}

/// Why a scenario failed, from cucumber's event; `None` if it passed. A skipped step (an
/// undefined one) is a failure: nothing skipped counts as a pass.
pub fn failure_of(finished: &ScenarioFinished, scenario: &cucumber::gherkin::Scenario) -> Option<String> {
    match finished {
        ScenarioFinished::StepPassed => None,
        ScenarioFinished::StepSkipped => {
            let unmatched = unmatched_steps(&scenario.steps);
            Some(if unmatched.is_empty() { "a step was skipped".into() } else { unmatched.join("\n") })
        }
        ScenarioFinished::BeforeHookFailed(info) => Some(format!("set-up failed: {}", crate::report::panic_text(info))),
        ScenarioFinished::StepFailed(_, _, err) => Some(crate::report::error_text(err)),
    }
}
