//! The round's observation: a snapshot of the focused tab: its document's identity, URL, title,
//! the start of its text, and its interactive elements with refs, roles, names, values and forms;
//! then the same of each of its frames, whatever their origin.

use crate::browser::{BrowserError, BrowserPort, Dialog, ElementRef, FrameId, FrameInfo, PageScript, TabId};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::time::Duration;

/// How many elements a snapshot lists at most.
pub(super) const MAX_ELEMENTS: usize = 60;

/// One interactive element, as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    /// What `click` and `type` take: valid while this document is the tab's document and the
    /// element is still in it.
    #[serde(rename = "ref")]
    pub reference: ElementRef,
    /// A CSS selector that finds it now (an `#id` where it has one), in its own document: for
    /// an element of a frame, the frame's document (a click by selector looks in the tab's).
    pub selector: String,
    pub tag: String,
    /// Its ARIA role (explicit, or the implicit one of its tag).
    pub role: String,
    /// Its accessible name (aria-label, a label, its text, its placeholder…), shortened.
    pub name: String,
    /// Its text, shortened.
    pub text: String,
    /// A field's value; a password field's is always `[redacted]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The form a field or button belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<FormContext>,
}

/// Where a form sends what it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormContext {
    /// `get` or `post`.
    pub method: String,
    pub action: String,
}

/// A snapshot of a tab: what the model is given of the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The agent's number for this snapshot (`s1`, `s2`, … within a task).
    #[serde(default)]
    pub snapshot: String,
    #[serde(skip_deserializing, default = "unknown_tab")]
    pub tab: TabId,
    /// The identity of the document it was taken in: the same while the tab shows this
    /// document, another after any navigation (the refs' first part).
    pub document: String,
    pub url: String,
    pub title: String,
    /// The start of the page's visible text, whitespace folded.
    pub text: String,
    pub elements: Vec<Element>,
    /// The dialog the page has open. Then the page itself could not be read (it runs no
    /// script until the dialog is answered): no document, title, text or elements, only its
    /// URL; the model answers the dialog with `handle_dialog`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// The page's frames (iframes, and theirs), parents first: those read, whose elements follow
    /// the tab's own in `elements` (their refs begin with the frame's id), and those left out,
    /// with why. None on a page without frames.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<FrameSeen>,
}

/// A frame of the observed page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameSeen {
    /// The frame's id: what the refs of its elements begin with.
    pub frame: FrameId,
    /// The frame it is nested in; none for an iframe of the tab's own document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<FrameId>,
    pub url: String,
    /// Its document's identity (the refs' part after the frame's id); none when left out.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub document: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// The start of its visible text, whitespace folded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// How many of the observation's elements are its.
    pub elements: usize,
    /// Why it was not read, if it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<LeftOut>,
}

crate::closed_set! {
    /// Why a snapshot left a frame out: it lists the frame, without its document.
    pub enum LeftOut("frame left out") {
        /// It did not answer within the frame deadline (1.5 s; 250 ms while a navigation is under
        /// way in it): still loading, never loading, or navigating again and again. The page
        /// around it is observed without waiting for it.
        NoAnswer = "no-answer",
        /// It was removed (or its page replaced) while it was read.
        Gone = "gone",
        /// It answered something else than its snapshot (its script failed).
        Unreadable = "unreadable",
        /// The page has more frames than a snapshot reads (16); the first are read.
        TooMany = "too-many",
    }
}

impl LeftOut {
    /// Why a frame's read failed, in the set's terms.
    fn of(error: &BrowserError) -> Self {
        if error.is_timeout() {
            Self::NoAnswer
        } else if error.is_frame_gone() || error.is_tab_gone() {
            Self::Gone
        } else {
            Self::Unreadable
        }
    }
}

