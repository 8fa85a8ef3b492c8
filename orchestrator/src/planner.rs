//! The orchestrator's model: a task started without a `plan` is planned one step at a time by a
//! [`TaskPlanner`]; the model's key and its calls live only here, never in the executor. What the
//! model is given is what the audit keeps: observations as reported (already redacted), the
//! actions with what was typed into password fields redacted, and every denial in words.

use crate::model::{Observation, PlanStep, ToolName};
use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Value, json};
use std::time::Duration;

/// One earlier step, as the model is told of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PastStep {
    pub tool: ToolName,
    pub args: Value,
    /// What came of it: "reported", "denied by the user: …", "awaiting confirmation".
    pub outcome: String,
    /// The errors the executor reported for it (code: message).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// What the model is given to plan the next step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanningRequest {
    pub goal: String,
    pub url: Option<String>,
    pub steps: Vec<PastStep>,
    /// The page after the last step, as the executor reported it (redacted).
    pub observation: Option<Observation>,
    /// The skills of the library that best fit the goal and the page: procedures to follow.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<SkillBrief>,
    /// The tools the model is offered (sent as the request's `tools`, not in its text): all it
    /// plans with, less what a skill of the page's site does not allow.
    #[serde(skip)]
    pub tools: Vec<ToolName>,
}

/// A skill as the model is given it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillBrief {
    pub name: String,
    pub description: String,
    /// The procedure (the start of it, for a long one).
    pub procedure: String,
}

/// Why the model gave no usable step.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    #[error("the model at {url} did not answer: {why}")]
    Unreachable { url: String, why: String },
    #[error("the model at {url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("the model's reply is not a tool call ({why}): {reply}")]
    NotAToolCall { why: String, reply: String },
}

/// Plans a task's next step.
#[async_trait]
pub trait TaskPlanner: Send + Sync + std::fmt::Debug {
    async fn next_step(&self, request: &PlanningRequest) -> Result<PlanStep, PlanError>;
}

/// What the model is told it is and how to answer. The tools, each with its description and
/// the JSON Schema of its arguments, go in the request's `tools` (from the core's tool table).
const SYSTEM: &str = "You operate a web browser for a user, one action at a time, through an executor. \
You are given the user's goal, the steps so far with their outcomes, and the page as it is now \
(its url, title, visible text, and its elements: each with a ref, role, name, value and form). \
Call exactly one of the tools you are given (or, if you cannot call tools, answer with one JSON \
object and nothing else: {\"tool\": <name>, \"args\": {...}}); call done once the goal is \
reached. Use refs from the current page only. Where skills are given, they are procedures \
written for this site: follow the one that fits. Write {secret:NAME} where a password or other \
secret the user keeps goes; never ask for its value. A denied action must not be tried again.";

/// The tools a model plans with: what the executor runs for a task.
pub const PLANNED: &[ToolName] = &[
    ToolName::OpenUrl,
    ToolName::Navigate,
    ToolName::GoBack,
    ToolName::Click,
    ToolName::Type,
    ToolName::PressKey,
    ToolName::HandleDialog,
    ToolName::WaitFor,
    ToolName::WaitForNetworkIdle,
    ToolName::Done,
];

/// A model behind an OpenAI-compatible `chat/completions` endpoint over plain http (a local model
/// server: llama.cpp, Ollama, vLLM). TLS is not built in.
#[derive(Clone)]
pub struct HttpModel {
    /// The API's base, e.g. `http://127.0.0.1:11434/v1`.
    base: String,
    model: String,
    /// `NAVGUARD_MODEL_KEY`, sent as a bearer token; never logged.
    key: Option<String>,
    /// Made once: every call ends within the deadline it was made with.
    client: ureq::Agent,
}

/// The key stays out of every debug print.
impl std::fmt::Debug for HttpModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpModel").field("base", &self.base).field("model", &self.model).finish_non_exhaustive()
    }
}

impl HttpModel {
    /// The default deadline of one model call.
    pub const DEADLINE: Duration = Duration::from_secs(60);

    /// The model `model` at `base`, each call within `deadline`.
    pub fn new(base: String, model: String, key: Option<String>, deadline: Duration) -> Self {
        Self { base, model, key, client: crate::post::client(deadline) }
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base.trim_end_matches('/'))
    }

    /// The call's body: the system message, then the request as JSON.
    fn body(&self, request: &PlanningRequest) -> Value {
        let user = serde_json::to_string(request).unwrap_or_default();
        json!({
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
            "tools": navguard::agent::model_tools(request.tools.iter().copied()),
        })
    }
}

