//! `navguard compare`: the same scenarios against several agents, one after the other, on the
//! same machine and browser, and the side-by-side report (`index.html` and `compare.md`). Each
//! agent's own run keeps its full reports in `<report dir>/<agent>/`.

use super::suite::{agent_scenarios, agent_that_can_start, suite};
use crate::gate::{GateFiles, read_known_failures};
use crate::report::compare::{AgentColumn, Comparison, Elsewhere, render_html, render_markdown};
use crate::run_context::RunMode;
use crate::runner::{Input, RunOptions, RunOutcome, RunRequest, run_features_with};
use crate::under_test::description::Description;
use crate::validate::{CONTRACTS_FILE, Findings, read_contracts};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

// What `navguard compare` is given.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// A .feature file or a folder of them [default: ./features/agents, else the built-in
    /// agent-neutral scenarios, written under the report folder]
    pub path: Option<PathBuf>,
    /// The agents, comma-separated: built-in names or description files.
    #[arg(long, value_name = "a,b,…", value_delimiter = ',', required = true)]
    pub agents: Vec<String>,
    /// Where the report goes (each agent's own run in a folder of its name; relative to
    /// the current folder).
    #[arg(long, value_name = "dir", default_value = "target/navguard/compare")]
    pub report_dir: PathBuf,
    /// Run each agent's scenarios this many times, at least 1: a cell that both passed and
    /// failed is shown flaky, with how often and each distinct reason.
    #[arg(long, value_name = "n", default_value = "1", value_parser = crate::runner::at_least_one::<u32>)]
    pub repeat: u32,
    #[command(flatten)]
    pub options: RunOptions,
}

/// How long asking the browser binary its version may take.
const VERSION_DEADLINE: Duration = Duration::from_secs(10);

/// Runs the scenarios against each agent and writes the report. Exits 0 when every agent ran
/// (whatever its results: the report is the product), 2 when one could not start or the input
/// is unusable, 130 on Ctrl-C.
pub async fn compare(args: CompareArgs) -> ExitCode {
    let CompareArgs { path, agents, report_dir, repeat, options } = args;
    if options.agent.is_some() {
        eprintln!("navguard compare: give the agents with --agents, not --agent");
        return ExitCode::from(2);
    }
    // Every agent named is found, its description valid and its command present before the
    // first scenario: a typo in the last name does not cost the runs of all the others.
    for name in &agents {
        if let Err(e) = agent_that_can_start(name) {
            eprintln!("navguard compare: {name}: {e}");
            return ExitCode::from(2);
        }
    }
    let features = match suite("compare", path, || agent_scenarios(&report_dir)) {
        Ok(path) => path,
        Err(code) => return code,
    };
    if !features.exists() {
        eprintln!("navguard compare: no such feature file or folder: {}", features.display());
        return ExitCode::from(2);
    }
    let mut comparison = Comparison {
        date: today(),
        machine: machine(),
        browser: browser_version(&options).await,
        features: features.display().to_string(),
        repeat,
        contracts: contracts_beside(&features),
        agents: Vec::new(),
        elsewhere: Vec::new(),
        unfinished: Vec::new(),
    };
    let browser = options.browser.browser;
    let mut all_started = true;
    for (i, name) in agents.iter().enumerate() {
        let mut column = AgentColumn { name: name.clone(), ..AgentColumn::default() };
        if let Ok(d) = Description::find(name) {
            if !d.drives(browser.name()) {
                println!("\nnavguard compare: {name} does not drive {}: listed, not run", browser.name());
                comparison.elsewhere.push(elsewhere(&d));
                continue;
            }
            column.name = d.name.clone();
            column.about = d.about.clone();
            column.version = d.package_version().unwrap_or_default();
        }
        println!("\nnavguard compare: {name}");
        column.known = known_failures(&column.name, options.browser.browser);
        for run in 1..=repeat {
            if repeat > 1 {
                println!("navguard compare: {name}, run {run} of {repeat}");
            }
            let folder = report_dir.join(safe_folder(&column.name));
            let request = RunRequest {
                input: Input::Path(features.clone()),
                options: RunOptions { agent: Some(name.clone()), ..options.clone() },
                report_dir: if repeat > 1 { folder.join(format!("run-{run}")) } else { folder },
                mode: RunMode::default(),
            };
            match run_features_with(request).await {
                RunOutcome::Ran(ran) => {
                    if column.version.is_empty() {
                        column.version = ran.agent_version.clone().unwrap_or_default();
                    }
                    column.runs.push(ran.results);
                    // The report as far as it got, after every run: a compare stopped later
                    // (kill -9 included) leaves every finished run readable.
                    let so_far = so_far(&comparison, &column, run, repeat, &agents[i + 1..]);
                    if let Err(e) = write(&so_far, &report_dir) {
                        eprintln!("navguard compare: cannot write the report to {}: {e}", report_dir.display());
                    }
                }
                RunOutcome::NotStarted(e) => {
                    eprintln!("navguard compare: {name}: {e}");
                    column.not_started = Some(e.to_string());
                    all_started = false;
                    break;
                }
                interrupted @ RunOutcome::Interrupted => return interrupted.exit_code(),
            }
        }
        comparison.agents.push(column);
    }
    match write(&comparison, &report_dir) {
        Ok((html, md)) => println!("\ncompare: {} and {}", html.display(), md.display()),
        Err(e) => {
            eprintln!("navguard compare: cannot write the report to {}: {e}", report_dir.display());
            return ExitCode::FAILURE;
        }
    }
    print_totals(&comparison);
    if all_started { ExitCode::SUCCESS } else { ExitCode::from(2) }
}

