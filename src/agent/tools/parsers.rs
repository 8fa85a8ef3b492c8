//! Each tool's argument parser, named in its entry of the tool table (`spec.rs`), and the
//! limits the parsers hold the model's numbers to. A parser reads only what the tool's schema
//! offers and refuses anything else with the argument's name and what it takes.

use super::args::Args;
use super::error::{ToolError, ToolFailure};
use super::tool::{Extracting, Field, FieldValue, ScrollAmount, ScrollDirection, Scrolling, Tool};
use crate::agent::closed_loop::{ExpectKey, Expectation};
use crate::browser::Key;
use serde_json::Value;
use std::time::Duration;

/// The longest `wait` (or `wait_for` timeout) the model may ask for.
pub(super) const MAX_WAIT: Duration = Duration::from_secs(60);
/// `wait_for`'s (and `wait_for_network_idle`'s) timeout when the model gives none.
pub(super) const WAIT_FOR_TIMEOUT: Duration = Duration::from_secs(10);
/// `wait_for_network_idle`'s idle window when the model gives none (Playwright's too).
pub(super) const NETWORK_IDLE: Duration = Duration::from_millis(500);
/// The longest idle window the model may ask for.
pub(super) const MAX_IDLE: Duration = Duration::from_secs(10);

pub(super) fn parse_press_key(a: &Args<'_>) -> Result<Tool, ToolError> {
    let key = a.string("key")?;
    match Key::parse(&key) {
        Ok(key) => Ok(Tool::PressKey { key }),
        Err(_) => Err(a.bad("key", "a key name (Enter, Escape, Tab, Backspace, Arrow…, Space)", &Value::String(key))),
    }
}

/// `accept` must be said (there is no safe default answer); `text` only for a prompt.
pub(super) fn parse_handle_dialog(a: &Args<'_>) -> Result<Tool, ToolError> {
    let accept = match a.given("accept") {
        None => return Err(a.missing("accept")),
        Some(_) => a.flag("accept", false)?,
    };
    let text = match a.given("text") {
        None => None,
        Some(_) => Some(a.text("text")?),
    };
    Ok(Tool::HandleDialog { accept, text })
}

/// `scroll`: an element to bring into view, or a move (`by`, `direction`) of the page or of the
/// container the element is.
pub(super) fn parse_scroll(a: &Args<'_>) -> Result<Tool, ToolError> {
    let target = a.optional_target()?;
    let how = if a.given("by").is_some() || a.given("direction").is_some() {
        Scrolling::By {
            amount: a.choice("by", ScrollAmount::Page, "page or end")?,
            direction: a.choice("direction", ScrollDirection::Down, "down or up")?,
            within: target,
        }
    } else {
        Scrolling::IntoView(target.ok_or_else(|| a.fail(ToolFailure::NothingToScroll))?)
    };
    Ok(Tool::Scroll { how })
}

/// `extract`: the page, one element, or named fields (not an element and fields at once).
pub(super) fn parse_extract(a: &Args<'_>) -> Result<Tool, ToolError> {
    let target = a.optional_target()?;
    let what = match (a.given("fields"), target) {
        (None, None) => Extracting::Page,
        (None, Some(target)) => Extracting::Element(target),
        (Some(_), Some(_)) => return Err(a.fail(ToolFailure::FieldsAndElement)),
        (Some(Value::Object(fields)), None) if !fields.is_empty() => {
            let read = |(name, value): (&String, &Value)| Ok((name.clone(), a.ref_or_selector("fields", value)?));
            Extracting::Fields(fields.iter().map(read).collect::<Result<_, ToolError>>()?)
        }
        (Some(other), None) => {
            return Err(a.bad("fields", "an object of names, each a ref or a CSS selector", other));
        }
    };
    Ok(Tool::Extract { what })
}

/// `screenshot`: the viewport, the whole page, or one element (not an element of the whole page).
pub(super) fn parse_screenshot(a: &Args<'_>) -> Result<Tool, ToolError> {
    let target = a.optional_target()?;
    let full_page = a.flag("full_page", false)?;
    if full_page && target.is_some() {
        return Err(a.bad("full_page", "false (or absent) when an element is named", &Value::Bool(true)));
    }
    Ok(Tool::Screenshot { target, full_page })
}

