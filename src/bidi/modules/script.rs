//! The `script` module: calling a page script with its data as arguments, and evaluating an
//! expression someone wrote (a scenario's own script).
//! <https://w3c.github.io/webdriver-bidi/#module-script>

use super::browsing_context::ContextId;
use crate::bidi::command::Command;
use crate::bidi::command::Empty;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::borrow::Cow;

/// `script.evaluate` of an expression someone wrote (a scenario's own script), sent as it is
/// (nothing is put around it), promises awaited; its value is read with [`json_of_remote`].
#[derive(Clone, Debug, Serialize)]
pub struct Evaluate {
    pub expression: String,
    #[serde(flatten)]
    pub how: ScriptRun,
}

impl Evaluate {
    /// Evaluates `expression` in `context`.
    pub fn new(context: &ContextId, expression: &str) -> Self {
        Self { expression: expression.to_owned(), how: ScriptRun::in_context(context) }
    }
}

/// What a script command says besides its script: where it runs, and how it runs and answers.
#[derive(Clone, Debug, Serialize)]
pub struct ScriptRun {
    /// `{"context": …}` or `{"realm": …}`.
    pub target: Value,
    #[serde(rename = "awaitPromise")]
    pub await_promise: bool,
    /// Run as if the user had just interacted (so `window.open` is allowed).
    #[serde(rename = "userActivation")]
    pub user_activation: bool,
    /// How deep an answer is serialized: deeper than any page script of navguard's answers (a
    /// probe's snapshot of elements with their forms is five levels), and stated, since the
    /// browsers' defaults differ; no DOM tree below a node.
    #[serde(rename = "serializationOptions")]
    pub serialization: Value,
}

impl ScriptRun {
    /// In `context`, promises awaited, with user activation.
    fn in_context(context: &ContextId) -> Self {
        Self {
            target: json!({ "context": context.0 }),
            await_promise: true,
            user_activation: true,
            serialization: json!({ "maxObjectDepth": 16, "maxDomDepth": 0 }),
        }
    }
}

/// Its result: `type` is `success` or `exception`.
#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct EvaluateResult {
    /// `success` or `exception`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The remote value (for `success`).
    #[serde(default)]
    pub result: Option<Value>,
    /// The exception (for `exception`).
    #[serde(rename = "exceptionDetails", default)]
    pub exception_details: Option<Value>,
}

/// Why an evaluation gave no JSON value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptFailure {
    /// The script threw: the exception's text (or the result's type when it has none).
    #[error("{0}")]
    Exception(String),
}

impl EvaluateResult {
    /// The value the script gave, as JSON (see [`json_of_remote`]).
    pub fn into_value(self) -> Result<Value, ScriptFailure> {
        if self.kind != "success" {
            return Err(ScriptFailure::Exception(self.exception_text()));
        }
        Ok(self.result.as_ref().map_or(Value::Null, json_of_remote))
    }

    /// The exception's text, or the result's type when it has none.
    pub fn exception_text(&self) -> String {
        let text = self.exception_details.as_ref().and_then(|d| d.get("text")).and_then(Value::as_str);
        text.map_or_else(|| self.kind.clone(), str::to_owned)
    }
}

impl Command for Evaluate {
    const METHOD: &'static str = "script.evaluate";
    type Output = EvaluateResult;
}

/// `script.callFunction`: a function of navguard's own, called in the page with its data as
/// arguments, promises awaited. The function is `'static` text, one of the page scripts
/// compiled into navguard: nothing a user, a page or a model writes ever becomes part of it.
///
/// Each argument travels as its JSON text (a string local value), read back in the page by
/// `JSON.parse`, which builds data and never runs it: Chromium 156's BiDi layer builds an
/// object local value in the page at about 2 ms a property (a snapshot's three limits cost 6
/// ms of its 8), where a string of any length costs nothing more than a number.
#[derive(Clone, Debug, Serialize)]
pub struct CallFunction {
    /// The page script; with arguments, inside an arrow function of navguard's own that reads
    /// each argument's JSON text and calls it with the values.
    #[serde(rename = "functionDeclaration")]
    pub function_declaration: Cow<'static, str>,
    /// Each argument's JSON text, as a string local value.
    pub arguments: Vec<Value>,
    #[serde(flatten)]
    pub how: ScriptRun,
}

impl CallFunction {
    /// Calls `function` in `context` with `arguments` (JSON values, each passed as its text).
    pub fn new(context: &ContextId, function: &'static str, arguments: &[Value]) -> Self {
        let function_declaration = if arguments.is_empty() {
            Cow::Borrowed(function)
        } else {
            // The function's text ends its own line: a closing line comment of it ends there.
            Cow::Owned(format!("(...texts) => (\n{function}\n)(...texts.map((text) => JSON.parse(text)))"))
        };
        let arguments = arguments.iter().map(|value| json!({ "type": "string", "value": value.to_string() })).collect();
        Self { function_declaration, arguments, how: ScriptRun::in_context(context) }
    }

    /// Calls without user activation: a look at the page, not an action in it.
    #[must_use]
    pub fn without_user_activation(mut self) -> Self {
        self.how.user_activation = false;
        self
    }

    /// Calls in a realm rather than a context (see [`Evaluate::in_realm`]).
    #[must_use]
    pub fn in_realm(mut self, realm: &str) -> Self {
        self.how.target = json!({ "realm": realm });
        self
    }
}

impl Command for CallFunction {
    const METHOD: &'static str = "script.callFunction";
    type Output = EvaluateResult;
}

/// A script command that may be sent to a realm (the page's own) rather than a context.
pub trait InRealm: Command<Output = EvaluateResult> + Clone {
    #[must_use]
    fn to_realm(self, realm: &str) -> Self;
}

