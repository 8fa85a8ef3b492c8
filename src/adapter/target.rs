//! Where a command to the page goes (the tab's own document or a frame inside it), and the
//! page-side scripts that find what a ref names and tell whether a click would reach it, and
//! what comes back from there (a script's value, the frames under a tab).

use super::error::on_tab;
use crate::bidi::modules::browsing_context::{ContextId, Info};
use crate::bidi::modules::script::{EvaluateResult, ScriptFailure};
use crate::bidi::{BidiError, ErrorCode, RemoteError};
use crate::browser::{BrowserError, ElementRef, FrameId, FrameInfo, Staleness, TabId, Target};
use serde_json::Value;

pub(super) fn ctx(tab: &TabId) -> ContextId {
    ContextId(tab.0.clone())
}

/// Where a command to the page goes: the tab's own document, or a frame inside it (a child
/// browsing context, whatever its origin: the browser reaches into any).
#[derive(Clone, Debug)]
pub(super) struct Place {
    pub(super) tab: TabId,
    pub(super) frame: Option<FrameId>,
}

impl Place {
    /// The tab's own document.
    pub(super) fn top(tab: &TabId) -> Self {
        Self { tab: tab.clone(), frame: None }
    }

    /// Where a target is: the frame a ref names, else the tab's own document (a selector is
    /// looked up there).
    pub(super) fn of_target(tab: &TabId, target: &Target) -> Self {
        let frame = match target {
            Target::Ref(reference) => reference.frame.clone(),
            Target::Css(_) => None,
        };
        Self { tab: tab.clone(), frame }
    }

    pub(super) fn context(&self) -> ContextId {
        self.frame.as_ref().map_or_else(|| ctx(&self.tab), |frame| ContextId(frame.0.clone()))
    }

    /// A BiDi error of a command sent there: a context that is gone is the frame, when it is
    /// a frame's, else the tab.
    pub(super) fn error(&self, op: &str, err: BidiError) -> BrowserError {
        match &self.frame {
            Some(frame) if err.is_no_such_frame() => {
                BrowserError::FrameGone { tab: self.tab.clone(), frame: frame.clone() }
            }
            _ => on_tab(&self.tab, op, err),
        }
    }
}

/// The page-side resolver of a ref (see `BidiPort::ref_id`): the element, or the name of a
/// [`Staleness`].
pub(super) fn resolve_ref_script(reference: &ElementRef) -> String {
    let document = Value::String(reference.document.clone());
    format!(
        r#"(() => {{
  const g = document.__navguard;
  if (!g || g.id !== {document}) return "{replaced}";
  const el = g.refs.get({index})?.deref();
  return el && el.isConnected ? el : "{removed}";
}})()"#,
        index = reference.index,
        replaced = Staleness::DocumentReplaced.name(),
        removed = Staleness::ElementRemoved.name(),
    )
}

/// What a refused click's answer starts with, before the reason, in the page's answer.
pub(super) const NOT_INTERACTABLE: &str = "navguard:not-interactable:";

/// Why a click on `el` would not reach it, or `null` when it would: disabled, hidden, or covered
/// at the point a click lands (the centre of its first box, as WebDriver's pointer takes it,
/// scrolled into view first if it is outside). What covers it is named by its outermost element
/// that does not hold the target (the overlay, not a paragraph inside it). A hit on the target,
/// inside it, on an ancestor of it or on its own label reaches it.
pub(super) const NOT_INTERACTABLE_SCRIPT: &str = r##"(el) => {
  if (el.tagName === "OPTION" || el.tagName === "OPTGROUP") return null;
  const describe = (n) => {
    const id = n.id ? "#" + n.id : "";
    const label = (n.getAttribute("aria-label") || n.innerText || "").trim().split("\n")[0].slice(0, 40);
    return n.tagName.toLowerCase() + id + (label ? ' "' + label + '"' : "");
  };
  if (el.disabled) return "it is disabled";
  const style = getComputedStyle(el);
  if (style.visibility === "hidden" || style.display === "none") return "it is hidden";
  const centre = () => {
    const box = el.getClientRects()[0];
    return box ? [box.left + box.width / 2, box.top + box.height / 2] : null;
  };
  let point = centre();
  if (!point) return null;
  if (point[0] < 0 || point[1] < 0 || point[0] >= innerWidth || point[1] >= innerHeight) {
    el.scrollIntoView({ block: "center", inline: "center" });
    point = centre();
    if (!point) return null;
  }
  const root = el.getRootNode();
  const hit = (root.elementFromPoint ? root : document).elementFromPoint(point[0], point[1]);
  if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return null;
  if (hit.tagName === "LABEL" && hit.control === el) return null;
  let cover = hit;
  while (cover.parentElement && cover.parentElement !== document.body && !cover.parentElement.contains(el)) {
    cover = cover.parentElement;
  }
  return "covered by " + describe(cover);
}"##;

/// The browser's "no such node": a node reference that died with its document.
pub(super) fn is_no_such_node(error: &(dyn std::error::Error + 'static)) -> bool {
    error.downcast_ref::<RemoteError>().is_some_and(|e| e.code == ErrorCode::NoSuchNode)
}

/// The JSON value a script answered, or why there is none.
pub(super) fn json_of(result: EvaluateResult) -> Result<Value, BrowserError> {
    result.into_json().map_err(|e| match e {
        ScriptFailure::Exception(text) => BrowserError::Script(text),
        ScriptFailure::NotJson(e) => BrowserError::ScriptValue(e),
    })
}

/// The frames of a `getTree` answer's children, depth first: each frame before those nested
/// in it, siblings in the browser's order.
pub(super) fn flatten_frames(children: Vec<Info>, parent: Option<&FrameId>, out: &mut Vec<FrameInfo>) {
    for child in children {
        let id = FrameId(child.context.0);
        out.push(FrameInfo { id: id.clone(), url: child.url, parent: parent.cloned(), loading: false });
        flatten_frames(child.children.unwrap_or_default(), Some(&id), out);
    }
}
