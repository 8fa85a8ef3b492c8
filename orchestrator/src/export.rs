//! `GET /api/agent/export?taskId=`: a task's audit as one zip archive, for whoever must keep or
//! pass on what happened: its JSONL (`<taskId>.jsonl`), the screenshots its lines name (beside it,
//! under the names the lines give), and the replay page (`replay.html`, screenshots inline).
//! Stored, not compressed: the screenshots are compressed already and the rest is small.

use crate::audit::AuditLine;
use crate::replay::{ReplayError, page_html, parse};
use std::collections::BTreeSet;
use std::io::{Cursor, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// Why an archive could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    #[error(transparent)]
    Audit(#[from] ReplayError),
    #[error("the archive could not be written: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("the archive could not be written: {0}")]
    Write(#[from] std::io::Error),
}

/// The archive of the task whose audit is `audit` (its screenshots beside it).
pub fn archive(task_id: &str, audit: &Path) -> Result<Vec<u8>, ExportError> {
    let folder = audit.parent().unwrap_or_else(|| Path::new("."));
    let jsonl = std::fs::read_to_string(audit).map_err(ReplayError::from_io(audit))?;
    let lines = parse(&jsonl, audit)?;
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file(format!("{task_id}.jsonl"), stored)?;
    zip.write_all(jsonl.as_bytes())?;
    for name in screenshots(&lines) {
        // A name is the service's own (`<actionId>-<n>.png`); only a plain file name is taken,
        // and a file that is gone is left out, as the replay leaves it out.
        let Some(file) = Path::new(&name).file_name() else { continue };
        let Ok(bytes) = std::fs::read(folder.join(file)) else { continue };
        zip.start_file(file.to_string_lossy(), stored)?;
        zip.write_all(&bytes)?;
    }
    zip.start_file("replay.html", stored)?;
    zip.write_all(page_html(&format!("{task_id}.jsonl"), &lines, folder).as_bytes())?;
    Ok(zip.finish()?.into_inner())
}

/// Every screenshot the lines name, each once.
fn screenshots(lines: &[AuditLine]) -> BTreeSet<String> {
    let own = lines.iter().flat_map(|l| l.screenshots.iter().flatten());
    let evidence = lines.iter().flat_map(|l| l.verified.iter().flat_map(|v| v.screenshots.iter()));
    own.chain(evidence).cloned().collect()
}
