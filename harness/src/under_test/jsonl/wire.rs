//! The protocol's lines: the start line the harness sends, and the answers it reads back
//! into an [`Answer`].

use crate::under_test::description::Conditions;
use crate::under_test::{Answer, ElementSeen, Failure, FailureClass, NeutralTool, PageSeen, TabSeen};
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// How much of a line an error message quotes.
const QUOTED: usize = 300;
/// How much of an answer its text for the reports keeps.
const SHOWN: usize = 8 << 10;

/// The first line the harness sends.
pub(super) fn start_line(chromium: &str, cdp_endpoint: Option<&str>) -> String {
    let mut start = json!({ "chromium": chromium });
    if let Some(endpoint) = cdp_endpoint {
        start["cdp_endpoint"] = Value::from(endpoint);
    }
    json!({ "id": 0, "start": start }).to_string()
}

/// A line for a message: cut to [`QUOTED`] characters, in backticks.
pub(super) fn quote(line: &str) -> String {
    format!("`{}`", cut(line, QUOTED))
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// One answer line, as the protocol has it.
#[derive(Debug, Deserialize)]
pub(super) struct Reply {
    pub(super) id: u64,
    ok: bool,
    page: Option<WirePage>,
    snapshot: Option<WireSnapshot>,
    tabs: Option<Vec<WireTab>>,
    text: Option<String>,
    /// The dialog the page has open, in the agent's words (an answer that tells of one
    /// instead of failing as `dialog`).
    dialog: Option<String>,
    /// A screenshot's answer: the PNG, in base64.
    picture: Option<String>,
    error: Option<WireError>,
    /// The start's answer: what the agent is.
    agent: Option<WireAgent>,
    /// The start's answer: the neutral tools it has.
    tools: Option<Vec<String>>,
    /// The start's answer: for a tool it takes in some forms only, those forms, each a list
    /// of conditions on the call's arguments in a description's `when` words (`"!ref"`,
    /// `["by=page", "!ref"]`); a call of any other form is not applicable to it.
    forms: Option<BTreeMap<String, WireForms>>,
}

/// A tool's forms: one (a condition, or a list of conditions that all hold), or a list of
/// them, any of which may hold (`[["by=page", "!ref"], "direction"]`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum WireForms {
    One(Conditions),
    Many(Vec<Conditions>),
}

#[derive(Debug, Deserialize)]
struct WirePage {
    url: Option<String>,
    title: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireSnapshot {
    #[serde(default)]
    elements: Vec<WireElement>,
}

#[derive(Debug, Deserialize)]
struct WireElement {
    #[serde(rename = "ref")]
    reference: Value,
    role: Option<String>,
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireTab {
    title: Option<String>,
    url: Option<String>,
    #[serde(default)]
    current: bool,
}

#[derive(Debug, Deserialize)]
struct WireError {
    class: Option<String>,
    message: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireAgent {
    name: Option<String>,
    version: Option<String>,
}

/// Why a line the agent wrote is not an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum NotAnswer {
    /// Not a line of the protocol's at all: not JSON, or JSON that is not an object with an
    /// `id` (a log line on the wrong stream, a structured logger's object). Once the agent has
    /// answered its start, such a line is named and skipped.
    #[error("{0}")]
    NotProtocol(String),
    /// A line of the protocol's (an object with an `id`) that is not an answer: the protocol
    /// is broken.
    #[error("{0}")]
    Malformed(String),
}

impl NotAnswer {
    /// Whether the line was no line of the protocol's at all (see [`NotAnswer::NotProtocol`]).
    pub(super) fn is_not_protocol(&self) -> bool {
        matches!(self, Self::NotProtocol(_))
    }
}

/// Reads one line of the agent's: an answer, or why it is not one (the caller quotes the line).
pub(super) fn parse_reply(line: &str) -> Result<Reply, NotAnswer> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| NotAnswer::NotProtocol(format!("a line that is not JSON ({e})")))?;
    let Value::Object(map) = &value else {
        return Err(NotAnswer::NotProtocol("a line that is not a JSON object".to_owned()));
    };
    match map.get("id") {
        None => return Err(NotAnswer::NotProtocol("a line without an id".to_owned())),
        Some(id) if !id.is_u64() => {
            return Err(NotAnswer::Malformed(format!("a line whose id is {id}, not a call's number")));
        }
        Some(_) => {}
    }
    let reply: Reply = serde_json::from_value(value)
        .map_err(|e| NotAnswer::Malformed(format!("a line that is not an answer ({e})")))?;
    // A ref is a string; a number is taken as one. Anything else is named here, not later.
    for (i, element) in reply.snapshot.iter().flat_map(|s| s.elements.iter()).enumerate() {
        if reference(&element.reference).is_none() {
            return Err(NotAnswer::Malformed(format!(
                "a line whose snapshot.elements[{i}]'s ref is {}, not a string",
                element.reference
            )));
        }
    }
    Ok(reply)
}

