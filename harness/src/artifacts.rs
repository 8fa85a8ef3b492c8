//! What a failed scenario leaves behind: its navigation events, its raw BiDi events, the fixture
//! site's request log, and a screenshot of its current tab.

use crate::world::ScenarioEnv;
use navguard::browser::TabId;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the screenshot may take: the browser may be the reason the scenario failed.
const SCREENSHOT_DEADLINE: Duration = Duration::from_secs(3);

/// A folder name from a scenario's name and line.
pub fn folder_name(scenario: &str, line: usize) -> String {
    let slug: String =
        scenario.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let slug: Vec<&str> = slug.split('-').filter(|s| !s.is_empty()).collect();
    let slug = slug.join("-");
    format!("L{line}-{}", slug[..slug.len().min(60)].trim_end_matches('-'))
}

fn write_jsonl<T: Serialize>(path: &Path, items: impl IntoIterator<Item = T>) -> std::io::Result<()> {
    write_lines(path, items.into_iter().filter_map(|i| serde_json::to_string(&i).ok()).collect())
}

fn write_lines(path: &Path, lines: Vec<String>) -> std::io::Result<()> {
    std::fs::write(path, lines.join("\n") + "\n")
}

#[derive(Serialize)]
struct TimedEvent<'a> {
    t_ms: f64,
    #[serde(flatten)]
    event: &'a navguard::browser::NavEvent,
}

/// Writes the artifacts into `dir` (with the agent's trace, if it ran); returns `dir`.
pub async fn write(
    env: &ScenarioEnv,
    tab: Option<TabId>,
    trace: Option<&navguard::agent::Trace>,
    dir: PathBuf,
) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(&dir)?;
    if let Some(trace) = trace.filter(|t| !t.entries.is_empty()) {
        std::fs::write(dir.join("trace.json"), serde_json::to_string_pretty(trace).unwrap_or_default())?;
    }
    let (events, origin) = (env.port.events(), env.port.events_origin());
    let timed =
        events.iter().map(|e| TimedEvent { t_ms: e.at.duration_since(origin).as_secs_f64() * 1000.0, event: e });
    write_jsonl(&dir.join("events.jsonl"), timed)?;
    write_lines(
        &dir.join("bidi.jsonl"),
        env.port.diagnostics().map(navguard::browser::PortDiagnostics::wire_record).unwrap_or_default(),
    )?;
    write_jsonl(&dir.join("requests.jsonl"), env.site.requests().all())?;
    if let Some(tab) = tab {
        let shot = tokio::time::timeout(SCREENSHOT_DEADLINE, env.port.screenshot(&tab)).await;
        if let Ok(Ok(png)) = shot {
            std::fs::write(dir.join("screenshot.png"), png)?;
        }
    }
    Ok(dir)
}
