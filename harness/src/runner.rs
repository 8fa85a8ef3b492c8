//! Runs feature files on a real browser: `--sessions N` browser sessions per run (all started by
//! the first scenario's hook), each scenario on its own tabs (a user context of the least loaded
//! session) and fixture site, nothing skipped counted as a pass,
//! reports (HTML, JUnit XML, Cucumber JSON) and failure artifacts under the report folder, and a
//! non-zero exit on any failure.

use crate::artifacts;
use crate::error::StartError;
use crate::report::{self, StepLogWriter};
use crate::run_context::{RunContext, RunMode, TerminalOutput};
use crate::summary::{self, ScenarioResult, TaskEnd};
use crate::timeline::{self, Timeline};
use crate::world::NavWorld;
use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::tag::Ext as _;
use cucumber::writer::Stats as _;
use cucumber::{World as _, WriterExt as _, cli, parser, runner, writer};
use futures::FutureExt as _;
use navguard::adapter::{BrowserConfig, BrowserKind, check_local_binaries};

use crate::agents::description::Description;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// How many scenarios run at once unless `--concurrency` says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// Where a run's reports go unless `--report-dir` says otherwise.
pub const DEFAULT_REPORT_DIR: &str = "target/navguard";

pub use crate::world::DEFAULT_CALL_TIMEOUT;

/// How long closing a scenario's tabs may take.
const TEARDOWN_DEADLINE: Duration = Duration::from_secs(10);

/// The browser a run drives: `navguard run`, `gate` and `repro` all take these.
#[derive(clap::Args, Clone, Debug)]
pub struct BrowserOptions {
    /// The browser: chromium or firefox.
    #[arg(long, env = "NAVGUARD_BROWSER", default_value = "chromium")]
    pub browser: BrowserKind,
    /// A running WebDriver remote end (another chromedriver, a Selenium Grid) to use instead of
    /// starting the browser's driver here.
    #[arg(long, env = "NAVGUARD_WEBDRIVER_URL", value_name = "url")]
    pub webdriver_url: Option<String>,
    /// Show the browser window (needs a display).
    #[arg(long)]
    pub headful: bool,
}

/// The runner's options, defined once: `navguard run` and `navguard gate` flatten them, and
/// `cargo test --test features -- <options>` parses them ([`FeaturesCli`]). Nothing is
/// retried: a flaky scenario shows as one.
#[derive(clap::Args, Clone, Debug)]
pub struct RunOptions {
    /// Only the scenarios whose name matches this regular expression.
    #[arg(long, short = 'n', value_name = "regex")]
    pub name: Option<regex::Regex>,
    /// Only the scenarios whose tags (with their feature's and rule's) match this expression,
    /// e.g. `@browser and not @slow`.
    #[arg(long, short = 't', value_name = "tagexpr")]
    pub tags: Option<TagOperation>,
    /// How many scenarios run at once (at least 1).
    #[arg(long, short = 'c', value_name = "n", default_value_t = DEFAULT_CONCURRENCY, value_parser = at_least_one::<usize>)]
    pub concurrency: usize,
    /// Stop after the first failed scenario; the rest do not run.
    #[arg(long)]
    pub fail_fast: bool,
    /// Spread the scenarios over this many browser sessions (here or on a Selenium Grid), each
    /// scenario still in a user context of its own (at least 1).
    #[arg(long, value_name = "n", default_value_t = 1, value_parser = at_least_one::<usize>)]
    pub sessions: usize,
    /// The agent under test of the conformance steps: a built-in agent (navguard,
    /// playwright-mcp, chrome-devtools-mcp) or the path of a description file (agents/*.toml).
    /// The built-in MCP agents run from their npm packages in $NAVGUARD_AGENTS_DIR, else in
    /// ./agents.
    #[arg(long, value_name = "name|path")]
    pub agent: Option<String>,
    /// How long one call of the agent under test may take, in seconds (at least 1); a call
    /// that does not answer in time fails its scenario.
    #[arg(long, value_name = "s", default_value_t = DEFAULT_CALL_TIMEOUT.as_secs(), value_parser = at_least_one::<u64>)]
    pub call_timeout: u64,
    /// Print every step of every scenario as it runs, and the progress of waits live. Without
    /// it: one line per scenario as it ends (status, time, file:line, name), then each failure
    /// in full and the summary; progress shows live only on a terminal.
    #[arg(long, short = 'v', env = "NAVGUARD_VERBOSE", value_parser = clap::builder::BoolishValueParser::new())]
    pub verbose: bool,
    #[command(flatten)]
    pub browser: BrowserOptions,
}

