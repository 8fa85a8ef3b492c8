//! Identifiers and the tab read-out.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A tab: a top-level browsing context (in BiDi, its context id).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TabId(pub String);

impl fmt::Display for TabId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for TabId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

/// A frame inside a tab's page: a child browsing context, an iframe's (in BiDi, its context
/// id). It outlives the frame's navigations; removing the iframe ends it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FrameId(pub String);

impl fmt::Display for FrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for FrameId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

/// A frame of a tab's page, as the browser lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FrameInfo {
    pub id: FrameId,
    /// The URL the browser reports for the frame's document.
    pub url: String,
    /// The frame it is nested in; `None`: an iframe of the tab's own document.
    pub parent: Option<FrameId>,
    /// A navigation has started in it and not yet committed or ended (by its events): its
    /// document is not there yet, or about to go.
    pub loading: bool,
}

/// One navigation of a tab, as the browser numbers it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct NavigationId(pub String);

/// What `chrome.tabs.get` would say of a tab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TabInfo {
    pub id: TabId,
    /// The committed URL: what the browser reports as the tab's URL now. A new tab reports
    /// `about:blank`, and an existing tab its old URL, until a navigation commits.
    pub url: String,
    /// The URL a navigation in flight is heading to (known from its start event), if any.
    pub pending_url: Option<String>,
    /// That navigation's id, if the browser gave one.
    pub pending_navigation: Option<NavigationId>,
    /// A navigation has started and the page has not finished loading.
    pub loading: bool,
    /// The tab whose page opened this one (`window.open`, `target=_blank`), if any.
    pub opener: Option<TabId>,
    /// The tab's latest navigation ended without a commit (a 204 answer, a download, a
    /// network error) and nothing has started since: a blank tab stays blank.
    pub navigation_failed: bool,
    /// The dialog the page has open (an alert, a confirm, a prompt, a leave-page question),
    /// if any: until it is answered, the page runs no script and takes no input.
    pub dialog: Option<Dialog>,
}

crate::closed_set! {
    /// The kinds of dialog a page can open (BiDi's `browsingContext.UserPromptType`, without
    /// the file picker, which is no question to answer).
    pub enum DialogKind("dialog kind") {
        Alert = "alert",
        Confirm = "confirm",
        Prompt = "prompt",
        BeforeUnload = "beforeunload",
    }
}

/// A dialog a page opened and nobody has answered yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dialog {
    pub kind: DialogKind,
    /// The page's words (Chromium gives a leave-page question none).
    pub message: String,
}

impl Dialog {
    /// What it is, in words: `an alert`, `a leave-page dialog (beforeunload)`.
    pub fn what(&self) -> &'static str {
        match self.kind {
            DialogKind::Alert => "an alert",
            DialogKind::Confirm => "a confirm dialog",
            DialogKind::Prompt => "a prompt",
            DialogKind::BeforeUnload => "a leave-page dialog (beforeunload)",
        }
    }

    /// Its words after a colon, quoted; nothing when it has none.
    pub fn quoted_message(&self) -> String {
        match self.message.trim() {
            "" => String::new(),
            message => format!(": {message:?}"),
        }
    }
}

/// In words for a person or a model: `an alert is open: "Saved."`.
impl fmt::Display for Dialog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is open{}", self.what(), self.quoted_message())
    }
}

/// An element of an observed page, as the snapshot named it: the frame and the document it was
/// seen in and its number there. Written `<document>.<n>` (e.g. `k3x9q2.12`) for an element of
/// the tab's own document, `<frame>/<document>.<n>` for one inside a frame. A ref is never
/// resolved by position: it names one element of one document, and is stale once that
/// document is replaced (in a frame: the frame navigated, or is gone) or the element removed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ElementRef {
    /// The frame whose document it was seen in; `None`: the tab's own document.
    pub frame: Option<FrameId>,
    /// The document's identity, given by the snapshot the first time it saw that document.
    pub document: String,
    pub index: u32,
}

impl ElementRef {
    /// A ref of an element of the tab's own document.
    pub fn top(document: impl Into<String>, index: u32) -> Self {
        Self { frame: None, document: document.into(), index }
    }
}

impl fmt::Display for ElementRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(frame) = &self.frame {
            write!(f, "{frame}/")?;
        }
        write!(f, "{}.{}", self.document, self.index)
    }
}

/// A ref that is not `<document>.<n>` or `<frame>/<document>.<n>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a ref (refs look like k3x9q2.12: a document id, a dot, a number; in a frame, <frame id>/k3x9q2.12)"
)]
pub struct MalformedRef(pub String);

