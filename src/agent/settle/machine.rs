//! The navigation settle waiter as a state machine: fed the tab's read-out, its events and the
//! time, it decides one of six outcomes. No I/O and no clock of its own, so every ordering of
//! "tab read" and "commit event" is a unit test.

use crate::agent::guards::same_origin;
use crate::browser::{NavEvent, NavEventKind, NavigationId, TabId, TabInfo};
use std::time::Duration;
use tokio::time::Instant;
use url::Origin;

crate::closed_set! {
    /// The kinds of [`SettleOutcome`], by their names in the step language.
    pub enum SettleKind("settle outcome");

    /// How a settle wait ended. Serialised as `{"outcome": <kind>, …its URL}`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum SettleOutcome by kind {
        /// The navigation committed on the expected origin.
        Committed { url: String } = "committed",
        /// Nothing committed in time.
        Timeout = "timeout",
        /// It committed on another origin.
        OriginMismatch { observed_url: String } = "origin-mismatch",
        /// The tab was closed.
        TabGone = "tab-gone",
        /// The user stopped the task.
        Aborted = "aborted",
        /// The navigation ended without a commit (a 204 or 205 answer, a download, a network
        /// error, a navigation the page cancelled) and left the tab blank, with nothing else on
        /// its way: nothing will commit, so nobody waits.
        Failed = "failed",
    }
}

impl SettleOutcome {
    /// The kind's name in the step language.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}

impl serde::Serialize for SettleOutcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("outcome", &self.kind())?;
        match self {
            Self::Committed { url } => map.serialize_entry("url", url)?,
            Self::OriginMismatch { observed_url } => map.serialize_entry("observed_url", observed_url)?,
            Self::Timeout | Self::TabGone | Self::Aborted | Self::Failed => {}
        }
        map.end()
    }
}

/// Whether a tab's URL is the design's transient sentinel, empty or `about:blank`
/// (docs/design/navigation-transients.md#vocabulary).
pub fn is_transient(url: &str) -> bool {
    let url = url.trim();
    url.is_empty() || url.eq_ignore_ascii_case("about:blank")
}

/// The navigation being waited for.
#[derive(Clone, Debug, Default)]
struct Awaited {
    navigation: Option<NavigationId>,
    url: Option<String>,
}

/// The settle state machine for one tab.
#[derive(Debug)]
pub(super) struct SettleMachine {
    tab: TabId,
    /// `None`: any origin will do (a tab that is not pinned).
    expected: Option<Origin>,
    deadline: Instant,
    /// `None` until a start is known: then any commit counts.
    awaited: Option<Awaited>,
    /// The awaited navigation failed: the driver should read the tab again (closing a
    /// navigating tab fails its navigation before the tab is reported gone).
    wants_read: bool,
    outcome: Option<SettleOutcome>,
}

impl SettleMachine {
    /// A wait for `tab` to commit on `expected` (any origin if `None`), starting at `now`, for
    /// at most `timeout`.
    pub(super) fn new(tab: TabId, expected: Option<Origin>, now: Instant, timeout: Duration) -> Self {
        Self { tab, expected, deadline: now + timeout, awaited: None, wants_read: false, outcome: None }
    }

    /// When the wait times out.
    pub(super) fn deadline(&self) -> Instant {
        self.deadline
    }

    fn decide(&mut self, outcome: SettleOutcome) -> Option<SettleOutcome> {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
        self.outcome.clone()
    }

    /// Whether the driver should read the tab again and feed the read to
    /// [`Self::on_tab_read`] (after feeding any events that arrived meanwhile).
    pub(super) fn wants_read(&self) -> bool {
        self.wants_read && self.outcome.is_none()
    }

    fn commit(&mut self, url: &str) -> Option<SettleOutcome> {
        let outcome = if self.expected.as_ref().is_none_or(|o| same_origin(url, o)) {
            SettleOutcome::Committed { url: url.to_owned() }
        } else {
            SettleOutcome::OriginMismatch { observed_url: url.to_owned() }
        };
        self.decide(outcome)
    }

