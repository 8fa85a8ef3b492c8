//! One browser session: the driver process, the WebDriver session, the BiDi connection.

use super::error::{DriverStartError, LaunchError};
use super::kind::BrowserKind;
use super::launch::Driver;
use super::port::BidiPort;
use super::router::Router;
use super::session::{SessionProbe, WebDriverSession, open};
use super::subscribe::subscribe_known;
use crate::adapter::error::general;
use crate::bidi::modules::browser::{CreateUserContext, RemoveUserContext};
use crate::bidi::modules::browsing_context::EventMethod;
use crate::bidi::modules::script::{AddPreloadScript, RemovePreloadScript};
use crate::bidi::{BidiClient, BidiError, SocketClosed};
use crate::browser::BrowserError;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// How often a session on a remote end is asked whether it is alive. A Selenium Grid keeps the
/// socket of a node that died open, so nothing else would ever say "disconnected".
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
/// How long one question of the heartbeat may take, over BiDi and then over WebDriver HTTP: a
/// session is given up only when neither answers in time (or HTTP says it is gone). Short
/// enough that a lost session is known before a browser call's own deadline (10 s) runs out.
const HEARTBEAT_DEADLINE: Duration = Duration::from_secs(4);

/// How to get a browser.
#[derive(Clone, Debug)]
pub struct BrowserConfig {
    pub browser: BrowserKind,
    /// A running WebDriver remote end (another chromedriver, a Selenium Grid) instead of
    /// starting chromedriver here.
    pub webdriver_url: Option<String>,
    /// Run without a window.
    pub headless: bool,
    /// The deadline of every browser call.
    pub call_timeout: Duration,
    /// The deadline of starting the driver and opening the session.
    pub start_timeout: Duration,
    /// Keep every BiDi event as it came off the wire, for a failure's artifacts
    /// ([`PortDiagnostics::wire_record`](crate::browser::PortDiagnostics::wire_record)); off,
    /// nothing is kept.
    pub record_wire: bool,
    /// Chromium keeps its address bar's popup pages, which it is otherwise started without
    /// (they cost a second of CPU per window and no one sees them headless). An agent whose own
    /// ChromeDriver attaches to the browser needs them: that ChromeDriver picks the window it
    /// acts in among the browser's pages, and without them it picks the BiDi mapper's page of
    /// the session that started the browser.
    pub popup_pages: bool,
}

impl BrowserConfig {
    /// Default deadline of one browser call.
    pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);
    /// Default deadline of starting the browser.
    pub const START_TIMEOUT: Duration = Duration::from_secs(30);
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            browser: BrowserKind::default(),
            webdriver_url: None,
            headless: true,
            call_timeout: Self::CALL_TIMEOUT,
            start_timeout: Self::START_TIMEOUT,
            record_wire: false,
            popup_pages: false,
        }
    }
}

/// A browser session driven over BiDi.
///
/// ```no_run
/// use navguard::prelude::*;
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     // Firefox ESR with geckodriver; `webdriver_url` would take a running remote end instead.
///     let config = BrowserConfig { browser: BrowserKind::Firefox, ..BrowserConfig::default() };
///     let browser = BidiBrowser::launch(config).await?;
///     // Each port is a user context: its own tabs, events and cookies, so two agents can share
///     // one browser without seeing each other's pages.
///     let (first, second) = (browser.open_port().await?, browser.open_port().await?);
///     browser.close_port(&second).await?;
///     browser.close_port(&first).await?;
///     browser.shutdown().await;
///     Ok(())
/// }
/// ```
pub struct BidiBrowser {
    client: BidiClient,
    router: Router,
    webdriver: tokio::sync::Mutex<Option<WebDriverSession>>,
    driver: Mutex<Option<Driver>>,
    /// The folder of the browser's profile and the driver's temporary files: removed with the
    /// browser.
    scratch: Option<TempDir>,
    config: BrowserConfig,
    start_time: Duration,
    unsupported_events: Vec<String>,
    /// Chromium's DevTools endpoint, for agents that attach over CDP.
    cdp_endpoint: Option<String>,
    /// The session's BiDi WebSocket URL, where another program can join it ([`Self::attach`]).
    bidi_url: String,
    /// The session's WebDriver URL (`http://127.0.0.1:PORT/session/ID`), when this program
    /// opened it: where a WebDriver client sends classic commands to the same session.
    webdriver_session: Option<String>,
    /// Stops the heartbeat of a session on a remote end (at shutdown, or with the browser).
    heartbeat: Option<CancellationToken>,
    /// The page timer count this connection added to a session it joined: removed when it
    /// leaves, so joins do not pile scripts up in a session that outlives them (a session this
    /// browser started ends with its scripts).
    joined_script: Option<String>,
}

