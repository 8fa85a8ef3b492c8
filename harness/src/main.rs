//! `navguard`: run feature files on a real browser, or serve the fixture site.

use clap::{Parser, Subcommand};
use navguard::adapter::BrowserKind;
use navguard_harness::Switch;
use navguard_harness::builtin::{self, Source};
use navguard_harness::fixtures::FixtureSite;
use navguard_harness::gate::Shard;
use navguard_harness::run_context::{RunMode, TerminalOutput};
use navguard_harness::runner::{
    BrowserOptions, DEFAULT_REPORT_DIR, Input, RunOptions, RunOutcome, RunRequest, at_least_one, run_features_with,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "navguard", version, about = "A browser agent's navigation guards, proven on a real browser")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run feature files (a file or a folder) with the harness's steps, on a real browser.
    Run {
        /// A .feature file or a folder of them [default: ./features; with --agent,
        /// ./features/agents, else the built-in agent-neutral scenarios, written under the
        /// report folder]
        path: Option<PathBuf>,
        /// Where the reports and the failure artifacts go (relative to the current folder).
        #[arg(long, value_name = "dir", default_value = DEFAULT_REPORT_DIR)]
        report_dir: PathBuf,
        #[command(flatten)]
        options: RunOptions,
    },
    /// Run one scenario (`<feature file>:<line>`), print its timeline (model, agent and browser
    /// lanes) and say in one line whether the race reproduced.
    Repro {
        /// `<feature file>:<line>` of the scenario (or of an outline's example row).
        target: String,
        /// Run it this many times (at least 1).
        #[arg(long, value_name = "n", default_value_t = 1, value_parser = at_least_one::<u32>)]
        repeat: u32,
        #[command(flatten)]
        browser: BrowserOptions,
        /// `off` switches both guards off, whatever the scenario says, to see the original race.
        #[arg(long, default_value = "on")]
        guards: Switch,
        /// Where reports go (one folder per run; relative to the current folder).
        #[arg(long, value_name = "dir", default_value = "target/navguard/repro")]
        report_dir: PathBuf,
    },
    /// The release gate: run the suite (repeated, sharded, filtered by name or tags),
    /// measure pass, flake, false-stop and misjudgement rates and the p50/p95 of scenario time
    /// and guard wait, and fail on a missed threshold or an unexpected result.
    ///
    /// Its files are looked for in the current folder, laid out as navguard's repository lays
    /// them out (features/, gate/); navguard carries its own thresholds, the browsers' and the
    /// built-in agents' known failures and the agent-neutral scenarios, and uses them where the
    /// folder has none.
    Gate {
        /// A .feature file or a folder of them [default: ./features; with --agent,
        /// ./features/agents, else the built-in agent-neutral scenarios, written under the
        /// report folder]
        path: Option<PathBuf>,
        /// Run the suite this many times, at least 1 (a flake is a scenario that both passed and
        /// failed).
        #[arg(long, value_name = "n", default_value_t = 1, value_parser = at_least_one::<u32>)]
        repeat: u32,
        /// Only shard `i/n` (1-based), by a stable hash of the scenario name.
        #[arg(long)]
        shard: Option<Shard>,
        /// The thresholds file [default: ./gate/thresholds.txt, else the built-in one]
        #[arg(long, value_name = "file")]
        thresholds: Option<PathBuf>,
        /// The browser's expectations file (known deviations) [default:
        /// ./gate/expectations/<browser>.txt, else the built-in one]. With --agent, the agent's
        /// known failures are read from ./gate/expectations/agent-<name>.txt as well (else a
        /// built-in agent's own), each with its reason.
        #[arg(long, value_name = "file")]
        expectations: Option<PathBuf>,
        /// Where reports go, relative to the current folder (default
        /// `target/navguard/gate/<browser>`, or `target/navguard/gate/agent-<name>-<browser>`
        /// with --agent; one folder per repeat).
        #[arg(long, value_name = "dir")]
        report_dir: Option<PathBuf>,
        #[command(flatten)]
        options: RunOptions,
    },
    /// The same scenarios against several agents, one after the other, on this machine and
    /// browser: writes `index.html` and `compare.md` (per scenario and agent: passed, failed
    /// with its first failing step, or not applicable; per agent its version and totals; each
    /// call's time with its ratio to navguard's).
    Compare {
        /// A .feature file or a folder of them [default: ./features/agents, else the built-in
        /// agent-neutral scenarios, written under the report folder]
        path: Option<PathBuf>,
        /// The agents, comma-separated: built-in names or description files.
        #[arg(long, value_name = "a,b,…", value_delimiter = ',', required = true)]
        agents: Vec<String>,
        /// Where the report goes (each agent's own run in a folder of its name; relative to
        /// the current folder).
        #[arg(long, value_name = "dir", default_value = "target/navguard/compare")]
        report_dir: PathBuf,
        #[command(flatten)]
        options: RunOptions,
    },
    /// Serve the fixture site on two loopback origins until Ctrl-C; prints both origins.
    ServeFixtures,
    /// Renders a task's audit (`DIR/audit/<taskId>.jsonl`) as one self-contained page: each
    /// step, its risk and confirmation, its screenshots inline.
    Replay {
        /// The audit file.
        audit: PathBuf,
        /// The page to write.
        #[arg(short = 'o', long = "output", value_name = "file", default_value = "replay.html")]
        output: PathBuf,
    },
    /// The orchestrator (docs/design/orchestrator.md): tasks, actions and confirmations over HTTP on loopback,
    /// kept in SQLite under --data-dir; the bearer secret comes from NAVGUARD_SECRET (at least
    /// 16 characters). Its first line: `navguard serve: listening on http://127.0.0.1:<port>`.
    Serve {
        /// Where the store and the audit live; a restart on the same folder loses nothing that
        /// was answered.
        #[arg(long, value_name = "dir")]
        data_dir: PathBuf,
        /// Where to listen: a loopback address only.
        #[arg(long, value_name = "addr", default_value = "127.0.0.1:0")]
        addr: std::net::SocketAddr,
        /// An OpenAI-compatible API (plain http: a local model server, e.g.
        /// http://127.0.0.1:11434/v1) whose model plans the tasks started without a plan; its
        /// key, if it needs one, comes from NAVGUARD_MODEL_KEY.
        #[arg(long, value_name = "url", requires = "model")]
        model_url: Option<String>,
        /// The model's name at --model-url.
        #[arg(long, value_name = "name", requires = "model_url")]
        model: Option<String>,
        /// The words that make a click high-risk when a control's accessible name says one,
        /// comma-separated; they replace the default list (buy, order, pay, purchase, delete,
        /// remove, send, publish, post, checkout, transfer).
        #[arg(long, value_name = "words", value_delimiter = ',')]
        risk_words: Option<Vec<String>>,
    },
    /// The executor (docs/design/orchestrator.md), beside its browser: launches the browser, asks the orchestrator
    /// at --server for actions, runs each task on its own tabs through the agent core's tools
    /// and guards, and reports what it saw with before/after screenshots. A journal under
    /// --data-dir keeps it from running an action twice across restarts; `{secret:NAME}` in an
    /// action is typed from --secrets (a dotenv file) and never reported. The secret comes from
    /// NAVGUARD_SECRET. Its first line: `navguard executor: <browser> ready; polling <server>`.
    Executor {
        /// The orchestrator's URL (loopback), as `navguard serve` printed it.
        #[arg(long, value_name = "url")]
        server: String,
        /// Where the journal lives.
        #[arg(long, value_name = "dir", default_value = "navguard-executor")]
        data_dir: PathBuf,
        /// A dotenv file of the values `{secret:NAME}` stands for.
        #[arg(long, value_name = "file")]
        secrets: Option<PathBuf>,
        /// The words that make a click high-risk when a control's accessible name says one,
        /// comma-separated; they replace the default list (buy, order, pay, purchase, delete,
        /// remove, send, publish, post, checkout, transfer).
        #[arg(long, value_name = "words", value_delimiter = ',')]
        risk_words: Option<Vec<String>>,
        #[command(flatten)]
        browser: BrowserOptions,
    },
    /// Check feature files without a browser: every feature parses (as the official Gherkin
    /// parser reads it), every step is defined exactly once, and, with a contracts file, every
    /// contract has a scenario and every scenario proves a known contract.
    Validate {
        /// A .feature file or a folder of them [default: ./features]
        path: Option<PathBuf>,
        /// The same as PATH.
        #[arg(long, value_name = "path", conflicts_with = "path")]
        features: Option<PathBuf>,
        /// The contracts file [default: <folder>/contracts.txt when the folder has one; else
        /// contracts are not checked]
        #[arg(long, value_name = "file")]
        contracts: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    navguard_harness::init_tracing();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("navguard: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Run { path, report_dir, options } => {
            let path = match suite("run", path, || default_suite(options.agent.is_some(), &report_dir)) {
                Ok(path) => path,
                Err(code) => return code,
            };
            let request = RunRequest { input: Input::Path(path), options, report_dir, mode: RunMode::default() };
            runtime.block_on(navguard_harness::run_features(request))
        }
        Command::Repro { target, repeat, browser, guards, report_dir } => {
            let how = ReproRun { repeat, browser, guards_off: guards == Switch::Off };
            runtime.block_on(repro(&target, how, &report_dir))
        }
        Command::Gate { path, repeat, shard, thresholds, expectations, report_dir, options } => {
            let browser = options.browser.browser;
            let agent = match options.agent.as_deref().map(agent_that_can_start) {
                Some(Err(e)) => {
                    eprintln!("navguard gate: {e}");
                    return ExitCode::from(2);
                }
                Some(Ok(name)) => Some(name),
                None => None,
            };
            let report_dir = report_dir.unwrap_or_else(|| match &agent {
                Some(a) => PathBuf::from(format!("target/navguard/gate/agent-{a}-{browser}")),
                None => PathBuf::from(format!("target/navguard/gate/{browser}")),
            });
            let path = match suite("gate", path, || default_suite(agent.is_some(), &report_dir)) {
                Ok(path) => path,
                Err(code) => return code,
            };
            let files = GateFiles::find(thresholds, expectations, agent.as_deref(), browser, report_dir);
            runtime.block_on(gate(path, repeat, shard, files, options))
        }
        Command::Compare { path, agents, report_dir, options } => {
            if options.agent.is_some() {
                eprintln!("navguard compare: give the agents with --agents, not --agent");
                return ExitCode::from(2);
            }
            let features = match suite("compare", path, || agent_scenarios(&report_dir)) {
                Ok(path) => path,
                Err(code) => return code,
            };
            let request = navguard_harness::compare::CompareRequest { features, agents, report_dir, options };
            runtime.block_on(navguard_harness::compare::compare(request))
        }
        Command::ServeFixtures => runtime.block_on(serve_fixtures()),
        Command::Replay { audit, output } => match navguard_harness::replay::replay(&audit, &output) {
            Ok(n) => {
                println!("navguard replay: {n} events of {} in {}", audit.display(), output.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("navguard replay: {e}");
                ExitCode::from(2)
            }
        },
        Command::Serve { data_dir, addr, model_url, model, risk_words } => {
            let secret = std::env::var("NAVGUARD_SECRET").ok().filter(|s| !s.is_empty());
            let model = model_url.zip(model).map(|(base, model)| {
                use navguard_orchestrator::planner::HttpModel;
                let key = std::env::var("NAVGUARD_MODEL_KEY").ok().filter(|k| !k.is_empty());
                HttpModel::new(base, model, key, HttpModel::DEADLINE)
            });
            let risk = risk_policy(risk_words);
            let config = navguard_orchestrator::ServeConfig { data_dir, addr, secret, model, risk };
            match runtime.block_on(navguard_orchestrator::serve(config)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("navguard serve: {e}");
                    ExitCode::from(if e.is_usage() { 2 } else { 1 })
                }
            }
        }
        Command::Executor { server, data_dir, secrets, risk_words, browser } => {
            let secret = std::env::var("NAVGUARD_SECRET").ok().filter(|s| !s.is_empty());
            let config = navguard_orchestrator::executor::ExecutorConfig {
                server,
                browser: browser.browser,
                webdriver_url: browser.webdriver_url,
                headless: !browser.headful,
                data_dir,
                secrets,
                secret,
                risk: risk_policy(risk_words),
            };
            match runtime.block_on(navguard_orchestrator::executor::run(config)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("navguard executor: {e}");
                    ExitCode::from(if e.is_usage() { 2 } else { 1 })
                }
            }
        }
        Command::Validate { path, features, contracts } => match path.or(features) {
            Some(path) => validate(&path, contracts.as_deref()),
            None if Path::new(FEATURES).exists() => validate(Path::new(FEATURES), contracts.as_deref()),
            None => {
                eprintln!("navguard validate: {}", SuiteError::NoFeatures);
                ExitCode::from(2)
            }
        },
    }
}

