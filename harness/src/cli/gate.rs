//! `navguard gate`: the suite run `--repeat` times, measured, judged against the thresholds
//! with the known failures, printed, and its page written.

use super::suite::{agent_that_can_start, default_suite, suite};
use crate::gate::{self, GateFiles, Shard, read_thresholds};
use crate::libtest::TestFilter;
use crate::run_context::{RunMode, TerminalOutput};
use crate::runner::{Input, RunOptions, RunOutcome, RunRequest, at_least_one, run_features_with};
use crate::summary::ScenarioResult;
use navguard::adapter::BrowserKind;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// What `navguard gate` is given.
#[derive(clap::Args, Debug)]
pub struct GateArgs {
    /// A .feature file or a folder of them [default: ./features; with --agent,
    /// ./features/agents, else the built-in agent-neutral scenarios, written under the
    /// report folder]
    pub path: Option<PathBuf>,
    /// Run the suite this many times, at least 1 (a flake is a scenario that both passed and
    /// failed).
    #[arg(long, value_name = "n", default_value_t = 1, value_parser = at_least_one::<u32>)]
    pub repeat: u32,
    /// Run each scenario that failed, and is not a known deviation, again up to this many
    /// times: one that then passes is flaky (and fails the gate, as any flake does), one that
    /// fails every time failed. CI's gate runs once with `--rerun 2`.
    #[arg(long, value_name = "n", default_value_t = 0)]
    pub rerun: u32,
    /// Only shard `i/n` (1-based), by a stable hash of the scenario name.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// The thresholds file [default: ./gate/thresholds.txt, else the built-in one]
    #[arg(long, value_name = "file")]
    pub thresholds: Option<PathBuf>,
    /// The browser's expectations file (known deviations) [default:
    /// ./gate/expectations/<browser>.txt, else the built-in one]. With --agent, the agent's
    /// known failures are read from ./gate/expectations/agent-<name>.txt as well (else a
    /// built-in agent's own), each with its reason.
    #[arg(long, value_name = "file")]
    pub expectations: Option<PathBuf>,
    /// Where reports go, relative to the current folder (default
    /// `target/navguard/gate/<browser>`, or `target/navguard/gate/agent-<name>-<browser>`
    /// with --agent; one folder per repeat).
    #[arg(long, value_name = "dir")]
    pub report_dir: Option<PathBuf>,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Finds the suite and the files, runs and judges. Exits 0 passed, 1 failed, 2 when it could
/// not start (a bad agent, no suite, an unreadable gate file, a run that did not start), 130
/// on Ctrl-C.
pub async fn gate(args: GateArgs) -> ExitCode {
    let GateArgs { path, repeat, rerun, shard, thresholds, expectations, report_dir, options } = args;
    let browser = options.browser.browser;
    let agent = match options.agent.as_deref().map(agent_that_can_start).transpose() {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("navguard gate: {e}");
            return ExitCode::from(2);
        }
    };
    let report_dir = report_dir.unwrap_or_else(|| default_report_dir(agent.as_deref(), browser));
    let path = match suite("gate", path, || default_suite(agent.is_some(), &report_dir)) {
        Ok(path) => path,
        Err(code) => return code,
    };
    let files = GateFiles::find(thresholds, expectations, agent.as_deref(), browser);
    if let Some(note) = files.built_in_note() {
        println!("{note}");
    }
    for note in files.recorded_on_notes(&super::compare::browser_version(&options).await) {
        println!("{note}");
    }
    let how = GateRun { path, repeat, rerun, shard, options };
    judge_runs(how, &files, &report_dir).await
}

/// Where the gate's reports go unless `--report-dir` says: a folder per browser, and per agent.
pub fn default_report_dir(agent: Option<&str>, browser: BrowserKind) -> PathBuf {
    match agent {
        Some(a) => PathBuf::from(format!("target/navguard/gate/agent-{a}-{browser}")),
        None => PathBuf::from(format!("target/navguard/gate/{browser}")),
    }
}

/// What the gate runs, and how often.
struct GateRun {
    path: PathBuf,
    repeat: u32,
    rerun: u32,
    shard: Option<Shard>,
    options: RunOptions,
}

