//! The replay: one self-contained page of a task's audit, each step with its action, risk,
//! confirmation and observation, and its screenshots inline (`navguard replay <audit.jsonl> -o
//! page.html`, and the page in `/api/agent/export`'s archive). Each line is read as the audit's
//! own [`AuditLine`]: a line that is not one is named by its number.

use crate::audit::AuditLine;
use base64::Engine;
use maud::{DOCTYPE, Markup, html};
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

impl ReplayError {
    /// A failed read or write of `path`.
    pub fn from_io(path: &Path) -> impl FnOnce(std::io::Error) -> Self + use<> {
        let path = path.to_owned();
        move |source| Self::Io { path, source }
    }
}

/// Reads the audit at `audit` and writes the page to `out`; returns how many events it shows.
pub fn replay(audit: &Path, out: &Path) -> Result<usize, ReplayError> {
    let events = read(audit)?;
    let folder = audit.parent().unwrap_or_else(|| Path::new("."));
    std::fs::write(out, page_html(&audit.display().to_string(), &events, folder)).map_err(ReplayError::from_io(out))?;
    Ok(events.len())
}

/// The page of `events`, read from `source`, with the screenshots in `folder` inline.
pub fn page_html(source: &str, events: &[AuditLine], folder: &Path) -> String {
    page(source, events, folder).into_string()
}

/// The audit's lines, in order.
pub fn read(audit: &Path) -> Result<Vec<AuditLine>, ReplayError> {
    parse(&std::fs::read_to_string(audit).map_err(ReplayError::from_io(audit))?, audit)
}

/// The lines of `text`, the audit read from `audit`, in order.
pub fn parse(text: &str, audit: &Path) -> Result<Vec<AuditLine>, ReplayError> {
    let mut events = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let event: AuditLine = serde_json::from_str(line).map_err(|source| ReplayError::BadLine {
            path: audit.to_owned(),
            line: n + 1,
            source,
        })?;
        events.push(event);
    }
    Ok(events)
}

fn page(source: &str, events: &[AuditLine], folder: &Path) -> Markup {
    let task = events.first().map_or("?", |e| e.task_id.as_str());
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
                p { "From " code { (source) } ", " (events.len()) " events." }
                @for (n, event) in events.iter().enumerate() { (step(n, event, folder)) }
            }
        }
    }
}

/// JSON of a part of the line, as it is shown (compact).
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn step(n: usize, event: &AuditLine, folder: &Path) -> Markup {
    let risk = event.risk.map_or("", |r| r.name());
    html! {
        section.step.(risk) id=(format!("event-{n}")) {
            h2 { (n + 1) ". " (event.event.name()) @if let Some(id) = &event.action_id { " · " code { (id) } } }
            @if let Some(action) = &event.action {
                p { "Action " code { (action.kind.name()) } " " code { (json(&action.target)) } " " code { (json(&action.params)) } }
            }
            @if !risk.is_empty() { p { "Risk: " strong { (risk) } } }
            @if let Some(confirmation) = &event.confirmation {
                p { "Confirmation: " (if confirmation.approved { "approved" } else { "denied" })
                    @if let Some(reason) = &confirmation.reason { " (" (reason) ")" } }
            }
            @if let Some(observation) = &event.observation {
                p { "Observed " code { (observation.title) } " at " code { (observation.url) } }
                @if !observation.errors.is_empty() { p { "Errors: " code { (json(&observation.errors)) } } }
            }
            @for name in event.screenshots.iter().flatten() {
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