/// `select_option`: the control, and one value or more (each a label or a value).
pub(super) fn parse_select_option(a: &Args<'_>) -> Result<Tool, ToolError> {
    let target = a.target()?;
    Ok(Tool::SelectOption { target, values: a.strings("values", "a non-empty list of option labels or values")? })
}

/// `drag`: two elements, each a ref or a selector, not the same one.
pub(super) fn parse_drag(a: &Args<'_>) -> Result<Tool, ToolError> {
    let element = |arg: &'static str| match a.given(arg) {
        None => Err(a.missing(arg)),
        Some(value) => a.ref_or_selector(arg, value),
    };
    let (from, to) = (element("from")?, element("to")?);
    if from == to {
        return Err(a.bad("to", "another element than \"from\"", a.given("to").unwrap_or(&Value::Null)));
    }
    Ok(Tool::Drag { from, to })
}

/// `upload_file`: the file input, and the paths (checked against the allowed folder when the
/// call runs: the folder is the run's, not the model's).
pub(super) fn parse_upload_file(a: &Args<'_>) -> Result<Tool, ToolError> {
    let target = a.target()?;
    Ok(Tool::UploadFile { target, paths: a.strings("paths", "a non-empty list of file paths")? })
}

/// `fill_form`: each field names its element (ref or selector) and its value.
pub(super) fn parse_fill_form(a: &Args<'_>) -> Result<Tool, ToolError> {
    let list = match a.given("fields") {
        None => return Err(a.missing("fields")),
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(other) => return Err(a.bad("fields", "a non-empty list of {ref or selector, value}", other)),
    };
    let field = |entry: &Value| {
        let Value::Object(map) = entry else {
            return Err(a.bad("fields", "a list of objects, each {ref or selector, value}", entry));
        };
        let one = Args::new(a.tool(), map);
        let value = match one.given("value") {
            None => return Err(one.missing("value")),
            Some(Value::String(text)) => FieldValue::Text(text.clone()),
            Some(Value::Bool(checked)) => FieldValue::Checked(*checked),
            Some(other) => return Err(one.bad("value", "a string, or true or false", other)),
        };
        Ok(Field { target: one.target()?, value })
    };
    Ok(Tool::FillForm { fields: list.iter().map(field).collect::<Result<_, _>>()? })
}

pub(super) fn parse_close_tabs(a: &Args<'_>) -> Result<Tool, ToolError> {
    let list = match a.given("tabs") {
        None => return Err(a.missing("tabs")),
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(other) => return Err(a.bad("tabs", "a non-empty list of tab references", other)),
    };
    let tabs = list.iter().map(|v| a.tab("tabs", v)).collect::<Result<_, _>>()?;
    Ok(Tool::CloseTabs { tabs })
}

pub(super) fn parse_wait(a: &Args<'_>) -> Result<Tool, ToolError> {
    let value = a.raw("ms").ok_or_else(|| a.missing("ms"))?;
    match value.as_u64() {
        Some(ms) if Duration::from_millis(ms) <= MAX_WAIT => Ok(Tool::Wait { duration: Duration::from_millis(ms) }),
        _ => Err(a.bad("ms", "a whole number of milliseconds up to 60000", value)),
    }
}

/// `wait_for`: a selector (present, or absent with `state`), a text, a URL prefix, or any
/// of them together; all must hold.
pub(super) fn parse_wait_for(a: &Args<'_>) -> Result<Tool, ToolError> {
    let mut until = Vec::new();
    if a.given("selector").is_some() {
        let selector = a.string("selector")?;
        let key = match a.given("state") {
            None => ExpectKey::Present,
            Some(Value::String(s)) if s == "present" => ExpectKey::Present,
            Some(Value::String(s)) if s == "visible" => ExpectKey::Visible,
            Some(Value::String(s)) if s == "absent" => ExpectKey::Absent,
            Some(other) => return Err(a.bad("state", "\"present\", \"visible\" or \"absent\"", other)),
        };
        until.push((key, selector));
    }
    for (arg, key) in [("text", ExpectKey::Text), ("url", ExpectKey::Url)] {
        if a.given(arg).is_some() {
            until.push((key, a.string(arg)?));
        }
    }
    if until.is_empty() {
        return Err(a.fail(ToolFailure::NothingToWaitFor));
    }
    let timeout =
        a.millis("timeout_ms", WAIT_FOR_TIMEOUT, MAX_WAIT, "a whole number of milliseconds from 1 to 60000")?;
    Ok(Tool::WaitFor { until: Expectation(until), timeout })
}