/// An agent that does not drive the compare's browser, as its row lists it.
fn elsewhere(d: &Description) -> Elsewhere {
    Elsewhere {
        name: d.name.clone(),
        version: d.package_version().unwrap_or_default(),
        about: d.about.clone(),
        browsers: d.browsers.clone(),
    }
}

/// The comparison as far as it got: the agents done, `column` with its `run` runs of `repeat`,
/// and what is still to run.
fn so_far(done: &Comparison, column: &AgentColumn, run: u32, repeat: u32, next: &[String]) -> Comparison {
    let mut so_far = done.clone();
    so_far.agents.push(column.clone());
    if run < repeat {
        so_far.unfinished.push(format!("{} (runs {} to {repeat} of {repeat})", column.name, run + 1));
    }
    so_far.unfinished.extend(next.iter().cloned());
    so_far
}

/// Writes the page and the Markdown, each whole or not at all (written beside, then renamed: a
/// compare killed while writing leaves the previous report).
fn write(comparison: &Comparison, dir: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let (html, md) = (dir.join("index.html"), dir.join("compare.md"));
    for (path, text) in [(&html, render_html(comparison)), (&md, render_markdown(comparison))] {
        let partial = path.with_extension("partial");
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, path)?;
    }
    Ok((html, md))
}

/// One closing line per agent, as CI logs read it.
fn print_totals(comparison: &Comparison) {
    for agent in &comparison.elsewhere {
        println!("compare: {}: not run: {}", agent.name, agent.words());
    }
    for agent in &comparison.agents {
        match &agent.not_started {
            Some(why) => println!("compare: {}: did not start: {why}", agent.name),
            None => {
                let runs = agent.runs.iter().map(|run| {
                    let counts = crate::summary::Counts::of(run);
                    format!(
                        "{} passed, {} failed, {} not applicable",
                        counts.passed, counts.failed, counts.not_applicable
                    )
                });
                println!("compare: {} ({}): {}", agent.name, agent.version, runs.collect::<Vec<_>>().join("; "));
            }
        }
    }
}

