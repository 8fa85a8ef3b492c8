//! A call's answer as an MCP tool result: text for the model, the same facts as
//! `structuredContent` for a program. A failed call is `isError: true` with its failure's kind
//! in both (the MCP specification's tool execution error); a call that worked is not, even
//! when the page after it is blocked by a dialog or could not be shown (that is said, with why).
//!
//! The text, section by section (a section only when it has something to say):
//!
//! ```text
//! clicked #send                      the call's result, or `Error (<kind>): <message>`
//! ### Page
//! URL: http://127.0.0.1:8000/next
//! Title: Next
//! ### Dialog                         the page is blocked until handle_dialog answers it
//! ### Elements
//! - button "Send" [ref=k3x9q2.4]
//! ### Text
//! ### Tabs
//! @tab#1 (focused): Next — http://127.0.0.1:8000/next
//! ```

use navguard::agent::{FailureKind, Observation, SessionAnswer, StopReason, ToolReply, tab_lines};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// `answer` of a call of `tool` as the tool result.
pub(crate) fn tool_result(tool: &str, answer: &SessionAnswer) -> CallToolResult {
    let mut text = String::new();
    let failure = match &answer.call.result {
        ToolReply::Ok(said) => {
            text.push_str(said);
            None
        }
        ToolReply::Failed(message) => {
            let kind = answer.call.failure.unwrap_or(FailureKind::Browser);
            let _ = write!(text, "Error ({kind}): {message}");
            Some(json!({"kind": kind.name(), "message": message}))
        }
    };
    let (page, stopped) = match &answer.page {
        Ok(Some(seen)) => {
            write_page(&mut text, seen);
            (page_json(seen), Value::Null)
        }
        Ok(None) => (Value::Null, Value::Null),
        Err(stop) => {
            let _ = write!(text, "\n### Page not shown\n{}", stop.message());
            (Value::Null, stop_json(stop))
        }
    };
    if let Some(tabs) = &answer.tabs {
        text.push_str("\n### Tabs\n");
        text.push_str(&tab_lines(tabs));
    }
    let tabs = json!(answer.tabs);
    let is_error = failure.is_some();
    finish(text, structured(tool, answer.call.result.text(), failure, page, stopped, tabs), is_error)
}

/// A call that could not be made: the browser did not start, or the call outlived the
/// server's deadline. `kind` is a failure kind's name.
pub(crate) fn failed(tool: &str, kind: FailureKind, message: &str) -> CallToolResult {
    let failure = Some(json!({"kind": kind.name(), "message": message}));
    let structured = structured(tool, message, failure, Value::Null, Value::Null, Value::Null);
    finish(format!("Error ({kind}): {message}"), structured, true)
}

/// The `structuredContent` of every answer, one shape for all.
fn structured(tool: &str, result: &str, failure: Option<Value>, page: Value, stopped: Value, tabs: Value) -> Value {
    json!({
        "tool": tool,
        "ok": failure.is_none(),
        "result": result,
        "failure": failure,
        "page": page,
        "stopped": stopped,
        "tabs": tabs,
    })
}

fn finish(text: String, structured: Value, is_error: bool) -> CallToolResult {
    let mut result = if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(structured);
    result
}

fn write_page(text: &mut String, seen: &Observation) {
    let _ = write!(text, "\n### Page\nURL: {}\nTitle: {}", seen.url, seen.title);
    if let Some(dialog) = &seen.dialog {
        let _ = write!(text, "\n### Dialog\n{dialog}\nThe page is blocked until handle_dialog answers it.");
        return;
    }
    if !seen.elements.is_empty() {
        text.push_str("\n### Elements");
        for e in &seen.elements {
            // The name as a JSON string: quotes and line breaks in it stay inside it.
            let name = serde_json::to_string(&e.name).unwrap_or_default();
            let _ = write!(text, "\n- {} {name} [ref={}]", e.role, e.reference);
        }
    }
    if !seen.text.is_empty() {
        let _ = write!(text, "\n### Text\n{}", seen.text);
    }
}

fn page_json(seen: &Observation) -> Value {
    let elements: Vec<Value> =
        seen.elements.iter().map(|e| json!({"ref": e.reference.to_string(), "role": e.role, "name": e.name})).collect();
    json!({
        "url": seen.url,
        "title": seen.title,
        "document": seen.document,
        "dialog": seen.dialog.as_ref().map(ToString::to_string),
        "elements": elements,
        "text": seen.text,
    })
}

fn stop_json(stop: &StopReason) -> Value {
    json!({"kind": stop.kind().name(), "message": stop.message()})
}
