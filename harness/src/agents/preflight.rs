//! The check before a run: an agent that does not start, does not speak its protocol, or lacks
//! a tool every scenario needs is found here, once, in one line, before any browser starts;
//! not as the same failure in every scenario.

use super::description::{Description, Kind};
use super::{AgentError, AgentUnderTest, NeutralTool};
use std::sync::Arc;

/// The tools every scenario needs: its `Given the agent under test is on` navigates, and its
/// calls are judged by what a snapshot shows.
pub const REQUIRED: &[NeutralTool] = &[NeutralTool::Navigate, NeutralTool::Snapshot];

/// Where an agent that attaches to a browser is pointed during the check: the discard port on
/// loopback, where nothing listens. Starting and listing its tools must not need the browser.
const NOWHERE: &str = "http://127.0.0.1:9";

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
    let agent: Box<dyn AgentUnderTest> = match description.kind {
        Kind::InProcess => {
            return Ok(Ready { version: format!("navguard {}", env!("CARGO_PKG_VERSION")), lacking: Vec::new() });
        }
        Kind::Mcp => Box::new(super::mcp::McpAgent::start(Arc::clone(&description), chromium, Some(NOWHERE)).await?),
        Kind::Jsonl => {
            // A jsonl agent given no endpoint starts its own browser: the check must not
            // depend on one it cannot reach.
            Box::new(super::jsonl::JsonlAgent::start(Arc::clone(&description), chromium, None).await?)
        }
    };
    let lacking: Vec<NeutralTool> = NeutralTool::ALL.iter().copied().filter(|t| !agent.supports(*t)).collect();
    let version = agent.version().unwrap_or_default();
    agent.close().await;
    let missing: Vec<&str> = REQUIRED.iter().filter(|t| lacking.contains(t)).map(|t| t.name()).collect();
    if !missing.is_empty() {
        let what_to_do = match description.kind {
            Kind::Jsonl => "list it in the `tools` of its answer to the start line".to_owned(),
            _ => format!("map it to one of the agent's tools in {}", description.source),
        };
        return Err(AgentError::MissingTool {
            agent: description.name.clone(),
            missing: missing.join(" and "),
            what_to_do,
        });
    }
    Ok(Ready { version, lacking })
}
