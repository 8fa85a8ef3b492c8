//! The audit: `DIR/audit/<taskId>.jsonl`, one [`AuditLine`] a line, appended and synced to disk
//! before the call that caused it is answered; screenshots as files beside it. A crash can tear
//! only the last line: on start, a last line without its newline, or one that does not parse, is
//! cut off (and said so in the log). `navguard replay` reads the lines back as the same type.

use crate::model::{Action, Observation, PlanStep, Risk};
use crate::redact::Redactor;
use base64::Engine;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
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
    /// The caller sent it: the report is refused and nothing of it is recorded.
    #[error("observation.artifacts.screenshots[{index}]: not base64 ({source})")]
    Screenshot {
        index: usize,
        #[source]
        source: base64::DecodeError,
    },
    #[error("an audit line could not be encoded: {0}")]
    Encode(#[source] serde_json::Error),
}

navguard::closed_set! {
    /// What an audit line records.
    pub enum AuditEvent("audit event") {
        /// A task was started (its goal, url and plan).
        Started = "started",
        /// The model planned the task's next step.
        Planned = "planned",
        /// An action was handed out to the executor.
        Dispatched = "dispatched",
        /// A high-risk action waits for the user.
        ConfirmationRequested = "confirmation-requested",
        Confirmed = "confirmed",
        Denied = "denied",
        /// The executor refused to run an unconfirmed high-risk action.
        RefusedUnconfirmed = "refused-unconfirmed",
        /// An action that changes a page waits for the user's grant of its origin.
        PermissionRequested = "permission-requested",
        /// The user granted the origin an action waited on: it is handed out.
        PermissionGranted = "permission-granted",
        /// The user refused the origin: the action will never run.
        PermissionRefused = "permission-refused",
        /// The executor found the page on an origin not granted at the last moment: the action
        /// did not run.
        RefusedNotPermitted = "refused-not-permitted",
        /// The page was still navigating: the action did not run and is handed out again.
        WaitingPage = "waiting-page",
        /// An action ran and its observation was reported.
        Reported = "reported",
        /// The executor refused a `done`.
        DoneRefused = "done-refused",
        /// A verified `done` ended the task.
        Succeeded = "succeeded",
        Failed = "failed",
        Canceled = "canceled",
    }
}

navguard::closed_set! {
    /// What kind of client made a request.
    pub enum ClientKind("client kind") {
        /// navguard's executor (it says so in `X-Navguard-Client`).
        Executor = "executor",
        /// Any other caller of the HTTP API.
        Api = "api",
        /// The console, in a person's browser.
        Console = "console",
    }
}

/// Who made the request an audit line records: the kind of client, the name it gives itself
/// (`X-Navguard-Client-Id`; `anonymous` when it gives none), the browser it drives (an
/// executor's `X-Navguard-Browser`) and its `User-Agent`. Redacted as the rest of the line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    pub kind: ClientKind,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
}

/// A user's answer to a confirmation request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    pub approved: bool,
    pub reason: Option<String>,
}

/// What a verified `done` was verified on: the observation as reported and its screenshots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub observation: Observation,
    pub screenshots: Vec<String>,
}

/// One line of a task's audit. Which fields an event fills: `started` goal, url, plan;
/// `planned` step; `dispatched` and `confirmation-requested` action, risk; `confirmed` and
/// `denied` confirmation; `permission-requested` action, origin; `permission-granted` and
/// `permission-refused` origin; `reported`, `waiting-page`, `refused-unconfirmed`,
/// `refused-not-permitted` and `done-refused` observation, screenshots; `succeeded` summary, verified; `failed` error. A field an event does
/// not fill is left out of its line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditLine {
    /// When it was written, in milliseconds since the Unix epoch.
    pub ts: u64,
    pub task_id: String,
    /// `null` on the task's own events (started, planned, failed, canceled).
    pub action_id: Option<String>,
    pub event: AuditEvent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// The task's url: on `started` only, where it is `null` if the task has none (so the outer
    /// option says whether the line has the key at all).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub url: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Vec<PlanStep>>,
    /// The model's step (a list of one, as `plan` is a list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<Vec<PlanStep>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
    /// The origin a permission is asked, granted or refused for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<Observation>,
    /// The screenshots' file names, beside the audit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshots: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<Evidence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Who made the request the line records; none on a line no request made (the model's
    /// step, planned in the background).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<Client>,
}

/// A key that is there, even as `null`, is `Some` (serde's own reading of `Option<Option<T>>`
/// would make `null` `None`, the same as a missing key).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

impl AuditLine {
    /// A line of `event` for `task_id` (and the action it is about), stamped now, with no details.
    pub fn new(event: AuditEvent, task_id: &str, action_id: Option<&str>) -> Self {
        Self {
            ts: now_ms(),
            task_id: task_id.to_owned(),
            action_id: action_id.map(str::to_owned),
            event,
            goal: None,
            url: None,
            plan: None,
            step: None,
            action: None,
            risk: None,
            confirmation: None,
            origin: None,
            observation: None,
            screenshots: None,
            summary: None,
            verified: None,
            error: None,
            client: None,
        }
    }
}

/// The audit folder, and the redaction every line goes through.
#[derive(Debug, Clone)]
pub struct Audit {
    dir: PathBuf,
    redactor: Redactor,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AuditError + '_ {
    move |source| AuditError::Io { path: path.to_owned(), source }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Audit {
    /// Opens (or makes) `dir` and repairs any torn last line; its lines are redacted by
    /// `redactor`.
    pub fn open(dir: PathBuf, redactor: Redactor) -> Result<Self, AuditError> {
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let audit = Self { dir, redactor };
        for entry in std::fs::read_dir(&audit.dir).map_err(io(&audit.dir))? {
            let path = entry.map_err(io(&audit.dir))?.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                repair(&path)?;
            }
        }
        Ok(audit)
    }

