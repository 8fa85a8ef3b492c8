//! Navigation events, as the port reports them.

use super::types::{NavigationId, TabId};
use serde::Serialize;
use std::time::Instant;

/// The kinds of navigation event a port reports for a tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NavEventKind {
    /// A navigation started; its URL is the pending URL.
    Started,
    /// A navigation committed: the tab's URL is now the event's URL.
    Committed,
    /// The new document's DOM was loaded (proves commit).
    DomLoaded,
    /// The new document finished loading (proves commit).
    Load,
    /// A navigation failed.
    Failed,
    /// A navigation was aborted (replaced by another, or stopped).
    Aborted,
    /// A same-document navigation (fragment, `history.pushState`).
    SameDocument,
    /// A tab appeared; `opener` says which tab opened it, if any.
    TabCreated,
    /// A tab was closed.
    TabClosed,
}

impl NavEventKind {
    /// Every kind, in the order of a navigation's life.
    pub const ALL: [NavEventKind; 9] = [
        Self::TabCreated,
        Self::Started,
        Self::Committed,
        Self::DomLoaded,
        Self::Load,
        Self::Failed,
        Self::Aborted,
        Self::SameDocument,
        Self::TabClosed,
    ];

    /// The kebab-case name used in logs and in the step language.
    pub fn name(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Committed => "committed",
            Self::DomLoaded => "dom-loaded",
            Self::Load => "load",
            Self::Failed => "failed",
            Self::Aborted => "aborted",
            Self::SameDocument => "same-document",
            Self::TabCreated => "tab-created",
            Self::TabClosed => "tab-closed",
        }
    }

    /// Parses a kebab-case name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A commit, or an event that proves one (Chromium may skip `navigationCommitted`).
    pub fn proves_commit(self) -> bool {
        matches!(self, Self::Committed | Self::DomLoaded | Self::Load)
    }

    /// The end of a navigation without a commit.
    pub fn ends_without_commit(self) -> bool {
        matches!(self, Self::Failed | Self::Aborted)
    }
}

/// One navigation event of one tab.
#[derive(Clone, Debug, Serialize)]
pub struct NavEvent {
    /// Position in its log (0-based, gap-free).
    pub seq: u64,
    /// When the port received it (local monotonic clock).
    #[serde(skip)]
    pub at: Instant,
    /// The browser's own timestamp (ms since the epoch), when it sent one.
    pub browser_ts: Option<u64>,
    /// The tab.
    pub tab: TabId,
    /// What happened.
    pub kind: NavEventKind,
    /// The URL the event carries, if any.
    pub url: Option<String>,
    /// The navigation it belongs to, if the browser said.
    pub navigation: Option<NavigationId>,
    /// For [`NavEventKind::TabCreated`]: the tab that opened it.
    pub opener: Option<TabId>,
}

impl NavEvent {
    /// A new event for `tab`, stamped now; the log sets `seq` when it is appended.
    pub fn new(tab: TabId, kind: NavEventKind) -> Self {
        Self { seq: 0, at: Instant::now(), browser_ts: None, tab, kind, url: None, navigation: None, opener: None }
    }

    /// With a URL.
    #[must_use]
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// With a navigation id.
    #[must_use]
    pub fn with_navigation(mut self, nav: Option<NavigationId>) -> Self {
        self.navigation = nav;
        self
    }

    /// With the browser's timestamp.
    #[must_use]
    pub fn with_browser_ts(mut self, ts: Option<u64>) -> Self {
        self.browser_ts = ts;
        self
    }

    /// With the opener tab.
    #[must_use]
    pub fn with_opener(mut self, opener: Option<TabId>) -> Self {
        self.opener = opener;
        self
    }
}