impl Observation {
    /// A digest of the page's state (URL, title, text, elements without their refs): equal
    /// digests, the same page as far as the model can tell.
    pub fn digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (&self.url, &self.title, &self.text).hash(&mut hasher);
        self.dialog.as_ref().map(|d| (d.kind, &d.message)).hash(&mut hasher);
        for e in &self.elements {
            (&e.selector, &e.role, &e.name, &e.text, &e.value).hash(&mut hasher);
        }
        // Hashed only when there are frames: a page without any keeps the digest it always had.
        for f in &self.frames {
            (&f.url, &f.title, &f.text, f.left_out.map(LeftOut::name)).hash(&mut hasher);
        }
        hasher.finish()
    }
}

fn unknown_tab() -> TabId {
    TabId(String::new())
}

/// How long a snapshot waits for a document that is still being parsed.
pub(super) const PARSE_WAIT_MS: u64 = 2000;

/// How much of the page's visible text a snapshot carries.
pub(super) const TEXT_CHARS: usize = 600;

/// How long a frame's part of a snapshot may take, its document's parse wait included: a frame
/// that does not answer by then is left out, so that a frame that never loads or keeps
/// navigating cannot hold the snapshot of the page around it. The frames are read at once, so
/// a snapshot waits this long at most for all of them.
pub(super) const FRAME_DEADLINE: Duration = Duration::from_millis(1500);

/// How long a frame's part may take when a navigation is under way in the frame: its
/// document is not there yet or about to go, and Chromium holds the script until the commit
/// (forever, for a navigation that never commits); a frame that answers anyway is read.
pub(super) const LOADING_FRAME_DEADLINE: Duration = Duration::from_millis(250);

/// How long a frame's part waits for its document to be parsed (within [`FRAME_DEADLINE`]).
const FRAME_PARSE_WAIT_MS: u64 = 500;

/// How much of a frame's visible text a snapshot carries.
const FRAME_TEXT_CHARS: usize = 200;

/// How many frames a snapshot reads at most; the others are listed, left out.
pub(super) const MAX_FRAMES: usize = 16;

// Right after a commit the new document may not be parsed yet: Firefox ESR 153 runs a script
// sent then in an empty document (no title, no elements). The snapshot waits for
// DOMContentLoaded first, at most PARSE_WAIT_MS (a page that never finishes parsing is still
// observed, as it is).
//
// Refs: the first snapshot of a document gives it an identity and a registry
// (`document.__navguard`, not enumerable), numbering each element it lists once; a later
// snapshot of the same document gives the same element the same ref. A new document starts a
// new registry, so a ref of the old one can never name an element of the new one.
//
// Frames: a script in the tab's document cannot read a frame from another origin, so each
// frame's document runs the same script in its own context (the browser's child browsing
// context), with a shorter parse wait and text; its registry lives in its own document.
pub(in crate::agent) const SNAPSHOT: PageScript = crate::page_script!("snapshot", "snapshot.js");

/// The snapshot script's arguments: how long it waits for a document still being parsed, how
/// many elements and how much text it carries.
fn snapshot_limits(parse_wait_ms: u64, text_chars: usize) -> Value {
    json!({ "parseWait": parse_wait_ms, "max": MAX_ELEMENTS, "text": text_chars })
}

fn shape_error(e: serde_json::Error) -> BrowserError {
    BrowserError::Script(format!("the snapshot did not have the expected shape: {e}"))
}

/// Takes a snapshot of `tab`: its own document, then its frames.
pub async fn observe(port: &dyn BrowserPort, tab: &TabId) -> Result<Observation, BrowserError> {
    observe_told(port, tab).await.map(|(observation, _)| observation)
}

/// [`observe`], and whether the page said it began to leave since it was last asked (by the
/// page watch the adapter installs): its document may be going already, though the browser
/// has not told yet. A start the browser already told of and ended where the page was (a
/// download, a 204) is not leaving.
pub(in crate::agent) async fn observe_told(
    port: &dyn BrowserPort,
    tab: &TabId,
) -> Result<(Observation, bool), BrowserError> {
    let value = port.call(tab, &SNAPSHOT, std::slice::from_ref(snapshot_args())).await?;
    observation_of(port, tab, value).await
}

