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
    /// Run one scenario (`<feature file>:<line>`), print its timeline (model, agent and browser
    /// lanes) and say in one line whether the race reproduced.
    Repro {
        /// `<feature file>:<line>` of the scenario (or of an outline's example row).
        target: String,
        /// Run it this many times.
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        /// Show the browser window (needs a display).
        #[arg(long)]
        headful: bool,
        /// `off` switches both guards off, whatever the scenario says, to see the original race.
        #[arg(long, default_value = "on", value_parser = ["on", "off"])]
        guards: String,
        /// Where reports go.
        #[arg(long, default_value = "target/navguard/repro")]
        report_dir: PathBuf,
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
        Command::Repro { target, repeat, headful, guards, report_dir } => {
            runtime.block_on(repro(&target, repeat, headful, guards == "off", &report_dir))
        }
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

/// Splits `path:line`.
fn parse_target(target: &str) -> Option<(PathBuf, usize)> {
    let (path, line) = target.rsplit_once(':')?;
    Some((PathBuf::from(path), line.parse().ok().filter(|l| *l > 0)?))
}

async fn repro(target: &str, repeat: u32, headful: bool, guards_off: bool, report_dir: &std::path::Path) -> ExitCode {
    let Some((path, line)) = parse_target(target) else {
        eprintln!("navguard: {target:?} is not <feature file>:<line>");
        return ExitCode::from(2);
    };
    if !path.is_file() {
        eprintln!("navguard: no such feature file: {}", path.display());
        return ExitCode::from(2);
    }
    let mut verdicts = Vec::new();
    for run in 1..=repeat.max(1) {
        let mut args = vec!["navguard repro".to_owned(), "--report-dir".into(), report_dir.display().to_string()];
        if headful {
            args.push("--headful".into());
        }
        let (input, opts) = match steps::runner::parse_args(args, path.clone()) {
            Ok(parsed) => parsed,
            Err(e) => {
                let _ = e.print();
                return ExitCode::from(2);
            }
        };
        let mode = steps::run_context::RunMode { line: Some(line), guards_off, timeline: true };
        let outcome = steps::runner::run_features_with(input, opts, mode).await;
        if outcome.results.is_empty() {
            eprintln!("navguard: no scenario at {target} (give the line of a Scenario or of an example row)");
            return ExitCode::from(2);
        }
        verdicts.extend(outcome.results.into_iter().filter_map(|r| r.race.map(|v| (run, v))));
    }
    let reproduced = verdicts.iter().filter(|(_, v)| v.starts_with("race reproduced")).count();
    let guards = if guards_off { "guards off" } else { "guards on" };
    println!("\nnavguard repro {target} ({guards}): the race reproduced in {reproduced} of {} runs", verdicts.len());
    ExitCode::SUCCESS
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
