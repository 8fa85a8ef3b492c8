//! The `script` module: evaluating an expression in a page.
//! <https://w3c.github.io/webdriver-bidi/#module-script>

use super::browsing_context::ContextId;
use crate::bidi::command::Command;
use crate::bidi::command::Empty;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `script.evaluate`, awaiting promises, with the result serialized as JSON by the page.
#[derive(Clone, Debug, Serialize)]
pub struct Evaluate {
    pub expression: String,
    /// `{"context": …}`.
    pub target: Value,
    #[serde(rename = "awaitPromise")]
    pub await_promise: bool,
    /// Run as if the user had just interacted (so `window.open` is allowed).
    #[serde(rename = "userActivation")]
    pub user_activation: bool,
}

impl Evaluate {
    /// Evaluates `expression` in `context`; the page turns the value into JSON text, so the
    /// result is plain JSON rather than a BiDi remote value.
    pub fn json(context: &ContextId, expression: &str) -> Self {
        Self {
            expression: format!("(async () => JSON.stringify(await ({expression})))()"),
            target: json!({ "context": context.0 }),
            await_promise: true,
            user_activation: true,
        }
    }
}

/// Its result: `type` is `success` or `exception`.
#[derive(Debug, Deserialize)]
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
    /// The page's JSON text did not parse.
    #[error("{0}")]
    NotJson(#[source] serde_json::Error),
}

impl EvaluateResult {
    /// The JSON value the page returned.
    pub fn into_json(self) -> Result<Value, ScriptFailure> {
        if self.kind != "success" {
            return Err(ScriptFailure::Exception(self.exception_text()));
        }
        let text = self.result.as_ref().and_then(|r| r.get("value")).and_then(Value::as_str);
        match text {
            Some(text) => serde_json::from_str(text).map_err(ScriptFailure::NotJson),
            None => Ok(Value::Null),
        }
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
pub struct RealmInfo {
    pub realm: String,
    /// Set for a sandbox realm; the page's own realm has none.
    #[serde(default)]
    pub sandbox: Option<String>,
}

#[derive(Debug, Deserialize)]
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
        self.target = json!({ "realm": realm });
        self
    }

    /// The first element matching a CSS selector, as a node remote value (with its `sharedId`).
    pub fn query_selector(context: &ContextId, selector: &str) -> Self {
        let selector = Value::String(selector.to_owned());
        Self::node(context, format!("document.querySelector({selector})"))
    }

    /// An expression whose value is a node (answered as a remote reference with its
    /// `sharedId`) or something else (answered as a value).
    pub fn node(context: &ContextId, expression: String) -> Self {
        Self { expression, target: json!({ "context": context.0 }), await_promise: false, user_activation: false }
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