    /// The tab as read after subscribing: settled already, or what to wait for.
    pub(super) fn on_tab_read(&mut self, info: &TabInfo) -> Option<SettleOutcome> {
        if self.outcome.is_some() {
            return self.outcome.clone();
        }
        let after_failure = std::mem::take(&mut self.wants_read);
        match &info.pending_url {
            Some(url) => {
                self.awaited = Some(Awaited { navigation: info.pending_navigation.clone(), url: Some(url.clone()) });
                None
            }
            // A blank tab whose navigation failed, with nothing else on its way, stays blank.
            None if is_transient(&info.url) && (after_failure || info.navigation_failed) => {
                self.decide(SettleOutcome::Failed)
            }
            None if is_transient(&info.url) => None,
            None => self.commit(&info.url),
        }
    }

    /// The tab could not be read: it is gone.
    pub(super) fn on_tab_gone(&mut self) -> Option<SettleOutcome> {
        self.decide(SettleOutcome::TabGone)
    }

    /// One event (of any tab: others are ignored).
    pub(super) fn on_event(&mut self, event: &NavEvent) -> Option<SettleOutcome> {
        if self.outcome.is_some() || event.tab != self.tab {
            return self.outcome.clone();
        }
        let url = event.url.clone().unwrap_or_default();
        match event.kind {
            NavEventKind::Started => {
                self.awaited = Some(Awaited { navigation: event.navigation.clone(), url: event.url.clone() });
                None
            }
            NavEventKind::Committed if self.commit_matches(event, true) => self.commit(&url),
            NavEventKind::DomLoaded | NavEventKind::Load | NavEventKind::Restored
                if self.commit_matches(event, false) =>
            {
                self.commit(&url)
            }
            NavEventKind::Failed | NavEventKind::Aborted if self.commit_matches(event, false) => self.on_failed(),
            NavEventKind::TabClosed => self.decide(SettleOutcome::TabGone),
            _ => None,
        }
    }

    /// A commit is matched by tab, and to the awaited navigation by id or (for Chromium's
    /// history traversals, which commit under an older id) by URL. Where either side lacks an
    /// id, a commit event still counts (Chromium may not say), but a load, DOM load or failure
    /// counts only for the awaited URL: a late load of the page that is leaving (a reused tab
    /// navigated before its last page finished loading) carries that page's own URL.
    fn commit_matches(&self, event: &NavEvent, by_url_too: bool) -> bool {
        let Some(awaited) = &self.awaited else { return true };
        let same_url = event.url.is_some() && event.url == awaited.url;
        match (&awaited.navigation, &event.navigation) {
            (Some(a), Some(b)) => a == b || (by_url_too && same_url),
            _ => by_url_too || same_url || awaited.url.is_none(),
        }
    }

    /// The awaited navigation failed. Whether the tab is gone, still shows its old page (then
    /// it settled there) or shows nothing, a fresh read tells.
    fn on_failed(&mut self) -> Option<SettleOutcome> {
        self.awaited = None;
        self.wants_read = true;
        None
    }

    /// The time is `now`.
    pub(super) fn on_time(&mut self, now: Instant) -> Option<SettleOutcome> {
        if now >= self.deadline {
            return self.decide(SettleOutcome::Timeout);
        }
        self.outcome.clone()
    }

