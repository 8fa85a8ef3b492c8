//! The model seam: the loop asks a [`Planner`] for one turn per round. An LLM client plugs in
//! here without touching the loop; [`ScriptedPlanner`] plays a fixed plan for the harness.

use super::observe::Observation;
use super::tools::ToolName;
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// One tool call as the model wrote it (checked later: the name may be no tool at all).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCall {
    pub name: String,
    /// Its arguments (a JSON object).
    pub args: Value,
}

/// One model turn: its tool calls, run in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelTurn {
    pub calls: Vec<ToolCall>,
}

/// The result of one earlier tool call, as the model sees it.
#[derive(Clone, Debug, Serialize)]
pub struct CallResult {
    /// The tool as the model named it.
    pub tool: String,
    pub result: ToolReply,
}

/// What a tool call answered the model. Words on both sides: the model reads text, and the
/// typed error behind a failure has already been classified by the loop (a lost browser stops
/// the task) before it is turned into words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ToolReply {
    Ok(String),
    /// The call failed; the model is told why.
    #[serde(rename = "Err")]
    Failed(String),
}

impl ToolReply {
    pub fn is_ok(&self) -> bool {
        matches!(self, Self::Ok(_))
    }

    /// The reply's text, whichever it is.
    pub fn text(&self) -> &str {
        match self {
            Self::Ok(text) | Self::Failed(text) => text,
        }
    }
}

/// What the model is given in a round.
#[derive(Debug)]
pub struct PlanRequest<'a> {
    /// The round (1-based).
    pub round: u32,
    /// The focused tab, observed after the guard.
    pub observation: Option<&'a Observation>,
    /// The tools it may call.
    pub tools: &'a [ToolName],
    /// The results of the previous round's calls.
    pub previous: &'a [CallResult],
    /// What the model should know that it did not do (a page opened a tab).
    pub notices: &'a [String],
}

/// Why the model could not answer.
#[derive(Debug, thiserror::Error)]
#[error("the model failed: {0}")]
pub struct PlannerError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

impl PlannerError {
    /// Wraps the model client's error (a message will do: `PlannerError::new("quota")`).
    pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self(source.into())
    }
}

/// The model: one turn per round.
#[async_trait]
pub trait Planner: Send + Sync {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError>;
}

/// A model that plays a plan: the calls of each round, and a think time per turn.
#[derive(Clone, Debug, Default)]
pub struct ScriptedPlanner {
    rounds: BTreeMap<u32, Vec<ToolCall>>,
    think: Duration,
    think_in_round: BTreeMap<u32, Duration>,
}

impl ScriptedPlanner {
    /// An empty plan (every round answers with no call).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a call to round `round`, after the ones already there.
    pub fn add(&mut self, round: u32, name: &str, args: Value) {
        self.rounds.entry(round).or_default().push(ToolCall { name: name.to_owned(), args });
    }

    /// Forgets every planned call (think times stay).
    pub fn clear_calls(&mut self) {
        self.rounds.clear();
    }

    /// Makes a round answer with no call.
    pub fn add_empty_round(&mut self, round: u32) {
        self.rounds.entry(round).or_default();
    }

    /// Think time of every turn.
    pub fn think(&mut self, think: Duration) {
        self.think = think;
    }

    /// Think time of one round's turn.
    pub fn think_in_round(&mut self, round: u32, think: Duration) {
        self.think_in_round.insert(round, think);
    }

    /// The think time of `round`.
    pub fn think_time(&self, round: u32) -> Duration {
        self.think_in_round.get(&round).copied().unwrap_or(self.think)
    }
}

#[async_trait]
impl Planner for ScriptedPlanner {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
        // The think time is the scenario (a slow model), not a synchronization.
        tokio::time::sleep(self.think_time(request.round)).await;
        let calls = self.rounds.get(&request.round).cloned().unwrap_or_default();
        Ok(ModelTurn { calls })
    }
}
