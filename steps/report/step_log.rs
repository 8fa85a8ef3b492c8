//! What each step of each scenario did, collected from cucumber's events by a writer teed
//! beside the terminal, JUnit and JSON writers: the HTML report's step lists and the summary's
//! first failing step come from here.

use cucumber::event::{self, Cucumber, Feature, Rule, Scenario, Step};
use cucumber::{Event, cli, gherkin, parser};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

navguard::closed_set! {
    /// How a step ended, in the words the HTML report shows.
    pub enum StepStatus("step status") {
        Passed = "passed",
        Failed = "failed",
        /// No step definition matched it.
        Skipped = "skipped",
        /// An earlier step failed, so it never ran.
        NotRun = "not run",
    }
}

/// One step of a scenario (background steps first).
#[derive(Clone, Debug)]
pub struct StepRecord {
    /// `Given`, `When`, …
    pub keyword: String,
    pub text: String,
    /// Its line in the feature file.
    pub line: usize,
    /// Its doc string or table, as written.
    pub argument: Option<String>,
    pub status: StepStatus,
    pub took: Option<Duration>,
    /// Why it failed.
    pub error: Option<String>,
}

impl StepRecord {
    fn new(step: &gherkin::Step) -> Self {
        Self {
            keyword: step.keyword.trim().to_owned(),
            text: step.value.clone(),
            line: step.position.line,
            argument: argument_of(step),
            status: StepStatus::NotRun,
            took: None,
            error: None,
        }
    }
}

fn argument_of(step: &gherkin::Step) -> Option<String> {
    if let Some(doc) = &step.docstring {
        return Some(doc.trim_matches('\n').to_owned());
    }
    let table = step.table.as_ref()?;
    Some(table.rows.iter().map(|row| format!("| {} |", row.join(" | "))).collect::<Vec<_>>().join("\n"))
}

/// A scenario's key: its feature's path (or name) and its line.
pub(super) type ScenarioKey = (String, usize);

/// The feature's key part: its path (relative to the working folder when it is inside it, as
/// people type it), else its name.
pub fn feature_key(feature: &gherkin::Feature) -> String {
    let Some(path) = &feature.path else { return feature.name.clone() };
    let here = std::env::current_dir().ok();
    let relative = here.as_deref().and_then(|here| path.strip_prefix(here).ok());
    relative.unwrap_or(path).display().to_string()
}

/// The steps of every scenario run so far, shared with the run.
#[derive(Clone, Debug, Default)]
pub struct StepLog(Arc<Mutex<HashMap<ScenarioKey, Vec<StepRecord>>>>);

impl StepLog {
    /// A scenario's steps (empty if it never started).
    pub fn steps(&self, key: &ScenarioKey) -> Vec<StepRecord> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(key).cloned().unwrap_or_default()
    }

    fn begin(&self, key: ScenarioKey, steps: Vec<StepRecord>) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key, steps);
    }

    fn update(&self, key: &ScenarioKey, line: usize, change: impl FnOnce(&mut StepRecord)) {
        let mut all = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(step) = all.get_mut(key).and_then(|steps| steps.iter_mut().find(|s| s.line == line)) {
            change(step);
        }
    }
}

/// The cucumber writer that fills a [`StepLog`].
#[derive(Debug)]
pub struct StepLogWriter {
    log: StepLog,
    /// When each running step began, by scenario and line.
    started: HashMap<(ScenarioKey, usize), SystemTime>,
}

impl StepLogWriter {
    /// A writer filling `log`.
    pub fn new(log: StepLog) -> Self {
        Self { log, started: HashMap::new() }
    }

    fn on_scenario(
        &mut self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
        event: Scenario<impl Sized>,
        at: SystemTime,
    ) {
        let key = (feature_key(feature), scenario.position.line);
        match event {
            Scenario::Started => {
                let background = feature.background.iter().chain(rule.and_then(|r| r.background.as_ref()));
                let steps = background.flat_map(|b| b.steps.iter()).chain(&scenario.steps);
                self.log.begin(key, steps.map(StepRecord::new).collect());
            }
            Scenario::Background(step, event) | Scenario::Step(step, event) => {
                self.on_step(key, step.position.line, event, at);
            }
            Scenario::Hook(..) | Scenario::Log(_) | Scenario::Finished => {}
        }
    }

    fn on_step(&mut self, key: ScenarioKey, line: usize, event: Step<impl Sized>, at: SystemTime) {
        let took = |started: Option<SystemTime>| started.and_then(|s| at.duration_since(s).ok());
        match event {
            Step::Started => {
                self.started.insert((key, line), at);
            }
            Step::Passed(..) => {
                let took = took(self.started.remove(&(key.clone(), line)));
                self.log.update(&key, line, |s| (s.status, s.took) = (StepStatus::Passed, took));
            }
            Step::Skipped => {
                self.started.remove(&(key.clone(), line));
                self.log.update(&key, line, |s| s.status = StepStatus::Skipped);
            }
            Step::Failed(_, _, _, error) => {
                let took = took(self.started.remove(&(key.clone(), line)));
                let error = error_text(&error);
                self.log.update(&key, line, |s| (s.status, s.took, s.error) = (StepStatus::Failed, took, Some(error)));
            }
        }
    }
}

/// A step's error without cucumber's wrapping ("Step panicked. Captured output: …").
pub fn error_text(error: &event::StepError) -> String {
    match error {
        event::StepError::Panic(info) => panic_text(info),
        other => other.to_string(),
    }
}

/// What a panic said (steps and hooks fail by panicking with their error's text).
pub fn panic_text(info: &event::Info) -> String {
    info.downcast_ref::<String>()
        .cloned()
        .or_else(|| info.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a panic".into())
}

impl<W: cucumber::World> cucumber::Writer<W> for StepLogWriter {
    type Cli = cli::Empty;

    async fn handle_event(&mut self, event: parser::Result<Event<Cucumber<W>>>, _: &Self::Cli) {
        let Ok(event) = event else { return };
        let at = event.at;
        match event.value {
            Cucumber::Feature(f, Feature::Scenario(sc, ev)) => self.on_scenario(&f, None, &sc, ev.event, at),
            Cucumber::Feature(f, Feature::Rule(r, Rule::Scenario(sc, ev))) => {
                self.on_scenario(&f, Some(&r), &sc, ev.event, at);
            }
            _ => {}
        }
    }
}

impl cucumber::writer::NonTransforming for StepLogWriter {}
