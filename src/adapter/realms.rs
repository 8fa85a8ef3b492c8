//! The page realm of each tab's document, kept between scripts. Scripts go to the page realm
//! (see `BidiPort::page_realm`), and asking the browser for it before every script doubled the
//! round trips of a look or a click; through Chromium's BiDi layer, shared by every client of
//! the browser, each one waits its turn. A document keeps its realm while it stays: the realm
//! read for a tab holds until the port sees an event of that tab that may come with another
//! document (a navigation started, committed, a load, a return from the back/forward cache;
//! not a dialog, which the document itself opened, nor a move within it), and the port's first
//! read of a tab in a look brings every earlier event in. A script sent to a realm that went
//! all the same (its event still on the way) fails as a gone context, and is sent once more
//! to the realm read then.

use crate::browser::{EventLog, NavEventKind, TabId};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// The realms known, per tab, with the event log's position when each was read.
#[derive(Debug, Default)]
pub(super) struct PageRealms {
    known: Mutex<HashMap<TabId, (String, u64)>>,
}

impl PageRealms {
    /// The realm read for `tab`'s document, if no event of `tab` that may bring another
    /// document came since.
    pub(super) fn get(&self, tab: &TabId, log: &EventLog) -> Option<String> {
        let (realm, from) = self.known().get(tab).cloned()?;
        if log.any_from(from, |e| e.tab == *tab && !keeps_the_document(e.kind)) {
            self.forget(tab);
            return None;
        }
        Some(realm)
    }

    /// Keeps `realm` for `tab`, read when the log stood at `from`.
    pub(super) fn keep(&self, tab: &TabId, realm: &str, from: u64) {
        self.known().insert(tab.clone(), (realm.to_owned(), from));
    }

    pub(super) fn forget(&self, tab: &TabId) {
        self.known().remove(tab);
    }

    fn known(&self) -> MutexGuard<'_, HashMap<TabId, (String, u64)>> {
        self.known.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Whether an event of this kind says the tab still shows the same document: a dialog opened
/// or answered, a fragment or `pushState` move.
fn keeps_the_document(kind: NavEventKind) -> bool {
    match kind {
        NavEventKind::DialogOpened | NavEventKind::DialogClosed | NavEventKind::SameDocument => true,
        NavEventKind::TabCreated
        | NavEventKind::Started
        | NavEventKind::Committed
        | NavEventKind::DomLoaded
        | NavEventKind::Load
        | NavEventKind::Restored
        | NavEventKind::Failed
        | NavEventKind::Aborted
        | NavEventKind::TabClosed => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::{NavEvent, NavEventKind};

    #[test]
    fn a_realm_holds_until_an_event_of_its_tab() {
        let (log, realms) = (EventLog::new(), PageRealms::default());
        let (mine, other) = (TabId::from("mine"), TabId::from("other"));
        assert_eq!(realms.get(&mine, &log), None, "none read yet");
        realms.keep(&mine, "r1", log.len());
        assert_eq!(realms.get(&mine, &log).as_deref(), Some("r1"));
        log.append(NavEvent::new(other, NavEventKind::Started));
        assert_eq!(realms.get(&mine, &log).as_deref(), Some("r1"), "another tab's event changes nothing");
        for kind in [NavEventKind::DialogOpened, NavEventKind::DialogClosed, NavEventKind::SameDocument] {
            log.append(NavEvent::new(mine.clone(), kind));
            assert_eq!(realms.get(&mine, &log).as_deref(), Some("r1"), "{kind:?}: the same document");
        }
        log.append(NavEvent::new(mine.clone(), NavEventKind::Load));
        assert_eq!(realms.get(&mine, &log), None, "an event that may bring another document: read it again");
        realms.keep(&mine, "r2", log.len());
        assert_eq!(realms.get(&mine, &log).as_deref(), Some("r2"), "read after the event");
        realms.forget(&mine);
        assert_eq!(realms.get(&mine, &log), None);
    }

    #[test]
    fn an_event_that_came_while_the_realm_was_read_counts() {
        let (log, realms) = (EventLog::new(), PageRealms::default());
        let tab = TabId::from("t");
        let from = log.len();
        log.append(NavEvent::new(tab.clone(), NavEventKind::Committed));
        realms.keep(&tab, "r", from);
        assert_eq!(realms.get(&tab, &log), None);
    }
}
