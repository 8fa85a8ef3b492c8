//! Pages the browser restores from its back/forward cache. Going back to a page kept there
//! shows the very document that was left, with no request and no load event. Chromium 156 says
//! so over BiDi with `navigationCommitted` (under the navigation id of the page's first load);
//! Firefox ESR 153 sends `navigationStarted` and then nothing at all, so a wait for the commit
//! or the load of that navigation would wait for ever. What Firefox does send is the answer to
//! `browsingContext.traverseHistory`, once its session history stands on the entry it went to
//! (for a page loaded again, after its commit). If the tab then shows the pending URL, its
//! document complete, and no commit was said, the page came back from the cache: the port says
//! so itself, as the tab's `restored` event. (A preload script's `pageshow` cannot say it:
//! Firefox's channel to the page does not survive the page's stay in the cache.)

use super::router::Scope;
use crate::bidi::BidiClient;
use crate::bidi::modules::browsing_context::{ContextId, GetTree};
use crate::bidi::modules::script::CallFunction;
use crate::browser::{NavEvent, NavEventKind, TabId};
use serde_json::Value;
use std::time::Duration;

/// What a navigation command's answer sets off, beyond ending the wait for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AfterAnswer {
    Nothing,
    /// A history traversal: the page it went to may be one restored from the cache.
    LookForRestore,
}

/// After the browser answered a history traversal of `tab`: if the navigation it started is
/// still pending, yet the tab shows its URL with the document complete, publishes `restored`.
/// Every read has `deadline`; a read that fails leaves the tab as the events say.
pub(super) async fn report_if_restored(client: &BidiClient, scope: &Scope, tab: &TabId, deadline: Duration) {
    let pending = || scope.tracker().get(tab).and_then(|s| s.pending_url.clone().zip(Some(s.pending_nav.clone())));
    let Some((url, navigation)) = pending() else { return };
    let context = ContextId(tab.0.clone());
    let tree = client.send(&GetTree { root: Some(context.clone()), max_depth: Some(0) }, deadline).await;
    let shown = tree.ok().and_then(|t| t.contexts.into_iter().next()).map(|info| info.url);
    if shown.as_deref() != Some(url.as_str()) {
        return;
    }
    // The document there is complete: a page just loaded again would still be parsing, and
    // its own commit and load events are on their way.
    let ready = client.send(&CallFunction::new(&context, "() => document.readyState", &[]), deadline).await;
    if ready.ok().and_then(|r| r.into_value().ok()) != Some(Value::from("complete")) {
        return;
    }
    // Checked again at once before publishing: a commit that came meanwhile said it all.
    if pending().is_some_and(|(now, _)| now == url) {
        tracing::debug!(target: "navguard::adapter", %tab, %url, "the page came back from the back/forward cache");
        scope.publish(NavEvent::new(tab.clone(), NavEventKind::Restored).with_url(url).with_navigation(navigation));
    }
}
