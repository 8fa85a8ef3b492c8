//! `navguard replay <audit.jsonl> -o page.html`: one self-contained page of a task's audit:
//! each step with its action, risk, confirmation and observation, and its screenshots inline.

use base64::Engine;
use maud::{DOCTYPE, Markup, html};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Why a replay could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}, line {line}: not an audit event ({source})")]
    BadLine {
        path: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

/// Reads the audit at `audit` and writes the page to `out`; returns how many events it shows.
pub fn replay(audit: &Path, out: &Path) -> Result<usize, ReplayError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| ReplayError::Io { path, source }
    };
    let text = std::fs::read_to_string(audit).map_err(io(audit))?;
    let mut events = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let event: Value = serde_json::from_str(line).map_err(|source| ReplayError::BadLine {
            path: audit.to_owned(),
            line: n + 1,
            source,
        })?;
        events.push(event);
    }
    let folder = audit.parent().unwrap_or_else(|| Path::new("."));
    let page = page(audit, &events, folder);
    std::fs::write(out, page.into_string()).map_err(io(out))?;
    Ok(events.len())
}

fn page(audit: &Path, events: &[Value], folder: &Path) -> Markup {
    let task = events.first().and_then(|e| e["taskId"].as_str()).unwrap_or("?");
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "navguard replay: task " (task) }
                style { "body{font:14px system-ui,sans-serif;margin:2em;max-width:70em} .step{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;margin:.6em 0} .high{border-left:6px solid #c0392b} .medium{border-left:6px solid #e67e22} .low{border-left:6px solid #27ae60} img{max-width:32em;border:1px solid #ddd;margin:.3em} code{background:#f4f4f4;padding:0 .2em}" }
            }
            body {
                h1 { "Task " (task) }
                p { "From " code { (audit.display()) } ", " (events.len()) " events." }
                @for (n, event) in events.iter().enumerate() { (step(n, event, folder)) }
            }
        }
    }
}

fn step(n: usize, event: &Value, folder: &Path) -> Markup {
    let risk = event["risk"].as_str().unwrap_or("");
    let action = &event["action"];
    html! {
        section.step.(risk) id=(format!("event-{n}")) {
            h2 { (n + 1) ". " (event["event"].as_str().unwrap_or("?")) @if let Some(id) = event["actionId"].as_str() { " · " code { (id) } } }
            @if action.is_object() {
                p { "Action " code { (action["type"].as_str().unwrap_or("?")) } " " code { (action["target"].to_string()) } " " code { (action["params"].to_string()) } }
            }
            @if !risk.is_empty() { p { "Risk: " strong { (risk) } } }
            @if let Some(confirmation) = event.get("confirmation") {
                p { "Confirmation: " (if confirmation["approved"] == true { "approved" } else { "denied" })
                    @if let Some(reason) = confirmation["reason"].as_str() { " (" (reason) ")" } }
            }
            @if let Some(observation) = event.get("observation") {
                p { "Observed " code { (observation["title"].as_str().unwrap_or("")) } " at " code { (observation["url"].as_str().unwrap_or("")) } }
                @if let Some(errors) = observation["errors"].as_array().filter(|e| !e.is_empty()) { p { "Errors: " code { (Value::Array(errors.clone()).to_string()) } } }
            }
            @for name in event["screenshots"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                @if let Some(uri) = inline(folder, name) { img src=(uri) alt=(name); }
            }
        }
    }
}

/// A screenshot beside the audit, as a data URI (the page stands alone); a file that is gone
/// is left out.
fn inline(folder: &Path, name: &str) -> Option<String> {
    let file = Path::new(name).file_name()?;
    let bytes = std::fs::read(folder.join(file)).ok()?;
    Some(format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes)))
}