/// The folder of feature files `validate` and `gate` read when given none.
const FEATURES: &str = "features";

/// Why the feature files a command reads by default cannot be had.
#[derive(Debug, thiserror::Error)]
enum SuiteError {
    #[error("no ./features here: give a .feature file or a folder of them")]
    NoFeatures,
    /// `gate` with neither a path nor an agent, where there is no `./features`.
    #[error(
        "no ./features here: give a .feature file or a folder of them, or an agent (--agent) to run the \
         built-in agent-neutral scenarios"
    )]
    NoSuite,
    #[error(transparent)]
    Scenarios(#[from] navguard_harness::builtin::ScenariosError),
}

/// The name of the agent `--agent` names, if it can be started: one that cannot (a bad
/// description, a built-in one whose npm package is not installed) is said at once, before any
/// file is looked for or written.
fn agent_that_can_start(name_or_path: &str) -> Result<String, navguard_harness::agents::AgentError> {
    let description = navguard_harness::agents::description::Description::find(name_or_path)?;
    description.check_installed()?;
    Ok(description.name)
}

/// The features a command runs: the path it was given, else `default` (which may write the
/// built-in scenarios out); when there are none, one line naming the command, and exit 2.
fn suite(
    command: &str,
    given: Option<PathBuf>,
    default: impl FnOnce() -> Result<PathBuf, SuiteError>,
) -> Result<PathBuf, ExitCode> {
    given.map_or_else(default, Ok).map_err(|e| {
        eprintln!("navguard {command}: {e}");
        ExitCode::from(2)
    })
}

