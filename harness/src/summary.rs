//! The result of each scenario, and what the terminal says of it: its one line as it ends, the
//! failures in full, the per-feature table (the runner prints the closing line `features: N
//! passed, N failed`).

use crate::report::{Gherkin, StepRecord, StepStatus};
use crate::timeline::Timeline;
use crate::world::NavWorld;
use cucumber::event::ScenarioFinished;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct ScenarioResult {
    pub feature_path: String,
    pub feature: String,
    pub scenario: String,
    /// Its line in the feature file.
    pub line: usize,
    /// Why it failed; `None` if it passed or did not apply.
    pub failure: Option<String>,
    /// Why it does not apply to the agent under test (a tool the agent has no counterpart
    /// for): neither passed nor failed, and reported as such.
    pub not_applicable: Option<String>,
    /// The agent-under-test calls it made, in order, with how long each took.
    pub calls: Vec<CallRecord>,
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
            not_applicable: None,
            calls: vec![],
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

    /// Whether it passed: not failed, and applicable.
    pub fn passed(&self) -> bool {
        self.failure.is_none() && self.not_applicable.is_none()
    }

    /// The first step that failed or was skipped, if any.
    pub fn first_failing_step(&self) -> Option<&StepRecord> {
        self.steps.iter().find(|s| matches!(s.status, StepStatus::Failed | StepStatus::Skipped))
    }
}

/// One call of the agent under test, as the reports show it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CallRecord {
    /// The scenario's call number.
    pub call: u32,
    /// The neutral tool.
    pub tool: String,
    pub took_ms: u64,
    /// `None`: it succeeded; else its failure class.
    pub failed_as: Option<String>,
}

/// The calls of a scenario's agent under test, as the reports show them.
pub fn call_records(log: &crate::world::Conformance) -> Vec<CallRecord> {
    log.calls()
        .map(|(call, c)| CallRecord {
            call,
            tool: c.tool.name().to_owned(),
            took_ms: c.answer.took.as_millis() as u64,
            failed_as: c.answer.failure.as_ref().map(|f| f.class.name().to_owned()),
        })
        .collect()
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

/// How many scenarios passed, failed and did not apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub not_applicable: usize,
}

impl Counts {
    pub fn of(results: &[ScenarioResult]) -> Self {
        let not_applicable = results.iter().filter(|r| r.not_applicable.is_some()).count();
        let failed = results.iter().filter(|r| r.failure.is_some()).count();
        Self { passed: results.len() - failed - not_applicable, failed, not_applicable }
    }
}

navguard::closed_set! {
    /// How a scenario ended, as its line on the terminal says it.
    pub enum Status("scenario status") {
        Passed = "ok",
        Failed = "FAIL",
        /// Failed, as the gate expects it to: a known deviation of the browser or the agent.
        KnownFailure = "xfail",
        /// Neither passed nor failed: it calls a tool the agent under test has no counterpart for.
        NotApplicable = "n/a",
    }
}

impl Status {
    /// `result`'s status; `known` holds the keys ([`crate::gate::key`]) of the failures the gate
    /// expects.
    pub fn of(result: &ScenarioResult, known: &BTreeSet<String>) -> Self {
        match (&result.failure, &result.not_applicable) {
            (Some(_), _) if known.contains(&crate::gate::key(result)) => Self::KnownFailure,
            (Some(_), _) => Self::Failed,
            (None, Some(_)) => Self::NotApplicable,
            (None, None) => Self::Passed,
        }
    }
}

/// A scenario's one line as it ends: its status, its time, where it is and its name.
pub fn line(result: &ScenarioResult, known: &BTreeSet<String>) -> String {
    format!(
        "{:<5} {:>6.1} s  {}:{}  {}",
        Status::of(result, known).name(),
        result.duration.as_secs_f64(),
        result.feature_path,
        result.line,
        result.scenario
    )
}

