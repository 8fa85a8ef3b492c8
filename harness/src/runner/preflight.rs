//! Before a run starts anything: the agent `--agent` names, found, checked against the browser
//! and started once ([`crate::under_test::preflight`]), so that an agent that cannot serve is
//! one line before any browser starts.

use super::{RunOptions, StartError};
use crate::run_context::RunMode;
use crate::under_test::AgentError;
use crate::under_test::description::Description;
use crate::under_test::preflight::Ready;
use navguard::adapter::BrowserKind;
use std::sync::Arc;

/// Finds the agent `--agent` names (else keeps the one `mode` has) and checks it once: `mode`
/// gets it and its version. The tools it lacks are said here, once, rather than in every
/// scenario that calls them.
pub(super) async fn check_agent(options: &RunOptions, mode: &mut RunMode) -> Result<(), StartError> {
    if let Some(name_or_path) = options.agent.as_deref() {
        mode.agent = Some(agent_for(name_or_path, options.browser.browser)?);
    }
    let Some(agent) = &mode.agent else { return Ok(()) };
    let ready = preflight(Arc::clone(agent)).await?;
    if !ready.lacking.is_empty() {
        let lacking: Vec<&str> = ready.lacking.iter().map(|t| t.name()).collect();
        println!(
            "navguard: {} has no {}: the scenarios calling them are not applicable to it",
            agent.name,
            lacking.join(", ")
        );
    }
    mode.agent_version = Some(ready.version).filter(|v| !v.is_empty());
    Ok(())
}

/// The agent `--agent` names, if it can drive `browser`.
fn agent_for(name_or_path: &str, browser: BrowserKind) -> Result<Arc<Description>, StartError> {
    let description = Description::find(name_or_path)?;
    if !description.drives(browser.name()) {
        return Err(AgentError::Browser {
            agent: description.name.clone(),
            browser: browser.name().to_owned(),
            supported: description.browsers.join(", "),
        }
        .into());
    }
    Ok(Arc::new(description))
}

/// Starts the agent once before the run ([`crate::under_test::preflight`]).
async fn preflight(agent: Arc<Description>) -> Result<Ready, StartError> {
    // The agents that launch a browser of their own launch this one.
    let chromium =
        BrowserKind::Chromium.binary().map(|p| p.display().to_string()).unwrap_or_else(|_| "chromium".into());
    Ok(crate::under_test::preflight::check(agent, &chromium).await?)
}
