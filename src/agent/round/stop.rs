//! Why a task stopped, with the exact messages a user sees.

use super::planner::PlannerError;
use super::progress::Pattern;
use crate::agent::reliability::PauseReason;
use crate::agent::tools::ToolName;
use crate::browser::BrowserError;
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::sync::Arc;

crate::closed_set! {
    /// The kinds of [`StopReason`], by the names the trace gives them.
    pub enum StopKind("stop reason");

    /// How a task ended. The causes are shared (a stop is cloned into the trace); two stops are
    /// equal when their kinds and details are. Serialised as `{"reason": <kind>}` with the
    /// `summary` or the `detail` text.
    ///
    /// ```
    /// use navguard::prelude::*;
    ///
    /// let stop = StopReason::OriginChanged;
    /// assert_eq!(stop.kind(), StopKind::OriginChanged);
    /// assert_eq!(stop.kind().name(), "origin-changed"); // its name in the trace
    /// assert_eq!(stop.message(), "Page navigated to a different origin, agent stopped");
    /// assert!(!stop.is_success());
    ///
    /// let done = StopReason::Done { summary: "booked the table".into() };
    /// assert!(done.is_success());
    /// assert_eq!(done.message(), "booked the table");
    /// ```
    #[derive(Clone, Debug)]
    pub enum StopReason by kind {
        /// The model called `done`: the task succeeded.
        Done { summary: String } = "done",
        /// The focused tab is on a URL the agent must not operate (or never committed).
        Restricted = "restricted",
        /// The focused tab is on another origin than the one pinned.
        OriginChanged = "origin-changed",
        /// The focused tab was closed.
        TabClosed = "tab-closed",
        /// The user pressed Stop.
        User = "user",
        RoundLimit = "round-limit",
        /// The model answered with no tool call.
        NoAction = "no-action",
        /// The browser went away or failed (during the call of `tool`, if one was running).
        Browser { tool: Option<ToolName>, source: Arc<BrowserError> } = "browser",
        /// The page could not be observed.
        ObservationFailed { source: Arc<BrowserError> } = "observation-failed",
        /// The model could not be asked.
        PlannerFailed { source: Arc<PlannerError> } = "planner-failed",
        /// The agent kept repeating itself after it was warned (the closed loop's no_progress).
        NoProgress { pattern: Pattern } = "no-progress",
        /// The task had to pause for the user (its allowed segments ran out) and the agent runs
        /// without a user to resume it.
        NeedsUser { reason: PauseReason } = "needs-user",
    }
}

impl StopReason {
    /// The browser failed outside a tool call.
    pub fn browser(e: BrowserError) -> Self {
        Self::Browser { tool: None, source: Arc::new(e) }
    }

    /// The message shown to the user (the design's texts, exactly:
    /// docs/design/navigation-transients.md#the-error-matrix).
    pub fn message(&self) -> String {
        match self {
            Self::Done { summary } => summary.clone(),
            Self::Restricted => "Page navigated to a restricted URL, agent stopped".into(),
            Self::OriginChanged => "Page navigated to a different origin, agent stopped".into(),
            Self::TabClosed => "Tab was closed, agent stopped".into(),
            Self::User => "Task stopped by the user".into(),
            Self::RoundLimit => "Round limit reached, agent stopped".into(),
            Self::NoAction => "The model gave no action, agent stopped".into(),
            Self::Browser { .. } => "The browser failed, agent stopped".into(),
            Self::ObservationFailed { .. } => "The page could not be observed, agent stopped".into(),
            Self::PlannerFailed { .. } => "The model could not be asked, agent stopped".into(),
            Self::NoProgress { .. } => "No progress, agent stopped".into(),
            Self::NeedsUser { .. } => "The task needs the user to go on, agent stopped".into(),
        }
    }

    /// The error underneath, if one stopped the task.
    pub fn cause(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Browser { source, .. } | Self::ObservationFailed { source } => Some(&**source),
            Self::PlannerFailed { source } => Some(&**source),
            _ => None,
        }
    }

    /// What went wrong underneath, for the trace and reports (not part of the message): the
    /// cause's text, after the tool that was running.
    pub fn detail(&self) -> Option<String> {
        let cause = self.cause()?;
        Some(match self {
            Self::Browser { tool: Some(tool), .. } => format!("{tool}: {cause}"),
            _ => cause.to_string(),
        })
    }

    /// The message, then what went wrong underneath when something did: the stop's words for
    /// a caller that must say why (an executor's report, an answer to an agent's caller).
    pub fn explained(&self) -> String {
        match self.detail() {
            Some(detail) => format!("{}: {detail}", self.message()),
            None => self.message(),
        }
    }

    /// The task succeeded.
    pub fn is_success(&self) -> bool {
        matches!(self, Self::Done { .. })
    }

    /// The user stopped it.
    pub fn is_aborted(&self) -> bool {
        matches!(self, Self::User)
    }
}

impl PartialEq for StopReason {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Done { summary: a }, Self::Done { summary: b }) => a == b,
            (Self::NoProgress { pattern: a }, Self::NoProgress { pattern: b }) => a == b,
            (Self::NeedsUser { reason: a }, Self::NeedsUser { reason: b }) => a == b,
            _ => self.kind() == other.kind() && self.detail() == other.detail(),
        }
    }
}

impl Eq for StopReason {}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("reason", &self.kind())?;
        if let Self::Done { summary } = self {
            map.serialize_entry("summary", summary)?;
        }
        if let Some(detail) = self.detail() {
            map.serialize_entry("detail", &detail)?;
        }
        if let Self::NoProgress { pattern } = self {
            map.serialize_entry("detail", &pattern.to_string())?;
        }
        if let Self::NeedsUser { reason } = self {
            map.serialize_entry("detail", &reason.to_string())?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stop_explained_is_its_message_then_its_cause_when_it_has_one() {
        let browser = StopReason::Browser { tool: Some(ToolName::Click), source: Arc::new(BrowserError::Disconnected) };
        assert_eq!(browser.explained(), "The browser failed, agent stopped: click: browser disconnected");
        assert_eq!(StopReason::TabClosed.explained(), "Tab was closed, agent stopped");
    }

    #[test]
    fn a_stop_serialises_as_its_kind_with_its_summary_or_detail() {
        let done = StopReason::Done { summary: "ok".into() };
        assert_eq!(serde_json::to_value(done).unwrap(), json!({"reason": "done", "summary": "ok"}));
        assert_eq!(serde_json::to_value(StopReason::OriginChanged).unwrap(), json!({"reason": "origin-changed"}));
        let browser = StopReason::Browser { tool: Some(ToolName::Click), source: Arc::new(BrowserError::Disconnected) };
        assert_eq!(
            serde_json::to_value(&browser).unwrap(),
            json!({"reason": "browser", "detail": "click: browser disconnected"})
        );
        assert!(browser.cause().unwrap().downcast_ref::<BrowserError>().is_some());
    }
}
