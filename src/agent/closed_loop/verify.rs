//! Verification (docs/design/closed-loop.md): what the model expects of the page after an action or at `done`,
//! checked on the settled page and re-checked, event-driven, until it holds or its deadline
//! passes — as web-first assertions do.

use crate::agent::settle::left_since;
use crate::browser::{BrowserError, BrowserPort, NavEventKind, PageScript, TabId};
use serde::Serialize;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

crate::closed_set! {
    /// What an `expect` may check.
    pub(crate) enum ExpectKey("expectation") {
        /// The page's URL starts with this.
        Url = "url",
        /// The page's title is exactly this.
        Title = "title",
        /// The page's visible text contains this.
        Text = "text",
        /// An element matches this CSS selector.
        Present = "present",
        /// No element matches this CSS selector.
        Absent = "absent",
        /// An element matches this CSS selector and is visible (it has a box and is not
        /// hidden): what a click or a typing waits for.
        Visible = "visible",
    }
}

/// What the model expects; every entry must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Expectation(pub Vec<(ExpectKey, String)>);

/// Why an `expect` argument is unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ExpectError {
    #[error("argument \"expect\" must be an object with any of {}, got {got}", ExpectKey::list())]
    NotAnObject { got: String },
    #[error("argument \"expect\" has an unknown key {key:?}: the keys are {}", ExpectKey::list())]
    UnknownKey { key: String },
    #[error("argument \"expect\" needs {key} as a non-empty string, got {got}")]
    BadValue { key: ExpectKey, got: String },
    #[error("argument \"expect\" names nothing to check")]
    Empty,
}

impl Expectation {
    /// Reads `expect` as the tools take it.
    pub(crate) fn parse(value: &Value) -> Result<Self, ExpectError> {
        let Value::Object(map) = value else { return Err(ExpectError::NotAnObject { got: value.to_string() }) };
        let entries = map.iter().map(|(key, value)| entry(key, value)).collect::<Result<Vec<_>, _>>()?;
        if entries.is_empty() {
            return Err(ExpectError::Empty);
        }
        Ok(Self(entries))
    }

    fn as_json(&self) -> Value {
        let map: Map<String, Value> =
            self.0.iter().map(|(key, value)| (key.name().to_owned(), Value::String(value.clone()))).collect();
        Value::Object(map)
    }
}

fn entry(key: &str, value: &Value) -> Result<(ExpectKey, String), ExpectError> {
    let key: ExpectKey = key.parse().map_err(|_| ExpectError::UnknownKey { key: key.to_owned() })?;
    match value {
        Value::String(s) if !s.is_empty() => Ok((key, s.clone())),
        other => Err(ExpectError::BadValue { key, got: other.to_string() }),
    }
}

/// One expectation that did not hold, with what the page showed instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Miss {
    pub key: String,
    pub expected: String,
    /// What was found (the URL, the title); empty where the check has no value to show.
    pub found: String,
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (expected, found) = (&self.expected, &self.found);
        match self.key.parse::<ExpectKey>() {
            Ok(ExpectKey::Url) => write!(f, "the URL is {found:?}, expected it to start with {expected:?}"),
            Ok(ExpectKey::Title) => write!(f, "the title is {found:?}, expected {expected:?}"),
            Ok(ExpectKey::Text) => write!(f, "the page's text does not contain {expected:?}"),
            Ok(ExpectKey::Present) => write!(f, "nothing matches {expected:?}"),
            Ok(ExpectKey::Absent) => write!(f, "{expected:?} still matches an element"),
            Ok(ExpectKey::Visible) => write!(f, "nothing visible matches {expected:?}"),
            Err(_) => write!(f, "{}: expected {expected:?}, found {found:?}", self.key),
        }
    }
}

/// How a verification ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    Held,
    /// The deadline passed with these expectations unmet (as last seen).
    Failed {
        misses: Vec<Miss>,
    },
}

impl Verdict {
    pub fn held(&self) -> bool {
        matches!(self, Self::Held)
    }

    /// The misses in words, `; `-separated.
    pub fn words(&self) -> String {
        match self {
            Self::Held => "held".into(),
            Self::Failed { misses } => misses.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
        }
    }
}

/// The page-side check: resolves `{ok, misses}` as soon as everything holds (a
/// `MutationObserver` re-checks on every change of the document), or when its time has passed.
/// The expectation and the time are its arguments: no text of the model's becomes code.
const CHECK: PageScript = crate::page_script!("check", "check.js");

#[derive(serde::Deserialize)]
struct Checked {
    ok: bool,
    misses: Vec<Miss>,
}

/// Checks `expectation` on `tab` until it holds or `timeout` passes. A navigation in flight is
/// waited out first, and a check cut off by a navigation (its document replaced) is re-armed
/// on the new document; only a lost tab or browser is an error.
pub(in crate::agent) async fn verify(
    port: &dyn BrowserPort,
    tab: &TabId,
    expectation: &Expectation,
    timeout: Duration,
) -> Result<Verdict, BrowserError> {
    check_until(port, tab, expectation, timeout, true).await
}

