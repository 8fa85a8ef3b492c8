//! The port trait: what the agent core may ask of a browser.

use super::error::BrowserError;
use super::event::NavEvent;
use super::event_log::EventStream;
use super::network::RequestLog;
use super::script::PageScript;
use super::types::{Dialog, FrameId, FrameInfo, Gesture, PressLanded, Shot, TabId, TabInfo, Target};
use async_trait::async_trait;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A key the agent may press. Closed set, so a typo is an error before anything is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Enter / Return.
    Enter,
    Escape,
    Tab,
    Backspace,
    ArrowUp,
    ArrowDown,
    ArrowLeft,
    ArrowRight,
    Space,
}

impl Key {
    /// Parses a key name as the tools write it (`Enter`, `Escape`, `Tab`, …), case-insensitively.
    pub fn parse(name: &str) -> Result<Self, BrowserError> {
        let key = match name.trim().to_ascii_lowercase().as_str() {
            "enter" | "return" => Self::Enter,
            "escape" | "esc" => Self::Escape,
            "tab" => Self::Tab,
            "backspace" => Self::Backspace,
            "arrowup" | "up" => Self::ArrowUp,
            "arrowdown" | "down" => Self::ArrowDown,
            "arrowleft" | "left" => Self::ArrowLeft,
            "arrowright" | "right" => Self::ArrowRight,
            "space" | " " => Self::Space,
            _ => return Err(BrowserError::UnknownKey(name.to_owned())),
        };
        Ok(key)
    }

    /// The WebDriver key value (the normalized key code point).
    pub fn webdriver_value(self) -> &'static str {
        match self {
            Self::Enter => "\u{E007}",
            Self::Escape => "\u{E00C}",
            Self::Tab => "\u{E004}",
            Self::Backspace => "\u{E003}",
            Self::ArrowUp => "\u{E013}",
            Self::ArrowDown => "\u{E015}",
            Self::ArrowLeft => "\u{E012}",
            Self::ArrowRight => "\u{E014}",
            Self::Space => " ",
        }
    }
}