/// The hazards' contracts, to name the scoreboard's rows: the contracts file in the features'
/// folder or the one above it (`features/contracts.txt` for `features/agents`); none if neither
/// has one.
fn contracts_beside(features: &Path) -> BTreeMap<String, String> {
    let folder = if features.is_dir() { features } else { features.parent().unwrap_or(features) };
    let candidates = [Some(folder), folder.parent()];
    let Some(file) = candidates.into_iter().flatten().map(|f| f.join(CONTRACTS_FILE)).find(|f| f.is_file()) else {
        return BTreeMap::new();
    };
    read_contracts(&file, &mut Findings::default())
}

/// An agent's known failures with their reasons, found as `navguard gate --agent` finds them;
/// none if it has no file or the file cannot be read (the gate is where a bad file is an error).
fn known_failures(agent: &str, browser: navguard::adapter::BrowserKind) -> BTreeMap<String, String> {
    let files = GateFiles::find(None, None, Some(agent), browser);
    let found = files.agent_expectations.and_then(|a| a.found);
    found.and_then(|source| read_known_failures(&source, false).ok()).unwrap_or_default()
}

/// A report folder name for an agent (a description path's name has no slashes).
fn safe_folder(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    date(time::OffsetDateTime::now_utc().date())
}

/// A date as the report's heading writes it.
fn date(date: time::Date) -> String {
    format!("{:04}-{:02}-{:02}", date.year(), u8::from(date.month()), date.day())
}

/// The operating system, cores and memory of this machine.
fn machine() -> String {
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=").map(|v| v.trim_matches('"').to_owned())))
        .unwrap_or_else(|| std::env::consts::OS.to_owned());
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let memory = memory_bytes().map(|bytes| format!(", {} GiB", gib(bytes))).unwrap_or_default();
    format!("{os}, {cores} cores{memory}")
}

/// The machine's memory in whole GiB, to the nearest (as `/proc/meminfo`'s kB were rounded).
fn gib(bytes: u64) -> u64 {
    let kib = bytes >> 10;
    (kib + (1 << 19)) >> 20
}

/// The machine's memory, as the kernel counts it (`sysinfo(2)`, where `/proc/meminfo`'s
/// `MemTotal` comes from).
#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast, reason = "the kernel's unsigned long is 32 bits on 32-bit Linux")]
fn memory_bytes() -> Option<u64> {
    let info = rustix::system::sysinfo();
    (info.totalram as u64).checked_mul(u64::from(info.mem_unit))
}

/// Elsewhere the heading names no memory.
#[cfg(not(target_os = "linux"))]
fn memory_bytes() -> Option<u64> {
    None
}

/// The browser binary's own `--version`, within a deadline.
pub(super) async fn browser_version(options: &RunOptions) -> String {
    let kind = options.browser.browser;
    let Ok(binary) = kind.binary() else { return kind.name().to_owned() };
    let asked = tokio::process::Command::new(&binary).arg("--version").kill_on_drop(true).output();
    match tokio::time::timeout(VERSION_DEADLINE, asked).await {
        Ok(Ok(out)) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        _ => kind.name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_written_year_month_day() {
        let date = |y, m, d| time::Date::from_calendar_date(y, m, d).unwrap();
        assert_eq!(super::date(date(1970, time::Month::January, 1)), "1970-01-01");
        assert_eq!(super::date(date(2026, time::Month::November, 23)), "2026-11-23");
        assert_eq!(super::date(date(2000, time::Month::February, 29)), "2000-02-29");
    }

    #[test]
    fn memory_is_rounded_to_the_nearest_gib() {
        assert_eq!(gib(24 << 30), 24);
        assert_eq!(gib((23 << 30) + (600 << 20)), 24);
        assert_eq!(gib((23 << 30) + (400 << 20)), 23);
    }

    #[test]
    fn the_machine_is_named_with_its_cores() {
        let machine = machine();
        assert!(machine.contains(" cores"), "{machine}");
        #[cfg(target_os = "linux")]
        assert!(machine.ends_with(" GiB"), "{machine}");
    }

    #[test]
    fn a_description_path_becomes_one_folder() {
        assert_eq!(safe_folder("agents/my agent.toml"), "agents_my_agent_toml");
        assert_eq!(safe_folder("playwright-mcp"), "playwright-mcp");
    }
}
