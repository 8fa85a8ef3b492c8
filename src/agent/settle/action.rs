//! The action settle after click / type / press_key: wait until the tab has had no navigation
//! event for a quiet window, capped. A state machine fed with events and the time, and its
//! driver.

use crate::browser::{BrowserError, EventStream, NavEventKind, TabId};
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How an action settle ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::agent) enum ActionSettleEnd {
    /// The quiet window passed with no navigation event.
    Quiet,
    /// The cap was reached first.
    Capped,
    /// The user stopped the task.
    Aborted,
    /// The page opened a dialog: nothing changes on it until the dialog is answered.
    Dialog,
}

/// The quiet-window state machine.
#[derive(Debug)]
pub(super) struct QuietWindow {
    started: Instant,
    last_activity: Instant,
    quiet: Duration,
    cap: Duration,
    /// Navigation events seen.
    pub events: usize,
}

impl QuietWindow {
    /// Starts at `now`.
    pub(super) fn new(now: Instant, quiet: Duration, cap: Duration) -> Self {
        Self { started: now, last_activity: now, quiet, cap, events: 0 }
    }

    /// When to look again.
    pub(super) fn deadline(&self) -> Instant {
        (self.last_activity + self.quiet).min(self.started + self.cap)
    }

    /// A navigation event of the tab at `now`.
    pub(super) fn on_event(&mut self, now: Instant) {
        self.events += 1;
        self.last_activity = now;
    }

    /// The time is `now`: ended?
    pub(super) fn on_time(&self, now: Instant) -> Option<ActionSettleEnd> {
        if now >= self.started + self.cap {
            Some(ActionSettleEnd::Capped)
        } else if now >= self.last_activity + self.quiet {
            Some(ActionSettleEnd::Quiet)
        } else {
            None
        }
    }
}

/// Waits for the quiet window on `tab`, given a subscription taken before the action; a
/// dialog the page opens ends it at once.
pub(in crate::agent) async fn settle_action(
    mut events: EventStream,
    tab: &TabId,
    quiet: Duration,
    cap: Duration,
    cancel: &CancellationToken,
) -> Result<ActionSettleEnd, BrowserError> {
    let mut window = QuietWindow::new(Instant::now(), quiet, cap);
    loop {
        tokio::select! {
            () = cancel.cancelled() => return Ok(ActionSettleEnd::Aborted),
            () = tokio::time::sleep_until(window.deadline()) => {
                if let Some(end) = window.on_time(Instant::now()) {
                    return Ok(end);
                }
            }
            event = events.next() => match event {
                Ok(e) if e.tab == *tab && e.kind == NavEventKind::DialogOpened => return Ok(ActionSettleEnd::Dialog),
                Ok(e) if e.tab == *tab => window.on_event(Instant::now()),
                Ok(_) => {}
                Err(_) => return Err(BrowserError::Disconnected),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Duration = Duration::from_millis(500);
    const CAP: Duration = Duration::from_millis(3000);

    #[test]
    fn ends_quiet_after_the_window_with_no_event() {
        let t0 = Instant::now();
        let w = QuietWindow::new(t0, Q, CAP);
        assert_eq!(w.on_time(t0 + Q - Duration::from_millis(1)), None);
        assert_eq!(w.on_time(t0 + Q), Some(ActionSettleEnd::Quiet));
    }

    #[test]
    fn an_event_restarts_the_quiet_window() {
        let t0 = Instant::now();
        let mut w = QuietWindow::new(t0, Q, CAP);
        w.on_event(t0 + Duration::from_millis(400));
        assert_eq!(w.on_time(t0 + Q), None);
        assert_eq!(w.deadline(), t0 + Duration::from_millis(900));
    }

    #[test]
    fn a_busy_page_is_capped() {
        let t0 = Instant::now();
        let mut w = QuietWindow::new(t0, Q, CAP);
        (1..=12).for_each(|i| w.on_event(t0 + Duration::from_millis(250 * i)));
        assert_eq!(w.on_time(t0 + CAP), Some(ActionSettleEnd::Capped));
    }
}
