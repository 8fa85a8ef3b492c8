//! `cargo test --test features`: every feature in `features/` on a real browser.
//! `cargo test --test features -- --input <path or glob>` runs other feature files with the same
//! steps; `-- --help` lists the runner's options. It takes libtest's arguments too
//! ([`navguard_harness::libtest`]): each scenario is a test named `<feature file>:<line>:
//! <scenario name>`; `cargo test <filter>` runs only the scenarios whose test name contains the
//! filter (none, and it passes); `-- --nocapture` (or `--verbose`) prints every step;
//! `cargo nextest run` lists the scenarios and runs each in its own process.

use clap::Parser as _;
use navguard_harness::libtest::LibtestAsk;
use navguard_harness::run_context::RunMode;
use navguard_harness::runner::{DEFAULT_REPORT_DIR, FeaturesCli, Input, RunOutcome, RunRequest, scenario_tests};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    navguard_harness::init_tracing();
    // Run from the workspace's top folder, as a user runs `navguard run`: feature paths in the
    // reports, `--input` and the default report folder (target/navguard) are relative to it.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace");
    if let Err(e) = std::env::set_current_dir(root) {
        eprintln!("cannot enter {}: {e}", root.display());
        return ExitCode::from(2);
    }
    let mut cli = match FeaturesCli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` exits 0; a bad option 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    // libtest's "show the output" is the runner's full output.
    cli.options.verbose |= cli.libtest.nocapture;
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let tests = cli.libtest.filter();
    match cli.libtest.ask() {
        LibtestAsk::List { ignored } => {
            // No scenario is ignored: `--ignored` lists none.
            if !ignored {
                let input = cli.input.unwrap_or_else(|| Input::Path("features".into()));
                let mode = RunMode { tests, ..RunMode::default() };
                for test in runtime.block_on(scenario_tests(&input, &cli.options, &mode)) {
                    println!("{test}: test");
                }
            }
            return ExitCode::SUCCESS;
        }
        LibtestAsk::Nothing => return nothing_runs("only ignored tests were asked for: there are none"),
        LibtestAsk::Run => {}
    }
    // nextest names one scenario (`--exact`): read its file only, and keep its reports apart
    // from those of the scenarios running beside it.
    let only_file = tests.as_ref().and_then(|t| t.only_file()).map(PathBuf::from);
    let input = match (cli.input, only_file) {
        (Some(input), _) => input,
        (None, Some(file)) if file.is_file() => Input::Path(file),
        (None, Some(_)) => return nothing_runs("no such test"),
        (None, None) => Input::Path("features".into()),
    };
    let report_dir = cli.report_dir.unwrap_or_else(|| {
        let dir = PathBuf::from(DEFAULT_REPORT_DIR);
        match tests.as_ref().and_then(|t| t.only_scenario()) {
            Some((file, line)) => dir.join("tests").join(own_folder(file, line)),
            None => dir,
        }
    });
    let mode = RunMode { tests, ..RunMode::default() };
    if mode.tests.is_some() && runtime.block_on(scenario_tests(&input, &cli.options, &mode)).is_empty() {
        // A filter meant for other tests: like libtest, nothing ran and nothing failed, and the
        // reports of the last run stay.
        return nothing_runs("the filter names no scenario");
    }
    let request = RunRequest { input, options: cli.options, report_dir, mode };
    let outcome = runtime.block_on(navguard_harness::runner::run_features_with(request));
    if let RunOutcome::NotStarted(e) = &outcome {
        eprintln!("navguard: {e}");
    }
    outcome.exit_code()
}

fn nothing_runs(why: &str) -> ExitCode {
    println!("running 0 scenarios: {why}");
    ExitCode::SUCCESS
}

/// One scenario's report folder: its feature file's path (two folders may hold files of one
/// name) and its line, e.g. `features-browser-tabs-L35`.
fn own_folder(file: &str, line: usize) -> String {
    let path = std::path::Path::new(file).with_extension("");
    let parts: Vec<_> = path.components().filter_map(|c| c.as_os_str().to_str()).filter(|c| *c != "/").collect();
    format!("{}-L{line}", parts.join("-"))
}
