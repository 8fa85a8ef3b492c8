//! `cargo bench --bench network_idle`: how late the wait for network idle resolves after the
//! page's last response completed, beyond the idle window itself (docs/design/reliability-layer.md), on real
//! Chromium (or `NAVGUARD_BROWSER=firefox`). Each sample opens `/fetches` (3 parallel fetches of
//! 300 to 500 ms, started on load), waits for the load, then for network idle; the latency is
//! the wait's end, minus the port's receipt of the last `responseCompleted`, minus the window.

use navguard::__private::{IdleOutcome, wait_for_network_idle};
use navguard::browser::{BrowserPort, NavEventKind, RequestEventKind, TabId};
use navguard_harness::fixtures::FixtureSite;
use std::time::{Duration, Instant};

const SAMPLES: usize = 30;
const WINDOWS: [u64; 2] = [100, 500];

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank]
}

/// Waits (at most 10 s) for the tab's load event.
async fn loaded(port: &dyn BrowserPort, tab: &TabId, from: u64) {
    let mut events = port.subscribe_from(from);
    let load = async {
        while let Ok(e) = events.next().await {
            if e.tab == *tab && e.kind == NavEventKind::Load {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), load).await.expect("the page loads");
}

/// One sample: the latency in ms beyond the idle window.
async fn sample(port: &dyn BrowserPort, url: &str, idle: Duration) -> f64 {
    let from = port.position();
    let tab = port.create_tab(url, true).await.unwrap();
    loaded(port, &tab, from).await;
    let outcome = wait_for_network_idle(port, &tab, idle, Duration::from_secs(10)).await.unwrap();
    let ended = Instant::now();
    assert!(matches!(outcome, IdleOutcome::Idle { .. }), "{outcome:?}");
    let last = port
        .request_log()
        .snapshot_from(0)
        .into_iter()
        .filter(|e| e.tab == tab && matches!(e.kind, RequestEventKind::Completed | RequestEventKind::Failed))
        .map(|e| e.at)
        .max()
        .expect("the page's requests completed");
    port.close(&tab).await.unwrap();
    (ended - last).as_secs_f64() * 1000.0 - idle.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let site = FixtureSite::start().await.expect("fixture site");
    let (kind, browser) = navguard_harness::bench::launch_from_env().await;
    let port = browser.open_port().await.unwrap();
    println!("network idle on {kind}: resolution after the last response, beyond the window, {SAMPLES} samples");
    println!("{:<10} {:>10} {:>10} {:>10}", "window", "p50", "p95", "max");
    for window in WINDOWS {
        let mut late = Vec::with_capacity(SAMPLES);
        for i in 0..SAMPLES {
            let delay = 300 + (i * 67) % 200;
            let url = format!("{}/fetches?count=3&delay={delay}", site.site);
            late.push(sample(&port, &url, Duration::from_millis(window)).await);
        }
        let max = late.iter().copied().fold(f64::MIN, f64::max);
        let (p50, p95) = (percentile(&mut late, 50.0), percentile(&mut late, 95.0));
        println!("{:<10} {p50:>8.1}ms {p95:>8.1}ms {max:>8.1}ms", format!("{window} ms"));
    }
    browser.shutdown().await;
    site.shutdown().await;
}
