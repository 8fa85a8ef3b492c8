//! The real adapter against real Chromium: what happens when the browser goes away.

use navguard::adapter::{BidiBrowser, BrowserConfig};
use navguard::browser::BrowserPort;
use navguard::fixtures::FixtureSite;
use std::time::{Duration, Instant};

/// Kills the browser under the driver (the driver's children), as a crash would.
fn kill_browser(driver_pid: u32) {
    let status = std::process::Command::new("pkill").args(["-KILL", "-P", &driver_pid.to_string()]).status();
    assert!(status.is_ok_and(|s| s.success()), "pkill found no browser process under the driver");
}

#[tokio::test]
async fn a_browser_that_dies_fails_calls_and_waits_with_disconnected_not_a_timeout() {
    let site = FixtureSite::start().await.unwrap();
    let browser = BidiBrowser::launch(BrowserConfig::default()).await.unwrap();
    let port = browser.open_port().await.unwrap();
    let tab = port.create_tab(&format!("{}/never", site.site), true).await.unwrap();
    let mut events = port.subscribe();
    let started = Instant::now();
    kill_browser(browser.driver_pid().unwrap());

    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if let Err(closed) = events.next().await {
                return closed;
            }
        }
    })
    .await
    .expect("the event stream ends when the browser dies");
    assert!(waited.0.contains("browser disconnected"), "{waited}");
    let read = port.tab(&tab).await.unwrap_err();
    assert!(read.is_disconnected(), "{read}");
    assert!(browser.open_port().await.unwrap_err().is_disconnected());
    // Far below the per-call deadline (10 s): the socket closing ends everything at once.
    assert!(started.elapsed() < BrowserConfig::CALL_TIMEOUT, "took {:?}", started.elapsed());
    browser.shutdown().await;
    site.shutdown().await;
}