/// Checks `expectation` on the page as it is, without waiting out a navigation in flight first
/// (a click's target is looked for on the page the model saw, as Playwright's actionability
/// checks do); a check cut off by a navigation is still re-armed on the new document.
pub(in crate::agent) async fn check_now_and_on(
    port: &dyn BrowserPort,
    tab: &TabId,
    expectation: &Expectation,
    timeout: Duration,
) -> Result<Verdict, BrowserError> {
    check_until(port, tab, expectation, timeout, false).await
}

async fn check_until(
    port: &dyn BrowserPort,
    tab: &TabId,
    expectation: &Expectation,
    timeout: Duration,
    settle_first: bool,
) -> Result<Verdict, BrowserError> {
    let deadline = Instant::now() + timeout;
    let mut last = Verdict::Failed { misses: Vec::new() };
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let from = port.position();
        if settle_first {
            wait_out_navigation(port, tab, remaining).await?;
        }
        let remaining = deadline.saturating_duration_since(Instant::now());
        let ms = u64::try_from(remaining.as_millis()).unwrap_or(u64::MAX);
        let args = [expectation.as_json(), ms.into()];
        // The page's timer ends the check; this bound only catches a page that never answers.
        let answer = tokio::time::timeout(remaining + Duration::from_secs(2), port.call(tab, &CHECK, &args)).await;
        match answer {
            Ok(Ok(value)) => match serde_json::from_value::<Checked>(value) {
                // The check's answer comes after every event sent before it: a navigation that
                // began while the page was checked (or before, unread when the check started)
                // is in the log now, and the check held on a page that is leaving. Check the
                // page it becomes.
                Ok(Checked { ok: true, .. }) if settle_first && left_since(port, tab, from).is_some() => {}
                Ok(Checked { ok: true, .. }) => return Ok(Verdict::Held),
                Ok(Checked { misses, .. }) => last = Verdict::Failed { misses },
                Err(e) => return Err(BrowserError::ScriptValue(e)),
            },
            Ok(Err(e)) if e.is_disconnected() => return Err(e),
            // Chromium answers a check whose document a navigation replaced as if its frame
            // were gone: the tab says whether it is.
            Ok(Err(e)) if e.is_tab_gone() => {
                port.tab(tab).await?;
                wait_out_navigation(port, tab, deadline.saturating_duration_since(Instant::now())).await?;
            }
            // The document went away under the check (a navigation): check the new one.
            Ok(Err(_)) | Err(_) => {}
        }
        if Instant::now() >= deadline {
            return Ok(last);
        }
    }
}

/// Waits (at most `limit`) until a navigation in flight in `tab` has committed or ended. What
/// the events say is read where the port keeps them, not the browser: one that began unread is
/// caught after the check, whose answer brings it in.
async fn wait_out_navigation(port: &dyn BrowserPort, tab: &TabId, limit: Duration) -> Result<(), BrowserError> {
    let mut events = port.subscribe();
    let known = port.tab_from_events(tab).await?;
    if known.pending_url.is_none() {
        return Ok(());
    }
    let ended = async {
        while let Ok(event) = events.next().await {
            if event.tab == *tab && (event.kind.proves_commit() || event.kind.ends_without_commit()) {
                return;
            }
            if event.tab == *tab && event.kind == NavEventKind::TabClosed {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(limit, ended).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_expectation_takes_the_five_keys_as_non_empty_strings() {
        let e = Expectation::parse(&json!({"title": "Done", "present": "#ok"})).unwrap();
        assert_eq!(e.0, vec![(ExpectKey::Present, "#ok".into()), (ExpectKey::Title, "Done".into())]);
    }

    #[test]
    fn bad_expectations_name_what_is_wrong() {
        let err = |v: Value| Expectation::parse(&v).unwrap_err().to_string();
        assert_eq!(
            err(json!("Done")),
            "argument \"expect\" must be an object with any of url, title, text, present, absent, visible, got \"Done\""
        );
        assert_eq!(
            err(json!({"titel": "x"})),
            "argument \"expect\" has an unknown key \"titel\": the keys are url, title, text, present, absent, visible"
        );
        assert_eq!(err(json!({"title": ""})), "argument \"expect\" needs title as a non-empty string, got \"\"");
        assert_eq!(err(json!({})), "argument \"expect\" names nothing to check");
    }

    #[test]
    fn a_miss_says_what_was_found() {
        let miss = Miss { key: "title".into(), expected: "Done".into(), found: "Form".into() };
        assert_eq!(miss.to_string(), "the title is \"Form\", expected \"Done\"");
        let failed = Verdict::Failed { misses: vec![miss] };
        assert_eq!(failed.words(), "the title is \"Form\", expected \"Done\"");
    }
}