/// The arguments of the snapshot [`observe_told`] takes of a tab's document, for a caller that
/// takes it together with a look of its own.
pub(in crate::agent) fn snapshot_args() -> &'static Value {
    static LIMITS: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| snapshot_limits(PARSE_WAIT_MS, TEXT_CHARS));
    &LIMITS
}

/// [`observe_told`] from the value the snapshot script gave.
pub(in crate::agent) async fn observation_of(
    port: &dyn BrowserPort,
    tab: &TabId,
    value: serde_json::Value,
) -> Result<(Observation, bool), BrowserError> {
    let has_frames = value.get("child_frames").and_then(serde_json::Value::as_u64).is_none_or(|n| n > 0);
    let leaving = value.get("leaving").is_some_and(|tell| crate::agent::settle::told_leaving(port, tab, tell));
    let mut observation: Observation = serde_json::from_value(value).map_err(shape_error)?;
    observation.tab = tab.clone();
    if has_frames {
        observe_frames(port, tab, &mut observation).await;
    }
    Ok((observation, leaving))
}

/// One frame's document, as the snapshot script reads it.
#[derive(Deserialize)]
struct FrameRead {
    document: String,
    url: String,
    title: String,
    text: String,
    elements: Vec<Element>,
}

/// Adds the page's frames to its observation, all read at once, each within [`FRAME_DEADLINE`].
/// It never fails the observation: the page itself was read; a frame that cannot be is listed
/// as left out, and a page whose frames cannot be listed is observed without them.
async fn observe_frames(port: &dyn BrowserPort, tab: &TabId, observation: &mut Observation) {
    let frames = match port.frames(tab).await {
        Ok(frames) => frames,
        Err(e) => {
            tracing::debug!(target: "navguard::observe", %tab, error = %e, "the page's frames could not be listed");
            return;
        }
    };
    if frames.is_empty() {
        return;
    }
    let limits = [snapshot_limits(FRAME_PARSE_WAIT_MS, FRAME_TEXT_CHARS)];
    let reads = frames.iter().take(MAX_FRAMES).map(|frame| async {
        let deadline = if frame.loading { LOADING_FRAME_DEADLINE } else { FRAME_DEADLINE };
        let value = port.call_in_frame(tab, &frame.id, &SNAPSHOT, &limits, deadline).await?;
        serde_json::from_value::<FrameRead>(value).map_err(shape_error)
    });
    let mut reads = futures::future::join_all(reads).await.into_iter();
    for frame in frames {
        // One read per frame up to MAX_FRAMES: none left, a frame past them.
        let seen = match reads.next() {
            Some(Ok(read)) => frame_seen(frame, read, &mut observation.elements),
            Some(Err(e)) => {
                let why = LeftOut::of(&e);
                tracing::debug!(target: "navguard::observe", %tab, frame = %frame.id, error = %e, "frame left out: {why}");
                FrameSeen::left_out(frame, why)
            }
            None => FrameSeen::left_out(frame, LeftOut::TooMany),
        };
        observation.frames.push(seen);
    }
}

/// A frame that was read: its elements join the page's (their refs naming the frame), as many
/// as [`MAX_ELEMENTS`] leaves room for.
fn frame_seen(frame: FrameInfo, read: FrameRead, elements: &mut Vec<Element>) -> FrameSeen {
    let room = MAX_ELEMENTS.saturating_sub(elements.len());
    let mut taken = 0;
    for mut element in read.elements.into_iter().take(room) {
        element.reference.frame = Some(frame.id.clone());
        elements.push(element);
        taken += 1;
    }
    FrameSeen {
        frame: frame.id,
        parent: frame.parent,
        url: read.url,
        document: read.document,
        title: read.title,
        text: read.text,
        elements: taken,
        left_out: None,
    }
}

