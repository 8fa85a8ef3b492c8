//! The tools the model may call, parsed strictly from (name, JSON args) into typed calls.

use super::error::ToolError;
use super::tabs::TabRef;
use crate::browser::Key;
use serde_json::{Map, Value};
use std::time::Duration;

/// Every tool, by name.
pub const TOOL_NAMES: [&str; 9] =
    ["open_url", "focus_tab", "navigate", "click", "type", "press_key", "close_tabs", "wait", "done"];

/// The tools offered while a task has no tab yet (seed 004's task-creation set): all of them.
pub const CREATION_TOOLS: [&str; 9] = TOOL_NAMES;

/// The tools offered once a task has a tab (seed 004's tab-operation set): never open_url.
pub const TAB_TOOLS: [&str; 8] = ["focus_tab", "navigate", "click", "type", "press_key", "close_tabs", "wait", "done"];

/// The longest `wait` the model may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// A tool call with checked arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum Tool {
    /// Opens a URL in a new tab and pins it.
    OpenUrl {
        /// Where.
        url: String,
        /// Make it the browser's active tab.
        active: bool,
    },
    /// Moves the focus pointer.
    FocusTab {
        /// Which tab.
        tab: TabRef,
    },
    /// Navigates the focused tab.
    Navigate {
        /// Where.
        url: String,
    },
    /// Clicks an element of the focused tab.
    Click {
        /// CSS selector.
        selector: String,
    },
    /// Types into an element of the focused tab.
    Type {
        /// CSS selector.
        selector: String,
        /// What to type.
        text: String,
        /// Press Enter after.
        submit: bool,
    },
    /// Presses a key in the focused tab.
    PressKey {
        /// The key.
        key: Key,
    },
    /// Closes tabs.
    CloseTabs {
        /// Which.
        tabs: Vec<TabRef>,
    },
    /// Waits.
    Wait {
        /// How long.
        duration: Duration,
    },
    /// Ends the task as succeeded.
    Done {
        /// The model's summary.
        summary: String,
    },
}

struct Args<'a> {
    tool: &'static str,
    map: &'a Map<String, Value>,
}

impl Args<'_> {
    fn bad(&self, arg: &'static str, expected: &'static str, got: &Value) -> ToolError {
        ToolError::BadArg { tool: self.tool, arg, expected, got: got.to_string() }
    }

    fn string(&self, arg: &'static str) -> Result<String, ToolError> {
        match self.map.get(arg) {
            None | Some(Value::Null) => Err(ToolError::MissingArg { tool: self.tool, arg }),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(other) => Err(self.bad(arg, "a non-empty string", other)),
        }
    }

    fn text(&self, arg: &'static str) -> Result<String, ToolError> {
        match self.map.get(arg) {
            None | Some(Value::Null) => Err(ToolError::MissingArg { tool: self.tool, arg }),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.bad(arg, "a string", other)),
        }
    }

    fn flag(&self, arg: &'static str, default: bool) -> Result<bool, ToolError> {
        match self.map.get(arg) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.bad(arg, "true or false", other)),
        }
    }

    fn tab(&self, arg: &'static str, value: &Value) -> Result<TabRef, ToolError> {
        let parsed = match value {
            Value::String(s) => TabRef::parse(s),
            Value::Number(n) => TabRef::parse(&n.to_string()),
            _ => None,
        };
        parsed
            .ok_or_else(|| self.bad(arg, "a tab reference (@primary, @opened, @opened#N, @active or a tab id)", value))
    }
}

fn checked_url(tool: &'static str, url: String) -> Result<String, ToolError> {
    match url::Url::parse(url.trim()) {
        Ok(_) => Ok(url.trim().to_owned()),
        Err(e) => Err(ToolError::BadUrl { tool, url, reason: e.to_string() }),
    }
}

fn tool_name(name: &str) -> Result<&'static str, ToolError> {
    TOOL_NAMES.into_iter().find(|t| *t == name).ok_or_else(|| ToolError::UnknownTool { name: name.to_owned() })
}