/// Prints each failure in full: where the scenario is, its first failing step, its error and its
/// artifacts. Known failures (`known`) are left out unless `with_known`: the gate expects them,
/// and the report holds them; one line counts them.
pub fn print_failures(results: &[ScenarioResult], known: &BTreeSet<String>, with_known: bool) {
    let mut left_out = 0;
    for r in results.iter().filter(|r| r.failure.is_some()) {
        if !with_known && Status::of(r, known) == Status::KnownFailure {
            left_out += 1;
            continue;
        }
        println!("\nFAILED {}:{}  {}", r.feature_path, r.line, r.scenario);
        if let Some(step) = r.first_failing_step() {
            println!("  at line {}: {} {} ({})", step.line, step.keyword, step.text, step.status.name());
        }
        println!("  {}", r.failure.as_deref().unwrap_or_default().replace('\n', "\n  "));
        if let Some(dir) = &r.artifacts {
            println!("  artifacts: {}", dir.display());
        }
    }
    if left_out > 0 {
        println!("\n{left_out} known deviation(s) failed as expected (xfail above); the report has each failure");
    }
}

/// Prints the feature files that did not parse, each with why.
pub fn print_parse_failures(failures: &[crate::report::ParseFailure]) {
    for failure in failures {
        let path = failure.path.as_deref().unwrap_or("a feature file");
        println!("\nDID NOT PARSE {path}");
        println!("  {}", failure.message.replace('\n', "\n  "));
        println!("  (`navguard validate {path}` says where)");
    }
}

/// Prints the scenarios that did not apply, each with why.
pub fn print_not_applicable(results: &[ScenarioResult]) {
    for r in results.iter().filter(|r| r.failure.is_none()) {
        if let Some(why) = &r.not_applicable {
            println!("\nNOT APPLICABLE {}:{}  {}\n  {why}", r.feature_path, r.line, r.scenario);
        }
    }
}

/// Prints the per-feature table: passed, failed and scenario time of each feature file.
pub fn print_per_feature(results: &[ScenarioResult]) {
    let mut by_feature: BTreeMap<&str, (Counts, Duration, &str)> = BTreeMap::new();
    for r in results {
        let entry = by_feature.entry(&r.feature_path).or_insert((Counts::default(), Duration::ZERO, &r.feature));
        match (&r.failure, &r.not_applicable) {
            (Some(_), _) => entry.0.failed += 1,
            (None, Some(_)) => entry.0.not_applicable += 1,
            (None, None) => entry.0.passed += 1,
        }
        entry.1 += r.duration;
    }
    println!("\nnavguard: per feature (passed, failed, scenario time)");
    for (path, (counts, time, name)) in &by_feature {
        let na = match counts.not_applicable {
            0 => String::new(),
            n => format!(", {n} not applicable"),
        };
        println!(
            "  {:>3} passed {:>3} failed {:>7.1} s  {path}  ({name}){na}",
            counts.passed,
            counts.failed,
            time.as_secs_f64()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_s_line_says_its_status_time_place_and_name() {
        let known = BTreeSet::from(["x.feature: known".to_owned()]);
        let at = |name: &str| ScenarioResult {
            line: 12,
            duration: Duration::from_millis(1234),
            ..ScenarioResult::sample(name)
        };
        let failed = |name: &str| ScenarioResult { failure: Some("why".into()), ..at(name) };
        assert_eq!(line(&at("fine"), &known), "ok       1.2 s  features/x.feature:12  fine");
        assert_eq!(line(&failed("broken"), &known), "FAIL     1.2 s  features/x.feature:12  broken");
        assert_eq!(line(&failed("known"), &known), "xfail    1.2 s  features/x.feature:12  known");
        let skipped = ScenarioResult { not_applicable: Some("no tool".into()), ..at("skipped") };
        assert_eq!(line(&skipped, &known), "n/a      1.2 s  features/x.feature:12  skipped");
    }
}
