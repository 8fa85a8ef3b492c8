//! What each scenario did, collected from cucumber's events by a writer teed beside the
//! terminal writer: its gherkin (feature, rule, backgrounds, tags, descriptions), its hooks and
//! each step's outcome. The HTML report's step lists, the summary's first failing step, and the
//! JUnit and Cucumber JSON reports come from here.

use cucumber::event::{self, Cucumber, Feature, HookType, Rule, Scenario, Step};
use cucumber::{Event, cli, gherkin, parser};
use std::collections::HashMap;
use std::path::PathBuf;
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
    /// Its data table's rows, cell by cell.
    pub table: Option<Vec<Vec<String>>>,
    /// Its doc string.
    pub doc_string: Option<String>,
    /// Which of the scenario's backgrounds ([`Gherkin::backgrounds`]) it belongs to; `None` for
    /// the scenario's own steps.
    pub background: Option<usize>,
    /// Where the step definition that ran it is (`file:line`).
    pub definition: Option<String>,
    pub status: StepStatus,
    pub took: Option<Duration>,
    /// Why it failed.
    pub error: Option<String>,
}

impl StepRecord {
    fn new(step: &gherkin::Step, background: Option<usize>) -> Self {
        Self {
            keyword: step.keyword.trim().to_owned(),
            text: step.value.clone(),
            line: step.position.line,
            argument: argument_of(step),
            table: step.table.as_ref().map(|t| t.rows.clone()),
            doc_string: step.docstring.as_ref().map(|d| d.trim_matches('\n').to_owned()),
            background,
            definition: None,
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

/// A tag as written (`@name`), where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagAt {
    pub name: String,
    pub line: usize,
    pub column: usize,
}

/// A feature, as the reports need it.
#[derive(Clone, Debug)]
pub struct FeatureMeta {
    /// Its path as [`feature_key`] gives it.
    pub uri: String,
    pub keyword: String,
    pub name: String,
    pub description: String,
    pub line: usize,
    pub tags: Vec<TagAt>,
}

/// A `Background:` (the feature's, or its rule's).
#[derive(Clone, Debug)]
pub struct BackgroundMeta {
    pub keyword: String,
    pub name: String,
    pub description: String,
    pub line: usize,
}

/// A `Rule:`.
#[derive(Clone, Debug)]
pub struct RuleMeta {
    pub keyword: String,
    pub name: String,
    pub line: usize,
    /// Its tags (`@name`).
    pub tags: Vec<String>,
}

/// A before or after hook's run.
#[derive(Clone, Debug)]
pub struct HookRecord {
    pub after: bool,
    /// Passed or Failed.
    pub status: StepStatus,
    pub took: Option<Duration>,
    pub error: Option<String>,
}

/// A scenario's gherkin and what happened around its steps.
#[derive(Clone, Debug)]
pub struct Gherkin {
    pub feature: Arc<FeatureMeta>,
    pub rule: Option<RuleMeta>,
    /// The feature's background, then the rule's.
    pub backgrounds: Vec<BackgroundMeta>,
    pub keyword: String,
    pub name: String,
    pub description: String,
    pub line: usize,
    /// The scenario's own tags (`@name`).
    pub tags: Vec<String>,
    pub hooks: Vec<HookRecord>,
    pub started: Option<SystemTime>,
    pub finished: Option<SystemTime>,
}

impl Gherkin {
    /// The scenario's name, its rule's before it: `<rule> / <scenario>`.
    pub fn full_name(&self) -> String {
        match &self.rule {
            Some(rule) if !rule.name.is_empty() => format!("{} / {}", rule.name, self.name),
            _ => self.name.clone(),
        }
    }

    /// How long it ran, from its start to its end (hooks included).
    pub fn took(&self) -> Option<Duration> {
        self.finished?.duration_since(self.started?).ok()
    }
}

/// A feature file that did not parse (or whose examples did not expand).
#[derive(Clone, Debug)]
pub struct ParseFailure {
    pub path: Option<String>,
    pub message: String,
}

/// Where each tag of `tags` is, read from the lines above `line` of the feature file's
/// `source` (tags, comments and blank lines); a tag not found there is put on the line above.
pub fn tag_positions(source: &str, line: usize, tags: &[String]) -> Vec<TagAt> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found: Vec<TagAt> = Vec::new();
    for n in (1..line).rev() {
        let text = lines.get(n - 1).copied().unwrap_or_default();
        let trimmed = text.trim();
        if trimmed.starts_with('#') || trimmed.is_empty() {
            continue;
        }
        if !trimmed.starts_with('@') {
            break;
        }
        let mut at = 0;
        for token in text.split_whitespace() {
            let offset = text[at..].find(token).map_or(at, |i| at + i);
            at = offset + token.len();
            if token.starts_with('#') {
                break;
            }
            let column = text[..offset].chars().count() + 1;
            found.extend(token.split('@').filter(|t| !t.is_empty()).scan(column, |col, t| {
                let tag = TagAt { name: format!("@{t}"), line: n, column: *col };
                *col += t.chars().count() + 1;
                Some(tag)
            }));
        }
    }
    tags.iter()
        .map(|tag| {
            let name = format!("@{tag}");
            match found.iter().position(|t| t.name == name) {
                Some(i) => found.remove(i),
                None => TagAt { name, line: line.saturating_sub(1).max(1), column: 1 },
            }
        })
        .collect()
}

/// A scenario's key: its feature's path (or name) and its line.
pub(super) type ScenarioKey = (String, usize);

/// The feature's key part: its path (relative to the working folder when it is inside it, as
/// people type it), else its name.
pub fn feature_key(feature: &gherkin::Feature) -> String {
    match &feature.path {
        Some(path) => as_typed(path),
        None => feature.name.clone(),
    }
}

/// A path relative to the working folder when it is inside it, as people type it.
pub fn as_typed(path: &std::path::Path) -> String {
    let here = std::env::current_dir().ok();
    let relative = here.as_deref().and_then(|here| path.strip_prefix(here).ok());
    relative.unwrap_or(path).display().to_string()
}

fn description(text: &Option<String>) -> String {
    text.as_deref().map(str::trim).unwrap_or_default().to_owned()
}

fn background_meta(background: &gherkin::Background) -> BackgroundMeta {
    BackgroundMeta {
        keyword: background.keyword.trim().to_owned(),
        name: background.name.clone(),
        description: description(&background.description),
        line: background.position.line,
    }
}

#[derive(Debug, Default)]
struct Logged {
    scenarios: HashMap<ScenarioKey, (Gherkin, Vec<StepRecord>)>,
    parse_failures: Vec<ParseFailure>,
}

/// The steps of every scenario run so far, shared with the run.
#[derive(Clone, Debug, Default)]
pub struct StepLog(Arc<Mutex<Logged>>);

impl StepLog {
    fn lock(&self) -> std::sync::MutexGuard<'_, Logged> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A scenario's steps (empty if it never started).
    pub fn steps(&self, key: &ScenarioKey) -> Vec<StepRecord> {
        self.lock().scenarios.get(key).map(|(_, steps)| steps.clone()).unwrap_or_default()
    }

