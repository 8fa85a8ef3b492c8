//! One browser session: the driver process, the WebDriver session, the BiDi connection.

use super::error::{DriverStartError, LaunchError};
use super::kind::BrowserKind;
use super::launch::Driver;
use super::port::BidiPort;
use super::router::Router;
use super::session::open;
use super::subscribe::subscribe_known;
use crate::adapter::error::general;
use crate::bidi::BidiClient;
use crate::bidi::modules::browser::{CreateUserContext, RemoveUserContext};
use crate::bidi::modules::browsing_context::EventMethod;
use crate::browser::BrowserError;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tempfile::TempDir;

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
        }
    }
}

/// A browser session driven over BiDi.
pub struct BidiBrowser {
    client: BidiClient,
    router: Router,
    webdriver: tokio::sync::Mutex<Option<fantoccini::Client>>,
    driver: Mutex<Option<Driver>>,
    _profile: Option<TempDir>,
    config: BrowserConfig,
    start_time: Duration,
    unsupported_events: Vec<String>,
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
    /// with BiDi and subscribes to the navigation events.
    pub async fn launch(config: BrowserConfig) -> Result<Self, LaunchError> {
        let started = Instant::now();
        let profile = tempfile::tempdir().map_err(|e| LaunchError::DriverStart {
            name: config.browser.name().into(),
            source: DriverStartError::Profile(e),
        })?;
        let (driver, url, binary) = match &config.webdriver_url {
            Some(url) => (None, url.clone(), None),
            None => {
                let kind = config.browser;
                let driver =
                    Driver::start(&kind.driver()?, kind.driver_args(), kind.ready_line(), config.start_timeout).await?;
                let url = driver.url().to_owned();
                (Some(driver), url, Some(kind.binary()?))
            }
        };
        let caps = config.browser.capabilities(binary.as_deref(), profile.path(), config.headless);
        let (webdriver, ws_url) = open(&url, caps, config.start_timeout).await?;
        let router = Router::default();
        let client = BidiClient::connect(&ws_url, config.start_timeout, router.clone()).await?;
        // The network events feed the wait for network idle (its own log, per tab).
        let network = crate::bidi::modules::network::EventMethod::ALL.iter().map(|m| m.name());
        let events: Vec<&str> = EventMethod::ALL.iter().map(|m| m.name()).chain(network).collect();
        let unsupported_events = subscribe_known(&client, &events, config.call_timeout).await?;
        Ok(Self {
            client,
            router,
            webdriver: tokio::sync::Mutex::new(Some(webdriver)),
            driver: Mutex::new(driver),
            _profile: Some(profile),
            config,
            start_time: started.elapsed(),
            unsupported_events,
        })
    }

    /// The navigation events this browser refused to subscribe to (none on Chromium 156;
    /// `navigationAborted` on Firefox ESR 153).
    pub fn unsupported_events(&self) -> &[String] {
        &self.unsupported_events
    }

    /// How long [`Self::launch`] took.
    pub fn start_time(&self) -> Duration {
        self.start_time
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

    /// Ends the session (the browser quits) and stops the driver.
    pub async fn shutdown(&self) {
        if let Some(client) = self.webdriver.lock().await.take() {
            let _ = tokio::time::timeout(self.config.call_timeout, client.close()).await;
        }
        let driver = self.driver.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(driver) = driver {
            driver.stop().await;
        }
    }
}