/// Parses a count that must be at least 1 (`--concurrency`, `--repeat`).
pub fn at_least_one<N>(text: &str) -> Result<N, OptionError>
where
    N: std::str::FromStr<Err = std::num::ParseIntError> + Default + PartialEq,
{
    match text.parse::<N>() {
        Ok(n) if n == N::default() => Err(OptionError::Zero),
        Ok(n) => Ok(n),
        Err(source) => Err(OptionError::NotANumber { text: text.to_owned(), source }),
    }
}

/// Why an option's value cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    #[error("0 would run nothing: give at least 1")]
    Zero,
    #[error("{text:?} is not a whole number")]
    NotANumber {
        text: String,
        #[source]
        source: std::num::ParseIntError,
    },
    #[error("{text:?} is neither an existing file or folder nor a glob: {source}")]
    BadGlob {
        text: String,
        #[source]
        source: <parser::basic::Walker as std::str::FromStr>::Err,
    },
}

/// The feature files a run reads: a file or a folder, or a glob of files.
#[derive(Clone, Debug)]
pub enum Input {
    Path(PathBuf),
    Glob(parser::basic::Walker),
}

impl Input {
    /// An existing file or folder is a path (as a glob, an absolute path would silently match
    /// nothing); anything else must be a glob.
    pub fn parse(text: &str) -> Result<Self, OptionError> {
        if Path::new(text).exists() {
            return Ok(Self::Path(PathBuf::from(text)));
        }
        text.parse().map(Self::Glob).map_err(|source| OptionError::BadGlob { text: text.to_owned(), source })
    }
}

/// `cargo test --test features -- <options>`: the runner's options, the input and the report
/// folder.
#[derive(clap::Parser, Clone, Debug)]
#[command(
    name = "features",
    bin_name = "cargo test --test features --",
    about = "Runs feature files (features/ unless --input says otherwise) on a real browser with navguard's steps."
)]
pub struct FeaturesCli {
    /// A feature file or folder, or a glob of feature files [default: features]
    #[arg(long, short = 'i', value_name = "path|glob", value_parser = Input::parse)]
    pub input: Option<Input>,
    /// Where the reports and the failure artifacts go [default: target/navguard; for one
    /// scenario named with --exact, as nextest runs each, a folder of its own under
    /// target/navguard/tests]
    #[arg(long, value_name = "dir")]
    pub report_dir: Option<PathBuf>,
    #[command(flatten)]
    pub options: RunOptions,
    #[command(flatten)]
    pub libtest: crate::libtest::LibtestArgs,
}

/// One run: what it reads, how, and where its reports go.
#[derive(Clone, Debug)]
pub struct RunRequest {
    pub input: Input,
    pub options: RunOptions,
    pub report_dir: PathBuf,
    pub mode: RunMode,
}

/// What cucumber is configured with, built from [`RunOptions`] (never parsed from arguments).
type Opts = cli::Opts<parser::basic::Cli, runner::basic::Cli, WriterCli, cli::Empty>;

/// The writers' options: the terminal's; the step-log writer has none.
type WriterCli = cli::Compose<writer::basic::Cli, cli::Empty>;

fn browser_config(options: &BrowserOptions) -> BrowserConfig {
    BrowserConfig {
        browser: options.browser,
        webdriver_url: options.webdriver_url.clone(),
        headless: !options.headful,
        // A failed scenario's artifacts hold the BiDi events behind it (bidi.jsonl).
        record_wire: true,
        ..BrowserConfig::default()
    }
}

/// What a run ended with. A run that did not start measured nothing: it has no results.
#[derive(Debug)]
pub enum RunOutcome {
    /// Nothing ran: no browser, no report folder, no input.
    NotStarted(StartError),
    /// The scenarios ran (or none matched the input and filters).
    Ran(Ran),
    /// Ctrl-C; the browser was closed.
    Interrupted,
}

