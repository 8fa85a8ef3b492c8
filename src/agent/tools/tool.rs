//! The tools the model may call, parsed strictly from (name, JSON args) into typed calls.
//!
//! Adding a tool means adding its member of [`Tool`] (its fields and wire name: [`ToolName`] is
//! derived from it) and its entry in the tool table ([`ToolName::spec`]: description, argument
//! schema and parser, input, retries, risk); the compiler asks for each, and for its execution.
//! The parser, the tool sets, the watchdog, the messages and the trace take what they know of a
//! tool from there.

use super::tabs::TabRef;
use crate::agent::closed_loop::Expectation;
use crate::browser::{Key, Target};
use std::time::Duration;

crate::closed_set! {
    /// A tool the model may call, by its wire name.
    ///
    /// ```
    /// use navguard::prelude::*;
    ///
    /// let tool: ToolName = "open_url".parse()?;
    /// assert_eq!(tool, ToolName::OpenUrl);
    /// assert_eq!(tool.name(), "open_url");
    /// // What the tool table knows of it: open_url makes a tab, so a task that has one already
    /// // is not offered it.
    /// assert!(tool.creates_tab());
    ///
    /// // A name that is no tool is refused, with the names there are.
    /// let unknown = "open_tab".parse::<ToolName>().unwrap_err();
    /// assert!(unknown.to_string().starts_with(r#"unknown tool "open_tab": expected one of open_url, "#));
    /// # Ok::<(), navguard::names::UnknownName>(())
    /// ```
    pub enum ToolName("tool");

    /// A tool call with checked arguments.
    #[derive(Clone, Debug, PartialEq)]
    pub(crate) enum Tool by name {
        /// Opens a URL in a new tab and pins it.
        OpenUrl {
            url: String,
            /// Make it the browser's active tab.
            active: bool,
        } = "open_url",
        /// Moves the focus pointer.
        FocusTab { tab: TabRef } = "focus_tab",
        /// Navigates the focused tab.
        Navigate { url: String } = "navigate",
        /// Goes back in the focused tab's history.
        GoBack = "go_back",
        /// Clicks an element of the focused tab.
        Click { target: Target } = "click",
        /// Types into an element of the focused tab.
        Type {
            target: Target,
            text: String,
            /// Press Enter after.
            submit: bool,
        } = "type",
        /// Presses a key in the focused tab.
        PressKey { key: Key } = "press_key",
        /// Answers the dialog the focused tab's page has open: accept (OK, leave the page) or
        /// dismiss (Cancel, stay), with `text` as a prompt's answer.
        HandleDialog { accept: bool, text: Option<String> } = "handle_dialog",
        CloseTabs { tabs: Vec<TabRef> } = "close_tabs",
        Wait { duration: Duration } = "wait",
        /// Waits, event-driven, until the page shows what `until` names.
        WaitFor { until: Expectation, timeout: Duration } = "wait_for",
        /// Waits until the focused tab has had no request in flight for `idle`.
        WaitForNetworkIdle { idle: Duration, timeout: Duration } = "wait_for_network_idle",
        /// Pauses the task to ask the user; it goes on when the user resumes it.
        AskUser { question: String } = "ask_user",
        /// Ends the task as succeeded.
        Done { summary: String } = "done",
        /// Looks at the focused tab's page and does nothing else.
        Snapshot = "snapshot",
        /// Lists the task's tabs.
        ListTabs = "list_tabs",
        /// Brings an element into view, or moves the page (or a scrollable container) by
        /// about a viewport or to its end.
        Scroll { how: Scrolling } = "scroll",
        /// Reads what the page, an element or named fields hold now.
        Extract { what: Extracting } = "extract",
        /// A PNG of the focused tab's viewport, its whole page, or one element.
        Screenshot { target: Option<Target>, full_page: bool } = "screenshot",
        /// Chooses options of a native select, or the option of an ARIA combobox or listbox,
        /// each by its label or value.
        SelectOption { target: Target, values: Vec<String> } = "select_option",
        /// Moves the pointer onto an element and leaves it there.
        Hover { target: Target } = "hover",
        /// Drags an element onto another.
        Drag { from: Target, to: Target } = "drag",
        /// Puts files of the folder the run allows in a file input.
        UploadFile { target: Target, paths: Vec<String> } = "upload_file",
        /// Gives each field of a form its value.
        FillForm { fields: Vec<Field> } = "fill_form",
    }
}

/// One field of `fill_form`, and what it is to hold.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Field {
    pub target: Target,
    pub value: FieldValue,
}

/// What `fill_form` puts in a field.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FieldValue {
    /// A text field's or editor's whole text, or a select's option (its label or value).
    Text(String),
    /// A checkbox checked or not; a radio chosen.
    Checked(bool),
}

