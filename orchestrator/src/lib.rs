//! The orchestrator (docs/design/orchestrator.md): `navguard serve`. It plans a task (a scripted
//! plan, or a model through the core's `Planner`), hands its actions one at a time to an executor
//! beside the browser (the same action, same id, until it is reported; a second report changes
//! nothing), holds high-risk actions for a human's confirmation, and audits every step to disk
//! before it answers. The wire contract is `docs/orchestrator-api.md`; every name in it is kept:
//! its names are [`model`]'s, its calls' bodies [`wire`]'s, one set for the service and the
//! executor alike.

pub mod audit;
pub mod console;
pub mod executor;
pub mod export;
pub mod http;
pub mod model;
pub mod permissions;
pub mod planner;
mod post;
pub mod redact;
pub mod replay;
pub mod risk;
pub mod service;
pub mod skills;
mod state;
pub mod wire;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// The shortest secret the service accepts.
pub const MIN_SECRET: usize = 16;

/// Why the service would not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    #[error("NAVGUARD_SECRET is not set: the orchestrator needs a secret of at least {MIN_SECRET} characters")]
    NoSecret,
    #[error("NAVGUARD_SECRET is too short: it needs at least {MIN_SECRET} characters")]
    ShortSecret,
    #[error("{0} is not a loopback address: the orchestrator listens on 127.0.0.0/8 or ::1 only")]
    NotLoopback(SocketAddr),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Service(#[from] service::ServiceError),
    #[error("the console: {0}")]
    Console(#[from] console::ConsoleError),
    #[error(transparent)]
    Skills(#[from] skills::SkillsError),
    #[error("the server failed: {0}")]
    Serve(#[source] std::io::Error),
}

impl ServeError {
    /// The operator's mistake (exit 2), not a failure at run time.
    pub fn is_usage(&self) -> bool {
        match self {
            Self::NoSecret | Self::ShortSecret | Self::NotLoopback(_) => true,
            Self::Skills(e) => e.is_usage(),
            _ => false,
        }
    }
}

/// What `navguard serve` was given.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub data_dir: PathBuf,
    pub addr: SocketAddr,
    pub secret: Option<String>,
    /// The model that plans tasks started without a plan.
    pub model: Option<planner::HttpModel>,
    /// What makes a click high-risk.
    pub risk: risk::RiskPolicy,
    /// The redaction in force (`--redact FILE` on top of the built-in patterns).
    pub redactor: redact::Redactor,
    /// Whether actions that change a page need the user's grant of their site.
    pub permissions: permissions::PermissionMode,
    /// The folder of the skill library (`--skills DIR`).
    pub skills: Option<PathBuf>,
}

/// Checks the config, opens the store, binds, prints the contract's two lines, and serves
/// until the process ends.
pub async fn serve(config: ServeConfig) -> Result<(), ServeError> {
    let secret = config.secret.ok_or(ServeError::NoSecret)?;
    if secret.chars().count() < MIN_SECRET {
        return Err(ServeError::ShortSecret);
    }
    if !config.addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(config.addr));
    }
    // Opening blocks (it repairs the audit folder), but before anything is served: it holds up no call.
    let skills = config.skills.as_deref().map(read_skills).transpose()?.map(Arc::new);
    let options = service::ServiceOptions {
        risk: config.risk,
        model_plans: config.model.is_some(),
        redactor: config.redactor,
        permissions: config.permissions,
        skills,
    };
    let service = service::Service::open(&config.data_dir, options)?;
    let planner = config.model.map(|m| Arc::new(m) as Arc<dyn planner::TaskPlanner>);
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|source| ServeError::Bind { addr: config.addr, source })?;
    let bound = listener.local_addr().map_err(|source| ServeError::Bind { addr: config.addr, source })?;
    let state = http::AppState::new(service, secret, planner)?;
    announce(&format!(
        "navguard serve: listening on http://{bound}\nnavguard serve: console at http://{bound}/console?token={}\n",
        state.console.token()
    ));
    http::serve_on(listener, Arc::new(state)).await.map_err(ServeError::Serve)
}

/// Prints the start lines in one write, so that a reader who takes the first line and closes
/// the pipe has both in hand. A closed or failed stdout does not stop the service: it is logged.
fn announce(lines: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(lines.as_bytes()).and_then(|()| out.flush()) {
        tracing::warn!(target: "navguard::serve", "could not print the start lines: {e}");
    }
}

/// Reads and indexes the skill library; each file left out is named on stderr with its line
/// (the service starts with the rest).
fn read_skills(dir: &std::path::Path) -> Result<skills::Skills, skills::SkillsError> {
    let (library, skipped) = skills::Skills::load(dir)?;
    for file in &skipped {
        eprintln!("navguard serve: skills: {file}");
    }
    eprintln!("navguard serve: {} skills indexed from {}", library.len(), dir.display());
    Ok(library)
}