/// A run that started.
#[derive(Debug)]
pub struct Ran {
    pub verdict: RunVerdict,
    pub results: Vec<ScenarioResult>,
    /// Feature files that did not parse (their scenarios are in no result).
    pub parse_errors: usize,
    /// The agent under test's name and version as it gave them (`--agent`).
    pub agent_version: Option<String>,
}

/// How a run that started went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunVerdict {
    /// Every scenario passed and every feature parsed.
    Passed,
    /// A scenario failed, or a feature did not parse.
    Failed,
    /// No scenario ran: the input holds no feature, or the filters matched nothing.
    NothingRan,
}

impl RunOutcome {
    /// The exit code the README promises: 0 all passed; 1 a failure, a parse error or nothing
    /// ran; 2 the run could not start; 130 interrupted.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Ran(Ran { verdict: RunVerdict::Passed, .. }) => ExitCode::SUCCESS,
            Self::Ran(_) => ExitCode::FAILURE,
            Self::NotStarted(_) => ExitCode::from(2),
            Self::Interrupted => ExitCode::from(130),
        }
    }

    /// The results of a run that started; none otherwise.
    pub fn results(&self) -> &[ScenarioResult] {
        match self {
            Self::Ran(ran) => &ran.results,
            Self::NotStarted(_) | Self::Interrupted => &[],
        }
    }
}

/// The agent `--agent` names, if it can drive `browser`.
fn agent_for(name_or_path: &str, browser: BrowserKind) -> Result<Arc<Description>, StartError> {
    let description = Description::find(name_or_path)?;
    if !description.drives(browser.name()) {
        return Err(crate::agents::AgentError::Browser {
            agent: description.name.clone(),
            browser: browser.name().to_owned(),
            supported: description.browsers.join(", "),
        }
        .into());
    }
    Ok(Arc::new(description))
}

/// Starts the agent once before the run ([`crate::agents::preflight`]).
async fn preflight(agent: Arc<Description>) -> Result<crate::agents::preflight::Ready, StartError> {
    let chromium =
        BrowserKind::Chromium.binary().map(|p| p.display().to_string()).unwrap_or_else(|_| "chromium".into());
    Ok(crate::agents::preflight::check(agent, &chromium).await?)
}

/// Runs the features and prints the summary, or one line saying why the run could not start.
/// Exits as [`RunOutcome::exit_code`] says.
pub async fn run_features(request: RunRequest) -> ExitCode {
    let outcome = run_features_with(request).await;
    if let RunOutcome::NotStarted(e) = &outcome {
        eprintln!("navguard: {e}");
    }
    outcome.exit_code()
}