impl std::fmt::Debug for BidiBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BidiBrowser").field("config", &self.config).finish_non_exhaustive()
    }
}

/// Checks that the binaries a local run of `browser` needs are installed.
pub fn check_local_binaries(browser: BrowserKind) -> Result<(), LaunchError> {
    browser.driver()?;
    browser.binary()?;
    Ok(())
}

impl BidiBrowser {
    /// Starts the browser's driver (unless `config.webdriver_url` names a remote end), opens a session
    /// with BiDi and subscribes to the navigation events. A remote end is checked first (it
    /// answers; a Selenium Grid has a node for the browser). A session opened but not usable
    /// (no BiDi, no connection) is ended before the error is returned.
    pub async fn launch(config: BrowserConfig) -> Result<Self, LaunchError> {
        let started = Instant::now();
        let (driver, url, binary, profile) = match &config.webdriver_url {
            Some(url) => {
                super::remote::check(url, config.browser.capability_name(), config.start_timeout).await?;
                (None, url.clone(), None, None)
            }
            None => {
                let kind = config.browser;
                let profile = super::launch::scratch_dir("b-").map_err(|e| LaunchError::DriverStart {
                    name: kind.name().into(),
                    source: DriverStartError::Profile(e),
                })?;
                let driver = Driver::start(
                    &kind.driver()?,
                    kind.driver_args(),
                    kind.ready_line(),
                    profile.path(),
                    config.start_timeout,
                )
                .await?;
                let url = driver.url().to_owned();
                (Some(driver), url, Some(kind.binary()?), Some(profile))
            }
        };
        let profile_path = profile.as_ref().map(TempDir::path);
        let caps = config.browser.capabilities(binary.as_deref(), profile_path, config.headless, config.popup_pages);
        let (session, endpoints) = open(&url, caps, config.start_timeout).await?;
        let router = Router::new(config.record_wire);
        let bidi_url = endpoints.bidi.clone();
        let webdriver_session = Some(session.url_of_session());
        let (client, unsupported_events) = match connect(&endpoints.bidi, &config, &router).await {
            Ok((client, unsupported, _timers)) => (client, unsupported),
            Err(e) => {
                end_session(session, config.start_timeout).await;
                return Err(e);
            }
        };
        let heartbeat = config.webdriver_url.is_some().then(|| {
            let stop = CancellationToken::new();
            tokio::spawn(heartbeat(client.clone(), session.probe(), stop.clone()));
            stop
        });
        Ok(Self {
            client,
            router,
            webdriver: tokio::sync::Mutex::new(Some(session)),
            driver: Mutex::new(driver),
            scratch: profile,
            config,
            start_time: started.elapsed(),
            unsupported_events,
            cdp_endpoint: endpoints.cdp,
            bidi_url,
            webdriver_session,
            heartbeat,
            joined_script: None,
        })
    }

    /// Joins a BiDi session another client opened, at its WebSocket URL (the `webSocketUrl`
    /// its new session answered, `ws://127.0.0.1:PORT/session/ID`): a second connection to the
    /// same browser, which this one neither starts nor ends ([`Self::shutdown`] only leaves).
    /// Chromium's driver and Firefox both take more than one connection to a session; Firefox
    /// takes no second session, so joining is how two programs share one Firefox.
    pub async fn attach(ws_url: &str, config: BrowserConfig) -> Result<Self, LaunchError> {
        let started = Instant::now();
        let router = Router::new(config.record_wire);
        let (client, unsupported_events, joined_script) = connect(ws_url, &config, &router).await?;
        Ok(Self {
            client,
            router,
            webdriver: tokio::sync::Mutex::new(None),
            driver: Mutex::new(None),
            scratch: None,
            config,
            start_time: started.elapsed(),
            unsupported_events,
            cdp_endpoint: None,
            bidi_url: ws_url.to_owned(),
            webdriver_session: None,
            heartbeat: None,
            joined_script,
        })
    }

