//! A click on a target: the element found and checked where a click would land, a ref refused
//! as stale when its document went or is going, then the input. The pointer's other gestures
//! and a file input's files find their elements the same way.

use super::BidiPort;
use crate::adapter::target::{
    CLICKABLE, CLICKABLE_WATCHED, ELEMENT_NODE, NOT_INTERACTABLE, PRESS_LANDED, Place, clickable_args, is_no_such_node,
    value_of, watched_args,
};
use crate::bidi::modules::input::PerformActions;
use crate::bidi::modules::script::CallFunction;
use crate::browser::{BrowserError, BrowserPort, NavEvent, NavEventKind, PressLanded, Staleness, TabId, Target};

/// How an element to act on is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lookup {
    /// Found, and checked to be where the pointer lands (not covered, hidden or disabled;
    /// scrolled into view first).
    Clickable,
    /// As [`Lookup::Clickable`], and the press that follows watched where it lands (a click's:
    /// [`BidiPort::press_landed`] reads it).
    Pressed,
    /// Found only: what is done to it needs no pointer (a file input a page hides behind its
    /// label takes its files all the same).
    Found,
}

/// A command on a target's node that failed because the node or its frame went: the ref is
/// stale, and nothing was done.
pub(super) fn gone_as_stale(done: Result<(), BrowserError>, target: &Target) -> Result<(), BrowserError> {
    match (done, target) {
        // The document was replaced between the resolve and the command: the node reference
        // died with it.
        (Err(BrowserError::Browser { source, .. }), Target::Ref(reference)) if is_no_such_node(&*source) => {
            Err(BrowserError::StaleRef { reference: reference.clone(), why: Staleness::DocumentReplaced })
        }
        (Err(BrowserError::FrameGone { .. }), Target::Ref(reference)) => {
            Err(BrowserError::StaleRef { reference: reference.clone(), why: Staleness::FrameGone })
        }
        (done, _) => done,
    }
}

impl BidiPort {
    /// A click, its press watched ([`Lookup::Pressed`]) for [`BidiPort::last_press`] to read.
    pub(super) async fn click_target(&self, tab: &TabId, target: &Target) -> Result<(), BrowserError> {
        self.press(tab, target, Lookup::Pressed).await
    }

    /// The click that focuses a field to type into: its press is not watched (the typing is
    /// read back from the field instead, and a stopped press would leave the focus elsewhere).
    pub(super) async fn click_to_focus(&self, tab: &TabId, target: &Target) -> Result<(), BrowserError> {
        self.press(tab, target, Lookup::Clickable).await
    }

    /// The press goes to the place the target is in: for a ref of a frame, that frame's context,
    /// where the browser finds the element's box and turns it into a point of the tab's viewport.
    async fn press(&self, tab: &TabId, target: &Target, lookup: Lookup) -> Result<(), BrowserError> {
        let place = Place::of_target(tab, target);
        // The tab's focus emulation (once per tab, before its first input) is asked for while the
        // target is found: the two do not depend on each other.
        let focus = self.focus.ensure(&self.client, &place.tab, self.call_timeout);
        let (node, ()) = tokio::join!(self.node_for(&place, target, lookup), focus);
        gone_as_stale(self.input(&place, PerformActions::click(place.context(), &node?)).await, target)
    }

    /// Where the last click's press on `target` went, by the watch its lookup set in the
    /// target's document, which the read ends: `None` when that document holds none (the press
    /// started a navigation that replaced it).
    pub(super) async fn last_press(&self, tab: &TabId, target: &Target) -> Result<Option<PressLanded>, BrowserError> {
        let place = Place::of_target(tab, target);
        let command = CallFunction::new(&place.context(), PRESS_LANDED.function, &[]).without_user_activation();
        let read = value_of(self.evaluate_raw(&place, command, self.call_timeout).await?)?;
        Ok(match (read["seen"].as_bool(), read["missed"].as_str()) {
            (_, Some(on)) => Some(PressLanded::Elsewhere { on: on.to_owned() }),
            (Some(true), None) => Some(PressLanded::Reached),
            (Some(false), None) => Some(PressLanded::Unseen),
            (None, _) => None,
        })
    }