/// Runs the features as `request` says. Why a run could not start is the caller's to print.
pub async fn run_features_with(request: RunRequest) -> RunOutcome {
    let RunRequest { input, options, report_dir, mut mode } = request;
    if options.verbose {
        mode.output = TerminalOutput::Steps;
    }
    match options.agent.as_deref().map(|a| agent_for(a, options.browser.browser)).transpose() {
        Ok(agent) => mode.agent = agent.or(mode.agent),
        Err(e) => return RunOutcome::NotStarted(e),
    }
    mode.call_timeout = Duration::from_secs(options.call_timeout);
    if let Some(agent) = &mode.agent {
        match preflight(Arc::clone(agent)).await {
            Ok(ready) => {
                if !ready.lacking.is_empty() {
                    let lacking: Vec<&str> = ready.lacking.iter().map(|t| t.name()).collect();
                    println!(
                        "navguard: {} has no {}: the scenarios calling them are not applicable to it",
                        agent.name,
                        lacking.join(", ")
                    );
                }
                mode.agent_version = Some(ready.version).filter(|v| !v.is_empty());
            }
            Err(e) => return RunOutcome::NotStarted(e),
        }
    }
    if let Input::Path(path) = &input
        && !path.exists()
    {
        return RunOutcome::NotStarted(StartError::NoInput(path.clone()));
    }
    if let (None, Err(e)) = (&options.browser.webdriver_url, check_local_binaries(options.browser.browser)) {
        return RunOutcome::NotStarted(StartError::Binary(e));
    }
    if let Err(source) = open_reports(&report_dir) {
        return RunOutcome::NotStarted(StartError::Reports { dir: report_dir, source });
    }
    let selection = Selection::of(&options, &mode);
    let (path, features) = match input {
        Input::Path(path) => (path, None),
        Input::Glob(glob) => (PathBuf::new(), Some(glob)),
    };
    let cli: Opts = cli::Opts {
        re_filter: None,
        tags_filter: None,
        parser: parser::basic::Cli { features },
        runner: runner::basic::Cli {
            concurrency: Some(options.concurrency),
            fail_fast: options.fail_fast,
            ..Default::default()
        },
        writer: Default::default(),
        custom: cli::Empty,
    };
    let run = RunContext::new(browser_config(&options.browser), options.sessions, report_dir, mode);
    let writer = NavWorld::cucumber::<PathBuf>()
        .with_parser(StarBinding::default())
        .max_concurrent_scenarios(DEFAULT_CONCURRENCY)
        .before(before_hook(Arc::clone(&run)))
        .after(after_hook(Arc::clone(&run)))
        .with_writer(
            writer::Basic::raw(run.output.steps(run.mode.output == TerminalOutput::Steps), writer::Coloring::Auto, 0)
                .summarized()
                .tee::<NavWorld, _>(
                    StepLogWriter::new(run.steps.clone()).discard_stats_writes().discard_arbitrary_writes(),
                )
                .normalized(),
        )
        .fail_on_skipped()
        .with_cli(cli)
        .filter_run(path, move |feature, rule, scenario| selection.admits(feature, rule, scenario));
    tokio::select! {
        writer = writer => {
            if let Some(e) = run.launch_error() {
                // Every scenario failed alike on it (its output was dropped): the run did not
                // start, and measured nothing.
                return RunOutcome::NotStarted(StartError::Browser(e));
            }
            // A run that started no session (nothing matched) held its output until now.
            run.output.release();
            let results = run.finished();
            let verdict = finish(&run, &writer, &results).await;
            let agent_version = run.mode.agent_version.clone();
            RunOutcome::Ran(Ran { verdict, results, parse_errors: writer.parsing_errors(), agent_version })
        }
        _ = tokio::signal::ctrl_c() => {
            // Leave no browser behind.
            eprintln!("navguard: interrupted; closing the browser");
            run.shutdown().await;
            RunOutcome::Interrupted
        }
    }
}

/// Which scenarios of the input a run runs: `--name`, `--tags`, the gate's shard, repro's line
/// and libtest's filter all narrow them.
#[derive(Clone, Debug)]
struct Selection {
    name: Option<regex::Regex>,
    tags: Option<TagOperation>,
    shard: Option<crate::gate::Shard>,
    line: Option<usize>,
    tests: Option<crate::libtest::TestFilter>,
}

impl Selection {
    fn of(options: &RunOptions, mode: &RunMode) -> Self {
        Self {
            name: options.name.clone(),
            tags: options.tags.clone(),
            shard: mode.shard,
            line: mode.line,
            tests: mode.tests.clone(),
        }
    }

    fn admits(
        &self,
        feature: &cucumber::gherkin::Feature,
        rule: Option<&cucumber::gherkin::Rule>,
        scenario: &cucumber::gherkin::Scenario,
    ) -> bool {
        let tagged = || {
            let all = feature.tags.iter().chain(rule.iter().flat_map(|r| &r.tags)).chain(&scenario.tags);
            self.tags.as_ref().is_none_or(|t| t.eval(all))
        };
        let test = || {
            let name = crate::libtest::test_name(&report::feature_key(feature), scenario.position.line, &scenario.name);
            self.tests.as_ref().is_none_or(|tests| tests.admits(&name))
        };
        self.name.as_ref().is_none_or(|re| re.is_match(&scenario.name))
            && tagged()
            && self.shard.is_none_or(|shard| shard.contains(&scenario.name))
            && self.line.is_none_or(|line| scenario.position.line == line)
            && test()
    }
}