impl std::str::FromStr for ElementRef {
    type Err = MalformedRef;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || MalformedRef(text.to_owned());
        // Browsers' context ids: Chromium's are hex, Firefox's UUIDs (with dashes).
        let (frame, element) = match text.split_once('/') {
            Some((frame, element)) => {
                let frame_ok =
                    !frame.is_empty() && frame.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
                if !frame_ok {
                    return Err(malformed());
                }
                (Some(FrameId(frame.to_owned())), element)
            }
            None => (None, text),
        };
        let (document, index) = element.split_once('.').ok_or_else(malformed)?;
        let document_ok = !document.is_empty() && document.chars().all(|c| c.is_ascii_alphanumeric());
        let index_ok = !index.is_empty() && index.chars().all(|c| c.is_ascii_digit());
        match (document_ok, index_ok, index.parse()) {
            (true, true, Ok(index)) => Ok(Self { frame, document: document.to_owned(), index }),
            _ => Err(malformed()),
        }
    }
}

impl<'de> serde::Deserialize<'de> for ElementRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl Serialize for ElementRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What an input action acts on: a CSS selector (the first match), or a ref from an
/// observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Css(String),
    Ref(ElementRef),
}

/// What a screenshot takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shot {
    /// What the tab's viewport shows.
    Viewport,
    /// The whole page, as far as a picture may reach ([`Shot::MAX_SIDE`] pixels a side).
    FullPage,
    /// One element's box.
    Element(Target),
}

/// Where a click's press went, by the watch the click set on the page it pressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PressLanded {
    /// The target took it.
    Reached,
    /// It landed on another element, which the page moved under the pointer as the press came
    /// (a banner pushing the target down, an ad in its place), or it came up there: the watch
    /// stopped it before that element's handlers saw it, and no click came of it.
    Elsewhere { on: String },
    /// No press came to the target's page at all: it landed in a frame over the target (an ad
    /// slid under the pointer), or outside the page; what it landed on may have taken it.
    Unseen,
}

/// A gesture of the real pointer (input the page receives as a person's), on targets found and
/// checked as a click's is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gesture {
    /// The pointer moved onto the element's middle and left there, until the next input moves
    /// it.
    Hover(Target),
    /// Pressed on `from`, moved onto `to` in steps, released there.
    Drag { from: Target, to: Target },
}

impl Shot {
    /// The longest side a picture of the whole page may have, in CSS pixels: a page longer
    /// than that is taken from its top to there (browsers refuse far larger pictures, and a
    /// model could not read them).
    pub const MAX_SIDE: u32 = 8_192;
}

/// A selector as it was written, a ref as `ref <document>.<n>`.
impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Css(selector) => f.write_str(selector),
            Self::Ref(reference) => write!(f, "ref {reference}"),
        }
    }
}

crate::closed_set! {
    /// Why a ref no longer names an element (the names are what the page's resolver answers).
    pub enum Staleness("staleness") {
        /// The tab's document is another one than the ref was taken in (it navigated).
        DocumentReplaced = "document-replaced",
        /// The document is the same, the element is no longer in it.
        ElementRemoved = "element-removed",
        /// The document is still the tab's, but a navigation is replacing it (a reload, a
        /// link, the page's own redirect): whatever the ref names is about to go.
        DocumentLeaving = "document-leaving",
        /// The frame the ref was taken in is no longer in the page (its iframe was removed,
        /// or the page around it replaced).
        FrameGone = "frame-gone",
    }
}

impl Staleness {
    /// What the model is told.
    pub fn words(self) -> &'static str {
        match self {
            Self::DocumentReplaced => "its page has been replaced since it was observed",
            Self::ElementRemoved => "its element is no longer in the page",
            Self::DocumentLeaving => "its page is being replaced (a navigation is in flight)",
            Self::FrameGone => "the frame it was in is no longer in the page",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ref_reads_and_prints_as_document_dot_number() {
        let r: ElementRef = "k3x9q2.12".parse().unwrap();
        assert_eq!(r, ElementRef::top("k3x9q2", 12));
        assert_eq!(r.to_string(), "k3x9q2.12");
        for bad in ["", "12", "k3.", ".4", "k3.x", "k-3.4", "k3.4.5", "k3.-4", "/k3.4", "f 1/k3.4", "f/k3", "a/b/k3.4"]
        {
            assert_eq!(bad.parse::<ElementRef>(), Err(MalformedRef(bad.into())), "{bad:?}");
        }
    }

    #[test]
    fn a_ref_inside_a_frame_carries_the_frame_before_a_slash() {
        for frame in ["8F3A9C1D2E4B5A6978C0D1E2F3A4B5C6", "6e0f8c5a-4b1d-4c3e-9f1a-0b2c3d4e5f60"] {
            let text = format!("{frame}/k3x9q2.12");
            let r: ElementRef = text.parse().unwrap();
            assert_eq!(r, ElementRef { frame: Some(FrameId::from(frame)), ..ElementRef::top("k3x9q2", 12) });
            assert_eq!(r.to_string(), text);
        }
    }
}