    /// A scenario's gherkin, hooks and times (`None` if it never started).
    pub fn gherkin(&self, key: &ScenarioKey) -> Option<Gherkin> {
        self.lock().scenarios.get(key).map(|(gherkin, _)| gherkin.clone())
    }

    /// The feature files that did not parse.
    pub fn parse_failures(&self) -> Vec<ParseFailure> {
        self.lock().parse_failures.clone()
    }

    fn begin(&self, key: ScenarioKey, gherkin: Gherkin, steps: Vec<StepRecord>) {
        self.lock().scenarios.insert(key, (gherkin, steps));
    }

    fn change(&self, key: &ScenarioKey, change: impl FnOnce(&mut Gherkin)) {
        if let Some((gherkin, _)) = self.lock().scenarios.get_mut(key) {
            change(gherkin);
        }
    }

    fn update(&self, key: &ScenarioKey, line: usize, change: impl FnOnce(&mut StepRecord)) {
        let mut all = self.lock();
        if let Some(step) = all.scenarios.get_mut(key).and_then(|(_, steps)| steps.iter_mut().find(|s| s.line == line))
        {
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
    /// When each running hook began, by scenario.
    hook_started: HashMap<ScenarioKey, SystemTime>,
    /// Each feature's metadata, read once.
    features: HashMap<(Option<PathBuf>, String), Arc<FeatureMeta>>,
}

impl StepLogWriter {
    /// A writer filling `log`.
    pub fn new(log: StepLog) -> Self {
        Self { log, started: HashMap::new(), hook_started: HashMap::new(), features: HashMap::new() }
    }

    fn feature_meta(&mut self, feature: &gherkin::Feature) -> Arc<FeatureMeta> {
        let id = (feature.path.clone(), feature.name.clone());
        let meta = self.features.entry(id).or_insert_with(|| {
            let source = feature.path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default();
            Arc::new(FeatureMeta {
                uri: feature_key(feature),
                keyword: feature.keyword.trim().to_owned(),
                name: feature.name.clone(),
                description: description(&feature.description),
                line: feature.position.line,
                tags: tag_positions(&source, feature.position.line, &feature.tags),
            })
        });
        Arc::clone(meta)
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
                let backgrounds: Vec<&gherkin::Background> =
                    feature.background.iter().chain(rule.and_then(|r| r.background.as_ref())).collect();
                let steps = backgrounds
                    .iter()
                    .enumerate()
                    .flat_map(|(i, b)| b.steps.iter().map(move |s| StepRecord::new(s, Some(i))))
                    .chain(scenario.steps.iter().map(|s| StepRecord::new(s, None)))
                    .collect();
                let gherkin = Gherkin {
                    feature: self.feature_meta(feature),
                    rule: rule.map(|r| RuleMeta {
                        keyword: r.keyword.trim().to_owned(),
                        name: r.name.clone(),
                        line: r.position.line,
                        tags: r.tags.iter().map(|t| format!("@{t}")).collect(),
                    }),
                    backgrounds: backgrounds.into_iter().map(background_meta).collect(),
                    keyword: scenario.keyword.trim().to_owned(),
                    name: scenario.name.clone(),
                    description: description(&scenario.description),
                    line: scenario.position.line,
                    tags: scenario.tags.iter().map(|t| format!("@{t}")).collect(),
                    hooks: Vec::new(),
                    started: Some(at),
                    finished: None,
                };
                self.log.begin(key, gherkin, steps);
            }
            Scenario::Background(step, event) | Scenario::Step(step, event) => {
                self.on_step(key, step.position.line, event, at);
            }
            Scenario::Hook(kind, hook) => self.on_hook(key, kind, hook, at),
            Scenario::Finished => self.log.change(&key, |g| g.finished = Some(at)),
            Scenario::Log(_) => {}
        }
    }

