//! The round's observation: a snapshot of the focused tab (URL, title, interactive elements).

use crate::browser::{BrowserError, BrowserPort, TabId};
use serde::{Deserialize, Serialize};

/// How many elements a snapshot lists at most.
pub(super) const MAX_ELEMENTS: usize = 60;

/// One interactive element.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    /// A CSS selector that finds it.
    pub selector: String,
    pub tag: String,
    /// Its text (or value, or label), shortened.
    pub text: String,
}

/// A snapshot of a tab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The tab.
    #[serde(skip_deserializing, default = "unknown_tab")]
    pub tab: TabId,
    pub url: String,
    pub title: String,
    pub elements: Vec<Element>,
}

fn unknown_tab() -> TabId {
    TabId(String::new())
}

/// How long a snapshot waits for a document that is still being parsed.
pub(super) const PARSE_WAIT_MS: u64 = 2000;

// Right after a commit the new document may not be parsed yet: Firefox ESR 153 runs a script
// sent then in an empty document (no title, no elements). The snapshot waits for
// DOMContentLoaded first, at most PARSE_WAIT_MS (a page that never finishes parsing is still
// observed, as it is).
const SNAPSHOT: &str = r##"(async () => {
  if (document.readyState === "loading") {
    await new Promise((done) => {
      document.addEventListener("DOMContentLoaded", done, { once: true });
      setTimeout(done, PARSE_WAIT);
    });
  }
  const pick = "a[href], button, input, select, textarea, [role=button], [onclick]";
  const text = (el) => (el.innerText || el.value || el.getAttribute("aria-label") || el.name || "").trim().slice(0, 80);
  const selector = (el, i) => el.id ? "#" + CSS.escape(el.id) : `${el.tagName.toLowerCase()}:nth-of-type(${i + 1})`;
  const elements = Array.from(document.querySelectorAll(pick)).slice(0, MAX).map((el, i) => ({
    selector: selector(el, Array.from(el.parentNode.children).filter(c => c.tagName === el.tagName).indexOf(el)),
    tag: el.tagName.toLowerCase(),
    text: text(el),
  }));
  return { url: location.href, title: document.title, elements };
})()"##;

/// Takes a snapshot of `tab`.
pub async fn observe(port: &dyn BrowserPort, tab: &TabId) -> Result<Observation, BrowserError> {
    let script = SNAPSHOT.replace("PARSE_WAIT", &PARSE_WAIT_MS.to_string()).replace("MAX", &MAX_ELEMENTS.to_string());
    let value = port.evaluate(tab, &script).await?;
    let mut observation: Observation = serde_json::from_value(value)
        .map_err(|e| BrowserError::Script(format!("the snapshot did not have the expected shape: {e}")))?;
    observation.tab = tab.clone();
    Ok(observation)
}