/// What `run` and `gate` run when given no path: `./features`, or with an agent the agent-neutral
/// scenarios ([`agent_scenarios`]).
fn default_suite(agent: bool, report_dir: &Path) -> Result<PathBuf, SuiteError> {
    if agent {
        return agent_scenarios(report_dir);
    }
    if Path::new(FEATURES).exists() { Ok(PathBuf::from(FEATURES)) } else { Err(SuiteError::NoSuite) }
}

/// `./features/agents`, else the built-in agent-neutral scenarios written under `report_dir`
/// (and says so).
fn agent_scenarios(report_dir: &Path) -> Result<PathBuf, SuiteError> {
    let scenarios = navguard_harness::builtin::agent_scenarios(report_dir)?;
    if scenarios.built_in {
        println!(
            "navguard: no ./features/agents here: running the built-in agent-neutral scenarios, written to {}",
            scenarios.path.display()
        );
    }
    Ok(scenarios.path)
}

/// `--risk-words`, or the default list.
fn risk_policy(words: Option<Vec<String>>) -> navguard_orchestrator::risk::RiskPolicy {
    words.map(navguard_orchestrator::risk::RiskPolicy::with_words).unwrap_or_default()
}

fn validate(path: &std::path::Path, contracts: Option<&std::path::Path>) -> ExitCode {
    use navguard_harness::validate::{ValidateError, contracts_for, validate};
    let contracts = contracts_for(path, contracts);
    let findings = match validate(path, contracts.as_deref()) {
        Ok(findings) => findings,
        Err(e) => {
            eprintln!("navguard validate: {e}");
            // A path that does not exist is a bad argument (2); a folder with no feature has
            // nothing to check (1).
            return ExitCode::from(if matches!(e, ValidateError::NoSuchPath(_)) { 2 } else { 1 });
        }
    };
    for problem in &findings.problems {
        println!("{problem}");
    }
    let verdict = if findings.problems.is_empty() { "valid" } else { "INVALID" };
    let contracts = match &findings.contracts_file {
        Some(_) => format!("{} contracts, ", findings.contracts),
        None => String::new(),
    };
    println!(
        "navguard validate: {verdict}: {contracts}{} scenarios, {} problems ({} feature files)",
        findings.scenarios,
        findings.problems.len(),
        findings.files
    );
    if findings.contracts_file.is_none() {
        println!("(no contracts file: {} has no contracts.txt and --contracts was not given)", path.display());
    }
    if findings.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Splits `path:line`.
fn parse_target(target: &str) -> Option<(PathBuf, usize)> {
    let (path, line) = target.rsplit_once(':')?;
    Some((PathBuf::from(path), line.parse().ok().filter(|l| *l > 0)?))
}

/// How `navguard repro` runs its scenario.
struct ReproRun {
    repeat: u32,
    browser: BrowserOptions,
    guards_off: bool,
}

async fn repro(target: &str, how: ReproRun, report_dir: &std::path::Path) -> ExitCode {
    let ReproRun { repeat, browser, guards_off } = how;
    let Some((path, line)) = parse_target(target) else {
        eprintln!("navguard: {target:?} is not <feature file>:<line>");
        return ExitCode::from(2);
    };
    if !path.is_file() {
        eprintln!("navguard: no such feature file: {}", path.display());
        return ExitCode::from(2);
    }
    let mut verdicts = Vec::new();
    // One scenario, one at a time: the timeline is read as it runs.
    let options = RunOptions {
        name: None,
        tags: None,
        concurrency: 1,
        fail_fast: false,
        sessions: 1,
        agent: None,
        call_timeout: navguard_harness::runner::DEFAULT_CALL_TIMEOUT.as_secs(),
        // Its steps and the progress of its waits, with the timeline they lead to.
        verbose: true,
        browser,
    };
    for run in 1..=repeat {
        // Each run keeps its own reports: the run that reproduced stays readable.
        let request = RunRequest {
            input: Input::Path(path.clone()),
            options: options.clone(),
            report_dir: report_dir.join(format!("run-{run}")),
            mode: RunMode { line: Some(line), guards_off, timeline: true, ..Default::default() },
        };
        let ran = match run_features_with(request).await {
            RunOutcome::Ran(ran) => ran,
            RunOutcome::NotStarted(e) => {
                eprintln!("navguard repro: {e}");
                return ExitCode::from(2);
            }
            interrupted @ RunOutcome::Interrupted => return interrupted.exit_code(),
        };
        if ran.parse_errors > 0 {
            eprintln!(
                "navguard repro: {} does not parse (`navguard validate {}` says where)",
                path.display(),
                path.display()
            );
            return ExitCode::FAILURE;
        }
        if ran.results.is_empty() {
            eprintln!("navguard: no scenario at {target} (give the line of a Scenario or of an example row)");
            return ExitCode::from(2);
        }
        verdicts.extend(ran.results.into_iter().filter_map(|r| r.race.map(|v| (run, v))));
    }
    let reproduced = verdicts.iter().filter(|(_, v)| v.starts_with("race reproduced")).count();
    let guards = if guards_off { "guards off" } else { "guards on" };
    println!("\nhtml reports: {}", report_dir.join("run-<n>/report.html").display());
    println!("navguard repro {target} ({guards}): the race reproduced in {reproduced} of {} runs", verdicts.len());
    ExitCode::SUCCESS
}

/// The files the gate judges by.
struct GateFiles {
    thresholds: Source,
    expectations: Source,
    /// The agent's known failures (`--agent`), each with its reason.
    agent_expectations: Option<AgentKnownFailures>,
    report_dir: PathBuf,
}

/// Where an agent's known failures are looked for, and what was found there.
struct AgentKnownFailures {
    path: String,
    /// `None`: neither the current folder nor navguard has a file for it.
    found: Option<Source>,
}

impl GateFiles {
    /// Each file as given, else in the current folder, else built in ([`Source::find`]); says
    /// which built-in ones it takes, so that a run outside a repository laid out like
    /// navguard's is judged by files it can name.
    fn find(
        thresholds: Option<PathBuf>,
        expectations: Option<PathBuf>,
        agent: Option<&str>,
        browser: BrowserKind,
        report_dir: PathBuf,
    ) -> Self {
        let thresholds =
            Source::find(thresholds, builtin::THRESHOLDS.path).unwrap_or(Source::BuiltIn(builtin::THRESHOLDS));
        let path = format!("gate/expectations/{browser}.txt");
        // Every browser has its file built in; were one missing, reading the path names it.
        let expectations = Source::find(expectations, &path).unwrap_or_else(|| Source::Disk(PathBuf::from(path)));
        let agent_expectations = agent.map(|a| {
            let path = format!("gate/expectations/agent-{a}.txt");
            AgentKnownFailures { found: Source::find(None, &path), path }
        });
        let built_in: Vec<String> =
            [Some(&thresholds), Some(&expectations), agent_expectations.as_ref().and_then(|a| a.found.as_ref())]
                .into_iter()
                .flatten()
                .filter_map(|s| match s {
                    Source::BuiltIn(b) => Some(b.path.to_owned()),
                    Source::Disk(_) => None,
                })
                .collect();
        if !built_in.is_empty() {
            println!(
                "navguard gate: judged by navguard's built-in {} (none in ./gate here; --thresholds and --expectations give others)",
                built_in.join(", ")
            );
        }
        Self { thresholds, expectations, agent_expectations, report_dir }
    }
}

/// The known failures the gate judges by: the browser's, and the agent's when one is named (an
/// agent with no file has none, and it says so).
fn known_failures(
    files: &GateFiles,
) -> Result<std::collections::BTreeSet<String>, navguard_harness::gate::GateFileError> {
    use navguard_harness::gate::{read_expectations, read_known_failures};
    let mut known = read_expectations(&files.expectations)?;
    if let Some(agent) = &files.agent_expectations {
        match &agent.found {
            Some(file) => known.extend(read_known_failures(file, true)?.into_keys()),
            None => println!("navguard gate: no {}: the agent has no known failures", agent.path),
        }
    }
    Ok(known)
}

async fn gate(path: PathBuf, repeat: u32, shard: Option<Shard>, files: GateFiles, options: RunOptions) -> ExitCode {
    let browser = options.browser.browser;
    use navguard_harness::gate::{judge, measure, read_thresholds};
    let loaded = read_thresholds(&files.thresholds).and_then(|t| Ok((t, known_failures(&files)?)));
    let (thresholds, expected) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("navguard gate: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut runs, mut parse_errors) = (Vec::new(), 0);
    for run in 1..=repeat {
        // A line per scenario in the first run; the repeats list only what did not pass, so the
        // log stays readable (the report has every run).
        let output = TerminalOutput::Gate { passes: run == 1 };
        if run > 1 && !options.verbose {
            println!("\ngate: run {run} of {repeat} (listing only the scenarios that do not pass)");
        }
        let request = RunRequest {
            input: Input::Path(path.clone()),
            options: options.clone(),
            report_dir: files.report_dir.join(format!("run-{run}")),
            mode: RunMode { shard, expected: expected.clone(), output, ..Default::default() },
        };
        match run_features_with(request).await {
            RunOutcome::Ran(ran) => {
                parse_errors += ran.parse_errors;
                runs.push((run, ran.results));
            }
            // Nothing ran, so there is nothing to measure: no rates, no report.
            RunOutcome::NotStarted(e) => {
                eprintln!("navguard gate: run {run} could not start: {e}");
                return ExitCode::from(2);
            }
            interrupted @ RunOutcome::Interrupted => return interrupted.exit_code(),
        }
    }
    if runs.iter().all(|(_, results)| results.is_empty()) {
        println!("\ngate: FAILED: no scenario ran (the input holds no feature file, or the filters matched nothing)");
        return ExitCode::FAILURE;
    }
    let results: Vec<&navguard_harness::summary::ScenarioResult> = runs.iter().flat_map(|(_, r)| r).collect();
    let metrics = measure(results.iter().copied(), &expected);
    let judgement = judge(&metrics, &thresholds);
    print_gate(browser, &metrics, &judgement.verdicts, repeat);
    let index = files.report_dir.join("index.html");
    match std::fs::write(&index, navguard_harness::report::render_gate(browser.name(), &metrics, &judgement, &runs)) {
        Ok(()) => println!("gate report: {}", index.display()),
        Err(e) => eprintln!("navguard gate: cannot write {}: {e}", index.display()),
    }
    if parse_errors > 0 {
        println!("gate: FAILED ({parse_errors} feature file(s) did not parse)");
    } else if !judgement.passed {
        let missed: Vec<&str> = judgement.missed().into_iter().map(navguard_harness::gate::Threshold::name).collect();
        let unexpected = metrics.unexpected_failures.len();
        println!(
            "gate: FAILED ({} missed thresholds: {}; {unexpected} unexpected failures)",
            missed.len(),
            missed.join(", ")
        );
    } else {
        println!("gate: PASSED");
    }
    // The plain closing line CI reads.
    let passed_runs = results.iter().filter(|r| r.passed()).count();
    let failed_runs = results.iter().filter(|r| r.failure.is_some()).count();
    match metrics.known_failed_runs {
        0 => println!("gate: {passed_runs} passed, {failed_runs} failed"),
        n => println!("gate: {passed_runs} passed, {failed_runs} failed ({n} of them known deviations)"),
    }
    if judgement.passed && parse_errors == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn print_gate(
    browser: BrowserKind,
    m: &navguard_harness::gate::Metrics,
    verdicts: &[navguard_harness::gate::Verdict],
    repeat: u32,
) {
    println!("\nnavguard gate: {browser}, {repeat} repeat(s), {} scenarios, {} runs", m.scenarios, m.runs);
    println!("{}", m.lines());
    for v in verdicts {
        let (name, value, limit) = (v.threshold.name(), v.measured, v.limit);
        println!("  {name:<24} {value:>10.3}  limit {limit:>10.3}  {}", if v.held { "ok" } else { "MISSED" });
    }
    for (label, list) in [
        ("flaky", &m.flaky),
        ("known deviation with mixed results", &m.flaky_known),
        ("unexpected failure", &m.unexpected_failures),
        ("expected failure now passing", &m.now_passing),
        ("not applicable (neither passed nor failed)", &m.not_applicable),
    ] {
        list.iter().for_each(|k| println!("  {label}: {k}"));
    }
}

async fn serve_fixtures() -> ExitCode {
    let site = match FixtureSite::start().await {
        Ok(site) => site,
        Err(e) => {
            eprintln!("navguard: cannot start the fixture site: {e}");
            return ExitCode::from(2);
        }
    };
    println!("site:  {}", site.site);
    println!("other: {}", site.other);
    println!("try {}/page?title=Hello — Ctrl-C stops", site.site);
    let _ = tokio::signal::ctrl_c().await;
    site.shutdown().await;
    ExitCode::SUCCESS
}
