//! `navguard run`: feature files on a real browser, with the harness's steps.

use super::suite::{default_suite, suite};
use crate::run_context::RunMode;
use crate::runner::{DEFAULT_REPORT_DIR, Input, RunOptions, RunRequest, run_features};
use std::path::PathBuf;
use std::process::ExitCode;

// What `navguard run` is given (its help is the doc comment of `Command::Run`).
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// A .feature file or a folder of them [default: ./features; with --agent,
    /// ./features/agents, else the built-in agent-neutral scenarios, written under the
    /// report folder]
    pub path: Option<PathBuf>,
    /// Where the reports and the failure artifacts go (relative to the current folder).
    #[arg(long, value_name = "dir", default_value = DEFAULT_REPORT_DIR)]
    pub report_dir: PathBuf,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Runs the features and prints the summary; exits as [`crate::runner::RunOutcome::exit_code`]
/// says.
pub async fn run(args: RunArgs) -> ExitCode {
    let RunArgs { path, report_dir, options } = args;
    let path = match suite("run", path, || default_suite(options.agent.is_some(), &report_dir)) {
        Ok(path) => path,
        Err(code) => return code,
    };
    let request = RunRequest { input: Input::Path(path), options, report_dir, mode: RunMode::default() };
    run_features(request).await
}
