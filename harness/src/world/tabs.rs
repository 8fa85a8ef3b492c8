//! The tabs a scenario met, in order (tab 1 is the first), the tab its steps act on, and the
//! event-log mark its waits look from. Browser, user and agent-core steps all open and wait on
//! tabs, so this lives in the world rather than in one domain's steps.

use super::{EVENT_DEADLINE, NavWorld};
use crate::error::{StepError, StepResult};
use navguard::browser::{NavEvent, NavEventKind, TabId};

/// URLs compared as the browser normalizes them (`http://h:1` is `http://h:1/`).
pub(crate) fn same_url(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

impl NavWorld {
    /// The tab the steps act on: the latest one the scenario opened or saw appear.
    pub fn current_tab(&self) -> StepResult<TabId> {
        self.current.map(|i| self.tabs[i].clone()).ok_or_else(|| StepError::Setup("no tab yet: open one first".into()))
    }

    /// Tab `n` (1-based, in the order the scenario met them).
    pub fn tab_number(&self, n: usize) -> StepResult<TabId> {
        n.checked_sub(1)
            .and_then(|i| self.tabs.get(i))
            .cloned()
            .ok_or_else(|| StepError::Setup(format!("there is no tab {n}: the scenario met {}", self.tabs.len())))
    }

    /// Makes `tab` the current tab, numbering it if it is new.
    pub fn adopt(&mut self, tab: TabId) {
        let index = self.tabs.iter().position(|t| *t == tab).unwrap_or_else(|| {
            self.tabs.push(tab);
            self.tabs.len() - 1
        });
        self.current = Some(index);
    }

    /// Whether the scenario already met `tab`.
    pub fn knows(&self, tab: &TabId) -> bool {
        self.tabs.contains(tab)
    }

    /// Remembers where the event log is, before an action: later waits look from here.
    pub fn mark(&mut self) -> StepResult {
        self.mark = self.port()?.position();
        Ok(())
    }

    /// The event-log position of the latest action.
    pub fn mark_position(&self) -> u64 {
        self.mark
    }

    /// Waits for the first event since the mark that matches, up to [`EVENT_DEADLINE`].
    pub async fn wait_for_event(&self, what: &str, matches: impl Fn(&NavEvent) -> bool) -> StepResult<NavEvent> {
        let mut events = self.port()?.subscribe_from(self.mark);
        let found = async {
            loop {
                match events.next().await {
                    Ok(event) if matches(&event) => return Ok(event),
                    Ok(_) => {}
                    Err(closed) => return Err(StepError::Setup(closed.to_string())),
                }
            }
        };
        match tokio::time::timeout(EVENT_DEADLINE, found).await {
            Ok(result) => result,
            Err(_) => Err(StepError::Timeout { what: what.to_owned(), after: EVENT_DEADLINE }),
        }
    }

    /// Every event of `tab` in the scenario so far.
    pub fn events_of(&self, tab: &TabId) -> StepResult<Vec<NavEvent>> {
        let all = self.port()?.events();
        Ok(all.into_iter().filter(|e| e.tab == *tab).collect())
    }

    /// Opens a tab and waits until its first page has loaded, or has started to leave by
    /// itself (a page that redirects before its load event never fires it). The browser's
    /// `a tab is open on` and the agent core's `the agent starts on` both begin this way.
    pub(crate) async fn open_loaded_tab(&mut self, url: &str) -> StepResult<TabId> {
        self.mark()?;
        let url = self.expand(url);
        let tab = self.port()?.create_tab(&url, true).await?;
        self.adopt(tab.clone());
        let settled = |e: &NavEvent| {
            let leaving = e.kind == NavEventKind::Started && !e.url.as_deref().is_some_and(|u| same_url(u, &url));
            e.tab == tab && (e.kind == NavEventKind::Load || leaving)
        };
        self.wait_for_event(&format!("tab {tab} to load {url}"), settled).await?;
        Ok(tab)
    }
}