crate::closed_set! {
    /// How far `scroll` moves the page or a container.
    pub(crate) enum ScrollAmount("scroll amount") {
        /// About a viewport's (or the container's) height.
        Page = "page",
        /// All the way.
        End = "end",
    }
}

crate::closed_set! {
    /// Which way `scroll` moves.
    pub(crate) enum ScrollDirection("scroll direction") {
        Down = "down",
        Up = "up",
    }
}

/// What `scroll` does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Scrolling {
    /// Brings the element into view (its container scrolled as far as needed).
    IntoView(Target),
    /// Moves the page, or the scrollable container `within`, by `amount` in `direction`.
    By { amount: ScrollAmount, direction: ScrollDirection, within: Option<Target> },
}

/// What `extract` reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Extracting {
    /// The page: its URL, title and whole visible text (bounded).
    Page,
    /// One element.
    Element(Target),
    /// Named elements, each read as [`Extracting::Element`] reads one.
    Fields(Vec<(String, Target)>),
}

impl ToolName {
    /// The tool creates a tab: a task that has one already is not offered it.
    pub const fn creates_tab(self) -> bool {
        self.spec().creates_tab
    }

    /// The tool acts on or reads the focused tab's page, so a dialog open there refuses it
    /// ([`ToolSpec::needs_the_page`](super::ToolSpec)).
    pub const fn needs_the_page(self) -> bool {
        self.spec().needs_the_page
    }
}

/// The tool sets of the tab reuse design (docs/design/tab-reuse.md), derived from [`ToolName`],
/// and the set a caller that drives the core one call at a time is offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolSet {
    /// While a task has no tab yet: every tool of the round loop.
    Creation,
    /// Once a task has a tab: every tool of the round loop except the ones that create a tab.
    Tab,
    /// A caller's (an MCP client's, a conformance harness's): every tool offered to callers
    /// ([`Offered`](super::Offered)).
    Caller,
}

impl ToolSet {
    pub fn offers(self, tool: ToolName) -> bool {
        let offered = tool.spec().offered;
        match self {
            Self::Creation => offered.in_the_loop(),
            Self::Tab => offered.in_the_loop() && !tool.creates_tab(),
            Self::Caller => offered.to_callers(),
        }
    }

    /// The tools of the set, in [`ToolName`] order.
    pub fn tools(self) -> Vec<ToolName> {
        ToolName::ALL.iter().copied().filter(|t| self.offers(*t)).collect()
    }
}

/// The names, comma-separated (for messages).
impl std::fmt::Display for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.tools().into_iter().map(ToolName::name).collect();
        f.write_str(&names.join(", "))
    }
}

impl Tool {
    /// How long the call itself may rightly wait, if the model said (a wait's length, a
    /// `wait_for` timeout): the watchdog gives it that much and a grace.
    pub(crate) fn own_wait(&self) -> Option<Duration> {
        match self {
            Self::Wait { duration } => Some(*duration),
            Self::WaitFor { timeout, .. } | Self::WaitForNetworkIdle { timeout, .. } => Some(*timeout),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::closed_loop::ExpectKey;
    use crate::agent::tools::error::{ToolError, ToolFailure};
    use crate::agent::tools::parse::{parse_args, parse_call, parse_name};
    use crate::agent::tools::parsers::{NETWORK_IDLE, WAIT_FOR_TIMEOUT};
    use crate::browser::ElementRef;
    use serde_json::Value;
    use serde_json::json;

    /// Parses a call by the tool's name, as the loop does. A missing `args` counts as `{}`.
    fn parse_tool(name: &str, args: &Value) -> Result<Tool, ToolError> {
        parse_args(parse_name(name)?, args)
    }

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
            Tool::Type { target: Target::Css("#q".into()), text: String::new(), submit: true }
        );
        assert_eq!(parse_tool("press_key", &json!({"key": "Enter"})).unwrap(), Tool::PressKey { key: Key::Enter });
        assert_eq!(
            parse_tool("wait", &json!({"ms": 250})).unwrap(),
            Tool::Wait { duration: Duration::from_millis(250) }
        );
        assert_eq!(parse_tool("done", &Value::Null).unwrap(), Tool::Done { summary: String::new() });
    }