    /// The navigation events this browser refused to subscribe to (none on Chromium 156;
    /// `navigationAborted` on Firefox ESR 153).
    pub fn unsupported_events(&self) -> &[String] {
        &self.unsupported_events
    }

    /// Chromium's DevTools endpoint (`http://127.0.0.1:PORT`), where an agent that drives the
    /// browser over CDP (Playwright, Puppeteer) can attach to this very browser.
    pub fn cdp_endpoint(&self) -> Option<&str> {
        self.cdp_endpoint.as_deref()
    }

    /// The session's BiDi WebSocket URL (`ws://127.0.0.1:PORT/session/ID`), where another
    /// program can join this very session ([`Self::attach`]).
    pub fn bidi_url(&self) -> &str {
        &self.bidi_url
    }

    /// The session's WebDriver URL (`http://127.0.0.1:PORT/session/ID`), where a WebDriver
    /// client sends classic commands (find an element, run a script) to this very session;
    /// `None` for a session this browser joined ([`Self::attach`]).
    pub fn webdriver_session_url(&self) -> Option<&str> {
        self.webdriver_session.as_deref()
    }

    /// How long [`Self::launch`] took.
    pub fn start_time(&self) -> Duration {
        self.start_time
    }

    /// The folder of the browser's profile and of its driver's temporary files (a Firefox
    /// profile geckodriver copies), when this program started the driver: removed with the
    /// browser.
    pub fn scratch_dir(&self) -> Option<&std::path::Path> {
        self.scratch.as_ref().map(TempDir::path)
    }

    /// The process id of the WebDriver server this session started, if it started one.
    pub fn driver_pid(&self) -> Option<u32> {
        self.driver.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref().and_then(Driver::pid)
    }

    /// Whether the connection to the browser is gone.
    pub fn is_disconnected(&self) -> bool {
        self.client.is_closed()
    }

    /// A port on a fresh user context: its own tabs, its own events, its own cookies.
    pub async fn open_port(&self) -> Result<BidiPort, BrowserError> {
        let created = self
            .client
            .send(&CreateUserContext {}, self.config.call_timeout)
            .await
            .map_err(|e| general("browser.createUserContext", e))?;
        let scope = self.router.add_scope(Some(&created.user_context));
        Ok(BidiPort::new(self.client.clone(), scope, Some(created.user_context), self.config.call_timeout))
    }

    /// A port on the browser's default user context (the tabs a person would see).
    pub fn default_port(&self) -> BidiPort {
        let scope = self.router.add_scope(None);
        BidiPort::new(self.client.clone(), scope, None, self.config.call_timeout)
    }

    /// Closes every tab of a port opened by [`Self::open_port`] and forgets it.
    pub async fn close_port(&self, port: &BidiPort) -> Result<(), BrowserError> {
        let Some(uc) = port.user_context().cloned() else { return Ok(()) };
        let removed = self.client.send(&RemoveUserContext { user_context: uc.clone() }, self.config.call_timeout).await;
        self.router.remove_scope(&uc);
        removed.map(|_| ()).map_err(|e| general("browser.removeUserContext", e))
    }

    /// Ends the session (the browser quits; ending one takes as long as starting one may, so
    /// the start deadline) and stops the driver. A session the remote end did not end is logged.
    pub async fn shutdown(&self) {
        if let Some(heartbeat) = &self.heartbeat {
            heartbeat.cancel();
        }
        if let Some(script) = &self.joined_script {
            let remove = RemovePreloadScript { script: script.clone() };
            if let Err(e) = self.client.send(&remove, self.config.call_timeout).await {
                tracing::debug!(error = %e, "the page timer count was not removed from the joined session");
            }
        }
        if let Some(session) = self.webdriver.lock().await.take() {
            let url = session.url.clone();
            match session.end(self.config.start_timeout).await {
                Ok(()) => {}
                // A lost session (its Grid node gone) cannot be ended there; the Grid forgets it.
                Err(e) if self.is_disconnected() => tracing::debug!(url, error = %e, "a lost session was not ended"),
                Err(e) => tracing::warn!(url, error = %e, "the WebDriver session was not ended"),
            }
        }
        let driver = self.driver.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(driver) = driver {
            driver.stop().await;
        }
    }
}