/// The step in a chat completion's reply: `choices[0].message.content`, a JSON object with
/// `tool` and `args` (a fenced code block around it is tolerated).
fn step_of(reply: &Value) -> Result<PlanStep, PlanError> {
    let not = |why: &str| PlanError::NotAToolCall { why: why.to_owned(), reply: reply.to_string() };
    let (tool, args) = match reply.pointer("/choices/0/message/tool_calls/0/function") {
        // The API's own tool call: its arguments are JSON text.
        Some(function) => {
            let name = function.get("name").and_then(Value::as_str).ok_or_else(|| not("a tool call without a name"))?;
            let args = match function.get("arguments") {
                None | Some(Value::Null) => Value::Null,
                Some(Value::String(text)) if text.trim().is_empty() => Value::Null,
                Some(Value::String(text)) => serde_json::from_str(text).map_err(|_| not("arguments are not JSON"))?,
                Some(other) => other.clone(),
            };
            (name.to_owned(), args)
        }
        // A model without tool calling answers with the JSON object in its text.
        None => {
            let content =
                reply.pointer("/choices/0/message/content").and_then(Value::as_str).ok_or_else(|| not("no content"))?;
            let text =
                content.trim().trim_start_matches("```json").trim_start_matches("```").trim_end_matches("```").trim();
            let call: Value = serde_json::from_str(text).map_err(|_| not("not JSON"))?;
            let name = call.get("tool").and_then(Value::as_str).ok_or_else(|| not("no \"tool\""))?.to_owned();
            (name, call.get("args").cloned().unwrap_or(Value::Null))
        }
    };
    let tool: ToolName = tool.parse().map_err(|_| not("an unknown tool"))?;
    let args = match args {
        Value::Null => serde_json::Map::new(),
        Value::Object(args) => args,
        _ => return Err(not("\"args\" is not an object")),
    };
    Ok(PlanStep { round: 0, tool, args })
}

#[async_trait]
impl TaskPlanner for HttpModel {
    async fn next_step(&self, request: &PlanningRequest) -> Result<PlanStep, PlanError> {
        let endpoint = self.endpoint();
        let body = self.body(request).to_string();
        let (status, text) = crate::post::post_json(&self.client, endpoint.clone(), self.key.as_deref(), &[], body)
            .await
            .map_err(|why| PlanError::Unreachable { url: endpoint.clone(), why })?;
        if !(200..300).contains(&status) {
            return Err(PlanError::Status { url: endpoint, status });
        }
        let reply: Value = serde_json::from_str(&text)
            .map_err(|_| PlanError::NotAToolCall { why: "not JSON".into(), reply: text.chars().take(500).collect() })?;
        step_of(&reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(content: &str) -> Value {
        json!({"choices": [{"message": {"role": "assistant", "content": content}}]})
    }

    #[test]
    fn a_reply_s_tool_call_is_read_and_anything_else_is_refused_by_name() {
        let step = step_of(&reply("```json\n{\"tool\": \"click\", \"args\": {\"ref\": \"d1.2\"}}\n```")).unwrap();
        assert_eq!((step.tool, step.args.get("ref")), (ToolName::Click, Some(&json!("d1.2"))));
        let done = step_of(&reply(r#"{"tool": "done"}"#)).unwrap();
        assert!(done.args.is_empty());
        for (content, why) in [
            ("I will click it", "not JSON"),
            (r#"{"args": {}}"#, "no \"tool\""),
            (r#"{"tool": "rm_rf"}"#, "an unknown tool"),
            (r#"{"tool": "click", "args": 3}"#, "\"args\" is not an object"),
        ] {
            match step_of(&reply(content)) {
                Err(PlanError::NotAToolCall { why: got, .. }) => assert_eq!(got, why, "{content}"),
                other => panic!("{content}: {other:?}"),
            }
        }
        assert!(matches!(step_of(&json!({})), Err(PlanError::NotAToolCall { .. })));
    }

    #[test]
    fn an_api_tool_call_is_read_and_the_request_offers_each_planned_tool_with_its_schema() {
        let reply = json!({"choices": [{"message": {"tool_calls": [{"type": "function",
            "function": {"name": "type", "arguments": "{\"ref\": \"d1.2\", \"text\": \"hi\"}"}}]}}]});
        let step = step_of(&reply).unwrap();
        assert_eq!((step.tool, step.args.get("text")), (ToolName::Type, Some(&json!("hi"))));
        let model = HttpModel::new("http://127.0.0.1:1/v1".into(), "m".into(), None, HttpModel::DEADLINE);
        let request = PlanningRequest {
            goal: "g".into(),
            url: None,
            steps: vec![],
            observation: None,
            skills: vec![],
            tools: PLANNED.to_vec(),
        };
        let tools = model.body(&request)["tools"].as_array().cloned().unwrap_or_default();
        let names: Vec<&str> =
            tools.iter().filter_map(|t| t.pointer("/function/name").and_then(Value::as_str)).collect();
        assert_eq!(names.len(), PLANNED.len());
        assert!(names.contains(&"click") && names.contains(&"done"));
        let click = tools.iter().find(|t| t.pointer("/function/name") == Some(&json!("click"))).unwrap();
        assert!(click.pointer("/function/parameters/properties/ref").is_some(), "{click}");
    }

    #[test]
    fn the_key_never_shows_in_a_debug_print() {
        let model =
            HttpModel::new("http://127.0.0.1:1/v1".into(), "m".into(), Some("sk-123".into()), HttpModel::DEADLINE);
        assert!(!format!("{model:?}").contains("sk-123"));
        assert_eq!(model.endpoint(), "http://127.0.0.1:1/v1/chat/completions");
    }
}
