//! Opening a tab (`browsingContext.create`), with Firefox's refused-but-made tab handled.
//!
//! Firefox ESR 153 now and then answers a create with "no such frame"
//! (DiscardedBrowsingContextError) while other user contexts' tabs are closing, yet it has made
//! the tab: its `contextCreated` event came before the error. Retrying blindly leaves that tab
//! behind, where "a new tab appears" would take it for a page's popup. So the port adopts the
//! tab it can prove is the one it asked for, and tries again only when it cannot.

use super::router::Scope;
use crate::bidi::modules::browsing_context::Create;
use crate::bidi::{BidiClient, BidiError};
use crate::browser::{NavEventKind, TabId};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Counts this scope's creates in flight while alive.
struct InFlight<'a>(&'a AtomicUsize);

impl<'a> InFlight<'a> {
    fn enter(counter: &'a AtomicUsize) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        Self(counter)
    }

    fn alone(&self) -> bool {
        self.0.load(Ordering::SeqCst) == 1
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Creates the tab; returns its id.
pub(super) async fn create_tab(
    client: &BidiClient,
    scope: &Scope,
    create: &Create,
    deadline: Duration,
) -> Result<TabId, BidiError> {
    let in_flight = InFlight::enter(&scope.creates_in_flight);
    let from = scope.log.len();
    match client.send(create, deadline).await {
        Ok(created) => Ok(TabId(created.context.0)),
        Err(e) if e.is_no_such_frame() => {
            // Events are read in order, so a contextCreated sent before the error is logged.
            if let Some(tab) = in_flight.alone().then(|| made_anyway(scope, from)).flatten() {
                tracing::info!(target: "navguard::adapter", "{e}, but tab {tab} was made: adopted");
                return Ok(tab);
            }
            tracing::info!(target: "navguard::adapter", "{e}; trying once more");
            client.send(create, deadline).await.map(|created| TabId(created.context.0))
        }
        Err(e) => Err(e),
    }
}

/// The one tab created since `from` that no page opened, if exactly one was.
fn made_anyway(scope: &Scope, from: u64) -> Option<TabId> {
    let created: Vec<TabId> = scope
        .log
        .snapshot_from(from)
        .into_iter()
        .filter(|e| e.kind == NavEventKind::TabCreated && e.opener.is_none())
        .map(|e| e.tab)
        .collect();
    match created.as_slice() {
        [tab] => Some(tab.clone()),
        _ => None,
    }
}
