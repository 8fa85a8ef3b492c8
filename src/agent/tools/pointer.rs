//! The pointer's tools besides a click: `hover` (the pointer onto an element and left there,
//! then what came into view) and `drag` (one element onto another, then whether the target
//! received the drop). Each target is found and checked as a click's is; each waits after its
//! gesture as after a click.

use super::error::{ToolError, ToolFailure};
use super::execute::{ToolContext, ToolRun, browser, quiet_seen};
use super::reading::{CAME_INTO_VIEW, CAME_INTO_VIEW_MAX, INTERACTIVE, call_at, came_words};
use super::tabs::TaskTabs;
use super::tool::ToolName;
use crate::agent::closed_loop::snapshot_args;
use crate::agent::settle::{ActionSettled, ActionStreams, settle_action};
use crate::browser::{BrowserError, Gesture, PageScript, Staleness, TabId, Target, page_script_finding};
use serde_json::{Value, json};

/// Marks what is in view now, so that what comes into view after it can be told.
const MARK_SEEN: PageScript = crate::page_script!("mark seen", "mark_seen.js");

/// A drag's watch over the page (see the script's own comment).
const DRAG_WATCH: PageScript = page_script_finding!("drag watch", "drag_watch.js", "from, to, names");

/// What the drag's watch saw.
const DRAG_SEEN: PageScript = crate::page_script!("drag seen", "drag_seen.js");

/// The HTML5 drag's events, sent by script where the browser started no drag.
const DRAG_EVENTS: PageScript = page_script_finding!("drag events", "drag_events.js", "from, to, names");

