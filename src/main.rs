//! `navguard`: run feature files on a real browser, or serve the fixture site.

#[path = "../steps/mod.rs"]
mod steps;

use clap::{Parser, Subcommand};
use navguard::fixtures::FixtureSite;
use std::path::PathBuf;
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
    /// Options after the path are the runner's: --tags, --name, --concurrency, --webdriver-url,
    /// --headful, --report-dir (see `navguard run <path> --help`).
    Run {
        /// A .feature file or a folder of them.
        path: PathBuf,
        /// The runner's options.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        options: Vec<String>,
    },
    /// Serve the fixture site on two loopback origins until Ctrl-C; prints both origins.
    ServeFixtures,
    /// Check, without a browser, that every contract has a scenario, every scenario proves a
    /// known contract, every step is defined once, and every feature parses.
    Validate {
        /// The features folder.
        #[arg(long, default_value = "features")]
        features: PathBuf,
        /// The contracts file.
        #[arg(long, default_value = "features/contracts.txt")]
        contracts: PathBuf,
    },
}

fn main() -> ExitCode {
    steps::init_tracing();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("navguard: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Run { path, options } => runtime.block_on(run(path, options)),
        Command::ServeFixtures => runtime.block_on(serve_fixtures()),
        Command::Validate { features, contracts } => validate(&features, &contracts),
    }
}

fn validate(features: &std::path::Path, contracts: &std::path::Path) -> ExitCode {
    let findings = steps::validate::validate(features, contracts);
    for problem in &findings.problems {
        println!("{problem}");
    }
    let verdict = if findings.problems.is_empty() { "valid" } else { "INVALID" };
    println!(
        "navguard validate: {verdict}: {} contracts, {} scenarios, {} problems",
        findings.contracts,
        findings.scenarios,
        findings.problems.len()
    );
    if findings.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

async fn run(path: PathBuf, options: Vec<String>) -> ExitCode {
    if !path.exists() {
        eprintln!("navguard: no such feature file or folder: {}", path.display());
        return ExitCode::from(2);
    }
    let args = std::iter::once("navguard run".to_owned()).chain(options).collect();
    match steps::runner::parse_args(args, path) {
        Ok((input, opts)) => steps::run_features(input, opts).await,
        Err(e) => {
            let _ = e.print();
            ExitCode::from(2)
        }
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
