//! The `browsingContext` module: tabs, navigation, node lookup, screenshots, and its events.
//! <https://w3c.github.io/webdriver-bidi/#module-browsingContext>

use super::browser::UserContext;
use crate::bidi::command::{Command, Empty};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A browsing context id (`browsingContext.BrowsingContext`). Chromium uses the window handle.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ContextId(pub String);

/// A navigation id (`browsingContext.Navigation`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Navigation(pub String);

crate::closed_set! {
    /// When a navigation command answers (`browsingContext.ReadinessState`).
    pub enum Readiness("readiness state") {
        /// At once (Chromium 156 still answers only at commit).
        None = "none",
        /// At DOMContentLoaded.
        Interactive = "interactive",
        /// At load.
        Complete = "complete",
    }
}

/// `browsingContext.create` of a tab, or of a window with its one tab.
#[derive(Debug, Serialize)]
pub struct Create {
    /// `"tab"` or `"window"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// A tab whose window a new tab opens in.
    #[serde(rename = "referenceContext", skip_serializing_if = "Option::is_none")]
    pub reference_context: Option<ContextId>,
    /// Open without making it the active tab.
    pub background: bool,
    /// The user context to open it in.
    #[serde(rename = "userContext", skip_serializing_if = "Option::is_none")]
    pub user_context: Option<UserContext>,
}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct Created {
    pub context: ContextId,
}

impl Command for Create {
    const METHOD: &'static str = "browsingContext.create";
    type Output = Created;
}

/// `browsingContext.navigate`.
#[derive(Debug, Serialize)]
pub struct Navigate {
    pub context: ContextId,
    pub url: String,
    pub wait: Readiness,
}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct NavigateResult {
    /// The navigation, if one was started.
    pub navigation: Option<Navigation>,
    pub url: String,
}

impl Command for Navigate {
    const METHOD: &'static str = "browsingContext.navigate";
    type Output = NavigateResult;
}

/// `browsingContext.reload`.
#[derive(Debug, Serialize)]
pub struct Reload {
    pub context: ContextId,
    pub wait: Readiness,
}

impl Command for Reload {
    const METHOD: &'static str = "browsingContext.reload";
    type Output = NavigateResult;
}

/// `browsingContext.traverseHistory`.
#[derive(Debug, Serialize)]
pub struct TraverseHistory {
    pub context: ContextId,
    /// -1 goes back.
    pub delta: i64,
}

impl Command for TraverseHistory {
    const METHOD: &'static str = "browsingContext.traverseHistory";
    type Output = Empty;
}

/// `browsingContext.close`.
#[derive(Debug, Serialize)]
pub struct Close {
    pub context: ContextId,
}

impl Command for Close {
    const METHOD: &'static str = "browsingContext.close";
    type Output = Empty;
}

/// `browsingContext.activate`.
#[derive(Debug, Serialize)]
pub struct Activate {
    pub context: ContextId,
}

impl Command for Activate {
    const METHOD: &'static str = "browsingContext.activate";
    type Output = Empty;
}

/// `browsingContext.getTree`.
#[derive(Debug, Default, Serialize)]
pub struct GetTree {
    /// Only this context's tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<ContextId>,
    /// 0: top-level contexts only.
    #[serde(rename = "maxDepth", skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct Tree {
    pub contexts: Vec<Info>,
}

impl Command for GetTree {
    const METHOD: &'static str = "browsingContext.getTree";
    type Output = Tree;
}

/// `browsingContext.Info`: a context as `getTree` and `contextCreated` describe it.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct Info {
    pub context: ContextId,
    pub url: String,
    /// Its parent frame; `None` for a tab.
    #[serde(default)]
    pub parent: Option<ContextId>,
    #[serde(rename = "userContext", default)]
    pub user_context: Option<UserContext>,
    /// The context whose page opened it.
    #[serde(rename = "originalOpener", default)]
    pub original_opener: Option<ContextId>,
    /// Its frames, as `getTree` gives them (`None` past the depth asked for, and in events).
    #[serde(default)]
    pub children: Option<Vec<Info>>,
}

/// `browsingContext.locateNodes` with a CSS selector.
#[derive(Debug, Serialize)]
pub struct LocateNodes {
    pub context: ContextId,
    /// `{"type":"css","value":…}`.
    pub locator: Value,
    #[serde(rename = "maxNodeCount")]
    pub max_node_count: u32,
}

impl LocateNodes {
    /// The first node matching a CSS selector.
    pub fn css(context: ContextId, selector: &str) -> Self {
        Self { context, locator: serde_json::json!({ "type": "css", "value": selector }), max_node_count: 1 }
    }
}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct Nodes {
    /// Remote values of the nodes, each with a `sharedId`.
    pub nodes: Vec<Value>,
}

impl Command for LocateNodes {
    const METHOD: &'static str = "browsingContext.locateNodes";
    type Output = Nodes;
}

/// `browsingContext.captureScreenshot`.
#[derive(Debug, Serialize)]
pub struct CaptureScreenshot {
    pub context: ContextId,
    /// What the clip's coordinates are measured in (the browser's default: the viewport).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<ScreenshotOrigin>,
    /// `{"type": "box", x, y, width, height}`: the part to take (the browser's default: all of
    /// the origin).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<serde_json::Value>,
}

