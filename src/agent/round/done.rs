//! `done`: accepted only on the page the model observed, still there, with its `expect`
//! holding. A refusal fails the call and the task goes on.

use super::look::Observed;
use super::run::Agent;
use super::task::Task;
use super::trace::TraceEvent;
use crate::agent::closed_loop::{Expectation, Observation, verify};
use crate::agent::settle::left_since;
use crate::agent::tools::{Refusal, ToolFailure, ToolName, ToolRun};
use crate::browser::{BrowserError, PageScript, TabId};

impl Agent<'_> {
    /// `done`, accepted only on the page the model observed, still there, with its `expect`
    /// holding. A refusal fails the call and the task goes on.
    pub(super) async fn done(
        &self,
        task: &mut Task,
        round: u32,
        observed: Option<&Observed>,
        summary: String,
        expect: Option<&Expectation>,
    ) -> ToolRun {
        const TOOL: ToolName = ToolName::Done;
        let refused = match self.refusal(task, round, observed, expect).await {
            Ok(None) => return ToolRun { done: Some(summary.clone()), ..ToolRun::ok(summary) },
            Ok(Some(refusal)) => refusal,
            Err(e) => return ToolRun::err(ToolFailure::Browser(e).of(TOOL)),
        };
        task.trace.record(round, TraceEvent::DoneRefused { why: refused.to_string() });
        ToolRun::err(ToolFailure::DoneRefused { why: refused }.of(TOOL))
    }

    async fn refusal(
        &self,
        task: &mut Task,
        round: u32,
        observed: Option<&Observed>,
        expect: Option<&Expectation>,
    ) -> Result<Option<Refusal>, BrowserError> {
        if self.config.done_needs_verification && expect.is_none() {
            return Ok(Some(Refusal::NoVerification));
        }
        let Some(tab) = task.tabs.focused().cloned() else { return Ok(None) };
        if let Some(Observed { observation, position }) = observed
            && let Some(how) = self.page_changed(&tab, observation, *position).await?
        {
            // The check belongs to the loop-top guard: switched off, the done goes through as
            // in the original race, and the trace says what it was accepted on.
            if self.config.loop_top_guard {
                return Ok(Some(Refusal::PageChanged { how }));
            }
            task.trace.record(round, TraceEvent::DoneOnLeavingPage { how });
        }
        let Some(expect) = expect else { return Ok(None) };
        let verdict = verify(self.port, &tab, expect, self.config.verify_timeout).await?;
        let refusal = (!verdict.held()).then(|| Refusal::VerificationFailed { misses: verdict.words() });
        task.trace.record(round, TraceEvent::Verification { tool: ToolName::Done, verdict });
        Ok(refusal)
    }

    /// How the focused tab is no longer the page the model observed, if it is not.
    async fn page_changed(
        &self,
        tab: &TabId,
        observation: &Observation,
        position: u64,
    ) -> Result<Option<String>, BrowserError> {
        if observation.tab != *tab {
            return Ok(Some(format!("the focused tab is {tab}, the observed one {}", observation.tab)));
        }
        if let Some(url) = left_since(self.port, tab, position) {
            return Ok(Some(format!("it began to leave for {url}")));
        }
        if self.port.tab(tab).await?.pending_url.is_some() {
            return Ok(Some("a navigation is in flight".into()));
        }
        let document = self.port.call(tab, &DOCUMENT_ID, &[]).await?;
        if document.as_str() != Some(observation.document.as_str()) {
            return Ok(Some("the tab shows another document".into()));
        }
        Ok(None)
    }
}

/// The identity the snapshot gave the tab's document (null before its first snapshot).
const DOCUMENT_ID: PageScript = PageScript { name: "document id", function: "() => document.__navguard?.id ?? null" };