impl ToolContext<'_> {
    /// `hover`: the pointer onto the element, the wait as after a click, then what came into
    /// view (a menu's items, a tooltip).
    pub(super) async fn hover(&self, tabs: &TaskTabs, target: &Target) -> ToolRun {
        const TOOL: ToolName = ToolName::Hover;
        let tab = match self.ready_for_input(tabs, TOOL, [target]).await {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        // What is in view before is not news after: marked where the target is.
        let _ = call_at(self.port, &tab, Some(target), &MARK_SEEN, &[json!(INTERACTIVE)]).await;
        self.phase.set("the pointer to move onto the element");
        let streams = ActionStreams::subscribe(self.port);
        if let Err(e) = self.port.gesture(&tab, &Gesture::Hover(target.clone())).await {
            return ToolRun::err(browser(TOOL)(e));
        }
        let settled = match self.settle_after(TOOL, &tab, streams).await {
            Ok(settled) => settled,
            Err(e) => return ToolRun::err(e),
        };
        let args = [json!(INTERACTIVE), json!(CAME_INTO_VIEW_MAX)];
        let came = call_at(self.port, &tab, Some(target), &CAME_INTO_VIEW, &args).await.unwrap_or(Value::Null);
        let text = format!(
            "moved the pointer onto {target}; {}; the page {}",
            came_words(&came),
            self.settle_words(&tab, &settled)
        );
        ToolRun { quiet_seen: quiet_seen(&tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
    }

    /// `drag`: watches the page, drags with the pointer (and, where the browser started no
    /// HTML5 drag from it, sends the drag's events itself, and says so), waits as after a
    /// click, then tells whether the target received the drop: a drop event reached it, or its
    /// content (or the dragged element's list's) changed. A drag nobody received is
    /// `not-applied`.
    pub(super) async fn drag(&self, tabs: &TaskTabs, from: &Target, to: &Target) -> ToolRun {
        const TOOL: ToolName = ToolName::Drag;
        let tab = match self.ready_for_input(tabs, TOOL, [from, to]).await {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        let frame_of = |t: &Target| match t {
            Target::Ref(reference) => reference.frame.clone(),
            Target::Css(_) => None,
        };
        if frame_of(from) != frame_of(to) {
            let why = format!("{from} and {to} are in different frames; a drag goes within one document");
            return ToolRun::err(ToolFailure::NotSupported { why }.of(TOOL));
        }
        let finders = [from.finder_arg(), to.finder_arg(), Staleness::finder_names()];
        let watch = match call_at(self.port, &tab, Some(from), &DRAG_WATCH, &finders).await {
            Ok(watch) => watch,
            Err(e) => return ToolRun::err(browser(TOOL)(e)),
        };
        if let Some(e) = watch_refusal(&tab, from, to, &watch) {
            return ToolRun::err(e);
        }
        self.phase.set("the drag to be done");
        let streams = ActionStreams::subscribe(self.port);
        let gesture = Gesture::Drag { from: from.clone(), to: to.clone() };
        if let Err(e) = self.port.gesture(&tab, &gesture).await {
            return ToolRun::err(browser(TOOL)(e));
        }
        let seen = call_at(self.port, &tab, Some(from), &DRAG_SEEN, &[json!(false)]).await.unwrap_or(Value::Null);
        let html5 = watch.get("draggable").and_then(Value::as_bool) == Some(true);
        // An HTML5 drag the browser did not carry to a drop (Firefox starts none from
        // WebDriver's pointer, or starts one and drops nothing) is sent by script.
        let by_script = html5 && !flag(&seen, "dropped") && !flag(&seen, "changed");
        if by_script && let Err(e) = call_at(self.port, &tab, Some(from), &DRAG_EVENTS, &finders).await {
            return ToolRun::err(browser(TOOL)(e));
        }
        let settled = match self.settle_after(TOOL, &tab, streams).await {
            Ok(settled) => settled,
            Err(e) => return ToolRun::err(e),
        };
        let seen = call_at(self.port, &tab, Some(from), &DRAG_SEEN, &[json!(true)]).await.unwrap_or(Value::Null);
        let holds = match self.read_element(&tab, to).await {
            Ok(read) => read.get("text").and_then(Value::as_str).map(|t| format!(" (it reads {t:?})")),
            Err(_) => None,
        }
        .unwrap_or_default();
        let how = if by_script {
            " (the browser carried no drag from the pointer to a drop, so navguard sent the drag's events to the page itself)"
        } else {
            ""
        };
        if !flag(&seen, "dropped") && !flag(&seen, "changed") {
            let holds = format!("{to} received no drop: no drop event reached it and nothing changed{holds}{how}");
            return ToolRun::err(ToolFailure::NotApplied { holds }.of(TOOL));
        }
        let received = if flag(&seen, "dropped") { "received the drop" } else { "changed where it was dropped" };
        let text = format!(
            "dragged {from} onto {to}{how}: the target {received}{holds}; the page {}",
            self.settle_words(&tab, &settled)
        );
        ToolRun { quiet_seen: quiet_seen(&tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
    }

    /// The waits after a gesture or a control's change: as after a click.
    pub(super) async fn settle_after(
        &self,
        tool: ToolName,
        tab: &TabId,
        streams: ActionStreams,
    ) -> Result<ActionSettled, ToolError> {
        self.phase.set(format!("what the {tool} started to end and the page to go quiet"));
        settle_action(self.port, streams, tab, self.action_limits(), self.cancel, Some(snapshot_args()))
            .await
            .map_err(browser(tool))
    }
}

/// Whether the script's answer says `key` is true.
fn flag(answer: &Value, key: &str) -> bool {
    answer.get(key).and_then(Value::as_bool) == Some(true)
}

/// Why a drag cannot begin, from its watch's answer: an element not found, or one element twice.
fn watch_refusal(tab: &TabId, from: &Target, to: &Target, watch: &Value) -> Option<ToolError> {
    let missing =
        |target: &Target, answer: &Value| browser(ToolName::Drag)(BrowserError::element_not_found(tab, target, answer));
    if let Some(answer) = watch.get("from") {
        return Some(missing(from, answer));
    }
    if let Some(answer) = watch.get("to") {
        return Some(missing(to, answer));
    }
    if flag(watch, "same") {
        return Some(ToolFailure::DragOntoItself.of(ToolName::Drag));
    }
    None
}
