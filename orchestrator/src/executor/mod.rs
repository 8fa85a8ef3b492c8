//! The executor (docs/design/orchestrator.md): `navguard executor`, beside the browser. It launches
//! its browser (the core's adapter), asks the orchestrator for actions, and runs each task on its
//! own user context (its own tabs) through the agent core's loop, tools and guards ([`runner`]). It
//! journals what it runs, so that restarted it never runs an action twice; it types `{secret:NAME}`
//! values only at the last moment and reports nothing that holds one; it retries while the
//! orchestrator restarts; and its browser never outlives it (the adapter's guardian kills the
//! driver's process group when this process dies, SIGKILL included).

mod client;
mod journal;
mod runner;
mod secrets;

pub use client::Refused;
pub use journal::{Entry, Journal, JournalError};
pub use secrets::{Secrets, SecretsError, UnknownSecret};

use crate::MIN_SECRET;
use crate::risk::RiskPolicy;
use navguard::adapter::{BidiBrowser, BrowserConfig, BrowserKind, LaunchError};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Why the executor would not start, or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecutorError {
    #[error("NAVGUARD_SECRET is not set: the executor needs the orchestrator's secret")]
    NoSecret,
    #[error("NAVGUARD_SECRET is too short: it needs at least {MIN_SECRET} characters")]
    ShortSecret,
    #[error("--server {0}: give the orchestrator's URL on loopback, e.g. http://127.0.0.1:8080")]
    BadServer(String),
    #[error(transparent)]
    Secrets(#[from] SecretsError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(
        "the browser disconnected: the executor stops (restarted, its journal keeps it from running an action twice)"
    )]
    BrowserLost,
}

impl ExecutorError {
    /// The operator's mistake (exit 2), not a failure at run time.
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::NoSecret | Self::ShortSecret | Self::BadServer(_) | Self::Secrets(_))
            || matches!(self, Self::Launch(e) if e.is_missing_binary())
    }
}

/// What `navguard executor` was given.
#[derive(Debug, Clone)]
pub struct ExecutorConfig {
    /// The orchestrator's base URL (loopback only).
    pub server: String,
    pub browser: BrowserKind,
    /// A running WebDriver remote end (a Grid) instead of a local driver.
    pub webdriver_url: Option<String>,
    pub headless: bool,
    /// Where the journal lives.
    pub data_dir: PathBuf,
    /// The dotenv file of `{secret:NAME}` values.
    pub secrets: Option<PathBuf>,
    /// `NAVGUARD_SECRET`.
    pub secret: Option<String>,
    /// What the last-moment check judges high-risk (the orchestrator's words, as a rule).
    pub risk: RiskPolicy,
    /// The folder `upload_file` may take files from (`--files`; none by default).
    pub files: Option<PathBuf>,
}

/// The orchestrator's URL, if it is an http URL on loopback.
fn loopback_server(server: &str) -> Option<String> {
    let url = url::Url::parse(server).ok()?;
    let loopback = match url.host()? {
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
        url::Host::Domain(name) => name == "localhost",
    };
    (url.scheme() == "http" && loopback).then(|| server.trim_end_matches('/').to_owned())
}

/// Checks the config, launches the browser, prints the ready line, and runs tasks until the
/// process is told to stop (Ctrl-C, SIGTERM) or the browser is lost.
pub async fn run(config: ExecutorConfig) -> Result<(), ExecutorError> {
    let secret = config.secret.ok_or(ExecutorError::NoSecret)?;
    if secret.chars().count() < MIN_SECRET {
        return Err(ExecutorError::ShortSecret);
    }
    let server = loopback_server(&config.server).ok_or_else(|| ExecutorError::BadServer(config.server.clone()))?;
    let secrets = match &config.secrets {
        Some(path) => Secrets::load(path)?,
        None => Secrets::default(),
    };
    let journal = Journal::open(&config.data_dir)?;
    // FAILPOINTS (tests only) names where the executor dies on purpose.
    let _failpoints = fail::FailScenario::setup();
    let browser_config = BrowserConfig {
        browser: config.browser,
        webdriver_url: config.webdriver_url.clone(),
        headless: config.headless,
        ..BrowserConfig::default()
    };
    let browser = Arc::new(BidiBrowser::launch(browser_config).await?);
    println!("navguard executor: {} ready; polling {server}", config.browser.name());
    let shared = Arc::new(runner::Shared {
        client: client::Client::new(&server, secret, config.browser.name()),
        journal,
        secrets,
        risk: config.risk.clone(),
        files: config.files.clone(),
    });
    let cancel = CancellationToken::new();
    let outcome = tokio::select! {
        biased;
        // A stop that was asked for is a clean stop, even when the browser went down with it.
        () = stop_signal() => Ok(()),
        outcome = serve_tasks(&shared, &browser, &cancel) => outcome,
    };
    cancel.cancel();
    browser.shutdown().await;
    outcome
}

/// Ctrl-C or SIGTERM.
async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    // Either signal ends the executor the same way: the order is only fixed.
    tokio::select! {
        biased;
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

/// Hands each new task to a runner of its own; polls for new ones while the runners poll theirs.
async fn serve_tasks(
    shared: &Arc<runner::Shared>,
    browser: &Arc<BidiBrowser>,
    cancel: &CancellationToken,
) -> Result<(), ExecutorError> {
    let mut runners: HashMap<String, JoinHandle<()>> = HashMap::new();
    loop {
        if browser.is_disconnected() {
            return Err(ExecutorError::BrowserLost);
        }
        runners.retain(|_, runner| !runner.is_finished());
        let busy: Vec<String> = runners.keys().cloned().collect();
        let action = match shared.client.next(None, &busy).await {
            Ok(answer) => answer.action,
            Err(failed) => {
                tracing::warn!(target: "navguard::executor", "{failed}");
                None
            }
        };
        let Some(action) = action else {
            tokio::time::sleep(runner::POLL_EVERY).await;
            continue;
        };
        let (shared, browser, cancel) = (Arc::clone(shared), Arc::clone(browser), cancel.child_token());
        let task_id = action.task_id.clone();
        tracing::info!(target: "navguard::executor", "task {task_id}: taken on");
        runners.insert(
            task_id.clone(),
            tokio::spawn(async move {
                // Each task its own user context: its own tabs, its own events.
                let port = match browser.open_port().await {
                    Ok(port) => port,
                    Err(e) => {
                        tracing::warn!(target: "navguard::executor", "task {task_id}: no tabs for it: {e}");
                        return;
                    }
                };
                runner::run_task(shared, &port, action, cancel).await;
                let _ = browser.close_port(&port).await;
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_orchestrator_must_be_on_loopback() {
        assert_eq!(loopback_server("http://127.0.0.1:8080/").as_deref(), Some("http://127.0.0.1:8080"));
        assert!(loopback_server("http://localhost:1").is_some());
        assert!(loopback_server("http://[::1]:1").is_some());
        assert!(loopback_server("http://10.0.0.1:8080").is_none());
        assert!(loopback_server("https://127.0.0.1:8080").is_none());
        assert!(loopback_server("127.0.0.1:8080").is_none());
    }
}