/// The test names (`cargo test -- --list`, [`crate::libtest`]) of the scenarios a run of
/// `input` with `options` would run, and of the feature files that do not parse (a run fails
/// on each), in the order the files are read. Reads the files only: no browser.
pub async fn scenario_tests(input: &Input, options: &RunOptions, mode: &RunMode) -> Vec<String> {
    use cucumber::Parser as _;
    use futures::StreamExt as _;
    let selection = Selection::of(options, mode);
    let (path, features) = match input {
        Input::Path(path) => (path.clone(), None),
        Input::Glob(glob) => (PathBuf::new(), Some(glob.clone())),
    };
    let parsed: Vec<Parsed> = StarBinding::default().parse(path, parser::basic::Cli { features }).collect().await;
    let mut tests = Vec::new();
    for feature in parsed {
        let feature = match feature {
            Ok(feature) => feature,
            Err(e) => {
                // Named by its file, as `--exact` finds it again: a run of it fails on the error.
                let failure = report::parse_failure(&e);
                let name = failure.path.map_or(failure.message, |p| report::as_typed(Path::new(&p)));
                if selection.tests.as_ref().is_none_or(|tests| tests.admits(&name)) {
                    tests.push(name);
                }
                continue;
            }
        };
        let key = report::feature_key(&feature);
        let scenarios = feature.scenarios.iter().map(|s| (None, s));
        let in_rules = feature.rules.iter().flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
        for (rule, scenario) in scenarios.chain(in_rules) {
            if selection.admits(&feature, rule, scenario) {
                tests.push(crate::libtest::test_name(&key, scenario.position.line, &scenario.name));
            }
        }
    }
    tests
}

/// cucumber's parser, with `*` steps bound as `navguard validate` binds them
/// ([`crate::validate::bind_star_steps`]): what validate accepts, the run runs.
#[derive(Clone, Debug, Default)]
struct StarBinding(parser::Basic);

type Parsed = parser::Result<cucumber::gherkin::Feature>;

impl<I: AsRef<Path>> cucumber::Parser<I> for StarBinding {
    type Cli = parser::basic::Cli;
    type Output = futures::stream::Map<<parser::Basic as cucumber::Parser<I>>::Output, fn(Parsed) -> Parsed>;

    fn parse(self, input: I, cli: Self::Cli) -> Self::Output {
        use futures::StreamExt as _;
        fn bind(parsed: Parsed) -> Parsed {
            parsed.map(|mut feature| {
                crate::validate::bind_star_steps(&mut feature);
                feature
            })
        }
        self.0.parse(input, cli).map(bind as fn(Parsed) -> Parsed)
    }
}

/// The report folder, and its JUnit XML and Cucumber JSON files (what CI systems and the
/// Cucumber tooling read; written when the run ends), emptied: a folder the run cannot write to
/// stops it before it starts.
fn open_reports(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::File::create(dir.join("junit.xml"))?;
    std::fs::File::create(dir.join("cucumber.json"))?;
    Ok(())
}

/// Writes `junit.xml` and `cucumber.json`; the gate's known deviations are skipped in JUnit.
fn write_machine_reports(run: &RunContext, results: &[ScenarioResult], title: &str) {
    let junit = report::render_junit(title, results, &run.steps.parse_failures(), &run.mode.expected);
    for (file, text) in [("junit.xml", junit), ("cucumber.json", report::render_cucumber_json(results))] {
        let path = run.report_dir.join(file);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("navguard: cannot write {}: {e}", path.display());
        }
    }
}

