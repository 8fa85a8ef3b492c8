//! The task's tabs as a caller is shown them (`list_tabs`, and every answer where they changed):
//! numbered in the order `@tab#n` names them, each with its title and URL, the focused one
//! marked.

use crate::agent::tools::TaskTabs;
use crate::browser::{BrowserError, BrowserPort, PageScript, TabId};
use serde_json::Value;
use std::time::Duration;

/// How long a tab's title may take: a tab whose page does not answer a script (its main thread
/// is frozen) is listed without one rather than holding up the list. A page blocked by a
/// dialog is not asked, and one still loading answers at once; a loaded page on a busy machine
/// took over a second (the browser held its events and answers that long), so the bound is wide.
const TITLE_DEADLINE: Duration = Duration::from_millis(3000);

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

/// The task's tabs that are still open, in `@tab#n` order. Each tab is read at once, not one
/// after the other: a list of three tabs costs one round trip to the browser, not six.
pub(crate) async fn list_tabs(port: &dyn BrowserPort, tabs: &TaskTabs) -> Result<Vec<TabSummary>, BrowserError> {
    let listed = tabs.listed();
    let reads = futures::future::join_all(listed.iter().map(|tab| read_tab(port, tab))).await;
    let mut summaries = Vec::with_capacity(listed.len());
    for (i, (tab, read)) in listed.into_iter().zip(reads).enumerate() {
        let Some((title, url)) = read? else { continue };
        let focused = tabs.focused() == Some(&tab);
        summaries.push(TabSummary { number: i + 1, tab, title, url, focused });
    }
    Ok(summaries)
}

/// One tab's title and URL; `None` when it is gone. The title's answer comes after every event
/// the browser sent before it, so what the events then say of the tab is as new as a read of
/// the browser would be; the browser is read for a tab with no commit yet, and for one whose
/// script failed as if it were gone (a tab between two documents fails so too, and stays). A
/// page blocked by a dialog cannot answer a script: it is listed without a title rather than
/// waited for.
async fn read_tab(port: &dyn BrowserPort, tab: &TabId) -> Result<Option<(String, String)>, BrowserError> {
    let blocked = port.tab_known(tab).is_some_and(|known| known.dialog.is_some());
    let (title, maybe_gone) = if blocked {
        (String::new(), false)
    } else {
        match tokio::time::timeout(TITLE_DEADLINE, port.call(tab, &TITLE, &[])).await {
            Ok(Ok(Value::String(title))) => (title, false),
            Ok(Err(e)) if e.is_tab_gone() => (String::new(), true),
            _ => (String::new(), false),
        }
    };
    let known = if maybe_gone { None } else { port.tab_known(tab) };
    let info = match known {
        Some(info) => info,
        None => match port.tab(tab).await {
            Ok(info) => info,
            Err(e) if e.is_tab_gone() => return Ok(None),
            Err(e) => return Err(e),
        },
    };
    Ok(Some((title, info.url)))
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

/// The title of the tab's document.
const TITLE: PageScript = PageScript { name: "title", function: "() => document.title" };
