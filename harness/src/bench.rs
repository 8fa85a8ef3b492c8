//! What the benchmarks in `harness/benches/` share.

use navguard::adapter::{BidiBrowser, BrowserConfig, BrowserKind};

/// The browser `NAVGUARD_BROWSER` names (default Chromium), launched as the harness launches
/// it, through `NAVGUARD_WEBDRIVER_URL` (a Selenium Grid) when that is set. A benchmark has no
/// one to report an error to but its terminal: it panics with the cause.
pub async fn launch_from_env() -> (BrowserKind, BidiBrowser) {
    let kind: BrowserKind = std::env::var("NAVGUARD_BROWSER")
        .unwrap_or_else(|_| "chromium".into())
        .parse()
        .unwrap_or_else(|e| panic!("NAVGUARD_BROWSER: {e}"));
    let webdriver_url = std::env::var("NAVGUARD_WEBDRIVER_URL").ok().filter(|url| !url.is_empty());
    let config = BrowserConfig { browser: kind, webdriver_url, ..BrowserConfig::default() };
    let browser = BidiBrowser::launch(config).await.unwrap_or_else(|e| panic!("browser (run ci/setup.sh): {e}"));
    (kind, browser)
}
