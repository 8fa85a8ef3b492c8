//! One table of what is known about each tool, so that the facts live in one place: what a
//! model is told of it (its description and the JSON Schema of its arguments, sent as a model
//! API's `tools`), how its arguments are parsed (the parser named beside the schema, in
//! `parsers.rs` when it is more than a line), whether it is a user's input on the page, whether
//! it creates a tab, whether a dialog open on the page refuses it, whether the watchdog may try
//! it again, and how the orchestrator rates its risk. Adding a tool is its member of [`Tool`]
//! (with its wire name), its arm of [`ToolName::spec`] (the compiler asks for it, and the entry
//! for its description, schema and parser), and its execution.

use super::args::Args;
use super::error::ToolError;
use super::parsers::{
    MAX_IDLE, MAX_WAIT, NETWORK_IDLE, WAIT_FOR_TIMEOUT, parse_close_tabs, parse_drag, parse_extract, parse_fill_form,
    parse_handle_dialog, parse_press_key, parse_screenshot, parse_scroll, parse_select_option, parse_upload_file,
    parse_wait, parse_wait_for,
};
use super::tool::{ScrollAmount, ScrollDirection, Tool, ToolName};
use serde_json::{Value, json};

/// A tool's parser: its checked call from its arguments (`expect` aside).
type Parse = fn(&Args<'_>) -> Result<Tool, ToolError>;

/// Whether the watchdog may try a failed call again: what its first attempt may already have
/// done decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeat {
    /// Trying again does no harm (the call's effect is the same however often it is made).
    Freely,
    /// A user's input: tried again only when the failure shows it never reached the page (not
    /// a timeout, and no navigation began after it).
    UnlessDelivered,
    /// Never, for this reason (the trace keeps it).
    Never(&'static str),
}

/// What the orchestrator looks at to rate a call's risk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RiskHint {
    /// Nothing on the page changes because of it (a wait, a question, the tab pointer).
    None,
    /// It acts on a control of the page: the control's accessible name and form decide (a
    /// button that says "Pay" is high-risk).
    Control,
    /// It loads a URL.
    Navigation,
    /// It answers a question the page asked (accepting may leave the page or confirm an act).
    Dialog,
    /// It ends the task.
    Done,
    /// It gives the page files of the user's: always high.
    Files,
}

