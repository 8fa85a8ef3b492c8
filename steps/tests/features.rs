//! `cargo test --test features`: every feature in `features/` on a real browser.
//! `cargo test --test features -- --input <path or glob>` runs other feature files with the same
//! steps; `-- --help` lists the runner's options. It takes libtest's arguments too: it is one
//! test, `features`, and `cargo test <filter>` runs only the scenarios whose name contains the
//! filter (none, and it passes); `cargo nextest run` lists and runs it.

use clap::Parser as _;
use navguard_harness::runner::{FeaturesCli, Input, LibtestArgs, LibtestAsk, RunOutcome, RunRequest, RunVerdict};
use std::process::ExitCode;

fn main() -> ExitCode {
    navguard_harness::init_tracing();
    // Run from the workspace's top folder, as a user runs `navguard run`: feature paths in the
    // reports, `--input` and the default report folder (target/navguard) are relative to it.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("steps/ sits in the workspace");
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
    let filtered = match cli.libtest.ask() {
        LibtestAsk::List { ignored } => {
            if !ignored {
                println!("{}: test", LibtestArgs::TEST);
            }
            return ExitCode::SUCCESS;
        }
        LibtestAsk::Nothing => {
            println!("running 0 scenarios: the filter names another test");
            return ExitCode::SUCCESS;
        }
        LibtestAsk::Run(None) => false,
        LibtestAsk::Run(Some(name)) => {
            cli.options.name = Some(cli.options.name.take().unwrap_or(name));
            true
        }
    };
    let input = cli.input.unwrap_or_else(|| Input::Path("features".into()));
    let request = RunRequest { input, options: cli.options, report_dir: cli.report_dir, mode: Default::default() };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let outcome = runtime.block_on(navguard_harness::runner::run_features_with(request));
    match &outcome {
        RunOutcome::NotStarted(e) => eprintln!("navguard: {e}"),
        // A filter meant for other tests matches no scenario: like libtest, nothing ran and
        // nothing failed.
        RunOutcome::Ran(ran) if filtered && ran.verdict == RunVerdict::NothingRan => return ExitCode::SUCCESS,
        _ => {}
    }
    outcome.exit_code()
}
