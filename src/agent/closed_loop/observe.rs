//! The round's observation: a snapshot of the focused tab: its document's identity, URL, title,
//! the start of its text, and its interactive elements with refs, roles, names, values and forms.

use crate::browser::{BrowserError, BrowserPort, Dialog, ElementRef, TabId};
use serde::{Deserialize, Serialize};

/// How many elements a snapshot lists at most.
pub(super) const MAX_ELEMENTS: usize = 60;

/// One interactive element, as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    /// What `click` and `type` take: valid while this document is the tab's document and the
    /// element is still in it.
    #[serde(rename = "ref")]
    pub reference: ElementRef,
    /// A CSS selector that finds it now (an `#id` where it has one).
    pub selector: String,
    pub tag: String,
    /// Its ARIA role (explicit, or the implicit one of its tag).
    pub role: String,
    /// Its accessible name (aria-label, a label, its text, its placeholder…), shortened.
    pub name: String,
    /// Its text, shortened.
    pub text: String,
    /// A field's value; a password field's is always `[redacted]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The form a field or button belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<FormContext>,
}

/// Where a form sends what it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormContext {
    /// `get` or `post`.
    pub method: String,
    pub action: String,
}

/// A snapshot of a tab: what the model is given of the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The agent's number for this snapshot (`s1`, `s2`, … within a task).
    #[serde(default)]
    pub snapshot: String,
    #[serde(skip_deserializing, default = "unknown_tab")]
    pub tab: TabId,
    /// The identity of the document it was taken in: the same while the tab shows this
    /// document, another after any navigation (the refs' first part).
    pub document: String,
    pub url: String,
    pub title: String,
    /// The start of the page's visible text, whitespace folded.
    pub text: String,
    pub elements: Vec<Element>,
    /// The dialog the page has open. Then the page itself could not be read (it runs no
    /// script until the dialog is answered): no document, title, text or elements, only its
    /// URL; the model answers the dialog with `handle_dialog`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
}

impl Observation {
    /// A digest of the page's state (URL, title, text, elements without their refs): equal
    /// digests, the same page as far as the model can tell.
    pub fn digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (&self.url, &self.title, &self.text).hash(&mut hasher);
        self.dialog.as_ref().map(|d| (d.kind, &d.message)).hash(&mut hasher);
        for e in &self.elements {
            (&e.selector, &e.role, &e.name, &e.text, &e.value).hash(&mut hasher);
        }
        hasher.finish()
    }
}

fn unknown_tab() -> TabId {
    TabId(String::new())
}

/// How long a snapshot waits for a document that is still being parsed.
pub(super) const PARSE_WAIT_MS: u64 = 2000;

/// How much of the page's visible text a snapshot carries.
pub(super) const TEXT_CHARS: usize = 600;

// Right after a commit the new document may not be parsed yet: Firefox ESR 153 runs a script
// sent then in an empty document (no title, no elements). The snapshot waits for
// DOMContentLoaded first, at most PARSE_WAIT_MS (a page that never finishes parsing is still
// observed, as it is).
//
// Refs: the first snapshot of a document gives it an identity and a registry
// (`document.__navguard`, not enumerable), numbering each element it lists once; a later
// snapshot of the same document gives the same element the same ref. A new document starts a
// new registry, so a ref of the old one can never name an element of the new one.
const SNAPSHOT: &str = r##"(async () => {
  if (document.readyState === "loading") {
    await new Promise((done) => {
      document.addEventListener("DOMContentLoaded", done, { once: true });
      setTimeout(done, PARSE_WAIT);
    });
  }
  if (!document.__navguard) {
    const id = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => (b % 36).toString(36)).join("")
      + Date.now().toString(36).slice(-3);
    Object.defineProperty(document, "__navguard", { value: { id, next: 1, refs: new Map(), of: new WeakMap() } });
  }
  const g = document.__navguard;
  const refOf = (el) => {
    let n = g.of.get(el);
    if (!n) { n = g.next++; g.of.set(el, n); g.refs.set(n, new WeakRef(el)); }
    return g.id + "." + n;
  };
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const short = (s) => squash(s).slice(0, 80);
  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase(), type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "a") return "link";
    if (tag === "button") return "button";
    if (tag === "select") return "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "input") {
      if (["submit", "button", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox" || type === "radio") return type;
      return "textbox";
    }
    return "generic";
  };
  const labelled = (el) => {
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.innerText || "").join(" ");
    if (el.labels && el.labels.length) return Array.from(el.labels, (l) => l.innerText).join(" ");
    return "";
  };
  const nameOf = (el) => short(el.getAttribute("aria-label") || labelled(el) || el.innerText
    || (["submit", "button", "reset"].includes(el.type) ? el.value : "") || el.getAttribute("placeholder")
    || el.getAttribute("title") || el.getAttribute("name") || "");
  const isField = (el) => ["input", "textarea", "select"].includes(el.tagName.toLowerCase())
    && !["submit", "button", "reset", "image"].includes((el.type || "").toLowerCase());
  const pick = "a[href], button, input:not([type=hidden]), select, textarea, [role=button], [onclick]";
  const selector = (el, i) => el.id ? "#" + CSS.escape(el.id) : `${el.tagName.toLowerCase()}:nth-of-type(${i + 1})`;
  const elements = Array.from(document.querySelectorAll(pick)).slice(0, MAX).map((el, i) => {
    const out = {
      ref: refOf(el),
      selector: selector(el, Array.from(el.parentNode.children).filter(c => c.tagName === el.tagName).indexOf(el)),
      tag: el.tagName.toLowerCase(),
      role: roleOf(el),
      name: nameOf(el),
      // A field's text is its value, given once, as `value`: never a second copy of a password.
      text: isField(el) ? "" : short(el.innerText || el.value || el.getAttribute("aria-label") || ""),
    };
    if (isField(el)) out.value = (el.type || "").toLowerCase() === "password" ? "[redacted]" : short(el.value);
    if (el.form) out.form = { method: (el.form.method || "get").toLowerCase(), action: el.form.action };
    return out;
  });
  const text = squash(document.body ? document.body.innerText : "").slice(0, TEXT);
  return { document: g.id, url: location.href, title: document.title, text, elements };
})()"##;

/// Takes a snapshot of `tab`.
pub async fn observe(port: &dyn BrowserPort, tab: &TabId) -> Result<Observation, BrowserError> {
    let script = SNAPSHOT
        .replace("PARSE_WAIT", &PARSE_WAIT_MS.to_string())
        .replace("MAX", &MAX_ELEMENTS.to_string())
        .replace("TEXT", &TEXT_CHARS.to_string());
    let value = port.evaluate(tab, &script).await?;
    let mut observation: Observation = serde_json::from_value(value)
        .map_err(|e| BrowserError::Script(format!("the snapshot did not have the expected shape: {e}")))?;
    observation.tab = tab.clone();
    Ok(observation)
}

/// What can be said of a page a dialog blocks: its URL and the dialog.
pub(in crate::agent) fn blocked(tab: &TabId, url: String, dialog: Dialog) -> Observation {
    Observation {
        snapshot: String::new(),
        tab: tab.clone(),
        document: String::new(),
        url,
        title: String::new(),
        text: String::new(),
        elements: Vec::new(),
        dialog: Some(dialog),
    }
}
