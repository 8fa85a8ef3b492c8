//! `cargo bench --bench settle`: on real Chromium (or `NAVGUARD_BROWSER=firefox`), in one run,
//! 1. the time from a commit event's arrival to the settle waiter's resolution, event-driven
//!    (navguard's waiter) versus the same wait done by polling the tab every 100 ms, p50 / p99
//!    and their ratio (the two are interleaved, so machine noise hits both alike);
//! 2. the cost of a loop-top guard on a tab that is not navigating, against one bare tab read.
//!
//! Each navigation is held at a fixture gate and released while the waiter waits, so the
//! commit happens at a moment neither waiter chose.

use navguard::__private::{GuardRead, is_transient, loop_top_guard};
use navguard::agent::{AgentConfig, TaskTabs, UrlSettle, safe_parse_origin};
use navguard::browser::{BrowserPort, TabId};
use navguard_harness::fixtures::FixtureSite;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

const ROUNDS: usize = 40;
const GUARD_RUNS: usize = 200;
const POLL: Duration = Duration::from_millis(100);
/// How long the gate holds navigation `i` before release: one poll period plus a share of the
/// next that differs per navigation (spread evenly over the period). A fixed hold would lock
/// the commit to one phase of the polling cycle, and the polling figure would then measure that
/// phase (it differed by browser) instead of polling.
fn hold(i: usize) -> Duration {
    POLL + POLL.mul_f64(((i * 37) % 100) as f64 / 100.0)
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank]
}

/// The polling baseline: read the tab every 100 ms until it shows a committed page.
async fn poll_until_committed(port: &dyn BrowserPort, tab: &TabId) -> Instant {
    loop {
        if let Ok(info) = port.tab(tab).await
            && info.pending_url.is_none()
            && !is_transient(&info.url)
        {
            return Instant::now();
        }
        // The baseline under measurement: a fixed polling period, not a synchronization.
        tokio::time::sleep(POLL).await;
    }
}

/// When the port received the tab's commit (or the load that proves it).
fn commit_arrival(port: &navguard::adapter::BidiPort, tab: &TabId) -> Instant {
    let events = port.events();
    events.iter().find(|e| e.tab == *tab && e.kind.proves_commit()).map(|e| e.at).expect("a commit event")
}

async fn one_navigation(port: &navguard::adapter::BidiPort, site: &FixtureSite, i: usize, polling: bool) -> f64 {
    let gate = format!("bench-{i}");
    let url = format!("{}/gate?name={gate}", site.site);
    let origin = safe_parse_origin(&url).unwrap();
    let tab = port.create_tab(&url, true).await.unwrap();
    // Hold from the moment the request is at the gate (navigation `i` makes the site's
    // `i + 1`-th gate request): a release before the request arrived would let it through
    // unheld. The hold itself is the benchmark's chosen commit moment, not a synchronization.
    let release = async {
        let arrived = site.requests().wait_for("/gate", i + 1, Duration::from_secs(30)).await;
        assert!(arrived, "the request for {gate} did not arrive");
        tokio::time::sleep(hold(i)).await;
        site.state.release(&gate);
    };
    let resolved = async {
        if polling {
            poll_until_committed(port, &tab).await
        } else {
            let report = UrlSettle::new(tab.clone(), origin).wait(port, &CancellationToken::new()).await.unwrap();
            assert_eq!(report.outcome.name(), "committed");
            Instant::now()
        }
    };
    let ((), resolved_at) = tokio::join!(release, resolved);
    let latency = resolved_at.saturating_duration_since(commit_arrival(port, &tab));
    port.close(&tab).await.unwrap_or_else(|e| panic!("closing navigation {i}: {e}"));
    latency.as_secs_f64() * 1000.0
}

async fn guard_cost(port: &navguard::adapter::BidiPort, site: &FixtureSite) -> (Vec<f64>, Vec<f64>) {
    let url = format!("{}/page?title=Still", site.site);
    let tab = port.create_tab(&url, true).await.unwrap();
    UrlSettle::new(tab.clone(), safe_parse_origin(&url).unwrap()).wait(port, &CancellationToken::new()).await.unwrap();
    let mut tabs = TaskTabs::default();
    tabs.adopt_primary(tab.clone(), safe_parse_origin(&url).unwrap());
    let (config, cancel) = (AgentConfig::default(), CancellationToken::new());
    let (mut guard, mut read) = (Vec::new(), Vec::new());
    for _ in 0..GUARD_RUNS {
        let t = Instant::now();
        let result = loop_top_guard(port, &tabs, &config, &cancel, GuardRead::Browser).await;
        guard.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(result.verdict.is_ok());
        let t = Instant::now();
        port.tab(&tab).await.unwrap();
        read.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    (guard, read)
}

#[tokio::main]
async fn main() {
    let site = FixtureSite::start().await.expect("fixture site");
    // NAVGUARD_BROWSER=firefox measures Firefox ESR instead of Chromium.
    let (kind, browser) = navguard_harness::bench::launch_from_env().await;
    let port = browser.open_port().await.unwrap();
    let (mut events, mut polls) = (Vec::new(), Vec::new());
    for i in 0..ROUNDS {
        events.push(one_navigation(&port, &site, 2 * i, false).await);
        polls.push(one_navigation(&port, &site, 2 * i + 1, true).await);
    }
    let (mut guard, mut read) = guard_cost(&port, &site).await;
    let (e50, e99, p50, p99) = (
        percentile(&mut events, 50.0),
        percentile(&mut events, 99.0),
        percentile(&mut polls, 50.0),
        percentile(&mut polls, 99.0),
    );
    let (g50, g99, r50, r99) = (
        percentile(&mut guard, 50.0),
        percentile(&mut guard, 99.0),
        percentile(&mut read, 50.0),
        percentile(&mut read, 99.0),
    );
    println!("navguard settle benchmark: {kind} over BiDi, {ROUNDS} navigations per waiter, interleaved");
    println!("commit event arrival -> waiter resolved (ms)    p50       p99");
    println!("  event-driven waiter                       {e50:>8.3}  {e99:>8.3}");
    println!("  100 ms polling waiter                     {p50:>8.3}  {p99:>8.3}");
    println!(
        "  ratio polling / event-driven              {:>8.0}x {:>8.0}x",
        p50 / e50.max(0.001),
        p99 / e99.max(0.001)
    );
    println!("loop-top guard on a tab not in flight ({GUARD_RUNS} runs, ms)");
    println!("  guard                                     {g50:>8.3}  {g99:>8.3}");
    println!("  one bare tab read (getTree)               {r50:>8.3}  {r99:>8.3}");
    println!("  ratio guard / bare read                   {:>8.2}x {:>8.2}x", g50 / r50, g99 / r99);
    browser.shutdown().await;
    site.shutdown().await;
}
