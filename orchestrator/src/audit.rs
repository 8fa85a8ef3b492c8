//! The audit: `DIR/audit/<taskId>.jsonl`, one JSON object a line, appended and synced to disk
//! before the call that caused it is answered; screenshots as files beside it. A crash can tear
//! only the last line: on start, a last line without its newline, or one that does not parse, is
//! cut off (and said so in the log).

use crate::redact::redact_value;
use base64::Engine;
use serde_json::{Value, json};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Why the audit could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    #[error("audit {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("a screenshot is not base64: {0}")]
    Screenshot(#[source] base64::DecodeError),
}

/// The audit folder.
#[derive(Debug, Clone)]
pub struct Audit {
    dir: PathBuf,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AuditError + '_ {
    move |source| AuditError::Io { path: path.to_owned(), source }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Audit {
    /// Opens (or makes) `dir` and repairs any torn last line.
    pub fn open(dir: PathBuf) -> Result<Self, AuditError> {
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let audit = Self { dir };
        for entry in std::fs::read_dir(&audit.dir).map_err(io(&audit.dir))? {
            let path = entry.map_err(io(&audit.dir))?.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                repair(&path)?;
            }
        }
        Ok(audit)
    }

    /// The task's audit file.
    pub fn path(&self, task_id: &str) -> PathBuf {
        self.dir.join(format!("{task_id}.jsonl"))
    }

    /// Appends one event (redacted) and syncs it to disk.
    pub fn append(
        &self,
        task_id: &str,
        action_id: Option<&str>,
        event: &str,
        mut details: Value,
    ) -> Result<(), AuditError> {
        redact_value(&mut details);
        let mut line = json!({ "ts": now_ms(), "taskId": task_id, "actionId": action_id, "event": event });
        if let (Some(line), Value::Object(details)) = (line.as_object_mut(), details) {
            line.extend(details);
        }
        let path = self.path(task_id);
        let mut file = OpenOptions::new().create(true).append(true).open(&path).map_err(io(&path))?;
        let mut text = line.to_string();
        text.push('\n');
        file.write_all(text.as_bytes()).map_err(io(&path))?;
        file.sync_data().map_err(io(&path))
    }

    /// Writes base64 PNG screenshots beside the audit; returns their file names.
    pub fn screenshots(&self, task_id: &str, action_id: &str, shots: &[String]) -> Result<Vec<String>, AuditError> {
        let mut names = Vec::with_capacity(shots.len());
        for (n, shot) in shots.iter().enumerate() {
            let bytes = base64::engine::general_purpose::STANDARD.decode(shot).map_err(AuditError::Screenshot)?;
            // An action id names its task already (`<taskId>-a<n>`); one from another client
            // may not, so the task's id leads unless it does.
            let name = if action_id.starts_with(task_id) {
                format!("{action_id}-{n}.png")
            } else {
                format!("{task_id}-{action_id}-{n}.png")
            };
            let path = self.dir.join(&name);
            let mut file = File::create(&path).map_err(io(&path))?;
            file.write_all(&bytes).map_err(io(&path))?;
            file.sync_data().map_err(io(&path))?;
            names.push(name);
        }
        Ok(names)
    }
}

/// Cuts a torn last line off an audit file.
fn repair(path: &Path) -> Result<(), AuditError> {
    let text = std::fs::read(path).map_err(io(path))?;
    let keep = intact_prefix(&text);
    if keep < text.len() {
        tracing::warn!(target: "navguard::audit", "{}: cut a torn last line ({} bytes)", path.display(), text.len() - keep);
        let file = OpenOptions::new().write(true).open(path).map_err(io(path))?;
        file.set_len(keep as u64).map_err(io(path))?;
        file.sync_data().map_err(io(path))?;
    }
    Ok(())
}

/// How many leading bytes of an audit file are whole, parseable lines.
fn intact_prefix(text: &[u8]) -> usize {
    let mut keep = 0;
    for line in text.split_inclusive(|b| *b == b'\n') {
        if !line.ends_with(b"\n") || serde_json::from_slice::<Value>(&line[..line.len() - 1]).is_err() {
            break;
        }
        keep += line.len();
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_cut_and_whole_lines_stay() {
        assert_eq!(intact_prefix(b"{\"a\":1}\n{\"b\":2}\n{\"c\":"), 16);
        assert_eq!(intact_prefix(b"{\"a\":1}\n"), 8);
        assert_eq!(intact_prefix(b"{\"a\":1}\nnot json\n"), 8);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t1.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").unwrap();
        let audit = Audit::open(dir.path().to_owned()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
        audit.append("t1", Some("a1"), "reported", json!({"text": "mail ada@example.org"})).unwrap();
        let last = std::fs::read_to_string(&path).unwrap().lines().last().unwrap().to_owned();
        let last: Value = serde_json::from_str(&last).unwrap();
        assert_eq!((last["event"].as_str(), last["text"].as_str()), (Some("reported"), Some("mail [redacted]")));
    }
}
