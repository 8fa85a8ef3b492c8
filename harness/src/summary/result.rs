//! What each scenario's run left: its result, the calls of the agent under test it made, how
//! its task ended, and the counts over a run.

use crate::report::{Gherkin, StepRecord, StepStatus};
use crate::timeline::Timeline;
use std::path::PathBuf;
use std::time::Duration;

/// One scenario's run, as the reports, the gate and compare read it.
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