    /// The target's node, found as [`BidiPort::element_id`] finds it. A ref whose document a
    /// navigation began to replace since the look began is stale, and nothing is pressed on a
    /// page that is going: the look's answer brings in the events sent before it. A look that
    /// failed otherwise than on the page's word (its realm went with a reload whose events
    /// were still on their way) is followed by a tab read, which brings those in.
    pub(super) async fn node_for(
        &self,
        place: &Place,
        target: &Target,
        lookup: Lookup,
    ) -> Result<String, BrowserError> {
        let from = self.scope.log.len();
        let found = self.element_id(place, target, lookup).await;
        let Target::Ref(reference) = target else { return found };
        let lookup_failed = found.as_ref().is_err_and(|e| !e.is_stale_ref() && !e.is_dialog_open());
        if lookup_failed {
            let _ = self.tab(&place.tab).await;
        }
        match (found, self.replaced_since(&place.tab, from)) {
            (Err(e), _) if !lookup_failed => Err(e),
            (_, Some(why)) => Err(BrowserError::StaleRef { reference: reference.clone(), why }),
            (found, None) => found,
        }
    }

    /// Whether `tab`'s document is being replaced (a navigation is in flight), or was since the
    /// event log stood at `from` (a navigation started or committed), by the events read so far.
    fn replaced_since(&self, tab: &TabId, from: u64) -> Option<Staleness> {
        if self.scope.tracker().get(tab).is_some_and(|state| state.pending_url.is_some()) {
            return Some(Staleness::DocumentLeaving);
        }
        let replaced =
            |e: &NavEvent| e.tab == *tab && matches!(e.kind, NavEventKind::Started | NavEventKind::Committed);
        self.scope.log.any_from(from, replaced).then_some(Staleness::DocumentReplaced)
    }

    /// The target's `sharedId` (what `browsingContext.locateNodes` gives, found through the
    /// page realm, as every script is: see `BidiPort::page_realm`), resolved in one script in
    /// the tab's document as it is at that moment, and checked then to be where a click would
    /// land. A ref is never looked up by position: the document must be the one the ref was
    /// taken in (the snapshot's `document.__navguard`), and the element still connected to it,
    /// else the ref is stale. Where a click lands: not covered by another element (an overlay,
    /// a cookie banner), not hidden, not disabled. A click on a covered target would press
    /// whatever covers it and look like success; this refuses it, naming the cover, and clicks
    /// nothing. With [`Lookup::Found`], the element is found and not checked.
    async fn element_id(&self, place: &Place, target: &Target, lookup: Lookup) -> Result<String, BrowserError> {
        let (script, args) = match lookup {
            Lookup::Clickable => (CLICKABLE, clickable_args(target).to_vec()),
            Lookup::Pressed => (CLICKABLE_WATCHED, watched_args(target).to_vec()),
            Lookup::Found => (ELEMENT_NODE, clickable_args(target).to_vec()),
        };
        // A look, not an action: the page gets no user activation from it.
        let command = CallFunction::new(&place.context(), script.function, &args).without_user_activation();
        let found = match self.evaluate_raw(place, command, self.call_timeout).await {
            // The frame the ref was taken in has gone with its iframe: so has the element.
            Err(BrowserError::FrameGone { .. }) if let Target::Ref(reference) = target => {
                return Err(BrowserError::StaleRef { reference: reference.clone(), why: Staleness::FrameGone });
            }
            found => found?,
        };
        if found.kind != "success" {
            let reason = found.exception_text();
            return Err(match target {
                Target::Css(selector) => BrowserError::InvalidSelector { selector: selector.clone(), reason },
                Target::Ref(_) => BrowserError::Script(reason),
            });
        }
        if let Some(id) = found.shared_id() {
            return Ok(id);
        }
        if let Some(why) = found.string_value().and_then(|s| s.strip_prefix(NOT_INTERACTABLE)) {
            return Err(BrowserError::NotInteractable { target: target.to_string(), why: why.to_owned() });
        }
        Err(match target {
            Target::Css(selector) => BrowserError::NoSuchElement { tab: place.tab.clone(), selector: selector.clone() },
            Target::Ref(reference) => {
                let why = found
                    .string_value()
                    .and_then(|s| s.parse::<Staleness>().ok())
                    .unwrap_or(Staleness::DocumentReplaced);
                BrowserError::StaleRef { reference: reference.clone(), why }
            }
        })
    }
}