    #[test]
    fn parses_the_tools_that_read_the_page_and_refuses_what_they_cannot_take() {
        let far = || Target::Css("#far".into());
        assert_eq!(
            parse_tool("scroll", &json!({"selector": "#far"})).unwrap(),
            Tool::Scroll { how: Scrolling::IntoView(far()) }
        );
        assert_eq!(
            parse_tool("scroll", &json!({"by": "end"})).unwrap(),
            Tool::Scroll {
                how: Scrolling::By { amount: ScrollAmount::End, direction: ScrollDirection::Down, within: None }
            }
        );
        assert_eq!(
            parse_tool("scroll", &json!({"direction": "up", "selector": "#far"})).unwrap(),
            Tool::Scroll {
                how: Scrolling::By { amount: ScrollAmount::Page, direction: ScrollDirection::Up, within: Some(far()) }
            }
        );
        assert!(err("scroll", json!({})).contains("give \"ref\" or \"selector\" to bring an element into view"));
        assert!(err("scroll", json!({"by": "half"})).contains("argument \"by\" must be page or end"));
        assert_eq!(parse_tool("extract", &json!({})).unwrap(), Tool::Extract { what: Extracting::Page });
        let fields = parse_tool("extract", &json!({"fields": {"name": "#name", "pick": "k3x9q2a.4"}})).unwrap();
        let pick = Target::Ref(ElementRef::top("k3x9q2a", 4));
        assert_eq!(
            fields,
            Tool::Extract {
                what: Extracting::Fields(vec![("name".into(), Target::Css("#name".into())), ("pick".into(), pick)])
            }
        );
        assert!(err("extract", json!({"fields": {}})).contains("argument \"fields\" must be an object of names"));
        assert!(err("extract", json!({"fields": {"a": 3}})).contains("argument \"fields\" must be a ref"));
        assert!(err("extract", json!({"fields": {"a": "#a"}, "selector": "#b"})).contains("not both"));
        assert_eq!(
            parse_tool("screenshot", &json!({"full_page": true})).unwrap(),
            Tool::Screenshot { target: None, full_page: true }
        );
        assert!(err("screenshot", json!({"full_page": true, "selector": "#far"})).contains("argument \"full_page\""));
    }

    #[test]
    fn parses_the_tools_that_change_controls_and_names_what_is_wrong() {
        let css = |s: &str| Target::Css(s.into());
        assert_eq!(
            parse_tool("select_option", &json!({"selector": "#pick", "values": "Two"})).unwrap(),
            Tool::SelectOption { target: css("#pick"), values: vec!["Two".into()] }
        );
        assert_eq!(err("select_option", json!({"selector": "#pick"})), "select_option: missing argument \"values\"");
        assert!(err("select_option", json!({"selector": "#p", "values": []})).contains("a non-empty list of option"));
        assert_eq!(
            parse_tool("drag", &json!({"from": "#a", "to": "k3x9q2a.4"})).unwrap(),
            Tool::Drag { from: css("#a"), to: Target::Ref(ElementRef::top("k3x9q2a", 4)) }
        );
        assert!(err("drag", json!({"from": "#a", "to": "#a"})).contains("another element than \"from\""));
        assert_eq!(err("drag", json!({"from": "#a"})), "drag: missing argument \"to\"");
        assert!(
            err("upload_file", json!({"selector": "#f", "paths": [""]})).contains("a non-empty list of file paths")
        );
        assert_eq!(
            parse_tool(
                "fill_form",
                &json!({"fields": [{"selector": "#n", "value": "Ada"}, {"ref": "d1.2", "value": true}]})
            )
            .unwrap(),
            Tool::FillForm {
                fields: vec![
                    Field { target: css("#n"), value: FieldValue::Text("Ada".into()) },
                    Field { target: Target::Ref(ElementRef::top("d1", 2)), value: FieldValue::Checked(true) },
                ]
            }
        );
        assert!(err("fill_form", json!({"fields": [{"selector": "#n", "value": 3}]})).contains("argument \"value\""));
        assert_eq!(
            err("fill_form", json!({"fields": [{"value": "x"}]})),
            "fill_form: missing argument \"ref\" or \"selector\""
        );
        assert!(err("fill_form", json!({"fields": {}})).contains("a non-empty list of {ref or selector, value}"));
    }

    #[test]
    fn the_tab_set_is_every_tool_but_the_ones_that_create_a_tab() {
        assert_eq!(
            ToolSet::Creation.to_string(),
            "open_url, focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, \
             wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
        );
        assert_eq!(
            ToolSet::Tab.to_string(),
            "focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, \
             wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
        );
    }

    #[test]
    fn a_caller_is_offered_the_looks_and_not_the_question_to_a_user() {
        assert_eq!(
            ToolSet::Caller.to_string(),
            "open_url, focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, \
             wait_for_network_idle, done, snapshot, list_tabs, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
        );
    }

    #[test]
    fn a_tool_not_offered_names_itself_and_the_set() {
        let err = ToolFailure::NotOffered { offered: ToolSet::Tab }.of(ToolName::OpenUrl);
        assert_eq!(
            err.to_string(),
            "open_url: not offered in this turn; the tools offered are focus_tab, navigate, go_back, click, type, press_key, \
             handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, scroll, extract, \
             screenshot, select_option, hover, drag, upload_file, fill_form"
        );
        assert_eq!(err.kind(), crate::agent::tools::FailureKind::BadInput);
    }

