//! The `input` module: real pointer and key actions.
//! <https://w3c.github.io/webdriver-bidi/#module-input>

use super::browsing_context::ContextId;
use crate::bidi::command::{Command, Empty};
use serde::Serialize;
use serde_json::{Value, json};

/// `input.performActions`.
#[derive(Debug, Serialize)]
pub struct PerformActions {
    pub context: ContextId,
    /// Input sources with their action lists.
    pub actions: Vec<Value>,
}

impl Command for PerformActions {
    const METHOD: &'static str = "input.performActions";
    type Output = Empty;
}

impl PerformActions {
    /// A left click in the middle of a node (by its `sharedId`).
    pub fn click(context: ContextId, shared_id: &str) -> Self {
        let origin = json!({ "type": "element", "element": { "sharedId": shared_id } });
        let pointer = json!({
            "type": "pointer",
            "id": "navguard-mouse",
            "parameters": { "pointerType": "mouse" },
            "actions": [
                { "type": "pointerMove", "x": 0, "y": 0, "origin": origin },
                { "type": "pointerDown", "button": 0 },
                { "type": "pointerUp", "button": 0 },
            ],
        });
        Self { context, actions: vec![pointer] }
    }

    /// Key presses: each value is pressed and released in turn.
    pub fn keys<'a>(context: ContextId, values: impl IntoIterator<Item = &'a str>) -> Self {
        let actions: Vec<Value> = values
            .into_iter()
            .flat_map(|v| [json!({"type": "keyDown", "value": v}), json!({"type": "keyUp", "value": v})])
            .collect();
        let keyboard = json!({ "type": "key", "id": "navguard-keyboard", "actions": actions });
        Self { context, actions: vec![keyboard] }
    }
}
