//! The result of each scenario, and the terminal summary: per feature, then the failures, then
//! the closing line `features: N passed, N failed`.

use crate::report::{Gherkin, StepRecord, StepStatus};
use crate::timeline::Timeline;
use crate::world::NavWorld;
use cucumber::event::ScenarioFinished;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct ScenarioResult {
    pub feature_path: String,
    pub feature: String,
    pub scenario: String,
    /// Its line in the feature file.
    pub line: usize,
    /// Why it failed; `None` if it passed.
    pub failure: Option<String>,
    pub duration: Duration,
    pub artifacts: Option<PathBuf>,
    /// With a timeline: whether the race showed, and how.
    pub race: Option<String>,
    /// What the scenario says the task should do.
    pub expects: Expects,
    /// How the agent's task ended, if an agent ran.
    pub task_end: Option<TaskEnd>,
    /// How long each loop-top guard waited (ms), for those that waited.
    pub guard_waits_ms: Vec<u64>,
    /// What the model, the agent and the browser did.
    pub timeline: Timeline,
    /// Its steps and how each ended (filled in when the run ends).
    pub steps: Vec<StepRecord>,
    /// Its gherkin (feature, rule, backgrounds, tags) and hooks (filled in when the run ends).
    pub gherkin: Option<Gherkin>,
}

impl ScenarioResult {
    /// A passed scenario `name` of `features/x.feature` (line 1, 100 ms), for unit tests to
    /// adjust with struct-update syntax.
    #[cfg(test)]
    pub(crate) fn sample(name: &str) -> Self {
        Self {
            feature_path: "features/x.feature".into(),
            feature: "X".into(),
            scenario: name.into(),
            line: 1,
            failure: None,
            duration: Duration::from_millis(100),
            artifacts: None,
            race: None,
            expects: Expects::Nothing,
            task_end: None,
            guard_waits_ms: vec![],
            timeline: Timeline::default(),
            steps: vec![],
            gherkin: None,
        }
    }

    /// The first step that failed or was skipped, if any.
    pub fn first_failing_step(&self) -> Option<&StepRecord> {
        self.steps.iter().find(|s| matches!(s.status, StepStatus::Failed | StepStatus::Skipped))
    }
}

/// How an agent's task ended, as far as the gate's rates need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskEnd {
    pub succeeded: bool,
    /// Stopped as a restricted URL or a different origin: a false stop if the scenario
    /// expects success.
    pub restricted_or_cross_origin: bool,
    /// Ended with a `done` whose expectation was checked and held.
    pub verified: bool,
    /// Rounds that repaired what went wrong in the round before.
    pub repairs: usize,
}

impl TaskEnd {
    pub fn of(stop: &navguard::agent::StopReason, trace: &navguard::agent::Trace) -> Self {
        use navguard::agent::StopReason;
        Self {
            succeeded: stop.is_success(),
            restricted_or_cross_origin: matches!(stop, StopReason::Restricted | StopReason::OriginChanged),
            verified: trace.ended_verified(),
            repairs: trace.repairs(),
        }
    }
}

/// What a scenario says of its task's end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Expects {
    /// `Then the task succeeds` / `Then turn <n> succeeded`.
    Success,
    /// `Then the task stops with …` / `Then the task is aborted`.
    Stop,
    /// Neither (no agent, or no claim).
    #[default]
    Nothing,
}

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

/// Prints the per-feature table and the failures; returns (passed, failed).
pub fn print(results: &[ScenarioResult]) -> (usize, usize) {
    let mut by_feature: BTreeMap<&str, (usize, usize, Duration, &str)> = BTreeMap::new();
    for r in results {
        let entry = by_feature.entry(&r.feature_path).or_insert((0, 0, Duration::ZERO, &r.feature));
        if r.failure.is_some() {
            entry.1 += 1;
        } else {
            entry.0 += 1;
        }
        entry.2 += r.duration;
    }
    println!("\nnavguard: per feature (passed, failed, scenario time)");
    for (path, (passed, failed, time, name)) in &by_feature {
        println!("  {passed:>3} passed {failed:>3} failed {:>7.1} s  {path}  ({name})", time.as_secs_f64());
    }
    for r in results.iter().filter(|r| r.failure.is_some()) {
        println!("\nFAILED {}:{}  {}", r.feature_path, r.line, r.scenario);
        if let Some(step) = r.first_failing_step() {
            println!("  at line {}: {} {} ({})", step.line, step.keyword, step.text, step.status.name());
        }
        println!("  {}", r.failure.as_deref().unwrap_or_default().replace('\n', "\n  "));
        if let Some(dir) = &r.artifacts {
            println!("  artifacts: {}", dir.display());
        }
    }
    let failed = results.iter().filter(|r| r.failure.is_some()).count();
    (results.len() - failed, failed)
}
