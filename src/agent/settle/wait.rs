//! `wait_for_url_settle`: drives a [`SettleMachine`] with a real port, the clock and the user's
//! Stop. Subscribes before reading the tab, so a commit in between is never lost; the
//! subscription is dropped on every path, so no listener is left behind.

use super::machine::{SettleMachine, SettleOutcome};
use crate::browser::{BrowserError, BrowserPort, EventStream, TabId, TabInfo};
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use url::Origin;

/// What a settle wait decided, and how long it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettleReport {
    pub outcome: SettleOutcome,
    /// How long the wait lasted.
    pub waited: Duration,
}

/// A settle wait: `UrlSettle::new(tab, origin).timeout(…).wait(port, cancel)`.
#[must_use]
#[derive(Clone, Debug)]
pub struct UrlSettle {
    tab: TabId,
    expected: Option<Origin>,
    timeout: Duration,
}

impl UrlSettle {
    /// The design's settle timeout: long enough for a cold start of a slow site, short enough
    /// not to leave the user staring at a silent panel.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);

    /// A wait for `tab` to commit on `expected`.
    pub fn new(tab: TabId, expected: Origin) -> Self {
        Self { tab, expected: Some(expected), timeout: Self::DEFAULT_TIMEOUT }
    }

    /// A wait for `tab` to commit anywhere (a tab that is not pinned to an origin).
    pub fn any_origin(tab: TabId) -> Self {
        Self { tab, expected: None, timeout: Self::DEFAULT_TIMEOUT }
    }

    /// Sets the timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Subscribes, reads the tab, then waits. Fails only when the browser itself fails
    /// (disconnected, a read that timed out); a closed tab is the `TabGone` outcome.
    pub async fn wait(self, port: &dyn BrowserPort, cancel: &CancellationToken) -> Result<SettleReport, BrowserError> {
        let events = port.subscribe();
        let read = port.tab(&self.tab).await;
        self.wait_after_read(port, events, read, cancel).await
    }

    /// Waits with a subscription taken before `read` (the caller already read the tab).
    pub async fn wait_after_read(
        self,
        port: &dyn BrowserPort,
        mut events: EventStream,
        read: Result<TabInfo, BrowserError>,
        cancel: &CancellationToken,
    ) -> Result<SettleReport, BrowserError> {
        let started = Instant::now();
        let tab = self.tab.clone();
        let mut machine = SettleMachine::new(self.tab, self.expected, started, self.timeout);
        let mut decided = apply_read(&mut machine, read)?;
        while decided.is_none() {
            if machine.wants_read() {
                decided = reread(port, &tab, &mut machine, &mut events).await?;
                continue;
            }
            decided = tokio::select! {
                biased;
                // Stop first; then what already happened beats the clock: the deadline counts
                // only when no event is waiting (a commit read late is still a commit).
                () = cancel.cancelled() => machine.on_cancel(),
                event = events.next() => match event {
                    Ok(event) => machine.on_event(&event),
                    Err(_) => return Err(BrowserError::Disconnected),
                },
                () = tokio::time::sleep_until(machine.deadline()) => machine.on_time(Instant::now()),
            };
        }
        let outcome = decided.unwrap_or(SettleOutcome::Timeout);
        Ok(SettleReport { outcome, waited: started.elapsed() })
    }
}

fn apply_read(
    machine: &mut SettleMachine,
    read: Result<TabInfo, BrowserError>,
) -> Result<Option<SettleOutcome>, BrowserError> {
    match read {
        Ok(info) => Ok(machine.on_tab_read(&info)),
        Err(e) if e.is_tab_gone() => Ok(machine.on_tab_gone()),
        Err(e) => Err(e),
    }
}

/// Reads the tab again; events that arrived meanwhile (a close comes before the read's reply on
/// the one socket) are fed first.
async fn reread(
    port: &dyn BrowserPort,
    tab: &TabId,
    machine: &mut SettleMachine,
    events: &mut EventStream,
) -> Result<Option<SettleOutcome>, BrowserError> {
    let read = port.tab(tab).await;
    while let Some(event) = events.try_next() {
        if let Some(outcome) = machine.on_event(&event) {
            return Ok(Some(outcome));
        }
    }
    apply_read(machine, read)
}

/// The design's helper under its own name (docs/design/navigation-transients.md#the-settle-waiter).
pub async fn wait_for_url_settle(
    port: &dyn BrowserPort,
    tab: &TabId,
    expected: &Origin,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<SettleReport, BrowserError> {
    UrlSettle::new(tab.clone(), expected.clone()).timeout(timeout).wait(port, cancel).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::SimPort;

    /// A commit the browser already sent, read at the moment the deadline passes, is the
    /// commit: the round goes on, it is not stopped as a timeout. (Tried many times: a random
    /// pick between the two would lose about half of them.)
    #[tokio::test(start_paused = true)]
    async fn a_commit_already_in_wins_over_the_deadline_that_passed_with_it() {
        for _ in 0..32 {
            let port = SimPort::new();
            let tab = port.create_tab("https://a.example/", true).await.unwrap();
            port.start(&tab, "https://a.example/next");
            let events = port.subscribe();
            let read = port.tab(&tab).await;
            port.commit(&tab);
            let settle = UrlSettle::any_origin(tab).timeout(Duration::ZERO);
            let report = settle.wait_after_read(&port, events, read, &CancellationToken::new()).await.unwrap();
            assert_eq!(report.outcome, SettleOutcome::Committed { url: "https://a.example/next".into() });
        }
    }
}