async fn finish(
    run: &RunContext,
    writer: &impl cucumber::writer::Stats<NavWorld>,
    results: &[ScenarioResult],
) -> RunVerdict {
    let output = run.mode.output;
    let steps_shown = output == TerminalOutput::Steps;
    // Cucumber's own output names the files that did not parse with the steps; else here.
    if !steps_shown {
        summary::print_parse_failures(&run.steps.parse_failures());
    }
    summary::print_failures(results, &run.mode.expected, steps_shown);
    summary::print_not_applicable(results);
    let counts = summary::Counts::of(results);
    let (passed, failed) = (counts.passed, counts.failed);
    let metrics = crate::gate::measure(results, &Default::default());
    // The gate prints the metrics of all its runs at its end, not each run's.
    let per_run = !matches!(output, TerminalOutput::Gate { .. });
    if per_run && !results.is_empty() {
        summary::print_per_feature(results);
        println!("metrics (this run; `navguard gate` judges them):\n{}", metrics.lines());
    }
    let parse_errors = writer.parsing_errors();
    let browsers = run.started_browsers();
    if let Some(browser) = browsers.first() {
        let starts: Vec<String> = browsers.iter().map(|b| b.start_time().as_millis().to_string()).collect();
        match run.session_count() {
            1 => println!("browser start: {} ms", starts.join(", ")),
            n => println!("browser start: {} ms ({n} sessions)", starts.join(", ")),
        }
        if !browser.unsupported_events().is_empty() {
            println!("the browser does not send: {}", browser.unsupported_events().join(", "));
        }
    }
    run.shutdown().await;
    let html = run.report_dir.join("report.html");
    let title = format!("navguard report ({})", run.browser_kind());
    if let Err(e) = std::fs::write(&html, report::render(results, &metrics, &run.report_dir, &title)) {
        eprintln!("navguard: cannot write {}: {e}", html.display());
    }
    write_machine_reports(run, results, &title);
    println!(
        "reports: {}, {} and {}",
        html.display(),
        run.report_dir.join("junit.xml").display(),
        run.report_dir.join("cucumber.json").display()
    );
    if parse_errors > 0 {
        println!("{parse_errors} feature file(s) did not parse");
    }
    // The plain closing line CI reads.
    match counts.not_applicable {
        0 => println!("features: {passed} passed, {} failed", failed + parse_errors),
        n => println!("features: {passed} passed, {} failed, {n} not applicable", failed + parse_errors),
    }
    if results.is_empty() && parse_errors == 0 {
        println!("navguard: no scenario ran: the input holds no feature file, or the filters matched nothing");
        return RunVerdict::NothingRan;
    }
    // Judged from the results, not from cucumber's failed steps: the step that found a
    // scenario not applicable failed it in cucumber's eyes.
    let clean = failed == 0 && parse_errors == 0 && writer.hook_errors() == 0;
    if clean { RunVerdict::Passed } else { RunVerdict::Failed }
}

type Hook<'a> = futures::future::LocalBoxFuture<'a, ()>;

fn before_hook(
    run: Arc<RunContext>,
) -> impl for<'a> Fn(
    &'a cucumber::gherkin::Feature,
    Option<&'a cucumber::gherkin::Rule>,
    &'a cucumber::gherkin::Scenario,
    &'a mut NavWorld,
) -> Hook<'a> {
    move |feature, _, scenario, world| {
        let run = Arc::clone(&run);
        async move {
            let name = format!("{}:{}  {}", report::feature_key(feature), scenario.position.line, scenario.name);
            world.progress = crate::progress::ScenarioSpan::new(&name, run.live_progress);
            // A panic here is how cucumber fails a scenario from its hook.
            if let Err(e) = world.setup(run).await {
                panic!("{e}");
            }
        }
        .boxed_local()
    }
}

fn after_hook(
    run: Arc<RunContext>,
) -> impl for<'a> Fn(
    &'a cucumber::gherkin::Feature,
    Option<&'a cucumber::gherkin::Rule>,
    &'a cucumber::gherkin::Scenario,
    &'a cucumber::event::ScenarioFinished,
    Option<&'a mut NavWorld>,
) -> Hook<'a> {
    move |feature, _, scenario, finished, world| {
        let run = Arc::clone(&run);
        async move {
            let mut failure = summary::failure_of(finished, scenario);
            let not_applicable = world.as_ref().and_then(|w| w.conformance.not_applicable.clone());
            if not_applicable.is_some() {
                failure = None;
            }
            let calls = world.as_ref().map(|w| summary::call_records(&w.conformance)).unwrap_or_default();
            let feature_path = report::feature_key(feature);
            let folder = run
                .report_dir
                .join("artifacts")
                .join(artifact_feature(&feature_path))
                .join(artifacts::folder_name(&scenario.name, scenario.position.line));
            let (duration, artifacts, race, task_end, guard_waits_ms, timeline) = match world {
                Some(world) => {
                    let timeline = timeline_of(world);
                    let race = run.mode.timeline.then(|| show_timeline(world, &timeline, &feature_path, scenario));
                    let (task_end, waits) = task_facts(world);
                    let (duration, artifacts) = teardown(world, failure.is_some(), folder).await;
                    (duration, artifacts, race, task_end, waits, timeline)
                }
                None => (Duration::ZERO, None, None, None, Vec::new(), Timeline::default()),
            };
            run.record(ScenarioResult {
                feature_path,
                feature: feature.name.clone(),
                scenario: scenario.name.clone(),
                line: scenario.position.line,
                failure,
                not_applicable,
                calls,
                duration,
                artifacts,
                race,
                expects: summary::expects_of(&scenario.steps),
                task_end,
                guard_waits_ms,
                timeline,
                steps: Vec::new(),
                gherkin: None,
            });
        }
        .boxed_local()
    }
}