/// `browsingContext.captureScreenshot`'s origin.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ScreenshotOrigin {
    Viewport,
    Document,
}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct Screenshot {
    /// Base64 PNG.
    pub data: String,
}

impl Command for CaptureScreenshot {
    const METHOD: &'static str = "browsingContext.captureScreenshot";
    type Output = Screenshot;
}

/// `browsingContext.NavigationInfo`: the params of the navigation events.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct NavigationInfo {
    pub context: ContextId,
    /// The navigation (absent for some same-document ones).
    #[serde(default)]
    pub navigation: Option<Navigation>,
    /// The browser's timestamp, ms since the epoch.
    #[serde(default)]
    pub timestamp: Option<u64>,
    pub url: String,
}

/// `browsingContext.handleUserPrompt`: answers the dialog of a tab.
#[derive(Debug, Serialize)]
pub struct HandleUserPrompt {
    pub context: ContextId,
    pub accept: bool,
    /// A prompt's answer.
    #[serde(rename = "userText", skip_serializing_if = "Option::is_none")]
    pub user_text: Option<String>,
}

impl Command for HandleUserPrompt {
    const METHOD: &'static str = "browsingContext.handleUserPrompt";
    type Output = Empty;
}

/// The params of `browsingContext.userPromptOpened`.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct PromptOpened {
    pub context: ContextId,
    /// `alert`, `beforeunload`, `confirm` or `prompt`.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub message: String,
    /// What the session does with it (`ignore`: it waits for an answer).
    #[serde(default)]
    pub handler: Option<String>,
}

/// The params of `browsingContext.userPromptClosed`.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct PromptClosed {
    pub context: ContextId,
    pub accepted: bool,
}

crate::closed_set! {
    /// The `browsingContext` events navguard subscribes to, by wire method: the one list both
    /// the subscription and [`Event::parse`] use.
    /// <https://w3c.github.io/webdriver-bidi/#module-browsingContext-events>
    pub enum EventMethod("browsingContext event");

    /// A `browsingContext` event, with its params.
    #[derive(Clone, Debug)]
    pub enum Event by method {
        ContextCreated(Info) = "browsingContext.contextCreated",
        ContextDestroyed(Info) = "browsingContext.contextDestroyed",
        NavigationStarted(NavigationInfo) = "browsingContext.navigationStarted",
        NavigationCommitted(NavigationInfo) = "browsingContext.navigationCommitted",
        DomContentLoaded(NavigationInfo) = "browsingContext.domContentLoaded",
        Load(NavigationInfo) = "browsingContext.load",
        NavigationFailed(NavigationInfo) = "browsingContext.navigationFailed",
        NavigationAborted(NavigationInfo) = "browsingContext.navigationAborted",
        FragmentNavigated(NavigationInfo) = "browsingContext.fragmentNavigated",
        /// Its params are only context, url and timestamp.
        HistoryUpdated(NavigationInfo) = "browsingContext.historyUpdated",
        /// A navigation became a download: it will never commit (Firefox sends no
        /// `navigationFailed` for it).
        DownloadWillBegin(NavigationInfo) = "browsingContext.downloadWillBegin",
        /// A page opened a dialog (with the session's `unhandledPromptBehavior` at `ignore`, it
        /// stays open until `handleUserPrompt` answers it).
        UserPromptOpened(PromptOpened) = "browsingContext.userPromptOpened",
        UserPromptClosed(PromptClosed) = "browsingContext.userPromptClosed",
    }
}

impl Event {
    /// Parses an event; `Ok(None)` for a method this module does not model.
    pub fn parse(method: &str, params: Value) -> Result<Option<Self>, serde_json::Error> {
        use serde_json::from_value as de;
        let Ok(method) = method.parse::<EventMethod>() else { return Ok(None) };
        let event = match method {
            EventMethod::ContextCreated => Self::ContextCreated(de(params)?),
            EventMethod::ContextDestroyed => Self::ContextDestroyed(de(params)?),
            EventMethod::NavigationStarted => Self::NavigationStarted(de(params)?),
            EventMethod::NavigationCommitted => Self::NavigationCommitted(de(params)?),
            EventMethod::DomContentLoaded => Self::DomContentLoaded(de(params)?),
            EventMethod::Load => Self::Load(de(params)?),
            EventMethod::NavigationFailed => Self::NavigationFailed(de(params)?),
            EventMethod::NavigationAborted => Self::NavigationAborted(de(params)?),
            EventMethod::FragmentNavigated => Self::FragmentNavigated(de(params)?),
            EventMethod::HistoryUpdated => Self::HistoryUpdated(de(params)?),
            EventMethod::DownloadWillBegin => Self::DownloadWillBegin(de(params)?),
            EventMethod::UserPromptOpened => Self::UserPromptOpened(de(params)?),
            EventMethod::UserPromptClosed => Self::UserPromptClosed(de(params)?),
        };
        Ok(Some(event))
    }
}
