//! The browser the server drives: started (or joined) on the first call that needs it, started
//! again when it has gone away, closed at the end.

use navguard::adapter::{BidiBrowser, BidiPort, BrowserConfig, LaunchError};
use std::sync::Arc;

/// Where the server's browser comes from.
#[derive(Clone, Debug)]
pub enum Reach {
    /// Started by the server: a local driver with a fresh profile, or a WebDriver remote end
    /// (`webdriver_url`, a Selenium Grid included).
    Launch(BrowserConfig),
    /// A BiDi session another program opened, joined at its WebSocket URL: the server acts in
    /// that program's browser (how `navguard compare` has the user's steps act where the agent
    /// acts), and leaves it open at the end.
    Join { bidi_url: String, config: BrowserConfig },
}

/// A browser and the port the core acts through (the browser's default user context: the
/// tabs a person watching `--headed` sees, and the ones a joined session's owner sees).
pub(crate) struct Live {
    pub browser: BidiBrowser,
    pub port: Arc<BidiPort>,
}

impl Live {
    pub(crate) async fn start(reach: &Reach) -> Result<Self, LaunchError> {
        let browser = match reach {
            Reach::Launch(config) => BidiBrowser::launch(config.clone()).await?,
            Reach::Join { bidi_url, config } => BidiBrowser::attach(bidi_url, config.clone()).await?,
        };
        let port = Arc::new(browser.default_port());
        Ok(Self { browser, port })
    }

    pub(crate) fn is_gone(&self) -> bool {
        self.browser.is_disconnected()
    }

    /// Ends a session the server started (the browser quits, the driver stops); a joined one
    /// is only left.
    pub(crate) async fn close(self) {
        self.browser.shutdown().await;
    }
}
