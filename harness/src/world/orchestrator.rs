//! The orchestrator a scenario serves in process (`Given the orchestrator serves`): the service
//! on loopback, with its data folder and its console's token URL. It goes with the world: the
//! server stops and the folder is removed.

use crate::error::{StepError, StepResult};
use navguard_orchestrator::http::{AppState, serve_on};
use navguard_orchestrator::permissions::PermissionMode;
use navguard_orchestrator::service::{Service, ServiceOptions};
use std::sync::Arc;

/// The orchestrator of the scenario.
#[derive(Debug)]
pub struct Orchestrated {
    pub service: Service,
    /// Its console's token URL, as `navguard serve` prints it.
    pub console_url: String,
    server: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Orchestrated {
    /// Serves a new orchestrator on `127.0.0.1:0`, asking for site permissions or not.
    pub async fn start(permissions: PermissionMode) -> StepResult<Self> {
        let setup = |what: &str, e: &dyn std::fmt::Display| StepError::Setup(format!("the orchestrator: {what}: {e}"));
        let dir = navguard::__private::scratch_dir("orchestrator-").map_err(|e| setup("its data folder", &e))?;
        let options = ServiceOptions { permissions, ..ServiceOptions::default() };
        let service = Service::open(dir.path(), options).map_err(|e| setup("its store", &e))?;
        // The secret is for API clients; the scenario's person uses the console.
        let state = AppState::new(service.clone(), "a-secret-no-scenario-step-uses".into(), None)
            .map_err(|e| setup("its console", &e))?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| setup("listening", &e))?;
        let base = format!("http://{}", listener.local_addr().map_err(|e| setup("listening", &e))?);
        let console_url = format!("{base}/console?token={}", state.console.token());
        let server = tokio::spawn(async move {
            if let Err(e) = serve_on(listener, Arc::new(state)).await {
                tracing::warn!(target: "navguard::harness", "the scenario's orchestrator stopped: {e}");
            }
        });
        Ok(Self { service, console_url, server, _dir: dir })
    }
}

impl Drop for Orchestrated {
    fn drop(&mut self) {
        self.server.abort();
    }
}
