//! The task's tabs: pinned tabs with their origins, the focus pointer, the primary tab, the
//! tabs open_url created, and the references the model uses for them.

use crate::browser::TabId;
use url::Origin;

/// A tab reference as the model writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TabRef {
    /// `@primary`: the task's first tab.
    Primary,
    /// `@opened`: the tab the latest open_url call created; `@opened#n`: the n-th one.
    Opened(Option<usize>),
    /// `@active`: the browser's active tab at the time of the call.
    Active,
    /// `@tab#n`: the n-th of the task's tabs, as `list_tabs` numbers them.
    Listed(usize),
    Id(TabId),
}

impl TabRef {
    /// Parses a reference; `None` for an empty or malformed one.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        match text {
            "" => None,
            "@primary" => Some(Self::Primary),
            "@opened" => Some(Self::Opened(None)),
            "@active" => Some(Self::Active),
            _ => {
                let number = |n: &str| n.parse::<usize>().ok().filter(|n| *n >= 1);
                if let Some(n) = text.strip_prefix("@opened#") {
                    number(n).map(|n| Self::Opened(Some(n)))
                } else if let Some(n) = text.strip_prefix("@tab#") {
                    number(n).map(Self::Listed)
                } else if text.starts_with('@') {
                    None
                } else {
                    Some(Self::Id(TabId(text.to_owned())))
                }
            }
        }
    }
}

/// A pinned tab: the agent may operate it while it stays on its origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinned {
    pub tab: TabId,
    pub origin: Origin,
}

/// The tabs a task owns. A checkpoint keeps them as they are but for the documents seen (a
/// resumed task looks again before it acts), the pinned origins written as text.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TaskTabs {
    #[serde(with = "pinned_as_text")]
    pinned: Vec<Pinned>,
    focused: Option<TabId>,
    primary: Option<TabId>,
    opened: Vec<TabId>,
    /// Tabs a page of the task opened (popups, `target=_blank`), with their opener.
    children: Vec<(TabId, TabId)>,
    /// Which tab each observed document was seen in: a ref names its document, and a ref of
    /// another tab than the focused one is the model's mistake, not a stale ref.
    #[serde(skip)]
    documents: std::collections::HashMap<String, TabId>,
}

/// Pinned tabs in a checkpoint: `[tab, origin]` pairs, the origin as text. A pinned origin that
/// no longer parses is dropped as it is read (the loop-top origin check then refuses its tab
/// rather than trusting it).
mod pinned_as_text {
    use super::{Pinned, TabId};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(pinned: &[Pinned], out: S) -> Result<S::Ok, S::Error> {
        out.collect_seq(pinned.iter().map(|p| (&p.tab, p.origin.ascii_serialization())))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<Vec<Pinned>, D::Error> {
        let pairs = Vec::<(TabId, String)>::deserialize(input)?;
        let parsed =
            |(tab, origin): (TabId, String)| url::Url::parse(&origin).ok().map(|u| Pinned { tab, origin: u.origin() });
        Ok(pairs.into_iter().filter_map(parsed).collect())
    }
}

impl TaskTabs {
    /// An observation saw `document` in `tab`.
    pub fn note_document(&mut self, document: &str, tab: &TabId) {
        self.documents.insert(document.to_owned(), tab.clone());
    }

    /// The tab an observed document was seen in.
    pub fn document_tab(&self, document: &str) -> Option<&TabId> {
        self.documents.get(document)
    }

    /// Pins `tab` to `origin` (re-pinning replaces the origin).
    pub fn pin(&mut self, tab: TabId, origin: Origin) {
        self.pinned.retain(|p| p.tab != tab);
        self.pinned.push(Pinned { tab, origin });
    }

    /// Forgets a tab everywhere but in the open_url list (so `@opened#n` keeps its meaning).
    pub fn forget(&mut self, tab: &TabId) {
        self.pinned.retain(|p| p.tab != *tab);
        self.children.retain(|(child, _)| child != tab);
        if self.focused.as_ref() == Some(tab) {
            self.focused = None;
        }
        if self.primary.as_ref() == Some(tab) {
            self.primary = None;
        }
    }

    /// Makes `tab` the primary and focused tab, pinned to `origin`.
    pub fn adopt_primary(&mut self, tab: TabId, origin: Origin) {
        self.pin(tab.clone(), origin);
        self.primary = Some(tab.clone());
        self.focused = Some(tab);
    }

    /// Records a tab open_url created.
    pub fn record_opened(&mut self, tab: TabId) {
        self.opened.push(tab);
    }

    /// Moves the focus pointer.
    pub fn focus(&mut self, tab: TabId) {
        self.focused = Some(tab);
    }

    /// The focused tab.
    pub fn focused(&self) -> Option<&TabId> {
        self.focused.as_ref()
    }

    /// The primary tab.
    pub fn primary(&self) -> Option<&TabId> {
        self.primary.as_ref()
    }

    /// The tabs open_url created, in order.
    pub fn opened(&self) -> &[TabId] {
        &self.opened
    }

    /// The pinned tabs.
    pub fn pinned(&self) -> &[Pinned] {
        &self.pinned
    }

    /// The origin `tab` is pinned to.
    pub fn origin_of(&self, tab: &TabId) -> Option<&Origin> {
        self.pinned.iter().find(|p| p.tab == *tab).map(|p| &p.origin)
    }

