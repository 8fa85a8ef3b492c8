//! `navguard compare`: the same scenarios against several agents, one after the other, on the
//! same machine and browser, and the side-by-side report (`index.html` and `compare.md`). Each
//! agent's own run keeps its full reports in `<report dir>/<agent>/`.

use crate::agents::description::Description;
use crate::report::compare::{AgentColumn, Comparison, render_html, render_markdown};
use crate::run_context::RunMode;
use crate::runner::{Input, RunOptions, RunOutcome, RunRequest, run_features_with};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// What to compare.
#[derive(Clone, Debug)]
pub struct CompareRequest {
    pub features: PathBuf,
    /// Agents by built-in name or description path, in the report's order.
    pub agents: Vec<String>,
    pub report_dir: PathBuf,
    pub options: RunOptions,
}

/// How long asking the browser binary its version may take.
const VERSION_DEADLINE: Duration = Duration::from_secs(10);

/// Runs the scenarios against each agent and writes the report. Exits 0 when every agent ran
/// (whatever its results: the report is the product), 2 when one could not start or the input
/// is unusable, 130 on Ctrl-C.
pub async fn compare(request: CompareRequest) -> ExitCode {
    let CompareRequest { features, agents, report_dir, options } = request;
    if !features.exists() {
        eprintln!("navguard compare: no such feature file or folder: {}", features.display());
        return ExitCode::from(2);
    }
    let mut comparison = Comparison {
        date: today(),
        machine: machine(),
        browser: browser_version(&options).await,
        features: features.display().to_string(),
        agents: Vec::new(),
    };
    let mut all_started = true;
    for name in &agents {
        println!("\nnavguard compare: {name}");
        let mut column = AgentColumn { name: name.clone(), ..AgentColumn::default() };
        if let Ok(d) = Description::find(name) {
            column.name = d.name.clone();
            column.about = d.about.clone();
            column.version = d.package_version().unwrap_or_default();
        }
        let request = RunRequest {
            input: Input::Path(features.clone()),
            options: RunOptions { agent: Some(name.clone()), ..options.clone() },
            report_dir: report_dir.join(safe_folder(&column.name)),
            mode: RunMode::default(),
        };
        match run_features_with(request).await {
            RunOutcome::Ran(ran) => {
                if column.version.is_empty() {
                    column.version = ran.agent_version.clone().unwrap_or_default();
                }
                column.results = ran.results;
            }
            RunOutcome::NotStarted(e) => {
                eprintln!("navguard compare: {name}: {e}");
                column.not_started = Some(e.to_string());
                all_started = false;
            }
            interrupted @ RunOutcome::Interrupted => return interrupted.exit_code(),
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

fn write(comparison: &Comparison, dir: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let (html, md) = (dir.join("index.html"), dir.join("compare.md"));
    std::fs::write(&html, render_html(comparison))?;
    std::fs::write(&md, render_markdown(comparison))?;
    Ok((html, md))
}

/// One closing line per agent, as CI logs read it.
fn print_totals(comparison: &Comparison) {
    for agent in &comparison.agents {
        let counts = crate::summary::Counts::of(&agent.results);
        match &agent.not_started {
            Some(why) => println!("compare: {}: did not start: {why}", agent.name),
            None => println!(
                "compare: {} ({}): {} passed, {} failed, {} not applicable",
                agent.name, agent.version, counts.passed, counts.failed, counts.not_applicable
            ),
        }
    }
}

/// A report folder name for an agent (a description path's name has no slashes).
fn safe_folder(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The operating system, cores and memory of this machine.
fn machine() -> String {
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=").map(|v| v.trim_matches('"').to_owned())))
        .unwrap_or_else(|| std::env::consts::OS.to_owned());
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("MemTotal:").map(str::to_owned)))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| format!(", {} GiB", (kb + (1 << 19)) >> 20))
        .unwrap_or_default();
    format!("{os}, {cores} cores{memory}")
}

/// The browser binary's own `--version`, within a deadline.
async fn browser_version(options: &RunOptions) -> String {
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
    fn days_since_1970_are_dated_as_the_calendar_does() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_780), (2026, 11, 23));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn a_description_path_becomes_one_folder() {
        assert_eq!(safe_folder("agents/my agent.toml"), "agents_my_agent_toml");
        assert_eq!(safe_folder("playwright-mcp"), "playwright-mcp");
    }
}
