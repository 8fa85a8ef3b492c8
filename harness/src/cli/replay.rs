//! `navguard replay`: a task's audit rendered as one self-contained page.

use std::path::PathBuf;
use std::process::ExitCode;

// What `navguard replay` is given.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The audit file.
    pub audit: PathBuf,
    /// The page to write.
    #[arg(short = 'o', long = "output", value_name = "file", default_value = "replay.html")]
    pub output: PathBuf,
}

/// Writes the page; says how many events it holds, or why it could not (exit 2).
pub fn replay(args: &ReplayArgs) -> ExitCode {
    let ReplayArgs { audit, output } = args;
    match navguard_orchestrator::replay::replay(audit, output) {
        Ok(n) => {
            println!("navguard replay: {n} events of {} in {}", audit.display(), output.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("navguard replay: {e}");
            ExitCode::from(2)
        }
    }
}