impl InRealm for Evaluate {
    fn to_realm(self, realm: &str) -> Self {
        self.in_realm(realm)
    }
}

impl InRealm for CallFunction {
    fn to_realm(self, realm: &str) -> Self {
        self.in_realm(realm)
    }
}

/// A BiDi remote value (`script.RemoteValue`) as JSON, as `JSON.stringify` would give it: a
/// number that JSON cannot hold (NaN, ±Infinity) is `null`, -0 is 0, a bigint its digits, a
/// date or pattern its text, a set or map its entries; what has no JSON form (a node, a
/// function, a window, a value past the serialization depth) is `null`.
pub fn json_of_remote(remote: &Value) -> Value {
    let value = remote.get("value");
    match remote.get("type").and_then(Value::as_str).unwrap_or_default() {
        "string" | "boolean" => value.cloned().unwrap_or(Value::Null),
        "number" => match value {
            Some(n @ Value::Number(_)) => n.clone(),
            Some(Value::String(special)) if special == "-0" => json!(0),
            _ => Value::Null,
        },
        "bigint" | "date" => value.cloned().unwrap_or(Value::Null),
        "regexp" => value.and_then(|v| v.get("pattern")).cloned().unwrap_or(Value::Null),
        "array" | "set" => match value.and_then(Value::as_array) {
            Some(items) => Value::Array(items.iter().map(json_of_remote).collect()),
            None => Value::Null,
        },
        "object" | "map" => match value.and_then(Value::as_array) {
            Some(entries) => Value::Object(
                entries
                    .iter()
                    .filter_map(|entry| {
                        let key = entry.get(0)?.as_str()?.to_owned();
                        Some((key, json_of_remote(entry.get(1)?)))
                    })
                    .collect(),
            ),
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

/// `script.getRealms` of one context.
#[derive(Debug, Serialize)]
pub struct GetRealms {
    pub context: ContextId,
    /// `window` realms only.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// One realm (`script.RealmInfo`).
#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct RealmInfo {
    pub realm: String,
    /// Set for a sandbox realm; the page's own realm has none.
    #[serde(default)]
    pub sandbox: Option<String>,
}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct Realms {
    pub realms: Vec<RealmInfo>,
}

impl Command for GetRealms {
    const METHOD: &'static str = "script.getRealms";
    type Output = Realms;
}

impl Evaluate {
    /// Evaluates in a realm (rather than a context): Chromium 156 never answers a
    /// context-targeted evaluate in a `window.open` popup of a created user context.
    #[must_use]
    pub fn in_realm(mut self, realm: &str) -> Self {
        self.how.target = json!({ "realm": realm });
        self
    }
}

impl EvaluateResult {
    /// The `sharedId` of a node result; `None` for `null` or a non-node.
    pub fn shared_id(&self) -> Option<String> {
        let result = self.result.as_ref()?;
        result.get("sharedId").and_then(Value::as_str).map(str::to_owned)
    }

    /// The result's value when it is a string (`{"type": "string", "value": …}`).
    pub fn string_value(&self) -> Option<&str> {
        let result = self.result.as_ref()?;
        (result.get("type")? == "string").then(|| result.get("value")?.as_str())?
    }
}

/// `script.addPreloadScript`: `function_declaration` runs in every new document of the session,
/// before the page's own scripts.
#[derive(Debug, Serialize)]
pub struct AddPreloadScript {
    #[serde(rename = "functionDeclaration")]
    pub function_declaration: String,
}

/// Its result: the script's id.
#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct PreloadScript {
    pub script: String,
}

impl Command for AddPreloadScript {
    const METHOD: &'static str = "script.addPreloadScript";
    type Output = PreloadScript;
}

/// `script.removePreloadScript`.
#[derive(Debug, Serialize)]
pub struct RemovePreloadScript {
    pub script: String,
}

impl Command for RemovePreloadScript {
    const METHOD: &'static str = "script.removePreloadScript";
    type Output = Empty;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_sent_with_the_parameters_the_spec_names_and_its_data_as_json_text() {
        let data = json!({ "title": "Sign in with SMS\"); alert(1); (\"", "n": [1, 2.5, null, true] });
        let call = CallFunction::new(&ContextId("c1".into()), "(a, b) => a", &[json!("MS"), data.clone()])
            .without_user_activation();
        assert_eq!(
            serde_json::to_value(call.in_realm("r1")).unwrap(),
            json!({
                "functionDeclaration": "(...texts) => (\n(a, b) => a\n)(...texts.map((text) => JSON.parse(text)))",
                "arguments": [
                    { "type": "string", "value": "\"MS\"" },
                    { "type": "string", "value": data.to_string() },
                ],
                "target": { "realm": "r1" },
                "awaitPromise": true,
                "userActivation": false,
                "serializationOptions": { "maxObjectDepth": 16, "maxDomDepth": 0 },
            })
        );
        let evaluate = serde_json::to_value(Evaluate::new(&ContextId("c1".into()), "1 // a comment")).unwrap();
        assert_eq!(evaluate["expression"], "1 // a comment");
        assert_eq!(evaluate["target"], json!({ "context": "c1" }));
    }

    #[test]
    fn remote_values_read_as_json_stringify_gives_them() {
        let remote = json!({ "type": "object", "value": [
            ["text", { "type": "string", "value": "MS" }],
            ["list", { "type": "array", "value": [
                { "type": "number", "value": "NaN" }, { "type": "number", "value": "-0" },
                { "type": "undefined" }, { "type": "node", "sharedId": "x" },
            ] }],
            ["deep", { "type": "object" }],
        ] });
        assert_eq!(json_of_remote(&remote), json!({ "text": "MS", "list": [null, 0, null, null], "deep": null }));
    }
}