    #[test]
    fn wait_for_takes_a_selector_text_or_url_and_a_bounded_timeout() {
        let until = |args: Value| match parse_tool("wait_for", &args).unwrap() {
            Tool::WaitFor { until, timeout } => (until.0, timeout.as_millis()),
            other => panic!("{other:?}"),
        };
        assert_eq!(until(json!({"selector": "#late"})), (vec![(ExpectKey::Present, "#late".into())], 10_000));
        assert_eq!(
            until(json!({"selector": "#inc", "state": "absent", "text": "Count", "timeout_ms": 500})),
            (vec![(ExpectKey::Absent, "#inc".into()), (ExpectKey::Text, "Count".into())], 500)
        );
        assert_eq!(err("wait_for", json!({})), "wait_for: give \"selector\", \"text\" or \"url\" to wait for");
        assert!(
            err("wait_for", json!({"selector": "#a", "state": "gone"})).starts_with("wait_for: argument \"state\"")
        );
        assert!(err("wait_for", json!({"url": "http://a", "timeout_ms": 0})).contains("from 1 to 60000"));
        assert_eq!(err("ask_user", json!({})), "ask_user: missing argument \"question\"");
        assert_eq!(
            parse_tool("wait_for_network_idle", &json!({})).unwrap(),
            Tool::WaitForNetworkIdle { idle: NETWORK_IDLE, timeout: WAIT_FOR_TIMEOUT }
        );
        assert!(err("wait_for_network_idle", json!({"idle_ms": 0})).contains("from 1 to 10000"));
    }

    #[test]
    fn handle_dialog_needs_to_be_told_whether_to_accept() {
        assert_eq!(
            parse_tool("handle_dialog", &json!({"accept": false})).unwrap(),
            Tool::HandleDialog { accept: false, text: None }
        );
        assert_eq!(
            parse_tool("handle_dialog", &json!({"accept": true, "text": "Ada"})).unwrap(),
            Tool::HandleDialog { accept: true, text: Some("Ada".into()) }
        );
        assert_eq!(err("handle_dialog", json!({})), "handle_dialog: missing argument \"accept\"");
        assert_eq!(
            err("handle_dialog", json!({"accept": "yes"})),
            "handle_dialog: argument \"accept\" must be true or false, got \"yes\""
        );
        assert!(ToolName::Click.needs_the_page() && ToolName::Done.needs_the_page());
        assert!(!ToolName::HandleDialog.needs_the_page() && !ToolName::CloseTabs.needs_the_page());
    }

    #[test]
    fn names_an_unknown_tool() {
        assert!(err("fly", json!({})).starts_with("unknown tool \"fly\": the tools are open_url"));
    }

    #[test]
    fn names_a_missing_argument() {
        assert_eq!(err("click", json!({})), "click: missing argument \"ref\" or \"selector\"");
        assert_eq!(err("wait", json!({})), "wait: missing argument \"ms\"");
    }

    #[test]
    fn click_and_type_take_a_ref_or_a_selector_never_both() {
        let r: ElementRef = "k3x9q2.12".parse().unwrap();
        assert_eq!(parse_tool("click", &json!({"ref": "k3x9q2.12"})).unwrap(), Tool::Click { target: Target::Ref(r) });
        assert_eq!(
            err("click", json!({"ref": "k3.4", "selector": "#a"})),
            "click: pass either \"ref\" or \"selector\", not both"
        );
        assert_eq!(
            err("type", json!({"ref": "#q", "text": "x"})),
            "type: argument \"ref\": \"#q\" is not a ref (refs look like k3x9q2.12: a document id, a dot, a number; \
             in a frame, <frame id>/k3x9q2.12)"
        );
        assert_eq!(
            err("click", json!({"ref": 12})),
            "click: argument \"ref\" must be a ref from the observation, as a string, got 12"
        );
    }

    #[test]
    fn every_tool_takes_an_expectation_and_names_what_is_wrong_with_one() {
        let call = parse_call(ToolName::Done, &json!({"summary": "ok", "expect": {"title": "Done"}})).unwrap();
        assert_eq!(call.expect.unwrap().0, vec![(ExpectKey::Title, "Done".into())]);
        let bad = |args: Value| parse_call(ToolName::Click, &args).unwrap_err().to_string();
        assert!(
            bad(json!({"selector": "#a", "expect": {"colour": "red"}}))
                .starts_with("click: argument \"expect\" has an unknown key \"colour\"")
        );
        assert!(
            bad(json!({"selector": "#a", "expect": ["url"]}))
                .starts_with("click: argument \"expect\" must be an object")
        );
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
