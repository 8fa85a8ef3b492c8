//! `navguard gate`: the suite run `--repeat` times, measured, judged against the thresholds
//! with the known failures, printed, and its page written.

use super::suite::{agent_that_can_start, default_suite, suite};
use crate::gate::{self, GateFiles, Shard, read_thresholds};
use crate::run_context::{RunMode, TerminalOutput};
use crate::runner::{Input, RunOptions, RunOutcome, RunRequest, at_least_one, run_features_with};
use crate::summary::ScenarioResult;
use navguard::adapter::BrowserKind;
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
    let GateArgs { path, repeat, shard, thresholds, expectations, report_dir, options } = args;
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
    let how = GateRun { path, repeat, shard, options };
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
    shard: Option<Shard>,
    options: RunOptions,
}

/// Runs the suite, then measures, judges, prints and writes the gate's page.
async fn judge_runs(how: GateRun, files: &GateFiles, report_dir: &Path) -> ExitCode {
    let GateRun { path, repeat, shard, options } = how;
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
            report_dir: report_dir.join(format!("run-{run}")),
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
    let results: Vec<&ScenarioResult> = runs.iter().flat_map(|(_, r)| r).collect();
    let metrics = gate::measure(results.iter().copied(), &expected);
    let judgement = gate::judge(&metrics, &thresholds);
    println!("{}", gate::summary(browser, &metrics, &judgement.verdicts, repeat));
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
}