    /// Whether the task knows `tab` (pinned, primary, opened or a child).
    pub fn knows(&self, tab: &TabId) -> bool {
        self.pinned.iter().any(|p| p.tab == *tab)
            || self.opened.contains(tab)
            || self.primary.as_ref() == Some(tab)
            || self.children.iter().any(|(c, _)| c == tab)
    }

    /// Records that a page in `opener` (a tab of the task) opened `tab`; `false` if `opener`
    /// is not the task's (a tab the user opens by hand has no opener of the task).
    pub fn adopt_child(&mut self, tab: TabId, opener: &TabId) -> bool {
        if !self.knows(opener) || self.knows(&tab) {
            return false;
        }
        self.children.push((tab, opener.clone()));
        true
    }

    /// The tabs pages of the task opened, with their openers.
    pub fn children(&self) -> &[(TabId, TabId)] {
        &self.children
    }

    /// The task's tabs in the order `list_tabs` numbers them (`@tab#n`): the pinned ones, then
    /// those the task's pages opened.
    pub fn listed(&self) -> Vec<TabId> {
        let mut all: Vec<TabId> = self.pinned.iter().map(|p| p.tab.clone()).collect();
        for (child, _) in &self.children {
            if !all.contains(child) {
                all.push(child.clone());
            }
        }
        all
    }

    /// Forgets every tab (the task's browser client changed).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Resolves a reference (but `@active`, which needs the browser).
    pub(crate) fn resolve(&self, reference: &TabRef) -> Option<TabId> {
        match reference {
            TabRef::Primary => self.primary.clone(),
            TabRef::Opened(None) => self.opened.last().cloned(),
            TabRef::Opened(Some(n)) => self.opened.get(n - 1).cloned(),
            TabRef::Listed(n) => self.listed().get(n - 1).cloned(),
            TabRef::Id(id) => self.knows(id).then(|| id.clone()),
            TabRef::Active => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(s: &str) -> Origin {
        url::Url::parse(s).unwrap().origin()
    }

    #[test]
    fn parses_every_reference_form() {
        assert_eq!(TabRef::parse("@primary"), Some(TabRef::Primary));
        assert_eq!(TabRef::parse("@opened"), Some(TabRef::Opened(None)));
        assert_eq!(TabRef::parse("@opened#2"), Some(TabRef::Opened(Some(2))));
        assert_eq!(TabRef::parse("@active"), Some(TabRef::Active));
        assert_eq!(TabRef::parse("@tab#3"), Some(TabRef::Listed(3)));
        assert_eq!(TabRef::parse("ABC"), Some(TabRef::Id(TabId::from("ABC"))));
        for bad in ["", "@opened#0", "@opened#x", "@tab#0", "@tab#", "@secondary"] {
            assert_eq!(TabRef::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn resolves_opened_tabs_by_order() {
        let mut tabs = TaskTabs::default();
        tabs.record_opened(TabId::from("a"));
        tabs.record_opened(TabId::from("b"));
        assert_eq!(tabs.resolve(&TabRef::Opened(None)), Some(TabId::from("b")));
        assert_eq!(tabs.resolve(&TabRef::Opened(Some(1))), Some(TabId::from("a")));
        assert_eq!(tabs.resolve(&TabRef::Opened(Some(3))), None);
    }

    #[test]
    fn an_unknown_id_does_not_resolve() {
        let mut tabs = TaskTabs::default();
        tabs.adopt_primary(TabId::from("p"), origin("http://a.test"));
        assert_eq!(tabs.resolve(&TabRef::Id(TabId::from("zzz"))), None);
        assert_eq!(tabs.resolve(&TabRef::Id(TabId::from("p"))), Some(TabId::from("p")));
    }

    #[test]
    fn tabs_read_back_from_a_checkpoint_as_they_were_and_an_origin_that_no_longer_parses_is_dropped() {
        let mut tabs = TaskTabs::default();
        tabs.adopt_primary(TabId::from("p"), origin("http://a.test:8080"));
        tabs.record_opened(TabId::from("p"));
        assert!(tabs.adopt_child(TabId::from("c"), &TabId::from("p")));
        let text = serde_json::to_value(&tabs).unwrap();
        // The checkpoint's words: a pinned tab is [tab, origin as text].
        assert_eq!(text["pinned"], serde_json::json!([["p", "http://a.test:8080"]]));
        let restored: TaskTabs = serde_json::from_value(text.clone()).unwrap();
        assert_eq!(restored, tabs);
        assert_eq!(restored.origin_of(&TabId::from("p")), Some(&origin("http://a.test:8080")));

        let mut broken = text;
        broken["pinned"] = serde_json::json!([["p", "not a url"]]);
        let restored: TaskTabs = serde_json::from_value(broken).unwrap();
        assert!(restored.pinned().is_empty());
        assert_eq!(restored.primary(), Some(&TabId::from("p")));
    }

    #[test]
    fn repinning_replaces_the_origin() {
        let mut tabs = TaskTabs::default();
        tabs.pin(TabId::from("t"), origin("http://a.test"));
        tabs.pin(TabId::from("t"), origin("http://b.test"));
        assert_eq!(tabs.pinned().len(), 1);
        assert_eq!(tabs.origin_of(&TabId::from("t")), Some(&origin("http://b.test")));
    }
}