/// How the agent's task ended and how long its guards waited.
fn task_facts(world: &NavWorld) -> (Option<TaskEnd>, Vec<u64>) {
    use navguard::agent::GuardDecision;
    let end = world.agent.stop.as_ref().map(|stop| TaskEnd::of(stop, &world.agent.task.trace));
    let waits = world
        .agent
        .task
        .trace
        .guards()
        .filter(|(_, d, _)| matches!(d, GuardDecision::Settled { .. }))
        .map(|(_, _, ms)| ms)
        .collect();
    (end, waits)
}

/// The scenario's timeline: its agent's trace and its browser events.
fn timeline_of(world: &NavWorld) -> Timeline {
    let events = world.port().map(|p| p.events()).unwrap_or_default();
    timeline::build(&world.agent.task.trace, &events)
}

/// Prints the scenario's timeline and its race verdict; returns the verdict.
fn show_timeline(
    world: &NavWorld,
    timeline: &Timeline,
    feature_path: &str,
    scenario: &cucumber::gherkin::Scenario,
) -> String {
    println!("\n── {feature_path}:{}  {}", scenario.position.line, scenario.name);
    println!("{}", timeline::render(timeline));
    let verdict = match timeline::race_reproduced(&world.agent.task.trace) {
        Some(how) => format!("race reproduced: {how}, with no guard waiting for the navigation"),
        None => match &world.agent.stop {
            Some(stop) => format!("race not reproduced: the task ended with {:?}", stop.message()),
            None => "race not reproduced: the agent did not run".to_owned(),
        },
    };
    println!("{verdict}");
    verdict
}

fn artifact_feature(path: &str) -> String {
    Path::new(path).file_stem().map_or_else(|| "feature".into(), |s| s.to_string_lossy().into_owned())
}

/// Keeps the artifacts of a failed scenario, then closes its tabs and its site.
async fn teardown(world: &mut NavWorld, failed: bool, folder: PathBuf) -> (Duration, Option<PathBuf>) {
    // A task a failed scenario left running in the background must not outlive it.
    if let Some(background) = world.agent.background.take() {
        background.stop(TEARDOWN_DEADLINE).await;
    }
    let tab = world.current_tab().ok();
    let Some(env) = world.take_env() else { return (Duration::ZERO, None) };
    let duration = env.started.elapsed();
    let kept = match failed {
        true => artifacts::write(&env, tab, Some(&world.agent.task.trace), folder).await.ok(),
        false => None,
    };
    // What the agent under test was asked and answered, word for word: where its failure shows.
    if let Some(dir) = &kept
        && let Some(calls) = world.conformance.transcript()
    {
        let _ = std::fs::write(dir.join("calls.json"), calls);
    }
    for port in std::mem::take(&mut world.agent.conversation.extra_ports) {
        let _ = tokio::time::timeout(TEARDOWN_DEADLINE, env.browser.close_port(&port)).await;
    }
    world.conformance.close().await;
    let _ = tokio::time::timeout(TEARDOWN_DEADLINE, env.browser.close_port(&env.user_context)).await;
    if env.session.is_none() {
        env.browser.shutdown().await;
    }
    env.site.shutdown().await;
    (duration, kept)
}
