//! Identifiers and the tab read-out.

use serde::Serialize;
use std::fmt;

/// A tab: a top-level browsing context (in BiDi, its context id).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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
}
