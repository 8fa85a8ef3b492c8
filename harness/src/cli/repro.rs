//! `navguard repro`: one scenario, its timeline printed, and whether the race reproduced.

use crate::Switch;
use crate::run_context::RunMode;
use crate::runner::{BrowserOptions, DEFAULT_CALL_TIMEOUT, Input, RunOptions, RunOutcome, RunRequest, at_least_one};
use std::path::PathBuf;
use std::process::ExitCode;

// What `navguard repro` is given.
#[derive(clap::Args, Debug)]
pub struct ReproArgs {
    /// `<feature file>:<line>` of the scenario (or of an outline's example row).
    pub target: String,
    /// Run it this many times (at least 1).
    #[arg(long, value_name = "n", default_value_t = 1, value_parser = at_least_one::<u32>)]
    pub repeat: u32,
    #[command(flatten)]
    pub browser: BrowserOptions,
    /// `off` switches both guards off, whatever the scenario says, to see the original race.
    #[arg(long, default_value = "on")]
    pub guards: Switch,
    /// Where reports go (one folder per run; relative to the current folder).
    #[arg(long, value_name = "dir", default_value = "target/navguard/repro")]
    pub report_dir: PathBuf,
}

/// Runs the scenario `--repeat` times, each run keeping its own reports, and says in how many
/// the race reproduced. Exits 2 on a target it cannot use, 1 when the file does not parse.
pub async fn repro(args: ReproArgs) -> ExitCode {
    let ReproArgs { target, repeat, browser, guards, report_dir } = args;
    let Some((path, line)) = parse_target(&target) else {
        eprintln!("navguard: {target:?} is not <feature file>:<line>");
        return ExitCode::from(2);
    };
    if !path.is_file() {
        eprintln!("navguard: no such feature file: {}", path.display());
        return ExitCode::from(2);
    }
    let guards_off = guards == Switch::Off;
    let options = options(browser);
    let mut verdicts = Vec::new();
    for run in 1..=repeat {
        // Each run keeps its own reports: the run that reproduced stays readable.
        let request = RunRequest {
            input: Input::Path(path.clone()),
            options: options.clone(),
            report_dir: report_dir.join(format!("run-{run}")),
            mode: RunMode { line: Some(line), guards_off, timeline: true, ..Default::default() },
        };
        let ran = match crate::runner::run_features_with(request).await {
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

/// One scenario, one at a time: the timeline is read as it runs.
fn options(browser: BrowserOptions) -> RunOptions {
    RunOptions {
        name: None,
        tags: None,
        concurrency: 1,
        fail_fast: false,
        sessions: 1,
        agent: None,
        call_timeout: DEFAULT_CALL_TIMEOUT.as_secs(),
        // Its steps and the progress of its waits, with the timeline they lead to.
        verbose: true,
        browser,
    }
}

/// Splits `path:line` (a line from 1 on).
pub fn parse_target(target: &str) -> Option<(PathBuf, usize)> {
    let (path, line) = target.rsplit_once(':')?;
    Some((PathBuf::from(path), line.parse().ok().filter(|l| *l > 0)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_a_path_and_a_line_from_1() {
        assert_eq!(parse_target("features/a.feature:12"), Some((PathBuf::from("features/a.feature"), 12)));
        assert_eq!(parse_target("c:/x.feature:3").map(|(_, l)| l), Some(3));
        for bad in ["features/a.feature", "features/a.feature:0", "a.feature:x", "a.feature:-1"] {
            assert_eq!(parse_target(bad), None, "{bad}");
        }
    }

    #[test]
    fn repro_runs_one_scenario_at_a_time_showing_its_steps() {
        let options = options(BrowserOptions {
            browser: navguard::adapter::BrowserKind::Chromium,
            webdriver_url: None,
            headful: false,
        });
        assert_eq!((options.concurrency, options.sessions, options.verbose), (1, 1, true));
    }
}