    /// The user stopped the task.
    pub(super) fn on_cancel(&mut self) -> Option<SettleOutcome> {
        self.decide(SettleOutcome::Aborted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::NavEventKind as K;

    const T: Duration = Duration::from_millis(5000);

    fn origin() -> Origin {
        url::Url::parse("https://docs.example.com").unwrap().origin()
    }

    fn machine(now: Instant) -> SettleMachine {
        SettleMachine::new(TabId::from("42"), Some(origin()), now, T)
    }

    fn info(url: &str, pending: Option<(&str, &str)>) -> TabInfo {
        TabInfo {
            id: TabId::from("42"),
            url: url.into(),
            pending_url: pending.map(|p| p.1.to_owned()),
            pending_navigation: pending.map(|p| NavigationId(p.0.to_owned())),
            loading: pending.is_some(),
            opener: None,
            navigation_failed: false,
            dialog: None,
        }
    }

    fn ev(kind: K, nav: &str, url: &str) -> NavEvent {
        NavEvent::new(TabId::from("42"), kind).with_url(url).with_navigation(Some(NavigationId(nav.into())))
    }

    fn committed(url: &str) -> Option<SettleOutcome> {
        Some(SettleOutcome::Committed { url: url.into() })
    }

    const TARGET: &str = "https://docs.example.com/start";

    #[test]
    fn an_outcome_serialises_as_its_kind_and_url() {
        let json = serde_json::to_value(SettleOutcome::OriginMismatch { observed_url: "https://x.test/".into() });
        assert_eq!(json.unwrap(), serde_json::json!({"outcome": "origin-mismatch", "observed_url": "https://x.test/"}));
        assert_eq!(serde_json::to_value(SettleOutcome::TabGone).unwrap(), serde_json::json!({"outcome": "tab-gone"}));
    }

    #[test]
    fn a_commit_on_the_expected_origin_settles() {
        let mut m = machine(Instant::now());
        assert_eq!(m.on_tab_read(&info("about:blank", Some(("n1", TARGET)))), None);
        assert_eq!(m.on_event(&ev(K::Committed, "n1", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_commit_that_arrived_before_the_read_is_not_lost() {
        // Subscribed, then the commit event, then the read (which already shows the new URL).
        let mut m = machine(Instant::now());
        let first = ev(K::Committed, "n1", TARGET);
        assert_eq!(m.on_tab_read(&info(TARGET, None)), committed(TARGET));
        assert_eq!(m.on_event(&first), committed(TARGET));
    }

    #[test]
    fn a_commit_between_subscribe_and_read_replayed_after_a_stale_read_settles() {
        // The read raced ahead of the browser's state: still about:blank, no pending URL yet.
        let mut m = machine(Instant::now());
        assert_eq!(m.on_tab_read(&info("about:blank", None)), None);
        assert_eq!(m.on_event(&ev(K::Started, "n1", TARGET)), None);
        assert_eq!(m.on_event(&ev(K::Committed, "n1", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_page_restored_from_the_cache_settles_its_navigation_and_no_other() {
        let mut m = machine(Instant::now());
        assert_eq!(m.on_tab_read(&info(TARGET, Some(("n2", TARGET)))), None);
        assert_eq!(m.on_event(&ev(K::Restored, "n1", TARGET)), None, "an older navigation's");
        assert_eq!(m.on_event(&ev(K::Restored, "n2", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_commit_on_another_origin_is_a_mismatch() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("about:blank", Some(("n1", TARGET))));
        let other = "https://evil.example.net/";
        assert_eq!(
            m.on_event(&ev(K::Committed, "n1", other)),
            Some(SettleOutcome::OriginMismatch { observed_url: other.into() })
        );
    }

    #[test]
    fn nothing_before_the_deadline_is_a_timeout() {
        let now = Instant::now();
        let mut m = machine(now);
        m.on_tab_read(&info("about:blank", Some(("n1", TARGET))));
        assert_eq!(m.on_time(now + T - Duration::from_millis(1)), None);
        assert_eq!(m.on_time(now + T), Some(SettleOutcome::Timeout));
    }

    #[test]
    fn a_closed_tab_is_gone() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("about:blank", Some(("n1", TARGET))));
        assert_eq!(m.on_event(&NavEvent::new(TabId::from("42"), K::TabClosed)), Some(SettleOutcome::TabGone));
        let mut unread = machine(Instant::now());
        assert_eq!(unread.on_tab_gone(), Some(SettleOutcome::TabGone));
    }

    #[test]
    fn a_stop_from_the_user_aborts() {
        let mut m = machine(Instant::now());
        assert_eq!(m.on_cancel(), Some(SettleOutcome::Aborted));
    }

    #[test]
    fn the_first_outcome_stands() {
        let now = Instant::now();
        let mut m = machine(now);
        m.on_cancel();
        assert_eq!(m.on_event(&ev(K::Committed, "n1", TARGET)), Some(SettleOutcome::Aborted));
        assert_eq!(m.on_time(now + T), Some(SettleOutcome::Aborted));
    }

    #[test]
    fn another_tabs_events_are_ignored() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("about:blank", Some(("n1", TARGET))));
        let other = NavEvent::new(TabId::from("7"), K::Committed).with_url(TARGET);
        assert_eq!(m.on_event(&other), None);
    }

    #[test]
    fn a_load_without_a_commit_event_proves_the_commit() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("about:blank", Some(("n1", TARGET))));
        assert_eq!(m.on_event(&ev(K::DomLoaded, "n1", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_late_load_of_the_leaving_page_does_not_count() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("https://docs.example.com/old", Some(("n2", TARGET))));
        assert_eq!(m.on_event(&ev(K::Load, "n1", "https://docs.example.com/old")), None);
        assert_eq!(m.on_event(&ev(K::Committed, "n2", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_late_load_of_the_leaving_page_without_an_id_does_not_count() {
        let old = "https://docs.example.com/old";
        let mut m = machine(Instant::now());
        // The port knew the new navigation's URL but not its id…
        m.on_tab_read(&TabInfo { pending_navigation: None, ..info(old, Some(("n2", TARGET))) });
        assert_eq!(m.on_event(&ev(K::DomLoaded, "n1", old)), None);
        // …or the late event carries no id.
        let mut m = machine(Instant::now());
        m.on_tab_read(&info(old, Some(("n2", TARGET))));
        assert_eq!(m.on_event(&NavEvent::new(TabId::from("42"), K::Load).with_url(old)), None);
        assert_eq!(m.on_event(&NavEvent::new(TabId::from("42"), K::DomLoaded).with_url(TARGET)), committed(TARGET));
    }

    #[test]
    fn a_history_traversal_committing_under_an_older_id_settles() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("https://docs.example.com/later", Some(("n9", TARGET))));
        assert_eq!(m.on_event(&ev(K::Committed, "n1", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_redirect_chain_waits_for_the_newest_navigation() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("https://docs.example.com/a", Some(("n1", "https://docs.example.com/b"))));
        assert_eq!(m.on_event(&ev(K::Started, "n2", TARGET)), None);
        assert_eq!(m.on_event(&ev(K::Load, "n1", "https://docs.example.com/a")), None);
        assert_eq!(m.on_event(&ev(K::Committed, "n2", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_failed_navigation_asks_for_a_read_and_settles_on_the_page_the_tab_still_shows() {
        let old = "https://docs.example.com/old";
        let mut m = machine(Instant::now());
        m.on_tab_read(&info(old, Some(("n2", TARGET))));
        assert_eq!(m.on_event(&ev(K::Failed, "n2", TARGET)), None);
        assert!(m.wants_read());
        assert_eq!(m.on_tab_read(&info(old, None)), committed(old));
    }

    #[test]
    fn a_navigation_failed_by_closing_its_tab_is_tab_gone() {
        // Chromium: navigationFailed, then contextDestroyed.
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("https://docs.example.com/old", Some(("n2", TARGET))));
        m.on_event(&ev(K::Failed, "n2", TARGET));
        assert_eq!(m.on_event(&NavEvent::new(TabId::from("42"), K::TabClosed)), Some(SettleOutcome::TabGone));
        assert!(!m.wants_read());
    }

    #[test]
    fn a_failed_first_navigation_with_nothing_else_on_its_way_ends_the_wait_as_failed() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("about:blank", Some(("n1", TARGET))));
        m.on_event(&ev(K::Failed, "n1", TARGET));
        assert_eq!(m.on_tab_read(&info("about:blank", None)), Some(SettleOutcome::Failed));
        assert!(!m.wants_read());
    }

    #[test]
    fn a_blank_tab_whose_navigation_failed_before_the_read_ends_the_wait_as_failed() {
        // Firefox: the failure can come before the waiter subscribes; the read still says so.
        let mut m = machine(Instant::now());
        let read = TabInfo { navigation_failed: true, ..info("about:blank", None) };
        assert_eq!(m.on_tab_read(&read), Some(SettleOutcome::Failed));
    }

    #[test]
    fn a_blank_tab_read_before_its_navigation_started_keeps_waiting() {
        let mut m = machine(Instant::now());
        assert_eq!(m.on_tab_read(&info("about:blank", None)), None);
        assert_eq!(m.on_event(&ev(K::Started, "n1", TARGET)), None);
        assert_eq!(m.on_event(&ev(K::Committed, "n1", TARGET)), committed(TARGET));
    }

    #[test]
    fn a_failed_first_navigation_replaced_by_another_waits_for_that_one() {
        let mut m = machine(Instant::now());
        m.on_tab_read(&info("about:blank", Some(("n1", TARGET))));
        m.on_event(&ev(K::Failed, "n1", TARGET));
        assert_eq!(m.on_tab_read(&info("about:blank", Some(("n2", TARGET)))), None);
        assert_eq!(m.on_event(&ev(K::Committed, "n2", TARGET)), committed(TARGET));
    }
}