    fn on_hook(&mut self, key: ScenarioKey, kind: HookType, hook: event::Hook<impl Sized>, at: SystemTime) {
        let (status, error) = match hook {
            event::Hook::Started => {
                self.hook_started.insert(key, at);
                return;
            }
            event::Hook::Passed => (StepStatus::Passed, None),
            event::Hook::Failed(_, info) => (StepStatus::Failed, Some(panic_text(&info))),
        };
        let took = self.hook_started.remove(&key).and_then(|s| at.duration_since(s).ok());
        let record = HookRecord { after: matches!(kind, HookType::After), status, took, error };
        self.log.change(&key, |g| g.hooks.push(record));
    }

    fn on_step(&mut self, key: ScenarioKey, line: usize, event: Step<impl Sized>, at: SystemTime) {
        let took = |started: Option<SystemTime>| started.and_then(|s| at.duration_since(s).ok());
        let place = |loc: Option<cucumber::step::Location>| loc.map(|l| format!("{}:{}", l.path, l.line));
        match event {
            Step::Started => {
                self.started.insert((key, line), at);
            }
            Step::Passed(_, loc) => {
                let took = took(self.started.remove(&(key.clone(), line)));
                self.log.update(&key, line, |s| {
                    (s.status, s.took, s.definition) = (StepStatus::Passed, took, place(loc));
                });
            }
            Step::Skipped => {
                self.started.remove(&(key.clone(), line));
                self.log.update(&key, line, |s| s.status = StepStatus::Skipped);
            }
            Step::Failed(_, loc, _, error) => {
                let took = took(self.started.remove(&(key.clone(), line)));
                let error = error_text(&error);
                self.log.update(&key, line, |s| {
                    (s.status, s.took, s.error, s.definition) = (StepStatus::Failed, took, Some(error), place(loc));
                });
            }
        }
    }
}

/// The feature file that did not parse, and why.
pub fn parse_failure(error: &parser::Error) -> ParseFailure {
    let path = match error {
        parser::Error::Parsing(e) => match e.as_ref() {
            gherkin::ParseFileError::Reading { path, .. } | gherkin::ParseFileError::Parsing { path, .. } => {
                Some(path.display().to_string())
            }
        },
        parser::Error::ExampleExpansion(e) => e.path.as_ref().map(|p| p.display().to_string()),
    };
    ParseFailure { path, message: error.to_string() }
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
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                self.log.lock().parse_failures.push(parse_failure(&error));
                return;
            }
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_found_on_their_own_lines_and_columns() {
        let source = "# a comment\n@browser @contract-x\n  @slow@draft # note\n\nFeature: f\n";
        let tags: Vec<String> = ["browser", "slow", "contract-x", "draft", "absent"].map(String::from).into();
        let at = |name: &str, line, column| TagAt { name: name.into(), line, column };
        assert_eq!(
            tag_positions(source, 5, &tags),
            [
                at("@browser", 2, 1),
                at("@slow", 3, 3),
                at("@contract-x", 2, 10),
                at("@draft", 3, 8),
                at("@absent", 4, 1)
            ]
        );
    }
}