    /// The redaction in force.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The audit folder (the screenshots are files in it).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The task's audit file.
    pub fn path(&self, task_id: &str) -> PathBuf {
        self.dir.join(format!("{task_id}.jsonl"))
    }

    /// Appends one line (redacted) to its task's audit and syncs it to disk.
    pub fn append(&self, line: &AuditLine) -> Result<(), AuditError> {
        // Redacted as JSON, every string but the identifiers: a field added to the line later is
        // redacted without anyone having to remember it.
        let mut value = serde_json::to_value(line).map_err(AuditError::Encode)?;
        self.redactor.value(&mut value);
        let path = self.path(&line.task_id);
        let mut file = OpenOptions::new().create(true).append(true).open(&path).map_err(io(&path))?;
        let mut text = value.to_string();
        text.push('\n');
        file.write_all(text.as_bytes()).map_err(io(&path))?;
        file.sync_data().map_err(io(&path))
    }

    /// Writes base64 PNG screenshots beside the audit; returns their file names.
    pub fn screenshots(&self, task_id: &str, action_id: &str, shots: &[String]) -> Result<Vec<String>, AuditError> {
        let mut names = Vec::with_capacity(shots.len());
        for (n, shot) in shots.iter().enumerate() {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(shot)
                .map_err(|source| AuditError::Screenshot { index: n, source })?;
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

/// How many leading bytes of an audit file are whole, parseable lines. Parseable as JSON, not as
/// an [`AuditLine`]: this cuts what a crash tore, never a whole line another version wrote.
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
    use crate::model::{ObservationCode, ReportedError, ToolName};

    #[test]
    fn a_torn_last_line_is_cut_and_whole_lines_stay() {
        assert_eq!(intact_prefix(b"{\"a\":1}\n{\"b\":2}\n{\"c\":"), 16);
        assert_eq!(intact_prefix(b"{\"a\":1}\n"), 8);
        assert_eq!(intact_prefix(b"{\"a\":1}\nnot json\n"), 8);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t1.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").unwrap();
        let audit = Audit::open(dir.path().to_owned(), Redactor::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
        let failed =
            AuditLine { error: Some("mail ada@example.org".into()), ..AuditLine::new(AuditEvent::Failed, "t1", None) };
        audit.append(&failed).unwrap();
        let last = std::fs::read_to_string(&path).unwrap().lines().last().unwrap().to_owned();
        let last: AuditLine = serde_json::from_str(&last).unwrap();
        assert_eq!((last.event, last.error.as_deref()), (AuditEvent::Failed, Some("mail [redacted]")));
    }

    #[test]
    fn every_string_of_a_line_is_redacted_but_the_identifiers() {
        let dir = tempfile::tempdir().unwrap();
        let audit = Audit::open(dir.path().to_owned(), Redactor::default()).unwrap();
        let observation = Observation {
            url: "http://127.0.0.1:1/u/ada@example.org".into(),
            title: "Call +49 30 1234-567".into(),
            errors: vec![ReportedError { code: ObservationCode::Timeout.into(), message: "ada@example.org".into() }],
            ..Observation::default()
        };
        let line = AuditLine {
            observation: Some(observation.clone()),
            verified: Some(Evidence { observation, screenshots: vec!["t0301234567-a0-0.png".into()] }),
            confirmation: Some(Confirmation { approved: false, reason: Some("tel 0301234567".into()) }),
            ..AuditLine::new(AuditEvent::Reported, "t0301234567", Some("t0301234567-a0"))
        };
        audit.append(&line).unwrap();
        let text = std::fs::read_to_string(audit.path("t0301234567")).unwrap();
        assert!(
            !text.contains("ada@example.org") && !text.contains("1234-567") && !text.contains("tel 0301234567"),
            "{text}"
        );
        let back: AuditLine = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!((back.task_id.as_str(), back.action_id.as_deref()), ("t0301234567", Some("t0301234567-a0")));
        assert_eq!(back.verified.unwrap().screenshots, ["t0301234567-a0-0.png"], "a file name is no phone number");
        assert_eq!(back.observation.unwrap().errors[0].message, "[redacted]");
    }

    #[test]
    fn a_line_reads_back_as_it_was_written_and_a_line_of_before_the_type_reads_too() {
        let started = AuditLine {
            goal: Some("buy".into()),
            url: Some(None),
            plan: Some(vec![PlanStep { round: 1, tool: ToolName::Done, args: serde_json::Map::new() }]),
            ..AuditLine::new(AuditEvent::Started, "t1", None)
        };
        let text = serde_json::to_string(&started).unwrap();
        assert!(text.contains("\"url\":null") && text.contains("\"actionId\":null"), "{text}");
        assert!(!text.contains("\"risk\""), "a field the event does not fill is left out: {text}");
        assert_eq!(serde_json::from_str::<AuditLine>(&text).unwrap(), started);
        // As the service wrote them before the audit line was a type (keys in sorted order).
        let dispatched = r#"{"action":{"actionId":"t1-a0","confirmed":false,"params":{"url":"http://x/"},"requiresConfirmation":false,"risk":"low","taskId":"t1","type":"navigate"},"actionId":"t1-a0","event":"dispatched","risk":"low","taskId":"t1","ts":1}"#;
        let line: AuditLine = serde_json::from_str(dispatched).unwrap();
        assert_eq!(
            (line.event, line.action.map(|a| a.kind), line.risk),
            (AuditEvent::Dispatched, Some(ToolName::Navigate), Some(Risk::Low))
        );
        assert_eq!(
            serde_json::to_value(AuditLine::new(AuditEvent::Canceled, "t1", None)).unwrap()["event"],
            "canceled"
        );
    }
}
