//! Runs feature files on a real browser: `--sessions N` browser sessions per run (all started by
//! the first scenario's hook), each scenario on its own tabs (a user context of the least loaded
//! session) and fixture site, nothing skipped counted as a pass,
//! reports (HTML, JUnit XML, Cucumber JSON) and failure artifacts under the report folder, and a
//! non-zero exit on any failure.

mod error;
mod filter;
mod finish;
mod hooks;
mod options;
mod preflight;
mod print_timeline;
mod teardown;

pub use error::StartError;
pub use filter::scenario_tests;
pub use options::{
    BrowserOptions, DEFAULT_CALL_TIMEOUT, DEFAULT_CONCURRENCY, DEFAULT_REPORT_DIR, FeaturesCli, Input, OptionError,
    RunOptions, at_least_one,
};

use crate::report::StepLogWriter;
use crate::run_context::{RunContext, RunMode, TerminalOutput};
use crate::summary::ScenarioResult;
use crate::world::NavWorld;
use cucumber::writer::Stats as _;
use cucumber::{World as _, WriterExt as _, cli, parser, runner, writer};
use filter::{Selection, StarBinding};
use navguard::adapter::check_local_binaries;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

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
    mode.call_timeout = Duration::from_secs(options.call_timeout);
    if let Err(e) = preflight::check_agent(&options, &mut mode).await {
        return RunOutcome::NotStarted(e);
    }
    if let Input::Path(path) = &input
        && !path.exists()
    {
        return RunOutcome::NotStarted(StartError::NoInput(path.clone()));
    }
    if let (None, Err(e)) = (&options.browser.webdriver_url, check_local_binaries(options.browser.browser)) {
        return RunOutcome::NotStarted(StartError::Binary(e));
    }
    if let Err(source) = finish::open_reports(&report_dir) {
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
    let mut browser = options::browser_config(&options.browser);
    browser.popup_pages = mode.agent.as_ref().is_some_and(|agent| agent.start.chromium_popup_pages);
    let run = RunContext::new(browser, options.sessions, report_dir, mode);
    let writer = NavWorld::cucumber::<PathBuf>()
        .with_parser(StarBinding::default())
        .max_concurrent_scenarios(DEFAULT_CONCURRENCY)
        .before(hooks::before_hook(Arc::clone(&run)))
        .after(hooks::after_hook(Arc::clone(&run)))
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
        biased;
        // A run that has finished is reported, even if Ctrl-C came as it ended.
        writer = writer => {
            if let Some(e) = run.launch_error() {
                // Every scenario failed alike on it (its output was dropped): the run did not
                // start, and measured nothing.
                return RunOutcome::NotStarted(StartError::Browser(e));
            }
            // A run that started no session (nothing matched) held its output until now.
            run.output.release();
            let results = run.finished();
            let verdict = finish::finish(&run, &writer, &results).await;
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