impl Drop for BidiBrowser {
    fn drop(&mut self) {
        if let Some(heartbeat) = &self.heartbeat {
            heartbeat.cancel();
        }
    }
}

/// Connects to the session's BiDi WebSocket and subscribes to the events the port reads: the
/// navigation events, and the network events that feed the wait for network idle (its own
/// log, per tab), and has the session's pages count their timers. Returns the events the
/// browser refused and the timer count's script id.
async fn connect(
    ws_url: &str,
    config: &BrowserConfig,
    router: &Router,
) -> Result<(BidiClient, Vec<String>, Option<String>), LaunchError> {
    let client = BidiClient::connect(ws_url, config.start_timeout, router.clone()).await?;
    let network = crate::bidi::modules::network::EventMethod::ALL.iter().map(|m| m.name());
    let events: Vec<&str> = EventMethod::ALL.iter().map(|m| m.name()).chain(network).collect();
    let unsupported = subscribe_known(&client, &events, config.call_timeout).await?;
    let timers = count_page_timers(&client, config.call_timeout).await;
    Ok((client, unsupported, timers))
}

/// Has every new document of the session count its soon-due timers and tell when it begins to
/// leave (`page/watch.js`), so the agent's look at a page that has just loaded, or just been
/// acted on, waits for what the page set off on a short timer (a redirect 100 ms after load)
/// and for nothing else, and knows a navigation the page started before the browser tells of
/// it. A browser that refuses the script leaves the agent waiting by the page's frames and the
/// browser's events alone.
async fn count_page_timers(client: &BidiClient, deadline: Duration) -> Option<String> {
    let script = AddPreloadScript { function_declaration: include_str!("page/watch.js").to_owned() };
    match client.send(&script, deadline).await {
        Ok(added) => Some(added.script),
        Err(e) => {
            tracing::warn!(error = %e, "the page timer count was not installed; quiet pages are told by their frames alone");
            None
        }
    }
}

/// Ends `session` within `deadline`, logging one that was not ended.
async fn end_session(session: WebDriverSession, deadline: Duration) {
    let url = session.url.clone();
    if let Err(e) = session.end(deadline).await {
        tracing::warn!(url, error = %e, "the WebDriver session was not ended");
    }
}

/// Asks the session `session.status` every [`HEARTBEAT_EVERY`]. One left unanswered for
/// [`HEARTBEAT_DEADLINE`] is checked over WebDriver HTTP; when that fails too, the connection is
/// given up, so every wait on it ends with "browser disconnected" instead of running out its
/// own deadline.
async fn heartbeat(client: BidiClient, probe: SessionProbe, stop: CancellationToken) {
    let mut tick = tokio::time::interval(HEARTBEAT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        // A stopped heartbeat judges nothing more, whatever answer came with the stop.
        let answer = tokio::select! {
            biased;
            () = stop.cancelled() => return,
            answer = async {
                tick.tick().await;
                client.call("session.status", serde_json::json!({}), HEARTBEAT_DEADLINE).await
            } => answer,
        };
        match answer {
            Err(BidiError::Disconnected) => return,
            Err(BidiError::Timeout { .. }) => {
                let alive = tokio::select! {
                    biased;
                    // A verdict that came with the stop is still acted on: a dead session is
                    // given up.
                    alive = probe.answers(HEARTBEAT_DEADLINE) => alive,
                    () = stop.cancelled() => return,
                };
                if !alive {
                    client.abandon(SocketClosed::Unresponsive(HEARTBEAT_DEADLINE));
                    return;
                }
                tracing::debug!("the session's BiDi is slow, but it answers over WebDriver");
            }
            _ => {}
        }
    }
}
