//! The model seam: the loop asks a [`Planner`] for one turn per round. An LLM client plugs in
//! here without touching the loop; [`ScriptedPlanner`] plays a fixed plan for the harness.

use crate::agent::closed_loop::Observation;
use crate::agent::tools::ToolName;
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
    /// A failed call's kind (the words are in `result`).
    #[serde(skip)]
    pub failure: Option<crate::agent::tools::FailureKind>,
    /// The picture a `screenshot` took, a PNG: for a caller that can show it (an MCP client's
    /// image content, the orchestrator's evidence); the model of the round loop is told its
    /// size in `result`.
    #[serde(skip)]
    pub picture: Option<std::sync::Arc<[u8]>>,
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
///
/// A model client implements it: given the round's observation (taken after the guards), the
/// tools it may call and what the last calls answered, it answers with the calls to make.
///
/// ```
/// use async_trait::async_trait;
/// use navguard::prelude::*;
/// use serde_json::json;
///
/// /// Opens a page, then calls it done.
/// struct OpenThenDone;
///
/// #[async_trait]
/// impl Planner for OpenThenDone {
///     async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
///         let call = match request.observation {
///             None => ToolCall { name: "open_url".into(), args: json!({ "url": "https://example.com/" }) },
///             Some(page) => ToolCall { name: "done".into(), args: json!({ "summary": page.title }) },
///         };
///         Ok(ModelTurn { calls: vec![call] })
///     }
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), PlannerError> {
///     let request = PlanRequest { round: 1, observation: None, tools: ToolName::ALL, previous: &[], notices: &[] };
///     assert_eq!(OpenThenDone.next_turn(request).await?.calls[0].name, "open_url");
///     Ok(())
/// }
/// ```
#[async_trait]
pub trait Planner: Send + Sync {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError>;
}

/// A model that plays a plan: the calls of each round, and a think time per turn.
///
/// Like a model reading its observation, it names elements by ref: `{ref:<css>}` in an
/// argument becomes the ref this round's observation gave the element listed with selector
/// `<css>`, and `{ref:<css>@<r>}` the one round r's observation gave it (which may be stale by
/// now: that is the point of such a plan). A selector no observation listed stays as
/// `{unknown ref:<css>}`, which no tool takes.
///
/// ```
/// use navguard::prelude::*;
/// use serde_json::json;
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), PlannerError> {
///     let mut plan = ScriptedPlanner::new();
///     plan.add(1, "open_url", json!({ "url": "https://example.com/" }));
///
///     // Round 1, no page yet: the calls planned for it, as a model would answer.
///     let request = PlanRequest { round: 1, observation: None, tools: ToolName::ALL, previous: &[], notices: &[] };
///     let turn = plan.next_turn(request).await?;
///     assert_eq!(turn.calls, [ToolCall { name: "open_url".into(), args: json!({ "url": "https://example.com/" }) }]);
///
///     // A round with nothing planned answers with no call (the agent then stops: no action).
///     let request = PlanRequest { round: 2, observation: None, tools: ToolName::ALL, previous: &[], notices: &[] };
///     assert!(plan.next_turn(request).await?.calls.is_empty());
///     Ok(())
/// }
/// ```
#[derive(Debug, Default)]
pub struct ScriptedPlanner {
    rounds: BTreeMap<u32, Vec<ToolCall>>,
    think: Duration,
    think_in_round: BTreeMap<u32, Duration>,
    /// The observation of each round played so far.
    seen: std::sync::Mutex<BTreeMap<u32, Observation>>,
}

/// The planner of a [`Session`](super::Session) that a caller drives one call at a time (an
/// MCP client, a conformance harness): nobody plans, the caller calls the tools.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoPlanner;

#[async_trait]
impl Planner for NoPlanner {
    async fn next_turn(&self, _: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
        Ok(ModelTurn { calls: Vec::new() })
    }
}

impl ScriptedPlanner {
    /// A copy that keeps what this one was shown (a plain clone plays afresh).
    pub fn clone_played(&self) -> Self {
        let copy = self.clone();
        *copy.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = self.observations();
        copy
    }
}

/// A copy plays the plan afresh: it has seen no observation yet.
impl Clone for ScriptedPlanner {
    fn clone(&self) -> Self {
        Self {
            rounds: self.rounds.clone(),
            think: self.think,
            think_in_round: self.think_in_round.clone(),
            seen: std::sync::Mutex::default(),
        }
    }
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

    /// The observations this plan was given, by round (what the model saw).
    pub fn observations(&self) -> BTreeMap<u32, Observation> {
        self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
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
        let mut seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(observation) = request.observation {
            seen.insert(request.round, observation.clone());
        }
        let mut calls = self.rounds.get(&request.round).cloned().unwrap_or_default();
        for call in &mut calls {
            resolve_refs(&mut call.args, request.round, &seen);
        }
        Ok(ModelTurn { calls })
    }
}

/// Replaces the `{ref:…}` placeholders in every string of `value` (see [`ScriptedPlanner`]).
fn resolve_refs(value: &mut Value, round: u32, seen: &BTreeMap<u32, Observation>) {
    match value {
        Value::String(text) => *text = resolve_text(text, round, seen),
        Value::Array(items) => items.iter_mut().for_each(|v| resolve_refs(v, round, seen)),
        Value::Object(map) => map.values_mut().for_each(|v| resolve_refs(v, round, seen)),
        _ => {}
    }
}

fn resolve_text(text: &str, round: u32, seen: &BTreeMap<u32, Observation>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{ref:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "{ref:".len()..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let spec = &after[..end];
        let (css, from) = match spec.rsplit_once('@').and_then(|(css, r)| Some((css, r.parse::<u32>().ok()?))) {
            Some((css, r)) => (css, r),
            None => (spec, round),
        };
        let found = seen.get(&from).and_then(|o| o.elements.iter().find(|e| e.selector == css));
        match found {
            Some(element) => out.push_str(&element.reference.to_string()),
            None => out.push_str(&format!("{{unknown ref:{spec}}}")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::closed_loop::Element;
    use crate::browser::TabId;

    fn observed(document: &str) -> Observation {
        let element = |selector: &str, n| Element {
            reference: format!("{document}.{n}").parse().unwrap(),
            selector: selector.into(),
            tag: "a".into(),
            role: "link".into(),
            name: String::new(),
            text: String::new(),
            value: None,
            form: None,
        };
        Observation {
            snapshot: "s1".into(),
            tab: TabId::from("t"),
            document: document.into(),
            url: "http://a.test/".into(),
            title: String::new(),
            text: String::new(),
            elements: vec![element("#go", 1), element("#q", 2)],
            dialog: None,
            frames: Vec::new(),
        }
    }

    #[test]
    fn a_ref_placeholder_takes_the_ref_of_this_round_or_of_a_named_round() {
        let seen = BTreeMap::from([(1, observed("aaa")), (2, observed("bbb"))]);
        assert_eq!(resolve_text("{ref:#go}", 2, &seen), "bbb.1");
        assert_eq!(resolve_text("{ref:#q@1} and {ref:#go}", 2, &seen), "aaa.2 and bbb.1");
        assert_eq!(resolve_text("{ref:#nope}", 2, &seen), "{unknown ref:#nope}");
        assert_eq!(resolve_text("no refs {ref:", 2, &seen), "no refs {ref:");
    }
}