/// Where a tool's arguments hold refs, so that a caller that writes refs its own way (an MCP
/// server's short `e12`) can put the core's in their place without knowing the tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefArg {
    /// The argument is a ref, if it is given.
    Key(&'static str),
    /// The argument is an object whose values are each a ref or a CSS selector.
    ValuesOf(&'static str),
    /// The argument is a ref or a CSS selector.
    RefOrSelector(&'static str),
    /// The argument is a list of objects, each of which names its element as `ref` (or
    /// `selector`).
    EachRef(&'static str),
}

/// Who is offered a tool: the round loop's model, a caller that drives the core one call at a
/// time (an MCP client, a conformance harness), or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    Everywhere,
    /// A caller only: the round loop shows its model the page and the tabs every round.
    ToCallers,
    /// The round loop only: a caller's own model talks to its user itself.
    InTheLoop,
}

impl Offered {
    pub const fn in_the_loop(self) -> bool {
        !matches!(self, Self::ToCallers)
    }

    pub const fn to_callers(self) -> bool {
        !matches!(self, Self::InTheLoop)
    }
}

/// What is known about a tool.
#[derive(Clone, Copy, Debug)]
pub struct ToolSpec {
    pub name: ToolName,
    /// What a model is told it does.
    pub description: &'static str,
    /// The JSON Schema of its arguments.
    args: fn() -> Value,
    /// Its arguments' parser, which the schema describes.
    pub(crate) parse: Parse,
    /// A user's input on the page (a click, typing, a key).
    pub input: bool,
    /// It creates a tab: a task that has one already is not offered it.
    pub creates_tab: bool,
    /// It acts on or reads the focused tab's page, so a dialog open there refuses it: the page
    /// takes no input and runs no script until the dialog is answered, and the model must see
    /// what the page asked before anything else happens to it.
    pub needs_the_page: bool,
    pub repeat: Repeat,
    pub risk: RiskHint,
    pub offered: Offered,
    /// Where its arguments hold refs.
    pub refs: &'static [RefArg],
}

/// An object schema of `properties`, `required` naming the arguments it cannot do without.
fn object(properties: Value, required: &[&str]) -> Value {
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// `properties` with the arguments of a call that names an element (a ref from the
/// observation, or a selector) and what it expects of the page afterwards.
fn on_element(properties: Value) -> Value {
    with_expect(naming_element(properties))
}

/// `properties` with the arguments that name an element: a ref from the observation, or a
/// selector.
fn naming_element(mut properties: Value) -> Value {
    properties["ref"] = json!({"type": "string", "description": "an element's ref from the current observation"});
    properties["selector"] = json!({"type": "string", "description": "a CSS selector, when the element has no ref"});
    properties
}

/// `properties` with what a call may say it expects of the page afterwards (checked: the call
/// fails when it does not hold).
fn with_expect(mut properties: Value) -> Value {
    properties["expect"] = json!({
        "type": "object",
        "description": "what the page must show afterwards: text, url, selector or title; the call fails when it does not",
    });
    properties
}

impl ToolName {
    /// What is known about this tool.
    pub const fn spec(self) -> ToolSpec {
        const fn spec(name: ToolName, description: &'static str, args: fn() -> Value, parse: Parse) -> ToolSpec {
            ToolSpec {
                name,
                description,
                args,
                parse,
                input: false,
                creates_tab: false,
                needs_the_page: false,
                repeat: Repeat::Freely,
                risk: RiskHint::None,
                offered: Offered::Everywhere,
                refs: &[RefArg::Key("ref")],
            }
        }
        /// A user's input on the focused tab's page: tried again only unless delivered.
        const fn input(spec: ToolSpec) -> ToolSpec {
            ToolSpec { input: true, needs_the_page: true, repeat: Repeat::UnlessDelivered, ..spec }
        }
        match self {
            Self::OpenUrl => ToolSpec {
                creates_tab: true,
                risk: RiskHint::Navigation,
                // Its tab exists already and stays for the model; another try opens another.
                repeat: Repeat::Never("a tab was already opened"),
                ..spec(
                    self,
                    "Open a URL in a new tab, which becomes the task's tab. Waits until the page has committed.",
                    || {
                        object(
                            json!({"url": {"type": "string"}, "active": {"type": "boolean", "description": "make it the browser's active tab (default true)"}}),
                            &["url"],
                        )
                    },
                    |a| Ok(Tool::OpenUrl { url: a.url("url")?, active: a.flag("active", true)? }),
                )
            },
            Self::FocusTab => spec(
                self,
                "Act on another of the task's tabs from now on.",
                || {
                    object(
                        json!({"tab": {"type": "string", "description": "@primary, @opened, @opened#N, @tab#N (list_tabs' N-th), @active or a tab id"}}),
                        &["tab"],
                    )
                },
                |a| {
                    let value = a.raw("tab").ok_or_else(|| a.missing("tab"))?;
                    Ok(Tool::FocusTab { tab: a.tab("tab", value)? })
                },
            ),
            Self::Navigate => ToolSpec {
                needs_the_page: true,
                risk: RiskHint::Navigation,
                ..spec(
                    self,
                    "Load a URL in the focused tab.",
                    || object(json!({"url": {"type": "string"}}), &["url"]),
                    |a| Ok(Tool::Navigate { url: a.url("url")? }),
                )
            },
            Self::GoBack => ToolSpec {
                needs_the_page: true,
                risk: RiskHint::Navigation,
                repeat: Repeat::Never("another step back would skip a page"),
                ..spec(
                    self,
                    "Go back one page in the focused tab's history.",
                    || object(json!({}), &[]),
                    |_| Ok(Tool::GoBack),
                )
            },
            Self::Click => ToolSpec {
                input: true,
                needs_the_page: true,
                repeat: Repeat::UnlessDelivered,
                risk: RiskHint::Control,
                ..spec(
                    self,
                    "Click an element of the focused tab's page.",
                    || object(on_element(json!({})), &[]),
                    |a| Ok(Tool::Click { target: a.target()? }),
                )
            },
            Self::Type => ToolSpec {
                input: true,
                needs_the_page: true,
                repeat: Repeat::UnlessDelivered,
                risk: RiskHint::Control,
                ..spec(
                    self,
                    "Type text into an element of the focused tab's page, and press Enter after it when submit is true.",
                    || {
                        object(
                            on_element(
                                json!({"text": {"type": "string"}, "submit": {"type": "boolean", "description": "press Enter after typing (default false)"}}),
                            ),
                            &["text"],
                        )
                    },
                    |a| Ok(Tool::Type { target: a.target()?, text: a.text("text")?, submit: a.flag("submit", false)? }),
                )
            },
            Self::PressKey => ToolSpec {
                input: true,
                needs_the_page: true,
                repeat: Repeat::UnlessDelivered,
                risk: RiskHint::Control,
                ..spec(
                    self,
                    "Press a key in the focused tab's page.",
                    || {
                        object(
                            with_expect(
                                json!({"key": {"type": "string", "description": "Enter, Escape, Tab, Backspace, ArrowUp/Down/Left/Right or Space"}}),
                            ),
                            &["key"],
                        )
                    },
                    parse_press_key,
                )
            },
            Self::HandleDialog => ToolSpec {
                risk: RiskHint::Dialog,
                // The first answer may have reached the page (and closed the dialog, or left it).
                repeat: Repeat::Never("the dialog may already have been answered"),
                ..spec(
                    self,
                    "Answer the dialog (alert, confirm, prompt, or a question before leaving the page) the focused tab's page has open.",
                    || {
                        object(
                            json!({"accept": {"type": "boolean", "description": "true: OK (leave the page); false: Cancel (stay)"}, "text": {"type": "string", "description": "a prompt's answer"}}),
                            &["accept"],
                        )
                    },
                    parse_handle_dialog,
                )
            },
            Self::CloseTabs => spec(
                self,
                "Close some of the task's tabs.",
                || {
                    object(
                        json!({"tabs": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "tab references: @opened, @opened#N, @tab#N (list_tabs' N-th) or tab ids"}}),
                        &["tabs"],
                    )
                },
                parse_close_tabs,
            ),
            Self::Wait => ToolSpec {
                repeat: Repeat::Never("a wait that timed out is its answer"),
                ..spec(
                    self,
                    "Wait a fixed time (prefer wait_for).",
                    || {
                        object(
                            json!({"ms": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT.as_millis() as u64}}),
                            &["ms"],
                        )
                    },
                    parse_wait,
                )
            },
            Self::WaitFor => ToolSpec {
                needs_the_page: true,
                repeat: Repeat::Never("a wait that timed out is its answer"),
                ..spec(
                    self,
                    "Wait until the focused tab's page shows a selector (present, visible or absent), a text or a URL prefix; all given must hold.",
                    || {
                        object(
                            json!({"selector": {"type": "string"}, "state": {"enum": ["present", "visible", "absent"]}, "text": {"type": "string"}, "url": {"type": "string"}, "timeout_ms": {"type": "integer", "minimum": 1, "maximum": MAX_WAIT.as_millis() as u64}}),
                            &[],
                        )
                    },
                    parse_wait_for,
                )
            },
            Self::WaitForNetworkIdle => ToolSpec {
                needs_the_page: true,
                repeat: Repeat::Never("a wait that timed out is its answer"),
                ..spec(
                    self,
                    "Wait until the focused tab has had no request in flight for idle_ms.",
                    || {
                        object(
                            json!({"idle_ms": {"type": "integer", "minimum": 1, "maximum": MAX_IDLE.as_millis() as u64}, "timeout_ms": {"type": "integer", "minimum": 1, "maximum": MAX_WAIT.as_millis() as u64}}),
                            &[],
                        )
                    },
                    |a| {
                        Ok(Tool::WaitForNetworkIdle {
                            idle: a.millis(
                                "idle_ms",
                                NETWORK_IDLE,
                                MAX_IDLE,
                                "a whole number of milliseconds from 1 to 10000",
                            )?,
                            timeout: a.millis(
                                "timeout_ms",
                                WAIT_FOR_TIMEOUT,
                                MAX_WAIT,
                                "a whole number of milliseconds from 1 to 60000",
                            )?,
                        })
                    },
                )
            },
            Self::AskUser => ToolSpec {
                repeat: Repeat::Never("it is not an action"),
                offered: Offered::InTheLoop,
                ..spec(
                    self,
                    "Pause the task and ask the user; it goes on when the user resumes it.",
                    || object(json!({"question": {"type": "string"}}), &["question"]),
                    |a| Ok(Tool::AskUser { question: a.string("question")? }),
                )
            },
            Self::Done => ToolSpec {
                needs_the_page: true,
                risk: RiskHint::Done,
                repeat: Repeat::Never("it is not an action"),
                ..spec(
                    self,
                    "End the task as succeeded; accepted only when verified on the page you observed.",
                    || object(with_expect(json!({"summary": {"type": "string"}})), &[]),
                    |a| Ok(Tool::Done { summary: a.text("summary").unwrap_or_default() }),
                )
            },
            Self::Snapshot => ToolSpec {
                needs_the_page: true,
                offered: Offered::ToCallers,
                ..spec(
                    self,
                    "Look at the focused tab's page: its URL, title and elements with refs, once it has settled (every answer shows the page after its call; this one only looks).",
                    || object(json!({}), &[]),
                    |_| Ok(Tool::Snapshot),
                )
            },
            Self::Scroll => ToolSpec {
                needs_the_page: true,
                repeat: Repeat::Never("a second move would move the page again"),
                ..spec(
                    self,
                    "Scroll the focused tab's page: bring an element into view (ref or selector), or move the page, or the scrollable container a ref or selector names, by a page or to its end (by: page or end; direction: down or up). The answer says what came into view; a page that loads more as it is scrolled is waited for.",
                    || {
                        object(
                            on_element(
                                json!({"by": {"enum": ScrollAmount::ALL.iter().map(|a| a.name()).collect::<Vec<_>>()}, "direction": {"enum": ScrollDirection::ALL.iter().map(|d| d.name()).collect::<Vec<_>>()}}),
                            ),
                            &[],
                        )
                    },
                    parse_scroll,
                )
            },
            Self::Extract => ToolSpec {
                needs_the_page: true,
                refs: &[RefArg::Key("ref"), RefArg::ValuesOf("fields")],
                ..spec(
                    self,
                    "Read what the focused tab's page holds now, as JSON: with a ref or selector, that element's text, value, checked state, options and link; with fields ({\"name\": ref or CSS selector, …}), each of them; with neither, the page's URL, title and whole visible text. Changes nothing.",
                    || {
                        object(
                            naming_element(
                                json!({"fields": {"type": "object", "additionalProperties": {"type": "string"}, "description": "names for the elements to read, each a ref or a CSS selector"}}),
                            ),
                            &[],
                        )
                    },
                    parse_extract,
                )
            },
            Self::Screenshot => ToolSpec {
                needs_the_page: true,
                ..spec(
                    self,
                    "Take a PNG picture of the focused tab: what its viewport shows, its whole page (full_page), or one element (ref or selector). Changes nothing.",
                    || {
                        object(
                            naming_element(
                                json!({"full_page": {"type": "boolean", "description": "the whole page, not only what the viewport shows (default false)"}}),
                            ),
                            &[],
                        )
                    },
                    parse_screenshot,
                )
            },
            Self::SelectOption => ToolSpec {
                risk: RiskHint::Control,
                ..input(spec(
                    self,
                    "Choose options of a select (a native <select>, or an ARIA combobox or listbox: opened with a click, its option clicked), each by its label or value; options that come late are waited for. The answer says what the control holds after the page's handlers ran; a control that does not hold the choice fails as not-applied.",
                    || {
                        object(
                            on_element(
                                json!({"values": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "the options to choose, each its label or its value (more than one for a multiple select only)"}}),
                            ),
                            &["values"],
                        )
                    },
                    parse_select_option,
                ))
            },
            Self::Hover => ToolSpec {
                ..input(spec(
                    self,
                    "Move the pointer onto an element of the focused tab's page and leave it there (a menu that opens on hover stays open until the next call moves the pointer). The answer says what came into view.",
                    || object(on_element(json!({})), &[]),
                    |a| Ok(Tool::Hover { target: a.target()? }),
                ))
            },
            Self::Drag => ToolSpec {
                risk: RiskHint::Control,
                refs: &[RefArg::RefOrSelector("from"), RefArg::RefOrSelector("to")],
                ..input(spec(
                    self,
                    "Drag an element onto another with the pointer (HTML5 drag and drop, or a list driven by pointer events). The answer says whether the target received the drop; a drag nobody received fails as not-applied.",
                    || {
                        object(
                            with_expect(
                                json!({"from": {"type": "string", "description": "the element to drag: a ref from the observation, or a CSS selector"}, "to": {"type": "string", "description": "the element to drop it on: a ref, or a CSS selector"}}),
                            ),
                            &["from", "to"],
                        )
                    },
                    parse_drag,
                ))
            },
            Self::UploadFile => ToolSpec {
                risk: RiskHint::Files,
                ..input(spec(
                    self,
                    "Put files in a file input of the focused tab's page: paths inside the folder this run allows (relative to it, or absolute inside it). The answer names the files the input holds.",
                    || {
                        object(
                            on_element(
                                json!({"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "the files, inside the allowed folder"}}),
                            ),
                            &["paths"],
                        )
                    },
                    parse_upload_file,
                ))
            },
            Self::FillForm => ToolSpec {
                risk: RiskHint::Control,
                refs: &[RefArg::EachRef("fields")],
                ..input(spec(
                    self,
                    "Fill fields of the focused tab's page, in order: a text field or editor gets its whole text typed (what it held is cleared first), a select its option (label or value), a checkbox checked or not (true or false), a radio chosen (true). The answer says what each field holds after the page's handlers ran; a field that holds other than its value fails the call as not-applied. Nothing is submitted.",
                    || {
                        object(
                            with_expect(json!({"fields": {
                                "type": "array",
                                "minItems": 1,
                                "items": {"type": "object", "properties": naming_element(json!({"value": {"type": ["string", "boolean"], "description": "the text, the option, or true/false for a checkbox (true for a radio)"}})), "required": ["value"]},
                            }})),
                            &["fields"],
                        )
                    },
                    parse_fill_form,
                ))
            },
            Self::ListTabs => ToolSpec {
                offered: Offered::ToCallers,
                ..spec(
                    self,
                    "List the task's tabs: its own and those its pages opened, numbered as @tab#N, with their titles and URLs and which one is focused. Its answer is the list alone: listing changes no page, so the refs of the last look still hold.",
                    || object(json!({}), &[]),
                    |_| Ok(Tool::ListTabs),
                )
            },
        }
    }
}

impl ToolSpec {
    /// The JSON Schema of its arguments.
    pub fn schema(&self) -> Value {
        (self.args)()
    }

    /// The tool as a model API's `tools` entry (OpenAI's function-calling shape).
    pub fn as_model_tool(&self) -> Value {
        json!({
            "type": "function",
            "function": {"name": self.name.name(), "description": self.description, "parameters": self.schema()},
        })
    }
}

/// Every tool as a model API's `tools` list.
///
/// ```
/// use navguard::agent::ToolSet;
/// use navguard::prelude::*;
///
/// // A task that has its tab already is offered every tool but the ones that make a tab.
/// let tools = model_tools(ToolSet::Tab.tools());
/// let names: Vec<&str> = tools.iter().filter_map(|t| t["function"]["name"].as_str()).collect();
/// assert!(names.contains(&"click"));
/// assert!(!names.contains(&"open_url"));
///
/// // Each entry has OpenAI's function-calling shape, the arguments as a JSON Schema.
/// assert_eq!(tools[0]["type"], "function");
/// assert_eq!(tools[0]["function"]["parameters"]["type"], "object");
/// ```
pub fn model_tools(tools: impl IntoIterator<Item = ToolName>) -> Vec<Value> {
    tools.into_iter().map(|t| t.spec().as_model_tool()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_its_own_entry_and_a_schema_that_is_json() {
        for tool in ToolName::ALL {
            let spec = tool.spec();
            assert_eq!(spec.name, *tool);
            assert!(!spec.description.is_empty(), "{tool}");
            let schema = spec.schema();
            assert_eq!(schema["type"], "object", "{tool}");
            assert!(schema["properties"].is_object(), "{tool}");
        }
    }

    #[test]
    fn the_schema_names_what_the_parser_requires() {
        for tool in ToolName::ALL {
            let schema = tool.spec().schema();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            // A call naming its element, and nothing else: the parser refuses it for the first
            // argument the schema says is required, and names it.
            let baseline =
                if schema["properties"].get("selector").is_some() { json!({"selector": "#x"}) } else { json!({}) };
            match (required.first(), crate::agent::tools::parse::parse_args(*tool, &baseline)) {
                (Some(arg), Err(e)) => assert!(e.to_string().contains(arg), "{tool}: {e}"),
                (Some(arg), Ok(_)) => panic!("{tool} parsed without {arg}"),
                (None, Ok(parsed)) => assert_eq!(parsed.name(), *tool, "each entry's parser makes its own tool"),
                (None, Err(e)) => assert_eq!(*tool, ToolName::WaitFor, "{tool}: {e}"),
            }
        }
    }

    #[test]
    fn inputs_are_repeated_only_unless_delivered() {
        for tool in ToolName::ALL {
            let spec = tool.spec();
            assert_eq!(spec.input, spec.repeat == Repeat::UnlessDelivered, "{tool}");
        }
    }
}
