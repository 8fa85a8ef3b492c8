//! Runs feature files on a real browser: one browser per run (started by the first scenario's
//! hook), each scenario on its own tabs and fixture site, nothing skipped counted as a pass,
//! reports (HTML, JUnit XML, Cucumber JSON) and failure artifacts under the report folder, and a
//! non-zero exit on any failure.

use crate::artifacts;
use crate::report::{self, StepLogWriter};
use crate::run_context::{RunContext, RunMode};
use crate::summary::{self, ScenarioResult, TaskEnd};
use crate::timeline::{self, Timeline};
use crate::world::NavWorld;
use cucumber::{World as _, WriterExt as _, cli, parser, runner, writer};
use futures::FutureExt as _;
use navguard::adapter::{BrowserConfig, BrowserKind, check_local_binaries};

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// How many scenarios run at once unless `--concurrency` says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// How long closing a scenario's tabs may take.
const TEARDOWN_DEADLINE: Duration = Duration::from_secs(10);

/// The harness's own options, beside cucumber's (`--name`, `--tags`, `--input`,
/// `--concurrency`, …).
#[derive(clap::Args, Clone, Debug)]
pub struct HarnessCli {
    /// The browser: chromium or firefox.
    #[arg(long, env = "NAVGUARD_BROWSER", default_value = "chromium", global = true)]
    pub browser: BrowserKind,
    /// A running WebDriver remote end (another chromedriver, a Selenium Grid) to use instead of
    /// starting chromedriver here.
    #[arg(long, env = "NAVGUARD_WEBDRIVER_URL", global = true)]
    pub webdriver_url: Option<String>,
    /// Show the browser window (needs a display).
    #[arg(long, global = true)]
    pub headful: bool,
    /// Where the JUnit report and the failure artifacts go.
    #[arg(long, default_value = "target/navguard", global = true)]
    pub report_dir: PathBuf,
}

pub type Opts = cli::Opts<parser::basic::Cli, runner::basic::Cli, WriterCli, HarnessCli>;

/// The writers' options: the terminal's; the step-log writer has none.
type WriterCli = cli::Compose<writer::basic::Cli, cli::Empty>;

/// Parses the runner's arguments (`args[0]` is the program name). An `--input` naming an
/// existing file or folder becomes the input path (cucumber's own `--input` is a glob that
/// silently matches nothing for an absolute path); a glob is left to cucumber.
pub fn parse_args(args: Vec<String>, default_input: PathBuf) -> Result<(PathBuf, Opts), clap::Error> {
    let mut input = default_input;
    let mut rest = Vec::with_capacity(args.len());
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--input" | "-i" => args.next(),
            _ => arg.strip_prefix("--input=").map(str::to_owned),
        };
        match value {
            Some(v) if Path::new(&v).exists() => input = PathBuf::from(v),
            Some(v) => rest.extend(["--input".to_owned(), v]),
            None => rest.push(arg),
        }
    }
    use clap::Parser as _;
    Ok((input, Opts::try_parse_from(rest)?))
}

fn browser_config(cli: &HarnessCli) -> BrowserConfig {
    BrowserConfig {
        browser: cli.browser,
        webdriver_url: cli.webdriver_url.clone(),
        headless: !cli.headful,
        ..BrowserConfig::default()
    }
}

/// What a run ended with.
#[derive(Debug)]
pub struct RunOutcome {
    /// 0 only if every scenario passed and every feature parsed.
    pub exit: ExitCode,
    pub results: Vec<ScenarioResult>,
}

/// Runs the features at `input` (a file or a folder; `--input` overrides) and prints the
/// summary. Exits 0 only if every scenario passed and every feature parsed.
pub async fn run_features(input: PathBuf, opts: Opts) -> ExitCode {
    run_features_with(input, opts, RunMode::default()).await.exit
}

