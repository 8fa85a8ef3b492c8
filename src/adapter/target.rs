//! Where a command to the page goes (the tab's own document or a frame inside it), and the
//! page-side scripts that find what a ref names and tell whether a click would reach it, and
//! what comes back from there (a script's value, the frames under a tab).

use super::error::on_tab;
use crate::bidi::modules::browsing_context::{ContextId, Info};
use crate::bidi::modules::script::{EvaluateResult, ScriptFailure};
use crate::bidi::{BidiError, ErrorCode, RemoteError};
use crate::browser::{BrowserError, FrameId, FrameInfo, PageScript, Staleness, TabId, Target};
use serde_json::{Value, json};

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

/// What a refused click's answer starts with, before the reason, in the page's answer.
pub(super) const NOT_INTERACTABLE: &str = "navguard:not-interactable:";

/// The element a click would go to, or why there is none (see the script's own comment).
pub(super) const CLICKABLE: PageScript =
    crate::browser::page_script_finding!("clickable", "port/clickable.js", "target, names");

/// [`CLICKABLE`] for a click: the press that follows is watched where it lands (see the
/// script's own comment), for [`PRESS_LANDED`] to read.
pub(super) const CLICKABLE_WATCHED: PageScript =
    crate::browser::page_script_finding!("clickable, its press watched", "port/clickable.js", "target, names, watch");

/// Where the last watched press of the document went.
pub(super) const PRESS_LANDED: PageScript = crate::page_script!("press landed", "port/press_landed.js");

/// The element a target names, or why there is none, unchecked (for what needs no pointer).
pub(super) const ELEMENT_NODE: PageScript =
    crate::browser::page_script_finding!("element node", "port/element_node.js", "target, names");

/// [`CLICKABLE`]'s (and [`ELEMENT_NODE`]'s) arguments for `target`: what to find, and the words of its answers.
pub(super) fn clickable_args(target: &Target) -> [Value; 2] {
    let mut names = Staleness::finder_names();
    names["notInteractable"] = json!(NOT_INTERACTABLE);
    [target.finder_arg(), names]
}

/// [`CLICKABLE_WATCHED`]'s arguments for `target`.
pub(super) fn watched_args(target: &Target) -> [Value; 3] {
    let [finder, names] = clickable_args(target);
    [finder, names, json!(true)]
}

/// The browser's "no such node": a node reference that died with its document.
pub(super) fn is_no_such_node(error: &(dyn std::error::Error + 'static)) -> bool {
    error.downcast_ref::<RemoteError>().is_some_and(|e| e.code == ErrorCode::NoSuchNode)
}

/// The value a script answered, as JSON, or why there is none.
pub(super) fn value_of(result: EvaluateResult) -> Result<Value, BrowserError> {
    result.into_value().map_err(script_failure)
}

fn script_failure(e: ScriptFailure) -> BrowserError {
    match e {
        ScriptFailure::Exception(text) => BrowserError::Script(text),
    }
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
