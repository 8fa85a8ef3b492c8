//! The tools that read the page or move its view, and change nothing the page keeps: `extract`
//! (what elements, named fields or the page hold now), `scroll` (an element into view, or the
//! page by a page or to its end, then what came into view) and `screenshot` (a PNG).

use super::error::ToolFailure;
use super::execute::{ToolContext, ToolRun, browser, focused};
use super::tabs::TaskTabs;
use super::tool::{Extracting, ScrollAmount, ScrollDirection, Scrolling, ToolName};
use crate::agent::closed_loop::snapshot_args;
use crate::agent::settle::{ActionStreams, settle_action};
use crate::browser::{BrowserError, BrowserPort, PageScript, Shot, Staleness, TabId, Target, page_script_finding};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// What an element holds now (see the script's own comment).
pub(super) const ELEMENT: PageScript = page_script_finding!("element", "element.js", "target, names, caps, want");

/// The page's URL, title and whole visible text.
const PAGE_TEXT: PageScript = crate::page_script!("page text", "page_text.js");

/// The scroll itself (see the script's own comment).
const SCROLL: PageScript = page_script_finding!("scroll", "scroll.js", "target, names, how, pick");

/// What came into view since the scroll.
pub(super) const CAME_INTO_VIEW: PageScript = crate::page_script!("came into view", "came_into_view.js");

/// The elements whose coming into view a scroll tells (those the snapshot gives refs to).
pub(super) const INTERACTIVE: &str = "a[href], button, input:not([type=hidden]), select, textarea, [role], [onclick]";

/// The most characters of one element's text `extract` gives.
pub(super) const ELEMENT_TEXT_CHARS: u64 = 4_000;
/// The most characters of the page's text `extract` gives.
const PAGE_TEXT_CHARS: u64 = 20_000;
/// The most elements a scroll's answer names.
pub(super) const CAME_INTO_VIEW_MAX: u64 = 20;
/// How long a script in a frame may take: a frame that does not answer is not waited for long.
const FRAME_DEADLINE: Duration = Duration::from_secs(5);

/// Calls `script` where `target` is: the frame a ref names, else the tab's own document.
pub(super) async fn call_at(
    port: &dyn BrowserPort,
    tab: &TabId,
    target: Option<&Target>,
    script: &PageScript,
    args: &[Value],
) -> Result<Value, BrowserError> {
    match target {
        Some(Target::Ref(reference)) if let Some(frame) = &reference.frame => {
            match port.call_in_frame(tab, frame, script, args, FRAME_DEADLINE).await {
                Err(BrowserError::FrameGone { .. }) => {
                    Err(BrowserError::StaleRef { reference: reference.clone(), why: Staleness::FrameGone })
                }
                other => other,
            }
        }
        _ => port.call(tab, script, args).await,
    }
}

/// Whether a script's answer about an element found it (an object), rather than telling why not
/// (`null`, or a staleness's name).
pub(super) fn found(answer: &Value) -> bool {
    answer.is_object()
}