impl FrameSeen {
    fn left_out(frame: FrameInfo, why: LeftOut) -> Self {
        Self {
            frame: frame.id,
            parent: frame.parent,
            url: frame.url,
            document: String::new(),
            title: String::new(),
            text: String::new(),
            elements: 0,
            left_out: Some(why),
        }
    }
}

/// What can be said of a page a dialog blocks: its URL and the dialog.
pub(in crate::agent) fn blocked(tab: &TabId, url: String, dialog: Dialog) -> Observation {
    Observation {
        snapshot: String::new(),
        tab: tab.clone(),
        document: String::new(),
        url,
        title: String::new(),
        text: String::new(),
        elements: Vec::new(),
        dialog: Some(dialog),
        frames: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(reference: &str) -> Element {
        Element {
            reference: reference.parse().unwrap(),
            selector: "#send".into(),
            tag: "button".into(),
            role: "button".into(),
            name: "send".into(),
            text: "send".into(),
            value: None,
            form: None,
        }
    }

    fn frame(id: &str) -> FrameInfo {
        FrameInfo { id: FrameId::from(id), url: "http://b.test/page".into(), parent: None, loading: false }
    }

    fn read(elements: Vec<Element>) -> FrameRead {
        FrameRead {
            document: "fd1".into(),
            url: "http://b.test/page".into(),
            title: "Inner".into(),
            text: "Inner".into(),
            elements,
        }
    }

    #[test]
    fn a_frames_elements_follow_the_pages_with_refs_that_name_the_frame() {
        let mut elements = vec![element("top1.1")];
        let seen = frame_seen(frame("F1"), read(vec![element("fd1.1"), element("fd1.2")]), &mut elements);
        let refs: Vec<String> = elements.iter().map(|e| e.reference.to_string()).collect();
        assert_eq!(refs, ["top1.1", "F1/fd1.1", "F1/fd1.2"]);
        assert_eq!((seen.elements, seen.document.as_str(), seen.left_out), (2, "fd1", None));
    }

    #[test]
    fn a_frame_gets_only_the_room_the_element_limit_leaves() {
        let mut elements: Vec<Element> = (1..MAX_ELEMENTS).map(|n| element(&format!("top1.{n}"))).collect();
        let seen = frame_seen(frame("F1"), read(vec![element("fd1.1"), element("fd1.2")]), &mut elements);
        assert_eq!((elements.len(), seen.elements), (MAX_ELEMENTS, 1));
    }

    #[test]
    fn a_frame_is_left_out_as_its_read_failed() {
        let timeout = BrowserError::Timeout { op: "script.evaluate".into(), after: FRAME_DEADLINE };
        let gone = BrowserError::FrameGone { tab: TabId::from("T"), frame: FrameId::from("F1") };
        let thrown = BrowserError::Script("boom".into());
        let kinds = [LeftOut::of(&timeout), LeftOut::of(&gone), LeftOut::of(&thrown)];
        assert_eq!(kinds, [LeftOut::NoAnswer, LeftOut::Gone, LeftOut::Unreadable]);
        let json = serde_json::to_value(FrameSeen::left_out(frame("F1"), LeftOut::NoAnswer)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"frame": "F1", "url": "http://b.test/page", "elements": 0, "left_out": "no-answer"})
        );
    }

    #[test]
    fn a_page_without_frames_is_written_as_before() {
        let page = blocked(
            &TabId::from("T"),
            "http://a.test/".into(),
            Dialog { kind: crate::browser::DialogKind::Alert, message: "Hi".into() },
        );
        let json = serde_json::to_value(&page).unwrap();
        assert!(json.get("frames").is_none(), "{json}");
        let back: Observation = serde_json::from_value(json).unwrap();
        assert!(back.frames.is_empty());
    }
}