/// Runs the suite, then measures, judges, prints and writes the gate's page.
async fn judge_runs(how: GateRun, files: &GateFiles, report_dir: &Path) -> ExitCode {
    let GateRun { path, repeat, rerun, shard, options } = how;
    let browser = options.browser.browser;
    let loaded = read_thresholds(&files.thresholds).and_then(|t| Ok((t, files.known_failures()?)));
    let (thresholds, expected) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("navguard gate: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(note) = files.no_agent_file_note() {
        println!("{note}");
    }
    let (mut runs, mut parse_errors) = (Vec::new(), 0);
    let request = |run: u32, output: TerminalOutput, tests: Option<TestFilter>| RunRequest {
        input: Input::Path(path.clone()),
        options: options.clone(),
        report_dir: report_dir.join(format!("run-{run}")),
        mode: RunMode { shard, expected: expected.clone(), output, tests, ..Default::default() },
    };
    for run in 1..=repeat {
        // A line per scenario in the first run; the repeats list only what did not pass, so the
        // log stays readable (the report has every run).
        let output = TerminalOutput::Gate { passes: run == 1 };
        if run > 1 && !options.verbose {
            println!("\ngate: run {run} of {repeat} (listing only the scenarios that do not pass)");
        }
        match run_one(request(run, output, None), run, &mut runs, &mut parse_errors).await {
            Ok(()) => {}
            Err(code) => return code,
        }
    }
    for attempt in 1..=rerun {
        let failing = still_failing(&runs, &expected);
        if failing.is_empty() {
            break;
        }
        let run = repeat + attempt;
        println!(
            "\ngate: running again the {} scenario(s) that failed in every run so far (re-run {attempt} of {rerun}): \
             one that passes now is flaky",
            failing.len()
        );
        let output = TerminalOutput::Gate { passes: true };
        match run_one(request(run, output, Some(TestFilter::exact(failing))), run, &mut runs, &mut parse_errors).await {
            Ok(()) => {}
            Err(code) => return code,
        }
    }
    if runs.iter().all(|(_, results)| results.is_empty()) {
        println!("\ngate: FAILED: no scenario ran (the input holds no feature file, or the filters matched nothing)");
        return ExitCode::FAILURE;
    }
    let results: Vec<&ScenarioResult> = runs.iter().flat_map(|(_, r)| r).collect();
    let metrics = gate::measure(results.iter().copied(), &expected);
    let judgement = gate::judge(&metrics, &thresholds);
    println!(
        "{}",
        gate::summary(browser, &metrics, &judgement.verdicts, repeat, runs.len().saturating_sub(repeat as usize))
    );
    let index = report_dir.join("index.html");
    match std::fs::write(&index, crate::report::render_gate(browser.name(), &metrics, &judgement, &runs)) {
        Ok(()) => println!("gate report: {}", index.display()),
        Err(e) => eprintln!("navguard gate: cannot write {}: {e}", index.display()),
    }
    println!("{}", gate::outcome_line(parse_errors, &judgement, &metrics));
    // The plain closing line CI reads.
    println!("{}", gate::closing_line(&results, &metrics));
    if judgement.passed && parse_errors == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Runs one pass of the gate and keeps its results under its number; a run that could not
/// start or was interrupted ends the gate with its exit code.
async fn run_one(
    request: RunRequest,
    run: u32,
    runs: &mut Vec<(u32, Vec<ScenarioResult>)>,
    parse_errors: &mut usize,
) -> Result<(), ExitCode> {
    match run_features_with(request).await {
        RunOutcome::Ran(ran) => {
            *parse_errors += ran.parse_errors;
            runs.push((run, ran.results));
            Ok(())
        }
        // Nothing ran, so there is nothing to measure: no rates, no report.
        RunOutcome::NotStarted(e) => {
            eprintln!("navguard gate: run {run} could not start: {e}");
            Err(ExitCode::from(2))
        }
        interrupted @ RunOutcome::Interrupted => Err(interrupted.exit_code()),
    }
}

/// The test names of the scenarios that failed in every run so far and are not known
/// deviations: what a re-run runs again (a scenario that passed once is already known flaky).
fn still_failing(runs: &[(u32, Vec<ScenarioResult>)], expected: &BTreeSet<String>) -> Vec<String> {
    let mut seen: BTreeMap<String, (bool, String)> = BTreeMap::new();
    for result in runs.iter().flat_map(|(_, results)| results).filter(|r| r.not_applicable.is_none()) {
        let name = crate::libtest::test_name(&result.feature_path, result.line, &result.scenario);
        let entry = seen.entry(gate::key(result)).or_insert((true, name));
        entry.0 &= result.failure.is_some();
    }
    seen.into_iter()
        .filter(|(key, (failed, _))| *failed && !expected.contains(key))
        .map(|(_, (_, name))| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_s_reports_go_to_a_folder_per_browser_and_agent() {
        assert_eq!(default_report_dir(None, BrowserKind::Firefox), Path::new("target/navguard/gate/firefox"));
        assert_eq!(
            default_report_dir(Some("playwright-mcp"), BrowserKind::Chromium),
            Path::new("target/navguard/gate/agent-playwright-mcp-chromium")
        );
    }

    #[test]
    fn a_re_run_takes_what_failed_every_time_and_is_not_a_known_deviation() {
        let result = |name: &str, line: usize, failed: bool| ScenarioResult {
            line,
            failure: failed.then(|| "failed".into()),
            ..ScenarioResult::sample(name)
        };
        let runs = vec![
            (
                1,
                vec![
                    result("flaky", 3, true),
                    result("broken", 7, true),
                    result("known", 9, true),
                    result("ok", 11, false),
                ],
            ),
            (
                2,
                vec![
                    result("flaky", 3, false),
                    result("broken", 7, true),
                    result("known", 9, true),
                    result("ok", 11, false),
                ],
            ),
        ];
        let expected = BTreeSet::from(["x.feature: known".to_owned()]);
        assert_eq!(still_failing(&runs, &expected), vec!["features/x.feature:7: broken".to_owned()]);
    }
}
