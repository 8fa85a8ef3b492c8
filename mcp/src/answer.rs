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
//! - button "Send" [ref=e4]            a short ref (crate::refs) for the core's k3x9q2a.4
//! ### Text
//! ### Frame "Pay" — http://127.0.0.1:8001/pay   each frame: its elements, then its text
//! - button "Pay" [ref=e5]
//! Card number Pay
//! ### Tabs
//! @tab#1 (focused): Next — http://127.0.0.1:8000/next
//! ```

use crate::refs::RefBook;
use base64::Engine as _;
use navguard::agent::{Element, FailureKind, Observation, SessionAnswer, StopReason, ToolReply, tab_lines};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// `answer` of a call of `tool` as the tool result, its refs in their short form. `asked` are
/// the refs the call was given, as the caller wrote them and as the core took them: the call's
/// own result names them as the caller wrote them.
pub(crate) fn tool_result(
    tool: &str,
    answer: &SessionAnswer,
    refs: &mut RefBook,
    asked: &[(String, String)],
) -> CallToolResult {
    let said =
        |text: &str| {
            asked.iter().fold(text.to_owned(), |text, (written, taken)| {
                if written == taken { text } else { text.replace(taken.as_str(), written) }
            })
        };
    let mut text = String::new();
    let result = said(answer.call.result.text());
    let failure = match &answer.call.result {
        ToolReply::Ok(_) => {
            text.push_str(&result);
            None
        }
        ToolReply::Failed(_) => {
            let kind = answer.call.failure.unwrap_or(FailureKind::Browser);
            let _ = write!(text, "Error ({kind}): {result}");
            Some(json!({"kind": kind.name(), "message": result}))
        }
    };
    let (page, stopped) = match &answer.page {
        Ok(Some(seen)) => {
            let shorts = short_refs(seen, refs);
            text.push('\n');
            text.push_str(&write_page(seen, &shorts));
            (page_json(seen, &shorts), Value::Null)
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
    let mut structured = structured(tool, &result, failure, page, stopped, tabs);
    // A screenshot's picture follows the text as image content; the structured answer says
    // what it is, not its bytes again.
    let picture = answer.call.picture.as_ref().map(|png| {
        structured["picture"] = json!({"mimeType": "image/png", "bytes": png.len()});
        ContentBlock::image(base64::engine::general_purpose::STANDARD.encode(png), "image/png")
    });
    let mut done = finish(text, structured, is_error);
    done.content.extend(picture);
    done
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

/// The page as the model reads it: its URL and title, then its dialog, or its elements with
/// their short refs and the start of its text, then each frame with its own elements and text.
pub fn page_text(seen: &Observation, refs: &mut RefBook) -> String {
    write_page(seen, &short_refs(seen, refs))
}

/// The short ref of each of the page's elements, in their order: the text and the structured
/// answer show the same.
fn short_refs(seen: &Observation, refs: &mut RefBook) -> Vec<String> {
    seen.elements.iter().map(|e| refs.short(&e.reference.to_string())).collect()
}

/// [`page_text`], with the elements' short refs.
fn write_page(seen: &Observation, shorts: &[String]) -> String {
    let mut text = format!("### Page\nURL: {}\nTitle: {}", seen.url, seen.title);
    if let Some(dialog) = &seen.dialog {
        let _ = write!(text, "\n### Dialog\n{dialog}\nThe page is blocked until handle_dialog answers it.");
        return text;
    }
    // The observation lists the tab's own elements first, then each frame's that was read.
    let in_frames: usize = seen.frames.iter().map(|f| f.elements).sum();
    let mut elements = seen.elements.iter().zip(shorts);
    let own: Vec<_> = elements.by_ref().take(seen.elements.len().saturating_sub(in_frames)).collect();
    if !own.is_empty() {
        text.push_str("\n### Elements");
        write_elements(&mut text, own);
    }
    if !seen.text.is_empty() {
        let _ = write!(text, "\n### Text\n{}", seen.text);
    }
    for frame in &seen.frames {
        let title = if frame.title.is_empty() { String::new() } else { format!(" {}", quoted(&frame.title)) };
        let _ = write!(text, "\n### Frame{title} — {}", frame.url);
        if let Some(why) = frame.left_out {
            let _ = write!(text, " (not read: {why})");
            continue;
        }
        write_elements(&mut text, elements.by_ref().take(frame.elements));
        if !frame.text.is_empty() {
            let _ = write!(text, "\n{}", frame.text);
        }
    }
    text
}

fn write_elements<'a>(text: &mut String, elements: impl IntoIterator<Item = (&'a Element, &'a String)>) {
    for (e, short) in elements {
        let _ = write!(text, "\n- {} {} [ref={short}]", e.role, quoted(&e.name));
    }
}

/// A name as a JSON string: quotes and line breaks in it stay inside it.
fn quoted(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_default()
}

fn page_json(seen: &Observation, shorts: &[String]) -> Value {
    let elements: Vec<Value> = seen
        .elements
        .iter()
        .zip(shorts)
        .map(|(e, short)| json!({"ref": short, "role": e.role, "name": e.name}))
        .collect();
    json!({
        "url": seen.url,
        "title": seen.title,
        "document": seen.document,
        "dialog": seen.dialog.as_ref().map(ToString::to_string),
        "elements": elements,
        "text": seen.text,
        "frames": frames_json(seen),
    })
}

/// The page's frames, parents first: each one's URL, title and text, how many of `elements`
/// are its (they follow the tab's own, frame by frame), or why it was not read.
fn frames_json(seen: &Observation) -> Value {
    let frames: Vec<Value> = seen
        .frames
        .iter()
        .map(|f| {
            json!({
                "url": f.url,
                "title": f.title,
                "text": f.text,
                "elements": f.elements,
                "not_read": f.left_out.map(navguard::agent::LeftOut::name),
            })
        })
        .collect();
    Value::Array(frames)
}

fn stop_json(stop: &StopReason) -> Value {
    json!({"kind": stop.kind().name(), "message": stop.message()})
}
