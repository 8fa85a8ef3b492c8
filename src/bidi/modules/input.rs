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

/// A pointer move onto the middle of a node (by its `sharedId`), taking `ms`.
fn move_onto(shared_id: &str, ms: u64) -> Value {
    let origin = json!({ "type": "element", "element": { "sharedId": shared_id } });
    json!({ "type": "pointerMove", "x": 0, "y": 0, "duration": ms, "origin": origin })
}

/// The mouse, doing `actions`: one input source, so that its position stays from one
/// performance to the next (a hover's pointer stays where it was left).
fn mouse(actions: Vec<Value>) -> Value {
    json!({ "type": "pointer", "id": "navguard-mouse", "parameters": { "pointerType": "mouse" }, "actions": actions })
}

impl PerformActions {
    /// A left click in the middle of a node (by its `sharedId`).
    pub fn click(context: ContextId, shared_id: &str) -> Self {
        let press = [json!({ "type": "pointerDown", "button": 0 }), json!({ "type": "pointerUp", "button": 0 })];
        let actions = std::iter::once(move_onto(shared_id, 0)).chain(press).collect();
        Self { context, actions: vec![mouse(actions)] }
    }

    /// The pointer moved onto the middle of a node, and left there.
    pub fn hover(context: ContextId, shared_id: &str) -> Self {
        Self { context, actions: vec![mouse(vec![move_onto(shared_id, 0)])] }
    }

    /// A drag: pressed in the middle of `from`, moved a few pixels (a page starts a drag only
    /// once the pointer moved while pressed), moved onto the middle of `to` in steps, moved a
    /// pixel there (the drop target's `dragover` comes with a move over it), and released.
    pub fn drag(context: ContextId, from: &str, to: &str) -> Self {
        let nudge = |x: i64, y: i64| json!({ "type": "pointerMove", "x": x, "y": y, "origin": "pointer" });
        let actions = vec![
            move_onto(from, 0),
            json!({ "type": "pointerDown", "button": 0 }),
            nudge(4, 4),
            nudge(4, 4),
            move_onto(to, 150),
            nudge(1, 1),
            json!({ "type": "pointerUp", "button": 0 }),
        ];
        Self { context, actions: vec![mouse(actions)] }
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

/// `input.setFiles`: the files a file input holds from now on, by their paths on the machine the
/// browser runs on.
#[derive(Debug, Serialize)]
pub struct SetFiles {
    pub context: ContextId,
    pub element: Value,
    pub files: Vec<String>,
}

impl Command for SetFiles {
    const METHOD: &'static str = "input.setFiles";
    type Output = Empty;
}

impl SetFiles {
    /// The input a node (by its `sharedId`) is holds `files`.
    pub fn new(context: ContextId, shared_id: &str, files: Vec<String>) -> Self {
        Self { context, element: json!({ "sharedId": shared_id }), files }
    }
}
