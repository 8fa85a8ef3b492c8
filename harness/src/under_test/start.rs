//! Where an agent's kind becomes a running agent: for a scenario ([`start`]) and for the check
//! before a run ([`start_kind`]).

use super::description::Description;
use super::kind::Kind;
use super::{AgentError, AgentUnderTest, BrowserAt, StartAt, cli, core, jsonl, mcp};
use std::sync::Arc;

/// Starts the agent `description` describes for a scenario (navguard's core when `None`).
pub async fn start(
    description: Option<Arc<Description>>,
    at: StartAt<'_>,
) -> Result<Box<dyn AgentUnderTest>, AgentError> {
    let started = match description {
        Some(d) => start_kind(d, at.chromium, Some(at.browser)).await?,
        None => None,
    };
    // navguard's core runs in process, on the scenario's own tabs.
    let files = at.browser.files.map(std::path::PathBuf::from);
    Ok(started.unwrap_or_else(|| Box::new(core::CoreAgent::new(at.port, files))))
}

/// The one place an agent's kind becomes a running agent, for a scenario and for the check
/// before a run alike. `browser`: the scenario's, or `None` for the check before a run
/// ([`preflight`]), which only starts the agent and lists its tools. `None` back: the kind has
/// no process to start (navguard's core runs in the harness, on a scenario's tabs).
pub(crate) async fn start_kind(
    description: Arc<Description>,
    chromium: &str,
    browser: Option<BrowserAt<'_>>,
) -> Result<Option<Box<dyn AgentUnderTest>>, AgentError> {
    let kind = description.kind;
    let endpoint = browser.unwrap_or_else(|| kind.endpoint_without_browser());
    let agent: Box<dyn AgentUnderTest> = match kind {
        Kind::InProcess => return Ok(None),
        Kind::Mcp => Box::new(mcp::McpAgent::start(description, chromium, endpoint, browser.is_some()).await?),
        Kind::Jsonl => Box::new(jsonl::JsonlAgent::start(description, chromium, endpoint).await?),
        Kind::Cli => Box::new(cli::CliAgent::start(description, chromium, endpoint, browser.is_some()).await?),
    };
    Ok(Some(agent))
}
