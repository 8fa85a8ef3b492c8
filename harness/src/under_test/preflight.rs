//! The check before a run: an agent that does not start, does not speak its protocol, or lacks
//! a tool every scenario needs is found here, once, in one line, before any browser starts;
//! not as the same failure in every scenario.

use super::description::Description;
use super::{AgentError, NeutralTool, start_kind};
use std::sync::Arc;

/// The tools every scenario needs: its `Given the agent under test is on` navigates, and its
/// calls are judged by what a snapshot shows.
pub const REQUIRED: &[NeutralTool] = &[NeutralTool::Navigate, NeutralTool::Snapshot];

/// What the check found of a usable agent.
#[derive(Clone, Debug, Default)]
pub struct Ready {
    /// Its name and version as it gives them.
    pub version: String,
    /// The neutral tools it has no usable counterpart for: the scenarios calling them are not
    /// applicable to it.
    pub lacking: Vec<NeutralTool>,
}

/// Starts the agent once (not for navguard's core, which is in process), checks it offers what
/// every scenario needs, and ends it.
pub async fn check(description: Arc<Description>, chromium: &str) -> Result<Ready, AgentError> {
    let Some(agent) = start_kind(Arc::clone(&description), chromium, None).await? else {
        // navguard's core is part of the harness: it has every tool, and nothing to start.
        return Ok(Ready { version: format!("navguard {}", env!("CARGO_PKG_VERSION")), lacking: Vec::new() });
    };
    let lacking: Vec<NeutralTool> = NeutralTool::ALL.iter().copied().filter(|t| !agent.supports(*t)).collect();
    let version = agent.version().unwrap_or_default();
    agent.close().await;
    let missing: Vec<&str> = REQUIRED.iter().filter(|t| lacking.contains(t)).map(|t| t.name()).collect();
    if !missing.is_empty() {
        let what_to_do = description.kind.how_to_add_a_tool(&description.source);
        return Err(AgentError::MissingTool {
            agent: description.name.clone(),
            missing: missing.join(" and "),
            what_to_do,
        });
    }
    Ok(Ready { version, lacking })
}