/// The browser as the agent core sees it: tabs, navigations, input, and one event stream.
///
/// Every method has a deadline (set when the port is made); a port sees only its own tabs.
#[async_trait]
pub trait BrowserPort: Send + Sync + std::fmt::Debug {
    /// Opens a tab on `url` and returns once its navigation has started, before it commits
    /// (like `chrome.tabs.create`).
    async fn create_tab(&self, url: &str, active: bool) -> Result<TabId, BrowserError>;
    /// Reads a tab: committed URL, pending URL, loading.
    async fn tab(&self, tab: &TabId) -> Result<TabInfo, BrowserError>;
    /// The tab as the port's events left it, without asking the browser: `None` when they do
    /// not say (no commit seen, the tab closed, or a port that keeps no such record). What the
    /// browser sent and the port has not read yet is not in it; the answer of the next command
    /// brings that in (a caller checks the events then).
    fn tab_known(&self, _tab: &TabId) -> Option<TabInfo> {
        None
    }
    /// The tab as the port's events left it ([`BrowserPort::tab_known`]), or read from the
    /// browser when they do not say.
    async fn tab_from_events(&self, tab: &TabId) -> Result<TabInfo, BrowserError> {
        match self.tab_known(tab) {
            Some(info) => Ok(info),
            None => self.tab(tab).await,
        }
    }
    /// Every open tab of this port, each with its opener as the browser names it (though the
    /// tab's creation event may not have come yet).
    async fn tabs(&self) -> Result<Vec<TabInfo>, BrowserError>;
    /// Starts a navigation; returns once it has started, never waiting for its commit.
    async fn navigate(&self, tab: &TabId, url: &str) -> Result<(), BrowserError>;
    /// Reloads; returns once the reload has started.
    async fn reload(&self, tab: &TabId) -> Result<(), BrowserError>;
    /// Goes back one history entry; returns once that navigation has started.
    async fn back(&self, tab: &TabId) -> Result<(), BrowserError>;
    async fn close(&self, tab: &TabId) -> Result<(), BrowserError>;
    /// Makes a tab the browser's active tab.
    async fn activate(&self, tab: &TabId) -> Result<(), BrowserError>;
    /// The browser's active tab among this port's tabs, if any.
    async fn active_tab(&self) -> Result<Option<TabId>, BrowserError>;
    /// A real pointer click on the target: the first element a selector matches in the tab's
    /// own document, or the element a ref names, in the frame the ref names if it names one (a
    /// stale ref fails with [`BrowserError::StaleRef`], clicking nothing).
    async fn click(&self, tab: &TabId, target: &Target) -> Result<(), BrowserError>;
    /// Where the last click's press on `target` went, by the watch the click set on the
    /// target's page before pressing ([`PressLanded`]); `None` when the page holds no such watch
    /// any more (the press started a navigation that replaced it) or saw no press, and from a
    /// port that sets none. Read once what the click started is over.
    async fn press_landed(&self, tab: &TabId, target: &Target) -> Result<Option<PressLanded>, BrowserError> {
        let _ = (tab, target);
        Ok(None)
    }
    /// Performs `gesture` with the real pointer, each target found and checked as a click's
    /// is (scrolled into view, not covered, hidden or disabled; a stale ref refused). A port
    /// without a pointer refuses it as bad input.
    async fn gesture(&self, tab: &TabId, gesture: &Gesture) -> Result<(), BrowserError> {
        let _ = tab;
        Err(BrowserError::InvalidArgument(format!("this browser port has no pointer for {gesture:?}")))
    }
    /// Makes the file input `target` names hold the files at `paths` (read by the browser; a
    /// caller checks first that they may be read). Its page receives the `input` and `change`
    /// events a person's choice sends. A port without files refuses it as bad input.
    async fn set_files(&self, tab: &TabId, target: &Target, paths: &[PathBuf]) -> Result<(), BrowserError> {
        let _ = (tab, paths);
        Err(BrowserError::InvalidArgument(format!("this browser port cannot put files in {target}")))
    }
    /// Focuses the element (by a click) and types `text`.
    async fn type_text(&self, tab: &TabId, target: &Target, text: &str) -> Result<(), BrowserError>;
    /// Presses and releases a key in the tab.
    async fn press_key(&self, tab: &TabId, key: Key) -> Result<(), BrowserError>;
    /// Evaluates a script expression someone wrote (a scenario's own script) in the page,
    /// promises awaited, and returns its JSON value. navguard's own scripts go through
    /// [`Self::call`].
    async fn evaluate(&self, tab: &TabId, expression: &str) -> Result<Value, BrowserError>;
    /// Calls one of navguard's page scripts in the tab's document with `args` as its arguments
    /// (promises awaited) and returns its answer as JSON.
    async fn call(&self, tab: &TabId, script: &PageScript, args: &[Value]) -> Result<Value, BrowserError>;
    /// The frames of the tab's page (its iframes, and theirs), parents before their children,
    /// whatever their origin. A port that cannot see inside a page lists none.
    async fn frames(&self, tab: &TabId) -> Result<Vec<FrameInfo>, BrowserError> {
        self.tab(tab).await.map(|_| Vec::new())
    }
    /// Calls one of navguard's page scripts in one frame of the tab, as [`Self::call`] does in
    /// the tab's own document, within `deadline` rather than the port's call deadline: a frame
    /// still loading, one that never loads or keeps navigating must not hold the caller long. A
    /// frame no longer in the page fails with [`BrowserError::FrameGone`].
    async fn call_in_frame(
        &self,
        tab: &TabId,
        frame: &FrameId,
        script: &PageScript,
        args: &[Value],
        deadline: Duration,
    ) -> Result<Value, BrowserError> {
        let _ = (script, args, deadline);
        Err(BrowserError::FrameGone { tab: tab.clone(), frame: frame.clone() })
    }
    /// A PNG screenshot of the tab's viewport.
    async fn screenshot(&self, tab: &TabId) -> Result<Vec<u8>, BrowserError>;
    /// A PNG of what `shot` names: the viewport, the whole page (bounded), or one element (a
    /// stale ref fails with [`BrowserError::StaleRef`]). A port that can take only the
    /// viewport refuses the others as bad input.
    async fn capture(&self, tab: &TabId, shot: &Shot) -> Result<Vec<u8>, BrowserError> {
        match shot {
            Shot::Viewport => self.screenshot(tab).await,
            other => Err(BrowserError::InvalidArgument(format!("this browser port takes no picture of {other:?}"))),
        }
    }
    /// The dialog the tab's page has open, as its events said (no call to the browser). While
    /// one is open, the calls that run a script in the page or give it input fail with
    /// [`BrowserError::DialogOpen`] instead of waiting behind it; navigations are the
    /// browser's to decide (Chromium 156 and Firefox ESR 153 close an alert and go).
    fn open_dialog(&self, tab: &TabId) -> Option<Dialog>;
    /// The dialog open in the tab once every event the browser sent before this call is in.
    /// Where the events say one is open, a port that shares its browser with another client
    /// (the person at it, a test driving it) asks the browser once first: the other client may
    /// have answered the dialog a moment ago, and its close may still be on the way. A call is
    /// refused for a dialog only after this says it is open.
    async fn dialog_now(&self, tab: &TabId) -> Result<Option<Dialog>, BrowserError> {
        Ok(self.open_dialog(tab))
    }
    /// Answers the tab's dialog: accepts it (OK, leave the page) or dismisses it (Cancel,
    /// stay), with `text` as a prompt's answer. Returns once the browser says the dialog is
    /// closed; a tab with none fails with [`BrowserError::NoDialog`].
    async fn handle_dialog(&self, tab: &TabId, accept: bool, text: Option<&str>) -> Result<(), BrowserError>;
    /// A stream of every navigation event of this port's tabs from now on. Subscribe before
    /// reading a tab, so that an event between the two is never missed.
    fn subscribe(&self) -> EventStream;
    /// A stream from the event numbered `from` on, events already seen included: with
    /// [`Self::position`] taken before an action, a later wait misses none of its events.
    fn subscribe_from(&self, from: u64) -> EventStream;
    /// A stream of every event this port has seen, from its first (for history: which tab
    /// appeared when, which page opened which).
    fn subscribe_from_start(&self) -> EventStream {
        self.subscribe_from(0)
    }
    /// The number the next event will get: a position in the event stream.
    fn position(&self) -> u64;
    /// Every event this port has seen so far, in order.
    fn events(&self) -> Vec<NavEvent>;
    /// When the port's event stream began; reports time events from here.
    fn events_origin(&self) -> Instant;
    /// The log of its tabs' network requests (a log of its own, lossless like the events').
    fn request_log(&self) -> Arc<RequestLog>;
    /// What the port can tell of itself beyond the browser's state, if it can.
    fn diagnostics(&self) -> Option<&dyn PortDiagnostics> {
        None
    }
}

/// What a port can tell of itself, for a harness's checks and a failure's artifacts.
pub trait PortDiagnostics {
    /// How many subscriptions are alive (a waiter must leave none behind).
    fn listener_count(&self) -> usize;
    /// The protocol messages behind the events, one JSON text each. A port without a wire
    /// protocol, or that does not keep it, has none.
    fn wire_record(&self) -> Vec<String> {
        Vec::new()
    }
}