impl ToolContext<'_> {
    /// `extract`: reads the page, an element, or each named field, and answers with JSON.
    pub(super) async fn extract(&self, tabs: &TaskTabs, what: &Extracting) -> ToolRun {
        const TOOL: ToolName = ToolName::Extract;
        let tab = match focused(tabs, TOOL) {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        self.phase.set("the page to be read");
        let read = match what {
            Extracting::Page => self.port.call(&tab, &PAGE_TEXT, &[json!({ "text": PAGE_TEXT_CHARS })]).await,
            Extracting::Element(target) => self.read_element(&tab, target).await,
            Extracting::Fields(fields) => {
                let reads = fields.iter().map(|(_, target)| self.read_element(&tab, target));
                let reads = futures::future::join_all(reads).await;
                let mut out = Map::new();
                let mut failed = None;
                for ((name, _), read) in fields.iter().zip(reads) {
                    match read {
                        Ok(value) => {
                            out.insert(name.clone(), value);
                        }
                        // A field a selector finds nothing for is said as null: the others
                        // still answer. A stale ref fails the call: the model must look again.
                        Err(BrowserError::NoSuchElement { .. }) => {
                            out.insert(name.clone(), Value::Null);
                        }
                        Err(e) => failed = failed.or(Some(e)),
                    }
                }
                failed.map_or(Ok(Value::Object(out)), Err)
            }
        };
        match read {
            Ok(value) => ToolRun::ok(value.to_string()),
            Err(e) => ToolRun::err(browser(TOOL)(e)),
        }
    }

    /// What one element holds now, or why it cannot be read.
    pub(super) async fn read_element(&self, tab: &TabId, target: &Target) -> Result<Value, BrowserError> {
        let args = [target.finder_arg(), Staleness::finder_names(), json!({ "text": ELEMENT_TEXT_CHARS })];
        let answer = call_at(self.port, tab, Some(target), &ELEMENT, &args).await?;
        if found(&answer) { Ok(answer) } else { Err(BrowserError::element_not_found(tab, target, &answer)) }
    }

    /// `scroll`: moves the view as asked, waits as after an action (a page that loads more as it
    /// is scrolled fetches it), then tells what came into view.
    pub(super) async fn scroll(&self, tabs: &TaskTabs, how: &Scrolling) -> ToolRun {
        const TOOL: ToolName = ToolName::Scroll;
        let tab = match focused(tabs, TOOL) {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        let (target, request) = match how {
            Scrolling::IntoView(target) => (Some(target), json!({})),
            Scrolling::By { amount, direction, within } => {
                (within.as_ref(), json!({ "by": amount.name(), "direction": direction.name() }))
            }
        };
        self.phase.set("the scroll to be done");
        let streams = ActionStreams::subscribe(self.port);
        let find = target.map_or(Value::Null, Target::finder_arg);
        let args = [find, Staleness::finder_names(), request, json!(INTERACTIVE)];
        let moved = match call_at(self.port, &tab, target, &SCROLL, &args).await {
            Ok(answer) => answer,
            Err(e) => return ToolRun::err(browser(TOOL)(e)),
        };
        if let Some(target) = target
            && !found(&moved)
        {
            return ToolRun::err(browser(TOOL)(BrowserError::element_not_found(&tab, target, &moved)));
        }
        if let Some(why) = moved.get("clipped").and_then(Value::as_str) {
            let target = target.map(ToString::to_string).unwrap_or_default();
            return ToolRun::err(browser(TOOL)(BrowserError::NotInteractable { target, why: why.to_owned() }));
        }
        self.phase.set("what the scroll started to end and the page to go quiet");
        let settled =
            match settle_action(self.port, streams, &tab, self.action_limits(), self.cancel, Some(snapshot_args()))
                .await
            {
                Ok(settled) => settled,
                Err(e) => return ToolRun::err(browser(TOOL)(e)),
            };
        let args = [json!(INTERACTIVE), json!(CAME_INTO_VIEW_MAX)];
        let came = call_at(self.port, &tab, target, &CAME_INTO_VIEW, &args).await.unwrap_or(Value::Null);
        let text = format!(
            "{}; {}; the page {}",
            scroll_words(how, &moved),
            came_words(&came),
            self.settle_words(&tab, &settled)
        );
        ToolRun { quiet_seen: super::execute::quiet_seen(&tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
    }

    /// `screenshot`: a PNG of the viewport, the whole page (bounded) or one element.
    pub(super) async fn screenshot(&self, tabs: &TaskTabs, target: Option<&Target>, full_page: bool) -> ToolRun {
        const TOOL: ToolName = ToolName::Screenshot;
        let tab = match focused(tabs, TOOL) {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        let shot = match (target, full_page) {
            (Some(target), _) => Shot::Element(target.clone()),
            (None, true) => Shot::FullPage,
            (None, false) => Shot::Viewport,
        };
        self.phase.set("the picture to be taken");
        let png = match self.port.capture(&tab, &shot).await {
            Ok(png) => png,
            Err(e) => return ToolRun::err(browser(TOOL)(e)),
        };
        let Some((width, height)) = png_size(&png) else {
            let source = "the browser's picture is no PNG".into();
            let e = BrowserError::Browser { op: "browsingContext.captureScreenshot".into(), source };
            return ToolRun::err(ToolFailure::Browser(e).of(TOOL));
        };
        let of = match &shot {
            Shot::Viewport => "the viewport".to_owned(),
            Shot::FullPage => "the whole page".to_owned(),
            Shot::Element(target) => target.to_string(),
        };
        let text = format!("took a picture of {of}: {width}×{height} px, {} bytes of PNG", png.len());
        ToolRun { picture: Some(png.into()), ..ToolRun::ok(text) }
    }
}

/// A PNG's width and height, from its header; `None` when it is no PNG.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || !png.starts_with(SIGNATURE) || &png[12..16] != b"IHDR" {
        return None;
    }
    let word = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    Some((word(16), word(20)))
}

/// What the scroll did, in words.
fn scroll_words(how: &Scrolling, moved: &Value) -> String {
    let did_move = moved.get("moved").and_then(Value::as_bool).unwrap_or(false);
    let at = moved.get("at").and_then(Value::as_i64).unwrap_or(0);
    let max = moved.get("max").and_then(Value::as_i64).unwrap_or(0);
    let place = format!("at {at} of {max} px");
    match how {
        Scrolling::IntoView(target) if did_move => format!("scrolled {target} into view (the page is now {place})"),
        Scrolling::IntoView(target) => format!("{target} was in view already"),
        Scrolling::By { amount, direction, within } => {
            let what = within.as_ref().map_or_else(|| "the page".to_owned(), ToString::to_string);
            let how_far = match amount {
                ScrollAmount::Page => "by a page",
                ScrollAmount::End => "to its end",
            };
            let way = match direction {
                ScrollDirection::Down => "down",
                ScrollDirection::Up => "up",
            };
            if did_move {
                format!("scrolled {what} {way} {how_far} (now {place})")
            } else {
                format!("{what} did not move: it is {place}, as far {way} as it goes")
            }
        }
    }
}

/// What came into view, in words.
pub(super) fn came_words(came: &Value) -> String {
    let elements = came.get("elements").and_then(Value::as_array).cloned().unwrap_or_default();
    if elements.is_empty() {
        return "nothing new came into view".to_owned();
    }
    let named: Vec<String> = elements
        .iter()
        .map(|e| {
            let tag = e.get("tag").and_then(Value::as_str).unwrap_or("element");
            let label = e.get("label").and_then(Value::as_str).unwrap_or_default();
            if label.is_empty() { tag.to_owned() } else { format!("{tag} {label:?}") }
        })
        .collect();
    let more = came.get("more").and_then(Value::as_u64).unwrap_or(0);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("came into view: {}{more}", named.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::ElementRef;

    #[test]
    fn a_png_header_gives_its_size_and_anything_else_none() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1280u32.to_be_bytes());
        png.extend_from_slice(&720u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((1280, 720)));
        assert_eq!(png_size(b"GIF89a"), None);
        assert_eq!(png_size(&png[..20]), None);
    }

    #[test]
    fn a_scroll_says_where_the_page_is_and_what_came_into_view() {
        let by = Scrolling::By { amount: ScrollAmount::Page, direction: ScrollDirection::Down, within: None };
        assert_eq!(
            scroll_words(&by, &json!({"moved": true, "at": 540, "max": 2400})),
            "scrolled the page down by a page (now at 540 of 2400 px)"
        );
        let end = Scrolling::By { amount: ScrollAmount::End, direction: ScrollDirection::Up, within: None };
        assert_eq!(
            scroll_words(&end, &json!({"moved": false, "at": 0, "max": 2400})),
            "the page did not move: it is at 0 of 2400 px, as far up as it goes"
        );
        let into = Scrolling::IntoView(Target::Ref(ElementRef::top("d1", 3)));
        assert_eq!(scroll_words(&into, &json!({"moved": false})), "ref d1.3 was in view already");
        let came = json!({"elements": [{"tag": "a", "label": "Item 11"}, {"tag": "button", "label": ""}], "more": 3});
        assert_eq!(came_words(&came), r#"came into view: a "Item 11", button and 3 more"#);
        assert_eq!(came_words(&Value::Null), "nothing new came into view");
    }

    #[test]
    fn the_composed_scripts_hold_the_element_finder() {
        let finder = include_str!("../../browser/find_element.js");
        for script in [ELEMENT, SCROLL] {
            assert!(script.function.contains(finder.trim()), "{}", script.name);
        }
    }
}
