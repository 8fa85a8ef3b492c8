//! A lossless, append-only log of events with cursors: navigation events, and (in a log of
//! their own) network request events.
//!
//! Subscribers never miss an event and never slow the writer: a subscription is a cursor into
//! the log, so an event appended between "subscribe" and "read the tab" is still there when the
//! subscriber looks. The log counts live subscriptions, so a test can prove no listener leaked.

use super::event::NavEvent;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::sync::watch;

/// Why a log will get no more events.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the event log is closed: {0}")]
pub struct LogClosed(pub String);

/// An event a log numbers as it appends it.
pub trait Sequenced: Clone {
    fn set_seq(&mut self, seq: u64);
}

impl Sequenced for NavEvent {
    fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }
}

/// The shared log. Cheap to clone through `Arc`.
#[derive(Debug)]
pub struct EventLog<E = NavEvent> {
    events: Mutex<Vec<E>>,
    /// Bumped on every append and on close; subscribers wait on it.
    version: watch::Sender<u64>,
    closed: Mutex<Option<LogClosed>>,
    listeners: AtomicUsize,
    origin: Instant,
}

impl<E> Default for EventLog<E> {
    fn default() -> Self {
        Self {
            events: Mutex::new(Vec::new()),
            version: watch::Sender::new(0),
            closed: Mutex::new(None),
            listeners: AtomicUsize::new(0),
            origin: Instant::now(),
        }
    }
}

impl<E: Sequenced> EventLog<E> {
    /// A new, empty log.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The instant the log was made; event times in reports are relative to it.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    fn lock(&self) -> MutexGuard<'_, Vec<E>> {
        self.events.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Appends an event, numbering it; returns its sequence number.
    pub fn append(&self, mut event: E) -> u64 {
        let seq = {
            let mut events = self.lock();
            event.set_seq(events.len() as u64);
            events.push(event);
            events.len() as u64 - 1
        };
        self.version.send_modify(|v| *v += 1);
        seq
    }

    /// Marks the log closed: subscribers drain what is there, then get the reason.
    pub fn close(&self, reason: impl Into<String>) {
        let mut closed = self.closed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if closed.is_none() {
            *closed = Some(LogClosed(reason.into()));
        }
        drop(closed);
        self.version.send_modify(|v| *v += 1);
    }

    /// Why the log is closed, if it is.
    pub fn closed(&self) -> Option<LogClosed> {
        self.closed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    pub fn len(&self) -> u64 {
        self.lock().len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A copy of every event from `from` on.
    pub fn snapshot_from(&self, from: u64) -> Vec<E> {
        self.lock().iter().skip(from as usize).cloned().collect()
    }

    /// Whether any event at or after `from` matches `wanted`, without copying the log.
    pub fn any_from(&self, from: u64, wanted: impl Fn(&E) -> bool) -> bool {
        self.lock().iter().skip(from as usize).any(wanted)
    }

    /// How many subscriptions are alive.
    pub fn listener_count(&self) -> usize {
        self.listeners.load(Ordering::SeqCst)
    }

    /// A subscription that sees every event appended from now on.
    pub fn subscribe(self: &Arc<Self>) -> EventStream<E> {
        let next = self.len();
        self.subscribe_from(next)
    }

    /// A subscription that starts at sequence number `from` (events already in the log included).
    pub fn subscribe_from(self: &Arc<Self>, from: u64) -> EventStream<E> {
        self.listeners.fetch_add(1, Ordering::SeqCst);
        EventStream { log: Arc::clone(self), next: from, version: self.version.subscribe() }
    }

    fn get(&self, seq: u64) -> Option<E> {
        self.lock().get(seq as usize).cloned()
    }
}

/// A cursor into an [`EventLog`]; dropping it unregisters the listener.
#[derive(Debug)]
pub struct EventStream<E = NavEvent> {
    log: Arc<EventLog<E>>,
    next: u64,
    version: watch::Receiver<u64>,
}

impl<E: Sequenced> EventStream<E> {
    /// The next event, waiting for one if none is there yet. Fails only once the log is closed
    /// and every event in it has been read.
    pub async fn next(&mut self) -> Result<E, LogClosed> {
        loop {
            // Mark the version seen before looking, so an append after the look wakes us.
            self.version.borrow_and_update();
            if let Some(event) = self.try_next() {
                return Ok(event);
            }
            if let Some(reason) = self.log.closed() {
                return Err(reason);
            }
            if self.version.changed().await.is_err() {
                return Err(LogClosed("the event log was dropped".into()));
            }
        }
    }

    /// The next event if one is already there.
    pub fn try_next(&mut self) -> Option<E> {
        let event = self.log.get(self.next)?;
        self.next += 1;
        Some(event)
    }

    /// The sequence number of the next event this stream will return.
    pub fn position(&self) -> u64 {
        self.next
    }
}

impl<E> Drop for EventStream<E> {
    fn drop(&mut self) {
        self.log.listeners.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::{NavEventKind, TabId};

    fn ev(kind: NavEventKind) -> NavEvent {
        NavEvent::new(TabId::from("t"), kind)
    }

    #[tokio::test]
    async fn sees_an_event_appended_after_subscribing_before_reading() {
        let log: Arc<EventLog> = EventLog::new();
        let mut stream = log.subscribe();
        log.append(ev(NavEventKind::Committed));
        assert_eq!(stream.next().await.unwrap().kind, NavEventKind::Committed);
    }

    #[tokio::test]
    async fn drains_events_then_reports_the_close_reason() {
        let log: Arc<EventLog> = EventLog::new();
        let mut stream = log.subscribe();
        log.append(ev(NavEventKind::Started));
        log.close("browser disconnected");
        assert_eq!(stream.next().await.unwrap().kind, NavEventKind::Started);
        assert_eq!(stream.next().await.unwrap_err().0, "browser disconnected");
    }

    #[tokio::test]
    async fn wakes_a_waiting_subscriber() {
        let log: Arc<EventLog> = EventLog::new();
        let mut stream = log.subscribe();
        let waiter = tokio::spawn(async move { stream.next().await.map(|e| e.seq) });
        tokio::task::yield_now().await;
        log.append(ev(NavEventKind::Load));
        assert_eq!(waiter.await.unwrap(), Ok(0));
    }

    #[test]
    fn counts_listeners_and_forgets_dropped_ones() {
        let log: Arc<EventLog> = EventLog::new();
        let a = log.subscribe();
        let b = log.subscribe_from(0);
        assert_eq!(log.listener_count(), 2);
        drop(a);
        drop(b);
        assert_eq!(log.listener_count(), 0);
    }

    #[test]
    fn numbers_events_without_gaps() {
        let log: Arc<EventLog> = EventLog::new();
        let seqs: Vec<u64> = (0..3).map(|_| log.append(ev(NavEventKind::Started))).collect();
        assert_eq!(seqs, vec![0, 1, 2]);
    }
}