/// Parses a call. A missing `args` counts as `{}`.
pub fn parse_tool(name: &str, args: &Value) -> Result<Tool, ToolError> {
    let tool = tool_name(name)?;
    let empty = Map::new();
    let map = match args {
        Value::Object(map) => map,
        Value::Null => &empty,
        other => return Err(ToolError::ArgsNotObject { tool, got: other.to_string() }),
    };
    let a = Args { tool, map };
    Ok(match tool {
        "open_url" => Tool::OpenUrl { url: checked_url(tool, a.string("url")?)?, active: a.flag("active", true)? },
        "focus_tab" => {
            let value = map.get("tab").ok_or(ToolError::MissingArg { tool, arg: "tab" })?;
            Tool::FocusTab { tab: a.tab("tab", value)? }
        }
        "navigate" => Tool::Navigate { url: checked_url(tool, a.string("url")?)? },
        "click" => Tool::Click { selector: a.string("selector")? },
        "type" => {
            Tool::Type { selector: a.string("selector")?, text: a.text("text")?, submit: a.flag("submit", false)? }
        }
        "press_key" => {
            let key = a.string("key")?;
            let parsed = Key::parse(&key).map_err(|_| {
                a.bad("key", "a key name (Enter, Escape, Tab, Backspace, Arrow…, Space)", &Value::String(key))
            })?;
            Tool::PressKey { key: parsed }
        }
        "close_tabs" => parse_close_tabs(&a)?,
        "wait" => parse_wait(&a)?,
        _ => Tool::Done { summary: a.text("summary").unwrap_or_default() },
    })
}

fn parse_close_tabs(a: &Args<'_>) -> Result<Tool, ToolError> {
    let list = match a.map.get("tabs") {
        None | Some(Value::Null) => return Err(ToolError::MissingArg { tool: a.tool, arg: "tabs" }),
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(other) => return Err(a.bad("tabs", "a non-empty list of tab references", other)),
    };
    let tabs = list.iter().map(|v| a.tab("tabs", v)).collect::<Result<_, _>>()?;
    Ok(Tool::CloseTabs { tabs })
}

fn parse_wait(a: &Args<'_>) -> Result<Tool, ToolError> {
    let value = a.map.get("ms").ok_or(ToolError::MissingArg { tool: a.tool, arg: "ms" })?;
    match value.as_u64() {
        Some(ms) if Duration::from_millis(ms) <= MAX_WAIT => Ok(Tool::Wait { duration: Duration::from_millis(ms) }),
        _ => Err(a.bad("ms", "a whole number of milliseconds up to 60000", value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(name: &str, args: Value) -> String {
        parse_tool(name, &args).unwrap_err().to_string()
    }

    #[test]
    fn parses_each_tool() {
        assert_eq!(
            parse_tool("open_url", &json!({"url": "http://a.test/x"})).unwrap(),
            Tool::OpenUrl { url: "http://a.test/x".into(), active: true }
        );
        assert_eq!(
            parse_tool("focus_tab", &json!({"tab": "@opened#2"})).unwrap(),
            Tool::FocusTab { tab: TabRef::Opened(Some(2)) }
        );
        assert_eq!(
            parse_tool("type", &json!({"selector": "#q", "text": "", "submit": true})).unwrap(),
            Tool::Type { selector: "#q".into(), text: String::new(), submit: true }
        );
        assert_eq!(parse_tool("press_key", &json!({"key": "Enter"})).unwrap(), Tool::PressKey { key: Key::Enter });
        assert_eq!(
            parse_tool("wait", &json!({"ms": 250})).unwrap(),
            Tool::Wait { duration: Duration::from_millis(250) }
        );
        assert_eq!(parse_tool("done", &Value::Null).unwrap(), Tool::Done { summary: String::new() });
    }

    #[test]
    fn names_an_unknown_tool() {
        assert!(err("fly", json!({})).starts_with("unknown tool \"fly\": the tools are open_url"));
    }

    #[test]
    fn names_a_missing_argument() {
        assert_eq!(err("click", json!({})), "click: missing argument \"selector\"");
    }

    #[test]
    fn names_an_ill_typed_argument() {
        assert_eq!(
            err("wait", json!({"ms": "soon"})),
            "wait: argument \"ms\" must be a whole number of milliseconds up to 60000, got \"soon\""
        );
        assert_eq!(
            err("open_url", json!({"url": "http://a.test", "active": "yes"})),
            "open_url: argument \"active\" must be true or false, got \"yes\""
        );
        assert_eq!(err("click", json!([1])), "click: args must be a JSON object, got [1]");
    }

    #[test]
    fn names_a_url_that_does_not_parse() {
        assert!(err("navigate", json!({"url": "not a url"})).starts_with("navigate: \"not a url\" is not a URL ("));
    }

    #[test]
    fn refuses_a_malformed_tab_reference() {
        assert!(
            err("focus_tab", json!({"tab": "@nowhere"}))
                .starts_with("focus_tab: argument \"tab\" must be a tab reference")
        );
        assert!(
            err("close_tabs", json!({"tabs": []}))
                .starts_with("close_tabs: argument \"tabs\" must be a non-empty list")
        );
    }
}
