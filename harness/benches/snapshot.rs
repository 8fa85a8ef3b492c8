//! `cargo bench --bench snapshot`: on real Chromium (or `NAVGUARD_BROWSER=firefox`), in one run,
//! 1. the snapshot before the closed loop (docs/design/closed-loop.md) (URL, title, selectors and texts) against the closed loop's
//!    (document identity, refs, roles, names, values, forms, text), interleaved on the same
//!    fixture pages: p50 / p95 time and size in bytes;
//! 2. what observing only a quiet page costs, by the design's 500 ms window and by the page's
//!    frames, interleaved: from a navigation's load to the page counting as quiet, and the
//!    next round on the same page.

use navguard::__private::wait_for_quiet_page;
use navguard::adapter::BidiPort;
use navguard::agent::{AgentConfig, Quiet, UrlSettle, observe, safe_parse_origin};
use navguard::browser::{BrowserPort, NavEventKind, TabId};
use navguard_harness::fixtures::FixtureSite;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

const SAMPLES: usize = 40;
const NAVIGATIONS: usize = 20;
const PAGES: [&str; 5] = ["/page?title=Plain", "/form", "/login", "/counter", "/shop"];

/// The snapshot script as it was before the closed loop (commit a703371), for comparison.
const BEFORE: &str = r##"(async () => {
  if (document.readyState === "loading") {
    await new Promise((done) => { document.addEventListener("DOMContentLoaded", done, { once: true }); setTimeout(done, 2000); });
  }
  const pick = "a[href], button, input, select, textarea, [role=button], [onclick]";
  const text = (el) => (el.innerText || el.value || el.getAttribute("aria-label") || el.name || "").trim().slice(0, 80);
  const selector = (el, i) => el.id ? "#" + CSS.escape(el.id) : `${el.tagName.toLowerCase()}:nth-of-type(${i + 1})`;
  const elements = Array.from(document.querySelectorAll(pick)).slice(0, 60).map((el, i) => ({
    selector: selector(el, Array.from(el.parentNode.children).filter(c => c.tagName === el.tagName).indexOf(el)),
    tag: el.tagName.toLowerCase(),
    text: text(el),
  }));
  return { url: location.href, title: document.title, elements };
})()"##;

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank]
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

async fn open_settled(port: &BidiPort, url: &str) -> TabId {
    let tab = port.create_tab(url, true).await.unwrap();
    UrlSettle::new(tab.clone(), safe_parse_origin(url).unwrap()).wait(port, &CancellationToken::new()).await.unwrap();
    tab
}

/// Per page: (before ms, after ms, before bytes, after bytes), interleaved.
async fn snapshots(port: &BidiPort, site: &FixtureSite) -> Vec<(String, Vec<f64>, Vec<f64>, usize, usize)> {
    let mut rows = Vec::new();
    for page in PAGES {
        let tab = open_settled(port, &format!("{}{page}", site.site)).await;
        let (mut before, mut after, mut before_bytes, mut after_bytes) = (Vec::new(), Vec::new(), 0, 0);
        for _ in 0..SAMPLES {
            let t = Instant::now();
            let old = port.evaluate(&tab, BEFORE).await.unwrap();
            before.push(ms(t));
            before_bytes = old.to_string().len();
            let t = Instant::now();
            let new = observe(port, &tab).await.unwrap();
            after.push(ms(t));
            after_bytes = serde_json::to_string(&new).unwrap().len();
        }
        port.close(&tab).await.unwrap();
        rows.push((page.to_owned(), before, after, before_bytes, after_bytes));
    }
    rows
}

/// Per way of telling a quiet page (the design's window, then the page's frames), interleaved:
/// (ms from a navigation's load event to the page counting as quiet, ms of the same wait on a
/// page that loaded long ago)
async fn quiet_cost(port: &BidiPort, site: &FixtureSite) -> [(Quiet, Vec<f64>, Vec<f64>); 2] {
    let config = AgentConfig::default();
    let tab = open_settled(port, &format!("{}/page?title=Q", site.site)).await;
    let mut rows =
        [(Quiet::Window(Quiet::DESIGN_WINDOW), Vec::new(), Vec::new()), (Quiet::Frames, Vec::new(), Vec::new())];
    for i in 0..NAVIGATIONS {
        for (quiet, after_navigation, settled) in &mut rows {
            let url = format!("{}/page?title=Q{i}", site.site);
            let mut events = port.subscribe();
            port.navigate(&tab, &url).await.unwrap();
            let loaded = loop {
                let e = events.next().await.unwrap();
                if e.tab == tab && e.kind == NavEventKind::Load {
                    break e.at;
                }
            };
            wait_for_quiet_page(port, &tab, *quiet, config.settle_timeout, None, None).await.unwrap();
            after_navigation.push(loaded.elapsed().as_secs_f64() * 1000.0);
            // The page is quiet now: the next wait is a round that follows no navigation (with
            // the window, its load a window ago; by frames, found quiet since its load).
            let t = Instant::now();
            wait_for_quiet_page(port, &tab, *quiet, config.settle_timeout, Some(t), None).await.unwrap();
            settled.push(ms(t));
        }
    }
    rows
}

#[tokio::main]
async fn main() {
    let site = FixtureSite::start().await.expect("fixture site");
    let (kind, browser) = navguard_harness::bench::launch_from_env().await;
    let port = browser.open_port().await.unwrap();
    println!("navguard snapshot benchmark: {kind}, {SAMPLES} snapshots per page and kind, interleaved");
    println!("page                  before p50/p95 ms   after p50/p95 ms   before bytes  after bytes");
    for (page, mut before, mut after, before_bytes, after_bytes) in snapshots(&port, &site).await {
        println!(
            "{page:<20} {:>8.2} {:>8.2}   {:>8.2} {:>8.2}   {before_bytes:>11}  {after_bytes:>11}",
            percentile(&mut before, 50.0),
            percentile(&mut before, 95.0),
            percentile(&mut after, 50.0),
            percentile(&mut after, 95.0),
        );
    }
    println!("observing only a quiet page ({NAVIGATIONS} navigations each, interleaved)        p50       p95");
    for (quiet, mut after_navigation, mut settled) in quiet_cost(&port, &site).await {
        let how = match quiet {
            Quiet::Frames => "by the page's frames".to_owned(),
            Quiet::Window(window) => format!("by a {} ms window", window.as_millis()),
        };
        println!("  {how}");
        println!(
            "    after a navigation: load event -> page quiet (ms)        {:>8.1}  {:>8.1}",
            percentile(&mut after_navigation, 50.0),
            percentile(&mut after_navigation, 95.0)
        );
        println!(
            "    the next round on the same page (ms)                     {:>8.2}  {:>8.2}",
            percentile(&mut settled, 50.0),
            percentile(&mut settled, 95.0)
        );
    }
    browser.shutdown().await;
    site.shutdown().await;
}