/// [`run_features`], narrowed and shown as `mode` says.
pub async fn run_features_with(input: PathBuf, opts: Opts, mode: RunMode) -> RunOutcome {
    let fail = |code: u8| RunOutcome { exit: ExitCode::from(code), results: Vec::new() };
    let harness = opts.custom.clone();
    if let (None, Err(e)) = (&harness.webdriver_url, check_local_binaries(harness.browser)) {
        eprintln!("navguard: {e}");
        return fail(2);
    }
    if let Err(e) = open_reports(&harness.report_dir) {
        eprintln!("navguard: cannot write reports to {}: {e}", harness.report_dir.display());
        return fail(2);
    }
    let (only_line, shard) = (mode.line, mode.shard);
    let run = RunContext::new(browser_config(&harness), harness.report_dir.clone(), mode);
    let writer = NavWorld::cucumber()
        .max_concurrent_scenarios(DEFAULT_CONCURRENCY)
        .before(before_hook(Arc::clone(&run)))
        .after(after_hook(Arc::clone(&run)))
        .with_writer(
            writer::Basic::raw(std::io::stdout(), writer::Coloring::Auto, 0)
                .summarized()
                .tee::<NavWorld, _>(
                    StepLogWriter::new(run.steps.clone()).discard_stats_writes().discard_arbitrary_writes(),
                )
                .normalized(),
        )
        .fail_on_skipped()
        .with_cli(opts)
        .filter_run(input, move |_, _, scenario| {
            let in_shard = shard.is_none_or(|shard| shard.contains(&scenario.name));
            in_shard && only_line.is_none_or(|line| scenario.position.line == line)
        });
    tokio::select! {
        writer = writer => {
            let results = run.finished();
            let exit = finish(&run, &writer, &results).await;
            RunOutcome { exit, results }
        }
        _ = tokio::signal::ctrl_c() => {
            // Leave no browser behind.
            eprintln!("navguard: interrupted; closing the browser");
            if let Some(browser) = run.started_browser() {
                browser.shutdown().await;
            }
            fail(130)
        }
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
) -> ExitCode {
    let (passed, failed) = summary::print(results);
    let metrics = crate::gate::measure(results, &Default::default());
    if !results.is_empty() {
        println!("metrics (this run; `navguard gate` judges them):\n{}", metrics.lines());
    }
    let parse_errors = writer.parsing_errors();
    if let Some(browser) = run.started_browser() {
        println!("browser start: {} ms", browser.start_time().as_millis());
        if !browser.unsupported_events().is_empty() {
            println!("the browser does not send: {}", browser.unsupported_events().join(", "));
        }
        browser.shutdown().await;
    }
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
    println!("features: {passed} passed, {} failed", failed + parse_errors);
    if results.is_empty() && parse_errors == 0 {
        println!("navguard: no scenario ran: the input holds no feature file, or the filters matched nothing");
        return ExitCode::FAILURE;
    }
    let clean = !writer.execution_has_failed() && failed == 0 && parse_errors == 0 && writer.hook_errors() == 0;
    if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE }
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
    move |_, _, _, world| {
        let run = Arc::clone(&run);
        async move {
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
            let failure = summary::failure_of(finished, scenario);
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
    let end = world.agent.stop.as_ref().map(TaskEnd::of);
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
    let tab = world.current_tab().ok();
    let Some(env) = world.take_env() else { return (Duration::ZERO, None) };
    let duration = env.started.elapsed();
    let kept = match failed {
        true => artifacts::write(&env, tab, Some(&world.agent.task.trace), folder).await.ok(),
        false => None,
    };
    for port in std::mem::take(&mut world.agent.conversation.extra_ports) {
        let _ = tokio::time::timeout(TEARDOWN_DEADLINE, env.browser.close_port(&port)).await;
    }
    let _ = tokio::time::timeout(TEARDOWN_DEADLINE, env.browser.close_port(&env.user_context)).await;
    env.site.shutdown().await;
    (duration, kept)
}
