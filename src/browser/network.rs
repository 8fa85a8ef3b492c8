//! Network request events, as the port reports them (in a log of their own: the navigation
//! events' log stays what features assert on).

use super::event_log::{EventLog, EventStream, Sequenced};
use super::types::TabId;
use serde::Serialize;
use std::time::Instant;

crate::closed_set! {
    /// The kinds of request event a port reports for a tab.
    pub enum RequestEventKind("request event kind") {
        /// A request is sent (again, after a redirect: the same request id).
        Sent = "request-sent",
        /// Its response's headers arrived.
        ResponseStarted = "response-started",
        /// Its response ended.
        Completed = "request-completed",
        /// It failed (a network error, or cancelled).
        Failed = "request-failed",
    }
}

/// The browser's id of a request; it survives redirects.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RequestId(pub String);

/// One request event of one tab.
#[derive(Clone, Debug, Serialize)]
pub struct RequestEvent {
    /// Position in its log.
    pub seq: u64,
    /// When the port received it.
    #[serde(skip)]
    pub at: Instant,
    pub tab: TabId,
    pub kind: RequestEventKind,
    pub request: RequestId,
    pub url: String,
    /// The request is a long-lived stream (an event stream, a WebSocket): it never ends by
    /// design, so it never keeps a page busy.
    pub stream: bool,
    /// The request loads a navigation's document (the browser named its navigation): the
    /// navigation's own events settle it, not the waits for a page's requests.
    pub document: bool,
}

impl RequestEvent {
    /// A new event for `tab`, stamped now; the log sets `seq` when it is appended.
    pub fn new(tab: TabId, kind: RequestEventKind, request: RequestId, url: impl Into<String>) -> Self {
        Self { seq: 0, at: Instant::now(), tab, kind, request, url: url.into(), stream: false, document: false }
    }

    #[must_use]
    pub fn streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    #[must_use]
    pub fn loading_document(mut self, document: bool) -> Self {
        self.document = document;
        self
    }
}

impl Sequenced for RequestEvent {
    fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }
}

/// The log of a port's request events.
pub type RequestLog = EventLog<RequestEvent>;
/// A cursor into a [`RequestLog`].
pub type RequestStream = EventStream<RequestEvent>;
