//! The task's tabs as a caller is shown them (`list_tabs`, and every answer where they changed):
//! numbered in the order `@tab#n` names them, each with its title and URL, the focused one
//! marked.

use super::tabs::TaskTabs;
use crate::browser::{BrowserError, BrowserPort, TabId};
use serde_json::Value;
use std::time::Duration;

/// How long a tab's title may take: a tab whose page is blocked by a dialog or still loading
/// is listed without one rather than holding up the list.
const TITLE_DEADLINE: Duration = Duration::from_millis(1000);

/// One of the task's tabs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TabSummary {
    /// Its number in the list, from 1: `@tab#n` names it.
    pub number: usize,
    pub tab: TabId,
    pub title: String,
    pub url: String,
    pub focused: bool,
}

/// The task's tabs that are still open, in `@tab#n` order.
pub(crate) async fn list_tabs(port: &dyn BrowserPort, tabs: &TaskTabs) -> Result<Vec<TabSummary>, BrowserError> {
    let mut listed = Vec::new();
    for (i, tab) in tabs.listed().into_iter().enumerate() {
        let info = match port.tab(&tab).await {
            Ok(info) => info,
            Err(e) if e.is_tab_gone() => continue,
            Err(e) => return Err(e),
        };
        let title = tokio::time::timeout(TITLE_DEADLINE, port.evaluate(&tab, "document.title")).await;
        let title = match title {
            Ok(Ok(Value::String(title))) => title,
            _ => String::new(),
        };
        let focused = tabs.focused() == Some(&tab);
        listed.push(TabSummary { number: i + 1, tab, title, url: info.url, focused });
    }
    Ok(listed)
}

/// The list as lines: `@tab#1 (focused): Title — URL`.
pub fn tab_lines(tabs: &[TabSummary]) -> String {
    if tabs.is_empty() {
        return "none yet".to_owned();
    }
    let line = |t: &TabSummary| {
        let focused = if t.focused { " (focused)" } else { "" };
        format!("@tab#{}{focused}: {} — {}", t.number, t.title, t.url)
    };
    tabs.iter().map(line).collect::<Vec<_>>().join("\n")
}
