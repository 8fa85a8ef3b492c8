//! Navigation events, as the port reports them.

use super::types::{Dialog, NavigationId, TabId};
use serde::Serialize;
use std::time::Instant;

crate::closed_set! {
    /// The kinds of navigation event a port reports for a tab, in the order of a navigation's
    /// life. The names are those of logs and of the step language.
    pub enum NavEventKind("navigation event kind") {
        /// A tab appeared; `opener` says which tab opened it, if any.
        TabCreated = "tab-created",
        /// A navigation started; its URL is the pending URL.
        Started = "started",
        /// A navigation committed: the tab's URL is now the event's URL.
        Committed = "committed",
        /// The new document's DOM was loaded (proves commit).
        DomLoaded = "dom-loaded",
        /// The new document finished loading (proves commit).
        Load = "load",
        /// The browser showed a page again from its back/forward cache: the very document that
        /// was left is back, committed and loaded, and no load event will follow (Firefox ESR
        /// 153 sends nothing after `navigationStarted`; the adapter hears it from the page's own
        /// `pageshow`).
        Restored = "restored",
        Failed = "failed",
        /// Replaced by another navigation, or stopped.
        Aborted = "aborted",
        /// A fragment change or `history.pushState`.
        SameDocument = "same-document",
        TabClosed = "tab-closed",
        /// The page opened a dialog (`dialog` says which); until it is answered the page runs
        /// no script, and a navigation it holds (a leave-page question) waits.
        DialogOpened = "dialog-opened",
        /// The dialog was answered (by anyone), or went with its document.
        DialogClosed = "dialog-closed",
    }
}

impl NavEventKind {
    /// A commit, or an event that proves one (Chromium may skip `navigationCommitted`).
    pub fn proves_commit(self) -> bool {
        matches!(self, Self::Committed | Self::DomLoaded | Self::Load | Self::Restored)
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
    pub tab: TabId,
    pub kind: NavEventKind,
    /// The URL the event carries, if any.
    pub url: Option<String>,
    /// The navigation it belongs to, if the browser said.
    pub navigation: Option<NavigationId>,
    /// For [`NavEventKind::TabCreated`]: the tab that opened it.
    pub opener: Option<TabId>,
    /// For [`NavEventKind::DialogOpened`]: the dialog.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
}

impl NavEvent {
    /// A new event for `tab`, stamped now; the log sets `seq` when it is appended.
    pub fn new(tab: TabId, kind: NavEventKind) -> Self {
        Self {
            seq: 0,
            at: Instant::now(),
            browser_ts: None,
            tab,
            kind,
            url: None,
            navigation: None,
            opener: None,
            dialog: None,
        }
    }

    #[must_use]
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    #[must_use]
    pub fn with_navigation(mut self, nav: Option<NavigationId>) -> Self {
        self.navigation = nav;
        self
    }

    #[must_use]
    pub fn with_browser_ts(mut self, ts: Option<u64>) -> Self {
        self.browser_ts = ts;
        self
    }

    #[must_use]
    pub fn with_dialog(mut self, dialog: Option<Dialog>) -> Self {
        self.dialog = dialog;
        self
    }

    #[must_use]
    pub fn with_opener(mut self, opener: Option<TabId>) -> Self {
        self.opener = opener;
        self
    }
}