fn reference(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Reply {
    /// The answer the line gives (`line` is kept as its text, for the reports).
    pub(super) fn into_answer(self, line: &str) -> Answer {
        let failure = (!self.ok).then(|| failure_of(self.error));
        let (picture, shown) = match &self.picture {
            None => (None, std::borrow::Cow::Borrowed(line)),
            // The reports show the line with its picture's size in place of its bytes.
            Some(base64) => {
                let png = base64::engine::general_purpose::STANDARD.decode(base64).ok();
                let picture = png.as_deref().and_then(crate::under_test::png_size);
                let said =
                    picture.map_or_else(|| "<not a PNG in base64>".to_owned(), |n| format!("<a PNG of {n} bytes>"));
                (picture, std::borrow::Cow::Owned(line.replacen(base64.as_str(), &said, 1)))
            }
        };
        Answer {
            failure,
            dialog: self.dialog,
            page: self.page.map(|p| PageSeen { url: p.url.unwrap_or_default(), title: p.title.unwrap_or_default() }),
            elements: self.snapshot.map(|s| {
                s.elements
                    .into_iter()
                    .map(|e| ElementSeen {
                        reference: reference(&e.reference).unwrap_or_default(),
                        role: e.role.unwrap_or_default(),
                        name: e.name.unwrap_or_default(),
                    })
                    .collect()
            }),
            tabs: self.tabs.map(|tabs| {
                tabs.into_iter()
                    .map(|t| TabSeen {
                        title: t.title.unwrap_or_default(),
                        url: t.url.unwrap_or_default(),
                        current: t.current,
                    })
                    .collect()
            }),
            text: match self.text {
                // The agent's own words first; the whole line after them, for the reports.
                Some(text) if !text.is_empty() => format!("{}\n{}", cut(&text, SHOWN), cut(&shown, SHOWN)),
                _ => cut(&shown, SHOWN),
            },
            took: Duration::ZERO,
            broken: false,
            picture,
            looked: false,
            stray: Vec::new(),
        }
    }
}

/// A failed answer's class and message; a class outside the protocol's is `other`, and said so.
fn failure_of(error: Option<WireError>) -> Failure {
    let Some(error) = error else {
        return Failure { class: FailureClass::Other, message: "the agent answered ok: false without an error".into() };
    };
    let message = error.message.unwrap_or_default();
    match error.class.as_deref().map(str::parse::<FailureClass>) {
        Some(Ok(class)) => Failure { class, message },
        Some(Err(_)) => Failure {
            class: FailureClass::Other,
            message: format!(
                "{message} (its class {:?} is not one of {}: taken as other)",
                error.class.unwrap_or_default(),
                FailureClass::list()
            ),
        },
        None => Failure { class: FailureClass::Other, message: format!("{message} (no class given: taken as other)") },
    }
}

/// What the start's answer says.
#[derive(Debug)]
pub(super) struct Started {
    pub(super) name: Option<String>,
    pub(super) version: Option<String>,
    pub(super) tools: Option<BTreeSet<NeutralTool>>,
    /// The forms of a call the tools it takes in some forms only take (see [`Reply::forms`]).
    pub(super) forms: BTreeMap<NeutralTool, Vec<Conditions>>,
}

impl Started {
    pub(super) fn of(reply: Reply) -> Result<Self, String> {
        if !reply.ok {
            let failure = failure_of(reply.error);
            return Err(format!("its start failed ({}: {})", failure.class, failure.message));
        }
        let tools = reply.tools.map(|names| {
            names
                .iter()
                .filter_map(|name| match name.parse::<NeutralTool>() {
                    Ok(tool) => Some(tool),
                    Err(_) => {
                        tracing::debug!(target: "navguard::agent", "the agent offers {name:?}, not a neutral tool");
                        None
                    }
                })
                .collect()
        });
        let mut forms = BTreeMap::new();
        for (name, alternatives) in reply.forms.unwrap_or_default() {
            let alternatives = match alternatives {
                WireForms::One(form) => vec![form],
                WireForms::Many(forms) => forms,
            };
            let Ok(tool) = name.parse::<NeutralTool>() else {
                tracing::debug!(target: "navguard::agent", "the agent gives forms for {name:?}, not a neutral tool");
                continue;
            };
            for conditions in &alternatives {
                conditions.check().map_err(|why| format!("its start answer's forms.{name}: {why}"))?;
            }
            forms.insert(tool, alternatives);
        }
        let (name, version) = reply.agent.map_or((None, None), |a| (a.name, a.version));
        Ok(Self { name, version, tools, forms })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// JSON of the protocol's shape, right and wrong: its keys, values of every type.
    fn protocol_json() -> impl Strategy<Value = Value> {
        let key = prop::sample::select(vec![
            "id", "ok", "page", "url", "title", "snapshot", "elements", "ref", "role", "name", "tabs", "index",
            "current", "text", "dialog", "error", "class", "message", "agent", "version", "tools", "x", "picture",
            "forms",
        ]);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("JSON has no NaN", |f| f.is_finite()).prop_map(Value::from),
            "\\PC{0,16}".prop_map(Value::from),
            prop::sample::select(vec!["stale-ref", "not-found", "dialog", "navigate", "e1", ""]).prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::btree_map(key.clone(), inner, 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 256, failure_persistence: None, ..Default::default() })]
        /// Any line of JSON is an answer or a reason, never a panic; an answer always has a
        /// call's number.
        #[test]
        fn generated_lines_are_answers_or_reasons(value in protocol_json()) {
            let line = value.to_string();
            match parse_reply(&line) {
                Ok(reply) => {
                    prop_assert!(value.get("id").is_some_and(Value::is_u64));
                    let _ = reply.into_answer(&line);
                }
                Err(why) => {
                    prop_assert!(why.to_string().starts_with("a line"), "{why}");
                    // Not the protocol's exactly when it is no object with an id.
                    let has_id = value.get("id").is_some();
                    prop_assert_eq!(why.is_not_protocol(), !has_id, "{}", why);
                }
            }
        }

        /// Any text at all, JSON or not.
        #[test]
        fn generated_text_is_an_answer_or_a_reason(line in "\\PC{0,200}") {
            if let Ok(reply) = parse_reply(&line) {
                let _ = reply.into_answer(&line);
            }
        }
    }

    fn answer(line: &str) -> Answer {
        parse_reply(line).unwrap_or_else(|e| panic!("{e}")).into_answer(line)
    }

    #[test]
    fn a_success_gives_its_page_elements_tabs_and_text() {
        let line = r#"{"id":3,"ok":true,"page":{"url":"http://x/a","title":"A"},"snapshot":{"elements":[{"ref":"ab:1","role":"link","name":"Next"},{"ref":7,"role":"button"}]},"tabs":[{"index":1,"url":"http://x/a","title":"A","current":true}],"text":"Next","extra":1}"#;
        let reply = parse_reply(line).unwrap();
        assert_eq!(reply.id, 3);
        let a = reply.into_answer(line);
        assert!(a.succeeded());
        assert_eq!(a.page, Some(PageSeen { url: "http://x/a".into(), title: "A".into() }));
        let elements = a.elements.unwrap();
        assert_eq!(elements[0], ElementSeen { reference: "ab:1".into(), role: "link".into(), name: "Next".into() });
        assert_eq!(elements[1].reference, "7");
        assert_eq!(elements[1].name, "");
        assert_eq!(a.tabs.unwrap(), [TabSeen { title: "A".into(), url: "http://x/a".into(), current: true }]);
        assert!(a.text.starts_with("Next\n{\"id\":3"), "{}", a.text);
    }

    #[test]
    fn an_answer_without_a_snapshot_has_no_elements_and_an_empty_one_has_none_listed() {
        let a = answer(r#"{"id":1,"ok":true}"#);
        assert!(a.succeeded() && a.page.is_none() && a.elements.is_none() && a.tabs.is_none());
        assert_eq!(answer(r#"{"id":1,"ok":true,"snapshot":{"elements":[]}}"#).elements, Some(vec![]));
        assert_eq!(answer(r#"{"id":1,"ok":true,"snapshot":{}}"#).elements, Some(vec![]));
    }

    #[test]
    fn a_failure_keeps_its_class_and_an_unknown_class_is_other_and_said_so() {
        let a = answer(r#"{"id":2,"ok":false,"error":{"class":"stale-ref","message":"gone"}}"#);
        assert_eq!(a.failure, Some(Failure { class: FailureClass::StaleRef, message: "gone".into() }));
        let a = answer(r#"{"id":2,"ok":false,"error":{"class":"exploded","message":"boom"}}"#);
        let failure = a.failure.unwrap();
        assert_eq!(failure.class, FailureClass::Other);
        assert!(failure.message.starts_with("boom (its class \"exploded\" is not one of"), "{}", failure.message);
        let failure = answer(r#"{"id":2,"ok":false}"#).failure.unwrap();
        assert_eq!(failure.class, FailureClass::Other);
        assert!(failure.message.contains("without an error"));
        let failure = answer(r#"{"id":2,"ok":false,"error":{"message":"m"}}"#).failure.unwrap();
        assert_eq!(
            (failure.class, failure.message.as_str()),
            (FailureClass::Other, "m (no class given: taken as other)")
        );
    }

    #[test]
    fn a_line_that_is_not_an_answer_says_why_and_whether_it_was_the_protocol_s_at_all() {
        let not_protocol = [
            ("garbage", "not JSON"),
            ("[1,2]", "not a JSON object"),
            (r#"{"ok":true}"#, "without an id"),
            (r#"{"level":"info","msg":"a structured log line"}"#, "without an id"),
        ];
        let malformed = [
            (r#"{"id":null,"ok":false,"error":{"class":"other","message":"malformed"}}"#, "id is null"),
            (r#"{"id":"3","ok":true}"#, "id is \"3\""),
            (r#"{"id":3}"#, "missing field `ok`"),
            (r#"{"id":3,"ok":"yes"}"#, "not an answer"),
            (r#"{"id":3,"ok":true,"page":"http://x"}"#, "not an answer"),
            (r#"{"id":3,"ok":true,"snapshot":{"elements":[{"ref":null}]}}"#, "elements[0]'s ref is null"),
            (r#"{"id":0,"start":{"chromium":"/usr/bin/chromium"}}"#, "missing field `ok`"),
        ];
        for (cases, of_the_protocol) in [(&not_protocol[..], false), (&malformed[..], true)] {
            for (line, why) in cases {
                let e = parse_reply(line).map(|r| r.id).unwrap_err();
                assert!(e.to_string().contains(why), "{line}: {e}");
                assert_eq!(e.is_not_protocol(), !of_the_protocol, "{line}: {e:?}");
            }
        }
    }

    #[test]
    fn the_start_answer_gives_the_agent_its_version_and_its_tools() {
        let line =
            r#"{"id":0,"ok":true,"agent":{"name":"x","version":"1.2.3"},"tools":["navigate","snapshot","tabs"]}"#;
        let started = Started::of(parse_reply(line).unwrap()).unwrap();
        assert_eq!((started.name.as_deref(), started.version.as_deref()), (Some("x"), Some("1.2.3")));
        assert_eq!(started.tools, Some(BTreeSet::from([NeutralTool::Navigate, NeutralTool::Snapshot])));
        let bare = Started::of(parse_reply(r#"{"id":0,"ok":true}"#).unwrap()).unwrap();
        assert!(bare.tools.is_none() && bare.version.is_none());
        let e = Started::of(
            parse_reply(r#"{"id":0,"ok":false,"error":{"class":"other","message":"no browser"}}"#).unwrap(),
        )
        .unwrap_err();
        assert_eq!(e, "its start failed (other: no browser)");
    }

    #[test]
    fn the_start_answer_says_which_forms_of_a_call_a_tool_takes() {
        let line = r#"{"id":0,"ok":true,"forms":{"screenshot":"!ref","scroll":[["by=page","!ref"],"direction"],"teleport":"x"}}"#;
        let forms = Started::of(parse_reply(line).unwrap()).unwrap().forms;
        assert_eq!(forms.keys().copied().collect::<Vec<_>>(), [NeutralTool::Scroll, NeutralTool::Screenshot]);
        let takes = |tool, args: Value| forms[&tool].iter().any(|form| form.hold(&args));
        assert!(takes(NeutralTool::Screenshot, json!({"full_page": true})));
        assert!(!takes(NeutralTool::Screenshot, json!({"ref": "4"})));
        assert!(takes(NeutralTool::Scroll, json!({"by": "page", "direction": "up"})));
        assert!(takes(NeutralTool::Scroll, json!({"ref": "4", "direction": "down"})));
        assert!(!takes(NeutralTool::Scroll, json!({"by": "end"})));
        // A form that is no condition is named with the start, not found at a call.
        let bad = r#"{"id":0,"ok":true,"forms":{"scroll":["!by=page"]}}"#;
        let e = Started::of(parse_reply(bad).unwrap()).unwrap_err();
        assert!(e.starts_with("its start answer's forms.scroll: when \"!by=page\""), "{e}");
    }

    #[test]
    fn a_picture_is_read_as_a_png_and_shown_by_its_size() {
        let png = b"\x89PNG\r\n\x1a\nrest of it";
        let base64 = base64::engine::general_purpose::STANDARD.encode(png);
        let line = format!(r#"{{"id":4,"ok":true,"picture":"{base64}"}}"#);
        let answer = parse_reply(&line).unwrap().into_answer(&line);
        assert_eq!(answer.picture, Some(png.len()));
        assert_eq!(answer.text, r#"{"id":4,"ok":true,"picture":"<a PNG of 18 bytes>"}"#);
        // Base64 of something else, or no base64 at all: no picture, and the reports say so.
        for not_png in [base64::engine::general_purpose::STANDARD.encode(b"GIF89a"), "%%%".to_owned()] {
            let line = format!(r#"{{"id":4,"ok":true,"picture":"{not_png}"}}"#);
            let answer = parse_reply(&line).unwrap().into_answer(&line);
            assert_eq!(answer.picture, None);
            assert!(answer.text.contains("<not a PNG in base64>"), "{}", answer.text);
        }
    }

    #[test]
    fn the_start_line_names_the_endpoint_only_when_there_is_one() {
        let line: Value = serde_json::from_str(&start_line("/usr/bin/chromium", Some("http://127.0.0.1:9"))).unwrap();
        assert_eq!(
            line,
            json!({"id": 0, "start": {"chromium": "/usr/bin/chromium", "cdp_endpoint": "http://127.0.0.1:9"}})
        );
        let line: Value = serde_json::from_str(&start_line("/c", None)).unwrap();
        assert_eq!(line, json!({"id": 0, "start": {"chromium": "/c"}}));
    }

    #[test]
    fn a_quoted_line_is_cut_on_a_character() {
        assert_eq!(quote("abc"), "`abc`");
        let long = "é".repeat(QUOTED + 5);
        assert_eq!(quote(&long), format!("`{}…`", "é".repeat(QUOTED)));
    }
}
