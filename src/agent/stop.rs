//! Why a task stopped, with the exact messages a user sees.

use serde::Serialize;

/// How a task ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum StopReason {
    /// The model called `done`: the task succeeded.
    Done {
        /// The model's summary.
        summary: String,
    },
    /// The focused tab is on a URL the agent must not operate (or never committed).
    Restricted,
    /// The focused tab is on another origin than the one pinned.
    OriginChanged,
    /// The focused tab was closed.
    TabClosed,
    /// The user pressed Stop.
    User,
    /// The round limit was reached.
    RoundLimit,
    /// The model answered with no tool call.
    NoAction,
    /// The browser went away or failed.
    Browser {
        /// What it said.
        detail: String,
    },
    /// The page could not be observed.
    ObservationFailed {
        /// Why.
        detail: String,
    },
    /// The model could not be asked.
    PlannerFailed {
        /// Why.
        detail: String,
    },
}

impl StopReason {
    /// The message shown to the user (the seed's texts, exactly).
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
        }
    }

    /// What went wrong underneath, for the trace and reports (not part of the message).
    pub fn detail(&self) -> Option<&str> {
        match self {
            Self::Browser { detail } | Self::ObservationFailed { detail } | Self::PlannerFailed { detail } => {
                Some(detail)
            }
            _ => None,
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
