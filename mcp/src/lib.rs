//! navguard's agent core as a Model Context Protocol server over stdio (`navguard mcp`).
//!
//! Its tools are the core's tool table as a caller is offered it ([`ToolSet::Caller`]): each
//! tool's name, description and JSON Schema come from the table, so a tool added there is
//! served without an edit here. Each call runs as the core's round runs it (checked, under the
//! watchdog, refs bound to their document, the action settle, `expect` verified), and its answer
//! shows the page the next round would observe: after the loop-top guard and the wait for a
//! quiet page, never a page that is leaving. The browser starts on the first call, so listing
//! the tools needs none.
//!
//! [`ToolSet::Caller`]: navguard::agent::ToolSet::Caller

mod answer;
mod browser;
mod refs;
mod server;

pub use answer::page_text;
pub use browser::Reach;
pub use refs::{RefBook, UnknownRef};
pub use server::NavguardServer;

use rmcp::ServiceExt as _;
use std::time::Duration;

/// How long the end of a run may take to close the browser before the process goes anyway
/// (the driver's guardian then kills what is left).
const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(15);

/// Why the server could not serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The client never completed the MCP handshake (its input ended, or was not MCP).
    #[error("no MCP handshake on stdin: {0}")]
    Handshake(String),
    #[error("cannot listen for SIGTERM: {0}")]
    Signal(std::io::Error),
}

/// Serves the core's tools on stdin and stdout until the input ends, the client shuts the
/// session down, or SIGTERM or SIGINT comes; then closes the browser it started (a browser it
/// joined is left as it is). `upload_file` takes files from `files` only (none without it).
pub async fn serve_stdio(reach: Reach, files: Option<std::path::PathBuf>) -> Result<(), ServeError> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).map_err(ServeError::Signal)?;
    let mut int = signal(SignalKind::interrupt()).map_err(ServeError::Signal)?;
    let server = NavguardServer::new(reach, files);
    let handle = server.clone();
    let early = server.clone();
    tokio::spawn(async move { early.join_early().await });
    // A signal is an ordered stop: it wins over a handshake that failed because the client went
    // away with it.
    let running = tokio::select! {
        biased;
        _ = term.recv() => { handle.shutdown(SHUTDOWN_DEADLINE).await; return Ok(()) }
        _ = int.recv() => { handle.shutdown(SHUTDOWN_DEADLINE).await; return Ok(()) }
        // The pipe transport reads on tokio's reactor, so a pending read ends with the service
        // (blocking stdin reads cannot be cancelled: the end would wait for the next line).
        running = server.serve(rmcp::transport::stdio_pipes()) => running.map_err(|e| ServeError::Handshake(e.to_string())),
    };
    let running = match running {
        Ok(running) => running,
        Err(e) => {
            handle.shutdown(SHUTDOWN_DEADLINE).await;
            return Err(e);
        }
    };
    let stop = running.cancellation_token();
    // The service's own end first: a signal that came with it changes nothing, as both end in
    // the shutdown below.
    tokio::select! {
        biased;
        ended = running.waiting() => {
            if let Err(e) = ended {
                tracing::warn!(error = %e, "the MCP service ended abnormally");
            }
        }
        _ = term.recv() => stop.cancel(),
        _ = int.recv() => stop.cancel(),
    }
    handle.shutdown(SHUTDOWN_DEADLINE).await;
    Ok(())
}
