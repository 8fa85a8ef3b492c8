//! `cargo bench --bench peers`: navguard side by side with what a user would pick instead, in
//! one run on Debian's Chromium (or, navguard's columns only, `NAVGUARD_BROWSER=firefox`).
//!
//! 1. Navigation. Each navigation is held at a fixture gate (`/gate?name=N`) until its request
//!    has arrived plus a hold that differs per navigation (10–109 ms, so commits fall evenly over
//!    a polling cycle), then released; the release time is recorded just before the release.
//!    From that release to: navguard's settle waiter resolving (BiDi); Playwright's
//!    `page.waitForURL(url, { waitUntil: 'commit' })` resolving (`bench/peer/peer.mjs`,
//!    `playwright-core` over CDP, launching the same Chromium binary); a 50 ms and a 100 ms
//!    polling loop over BiDi; and the floors: the browser's own commit event as received over
//!    BiDi (`browsingContext.navigationCommitted` in navguard's event log, on navguard's
//!    navigations) and over CDP (`Page.frameNavigated` of the main frame, received by the Node
//!    peer on the Playwright navigations, and on navguard's own navigations by a raw CDP
//!    client the peer attaches to navguard's Chromium, so the same commit is timed over both
//!    protocols), and per navigation each waiter's own cost above its
//!    floor. The four waiters take turns (the order rotates), so
//!    machine noise hits them alike.
//! 2. Snapshot. On the fixture pages, loaded: navguard's `observe` against Playwright's
//!    `locator('body').ariaSnapshot()`, time; and what each gives its model, in bytes and in
//!    tokens (o200k_base, the BPE of OpenAI's current models): navguard's page as `navguard mcp`
//!    writes it (URL, title, elements with their short refs numbered on through the run, as in
//!    a session, text), against the page as Playwright MCP writes it (URL, title, and the
//!    ref-bearing snapshot, `ariaSnapshot({ mode: "ai" })`, its refs as short as on a session's
//!    first page).
//! 3. Suite floor. The deliberate waits written into features/ (slow pages, redirects after N,
//!    held "within N ms" windows, the model's `wait` tool, the user's "after N ms"), summed over
//!    the suite's runs and divided by the runner's default concurrency: the wall time a gate
//!    repeat could not go under. The gate's own wall time is measured separately (docs/benchmarks.md).
//!
//! Clocks: Rust's `Instant` on Linux is `CLOCK_MONOTONIC`, and so is Node's
//! `process.hrtime.bigint()`. The benchmark reads `clock_gettime(CLOCK_MONOTONIC)` once, next
//! to an `Instant::now()` (the tightest of 20 brackets), and converts its `Instant`s to that
//! clock's nanoseconds by the offset; the peer's times are compared in that clock.
//!
//! `NAVGUARD_BENCH_ROUNDS` (default 100) sets the navigations per waiter, `NAVGUARD_CHROMIUM`
//! (default `/usr/bin/chromium`) the binary Playwright launches. The peer's `node_modules` is
//! installed with `npm ci` when missing. This benchmark reports; it asserts no duration.

use navguard::adapter::{BidiPort, BrowserKind};
use navguard::agent::{UrlSettle, observe, safe_parse_origin};
use navguard::browser::{BrowserPort, NavEventKind, TabId};
mod clock;
mod peer;
mod suite_floor;

use clock::Monotonic;
use navguard_harness::fixtures::FixtureSite;
use navguard_harness::runner::DEFAULT_CONCURRENCY;
use peer::{Peer, devtools_endpoint};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use suite_floor::{suite_time, suite_waits};
use tokio_util::sync::CancellationToken;

const SNAPSHOTS: usize = 40;
/// The pages both sides snapshot: the first seven of every run since the benchmark began, then
/// the interaction pages (docs/gherkin-language.md lists their routes), each in the shape its
/// scenarios use.
const SNAPSHOT_PAGES: [&str; 18] = [
    "/page?title=Home&go=/page",
    "/form?title=Search&action=/submit",
    "/login",
    "/counter",
    "/shop",
    "/overlay?title=Banner",
    "/frame?src=/page%3Ftitle%3DInner&title=Outer",
    "/offscreen?at=below",
    "/select",
    "/select?kind=combobox",
    "/shadow?depth=3",
    "/nested-frames?depth=3&cross=yes",
    "/hover-menu",
    "/drag?kind=html5",
    "/infinite?batch=10&delay=300",
    "/editor?kind=contenteditable",
    "/form-full",
    "/upload",
];

/// How long navigation `i` is held once its request has arrived.
fn hold(i: usize) -> Duration {
    Duration::from_millis(10 + ((i * 37) % 100) as u64)
}

fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiter {
    Navguard,
    Playwright,
    Poll(u64),
}

/// What one run measured, in ms from the release.
#[derive(Default)]
struct Samples {
    navguard: Vec<f64>,
    playwright: Vec<f64>,
    poll50: Vec<f64>,
    poll100: Vec<f64>,
    /// The browser's commit as received over BiDi, on navguard's navigations.
    bidi_floor: Vec<f64>,
    /// The browser's commit as received over CDP, on Playwright's navigations.
    cdp_floor: Vec<f64>,
    /// The same navguard navigations' commit as received over CDP by the peer's tap on
    /// navguard's own browser.
    tap_floor: Vec<f64>,
    /// Per navigation: the BiDi commit's arrival minus the same commit's over CDP.
    bidi_tax: Vec<f64>,
    /// Per navigation: navguard's resolution minus the BiDi commit's arrival (its own cost).
    navguard_cost: Vec<f64>,
    /// Per navigation: Playwright's resolution minus the CDP commit's arrival.
    playwright_cost: Vec<f64>,
    /// BiDi navigations whose commit was proven by a later event (no `navigationCommitted`).
    bidi_floor_proven_later: usize,
}

/// Waits for the gate's request (the `arrivals`-th), holds, records the time and releases.
async fn release_when_held(site: &FixtureSite, gate: &str, arrivals: usize, i: usize) -> Instant {
    let arrived = site.requests().wait_for("/gate", arrivals, Duration::from_secs(30)).await;
    assert!(arrived, "the request for gate {gate} did not arrive");
    // The hold is the benchmark's chosen commit moment, not a synchronization.
    tokio::time::sleep(hold(i)).await;
    let at = Instant::now();
    site.state.release(gate);
    at
}

/// Reads the tab every `period` until it shows `url` committed.
async fn poll_until_committed(port: &dyn BrowserPort, tab: &TabId, url: &str, period: Duration) -> Instant {
    loop {
        if let Ok(info) = port.tab(tab).await
            && info.pending_url.is_none()
            && info.url == url
        {
            return Instant::now();
        }
        // The baseline under measurement: a fixed polling period, not a synchronization.
        tokio::time::sleep(period).await;
    }
}

fn since(release: Instant, at: Instant) -> f64 {
    ms(at.checked_duration_since(release).expect("resolved before the gate was released"))
}

async fn bidi_navigation(
    port: &BidiPort,
    tab: &TabId,
    site: &FixtureSite,
    i: usize,
    waiter: Waiter,
    tap: Option<(&mut Peer, &Monotonic)>,
    samples: &mut Samples,
) {
    let gate = format!("peers-{i}");
    let url = format!("{}/gate?name={gate}&title=Gate{i}", site.site);
    let origin = safe_parse_origin(&url).unwrap();
    let mark = port.events().last().map_or(0, |e| e.seq + 1);
    let arrivals = site.requests().count("/gate") + 1;
    port.navigate(tab, &url).await.unwrap_or_else(|e| panic!("navigating to {url}: {e}"));
    let resolved = async {
        match waiter {
            Waiter::Navguard => {
                let report = UrlSettle::new(tab.clone(), origin).wait(port, &CancellationToken::new()).await.unwrap();
                assert_eq!(report.outcome.name(), "committed");
                Instant::now()
            }
            Waiter::Poll(period) => poll_until_committed(port, tab, &url, Duration::from_millis(period)).await,
            Waiter::Playwright => unreachable!("not over BiDi"),
        }
    };
    let (released, resolved) = tokio::join!(release_when_held(site, &gate, arrivals, i), resolved);
    let latency = since(released, resolved);
    match waiter {
        Waiter::Navguard => samples.navguard.push(latency),
        Waiter::Poll(50) => samples.poll50.push(latency),
        _ => samples.poll100.push(latency),
    }
    if waiter == Waiter::Navguard {
        let events = port.events();
        let ours = || events.iter().filter(|e| e.seq >= mark && e.tab == *tab);
        let commit = match ours().find(|e| e.kind == NavEventKind::Committed) {
            Some(e) => e.at,
            None => {
                samples.bidi_floor_proven_later += 1;
                ours().find(|e| e.kind.proves_commit()).expect("a commit event").at
            }
        };
        samples.bidi_floor.push(since(released, commit));
        samples.navguard_cost.push(since(commit, resolved));
        if let Some((peer, clock)) = tap {
            peer.send(json!({ "op": "tapped", "url": url })).await;
            if let Some(ns) = peer.recv().await["ns"].as_i64() {
                let cdp = (i128::from(ns) - clock.ns(released)) as f64 / 1e6;
                samples.tap_floor.push(cdp);
                samples.bidi_tax.push((clock.ns(commit) - i128::from(ns)) as f64 / 1e6);
            }
        }
    }
    loaded(port, tab).await;
}

/// Waits until the tab has no navigation in flight and its page has loaded, so that no late
/// event of this page falls into the next navigation. (Without it, a `dom-loaded` of the previous
/// page arriving after the next navigation started let the settle waiter resolve `committed` on
/// the old page: seen on Chromium 156.) Event-driven: the tab is read again on each of its
/// events, subscribed to before the read so that none falls between; 30 s at most.
async fn loaded(port: &BidiPort, tab: &TabId) {
    let settled = async {
        loop {
            let mut events = port.subscribe_from(port.position());
            let info = port.tab(tab).await.unwrap();
            if !info.loading && info.pending_url.is_none() {
                return;
            }
            loop {
                match events.next().await {
                    Ok(event) if event.tab == *tab => break,
                    Ok(_) => {}
                    Err(e) => panic!("the browser's events ended: {e:?}"),
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), settled).await.expect("the page loaded within 30 s");
}

async fn playwright_navigation(
    peer: &mut Peer,
    clock: &Monotonic,
    site: &FixtureSite,
    i: usize,
    samples: &mut Samples,
) {
    let gate = format!("peers-{i}");
    let url = format!("{}/gate?name={gate}&title=Gate{i}", site.site);
    let arrivals = site.requests().count("/gate") + 1;
    peer.send(json!({ "op": "nav", "url": url })).await;
    let started = peer.recv().await;
    assert_eq!(started["started"], true, "the peer said {started}");
    let released = clock.ns(release_when_held(site, &gate, arrivals, i).await);
    let done = peer.recv().await;
    let after = |key: &str| done[key].as_i64().map(|ns| (i128::from(ns) - released) as f64 / 1e6);
    let waited = after("waitForURL_ns").unwrap_or_else(|| panic!("the peer said {done}"));
    assert!(waited >= 0.0, "waitForURL resolved before the gate was released");
    samples.playwright.push(waited);
    if let Some(cdp) = after("cdp_ns") {
        samples.cdp_floor.push(cdp);
        samples.playwright_cost.push(waited - cdp);
    }
}

/// A fresh tab for navguard's side, on a loaded page of the site.
async fn bidi_tab(port: &BidiPort, site: &FixtureSite) -> TabId {
    let url = format!("{}/page?title=Start", site.site);
    let tab = port.create_tab(&url, true).await.unwrap();
    UrlSettle::new(tab.clone(), safe_parse_origin(&url).unwrap()).wait(port, &CancellationToken::new()).await.unwrap();
    loaded(port, &tab).await;
    tab
}

async fn navigations(
    port: &BidiPort,
    mut peer: Option<&mut Peer>,
    devtools: Option<&str>,
    clock: &Monotonic,
    site: &FixtureSite,
    rounds: usize,
) -> Samples {
    let tab = bidi_tab(port, site).await;
    let mut tapping = false;
    if let (Some(peer), Some(endpoint)) = (peer.as_deref_mut(), devtools) {
        peer.send(json!({ "op": "tap", "endpoint": endpoint, "target": tab.0 })).await;
        let answer = peer.recv().await;
        assert_eq!(answer["tapped"], true, "the peer said {answer}");
        tapping = true;
    }
    let mut samples = Samples::default();
    let mut turns = vec![Waiter::Navguard, Waiter::Playwright, Waiter::Poll(50), Waiter::Poll(100)];
    if peer.is_none() {
        turns.retain(|w| *w != Waiter::Playwright);
    }
    let mut i = 0;
    for round in 0..rounds {
        for k in 0..turns.len() {
            let waiter = turns[(round + k) % turns.len()];
            match (waiter, peer.as_deref_mut()) {
                (Waiter::Playwright, Some(peer)) => playwright_navigation(peer, clock, site, i, &mut samples).await,
                (_, peer) => {
                    let tap = peer.filter(|_| tapping).map(|p| (p, clock));
                    bidi_navigation(port, &tab, site, i, waiter, tap, &mut samples).await;
                }
            }
            i += 1;
        }
    }
    port.close(&tab).await.unwrap();
    samples
}

/// A page's snapshots: time and size of each side's, and what each side gave its model last.
#[derive(Default)]
struct PageSnaps {
    page: &'static str,
    /// (ms, bytes) of navguard's `observe` (its JSON) and of Playwright's `ariaSnapshot()`.
    ours: Vec<(f64, usize)>,
    theirs: Vec<(f64, usize)>,
    /// What the model is given: navguard's page text (its refs short, numbered on from the
    /// earlier snapshots, as in a session), Playwright MCP's page with its ref-bearing snapshot.
    our_text: String,
    their_text: String,
}

type Snapshots = Vec<PageSnaps>;

async fn snapshots(port: &BidiPort, mut peer: Option<&mut Peer>, site: &FixtureSite) -> Snapshots {
    let tab = bidi_tab(port, site).await;
    let mut out: Snapshots = SNAPSHOT_PAGES.iter().map(|page| PageSnaps { page, ..PageSnaps::default() }).collect();
    let mut refs = navguard_mcp::RefBook::default();
    for _ in 0..SNAPSHOTS {
        for PageSnaps { page, ours, theirs, our_text, their_text } in &mut out {
            let url = format!("{}{page}", site.site);
            port.navigate(&tab, &url).await.unwrap();
            UrlSettle::new(tab.clone(), safe_parse_origin(&url).unwrap())
                .wait(port, &CancellationToken::new())
                .await
                .unwrap();
            // Loaded, as Playwright's side is (it waits for `load` before its snapshot).
            loaded(port, &tab).await;
            let t = Instant::now();
            let observation = observe(port, &tab).await.unwrap();
            let took = ms(t.elapsed());
            ours.push((took, serde_json::to_string(&observation).unwrap().len()));
            *our_text = navguard_mcp::page_text(&observation, &mut refs);
            if let Some(peer) = peer.as_deref_mut() {
                peer.send(json!({ "op": "snap", "url": url })).await;
                let done = peer.recv().await;
                let (Some(took), Some(bytes), Some(text)) =
                    (done["ms"].as_f64(), done["bytes"].as_u64(), done["model_text"].as_str())
                else {
                    panic!("the peer said {done}");
                };
                theirs.push((took, bytes as usize));
                *their_text = playwright_mcp_page(&observation.url, &observation.title, text);
            }
        }
    }
    port.close(&tab).await.unwrap();
    out
}

/// The page as Playwright MCP 0.0.83 writes it for its model (`renderTabMarkdown` and its
/// Snapshot section), around the peer's ref-bearing snapshot. The peer's page has navigated
/// many times, so its refs carry a frame number (`f238e4`); a session's first page has none
/// (`e4`): they are written without it, the shorter for Playwright.
fn playwright_mcp_page(url: &str, title: &str, snapshot: &str) -> String {
    let refs = regex::Regex::new(r"\[ref=f\d+e").expect("a valid pattern");
    let snapshot = refs.replace_all(snapshot, "[ref=e");
    format!("### Page\n- Page URL: {url}\n- Page Title: {title}\n### Snapshot\n```yaml\n{snapshot}\n```")
}

/// What each side gives its model for the same page, in bytes and tokens, and navguard's share:
/// the whole page (URL, title, snapshot), and the snapshot alone (navguard's elements and text,
/// Playwright's YAML tree).
fn model_text_table(snaps: &Snapshots) {
    let bpe = tiktoken_rs::o200k_base().expect("the o200k_base tokenizer");
    let size = |text: &str| (text.len(), bpe.encode_ordinary(text).len());
    println!("what the model is given (o200k_base tokens)       navguard        Playwright MCP   navguard/Playwright");
    println!("                                                 bytes  tokens    bytes  tokens      bytes  tokens");
    for PageSnaps { page, our_text, their_text, .. } in snaps {
        let parts = [
            ("the page", our_text.as_str(), their_text.as_str()),
            ("its snapshot alone", our_snapshot(our_text), their_snapshot(their_text)),
        ];
        println!("  {page}");
        for (what, ours, theirs) in parts {
            let (ours, our_tokens) = size(ours);
            if theirs.is_empty() {
                println!("    {what:<44} {ours:>6} {our_tokens:>7}   n/a");
                continue;
            }
            let (theirs, their_tokens) = size(theirs);
            println!(
                "    {what:<44} {ours:>6} {our_tokens:>7}   {theirs:>6} {their_tokens:>7}      {:>5.2} {:>6.2}",
                ours as f64 / theirs as f64,
                our_tokens as f64 / their_tokens as f64
            );
        }
    }
    if std::env::var_os("NAVGUARD_BENCH_SHOW_TEXT").is_some() {
        for PageSnaps { page, our_text, their_text, .. } in snaps {
            println!("--- {page}: navguard\n{our_text}\n--- {page}: Playwright MCP\n{their_text}");
        }
    }
}

/// navguard's page after its URL and title lines.
fn our_snapshot(page: &str) -> &str {
    page.match_indices('\n').nth(2).map_or("", |(at, _)| &page[at + 1..])
}

/// Playwright MCP's YAML tree, inside its fence.
fn their_snapshot(page: &str) -> &str {
    let Some((_, tree)) = page.split_once("```yaml\n") else { return "" };
    tree.strip_suffix("\n```").unwrap_or(tree)
}

fn row(name: &str, samples: &[f64], navguard: &[f64]) {
    if samples.is_empty() {
        println!("  {name:<44} {:>8} {:>8} {:>8}", "n/a", "n/a", "n/a");
        return;
    }
    let (p50, p95, p99) = (percentile(samples, 50.0), percentile(samples, 95.0), percentile(samples, 99.0));
    if navguard.is_empty() {
        println!("  {name:<44} {p50:>8.2} {p95:>8.2} {p99:>8.2}");
        return;
    }
    let (n50, n95) = (percentile(navguard, 50.0), percentile(navguard, 95.0));
    println!(
        "  {name:<44} {p50:>8.2} {p95:>8.2} {p99:>8.2}   {:>7.2}x {:>7.2}x",
        p50 / n50.max(0.001),
        p95 / n95.max(0.001)
    );
}

#[tokio::main]
async fn main() {
    let rounds: usize =
        std::env::var("NAVGUARD_BENCH_ROUNDS").map_or(100, |n| n.parse().expect("NAVGUARD_BENCH_ROUNDS: a number"));
    let chromium = std::env::var("NAVGUARD_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let (clock, bracket) = Monotonic::new();

    let site = FixtureSite::start().await.expect("fixture site");
    let (kind, browser) = navguard_harness::bench::launch_from_env().await;
    let port = browser.open_port().await.unwrap();
    let mut peer = match kind {
        BrowserKind::Chromium => Some(Peer::start(&root.join("bench/peer"), &chromium).await),
        BrowserKind::Firefox => None,
    };
    let started = Instant::now();
    let devtools = browser.driver_pid().and_then(devtools_endpoint);
    if kind == BrowserKind::Chromium && devtools.is_none() {
        println!("(no DevTools endpoint found for navguard's Chromium: no same-browser CDP floor)");
    }
    let nav = navigations(&port, peer.as_mut(), devtools.as_deref(), &clock, &site, rounds).await;
    let snaps = snapshots(&port, peer.as_mut(), &site).await;
    let took = started.elapsed();
    let (runs, waits, longest) = suite_waits(&root.join("features"));

    let peer_name = match &peer {
        Some(p) => format!("Playwright (playwright-core 1.65.1 over CDP) launching {chromium}, Chromium {}", p.version),
        None => "no Playwright: its Firefox is its own patched build, not available here".to_owned(),
    };
    println!("\nnavguard peers benchmark: {kind} over BiDi; {peer_name}");
    println!(
        "{rounds} navigations per waiter, interleaved (order rotating), {:.0} s; times in CLOCK_MONOTONIC (Instant offset read within {} ns)",
        took.as_secs_f64(),
        bracket.as_nanos()
    );
    println!("gate release -> (ms)                                p50      p95      p99   p50/navg  p95/navg");
    let n = &nav.navguard;
    row("browser commit event over BiDi (floor)", &nav.bidi_floor, n);
    row("  same navigations, over CDP (tap)", &nav.tap_floor, n);
    row("browser commit event over CDP (floor)", &nav.cdp_floor, n);
    row("navguard settle waiter (BiDi)", n, n);
    row("Playwright waitForURL commit (CDP)", &nav.playwright, n);
    row("50 ms polling (BiDi)", &nav.poll50, n);
    row("100 ms polling (BiDi)", &nav.poll100, n);
    println!("the waiter's own cost, per navigation (ms)          p50      p95      p99");
    row("navguard resolved - BiDi commit arrived", &nav.navguard_cost, &nav.navguard_cost);
    row("Playwright resolved - CDP commit arrived", &nav.playwright_cost, &nav.navguard_cost);
    println!("the protocol's cost: one commit, two protocols, one browser (ms)");
    row("BiDi commit arrived - same commit over CDP", &nav.bidi_tax, &[]);
    if nav.bidi_floor_proven_later > 0 {
        println!(
            "  ({} of {} navguard navigations had no navigationCommitted; their floor is the event that proved the commit)",
            nav.bidi_floor_proven_later,
            nav.bidi_floor.len()
        );
    }
    println!("snapshot of a loaded page ({SNAPSHOTS} each, interleaved)     p50 ms   p95 ms    bytes");
    for PageSnaps { page, ours, theirs, .. } in &snaps {
        for (name, s) in [("navguard observe", ours), ("Playwright ariaSnapshot", theirs)] {
            if s.is_empty() {
                println!("  {page:<36} {name:<24} n/a");
                continue;
            }
            let times: Vec<f64> = s.iter().map(|(t, _)| *t).collect();
            let bytes: Vec<f64> = s.iter().map(|(_, b)| *b as f64).collect();
            println!(
                "  {page:<36} {name:<24} {:>7.2} {:>8.2} {:>8.0}",
                percentile(&times, 50.0),
                percentile(&times, 95.0),
                percentile(&bytes, 50.0)
            );
        }
    }
    model_text_table(&snaps);
    println!(
        "suite floor: {runs} scenario runs, deliberate waits {:.1} s in all, / concurrency {DEFAULT_CONCURRENCY} = {:.1} s (the longest scenario waits {:.1} s)",
        waits as f64 / 1000.0,
        waits as f64 / 1000.0 / DEFAULT_CONCURRENCY as f64,
        longest as f64 / 1000.0
    );
    // The last gate repeat on this browser, if one was run (`cargo run --release -- gate`): the
    // sum of its scenario times over the concurrency is what its wall time could reach if every
    // slot stayed busy; the floor above is what it could reach if scenarios only waited.
    let junit = root.join(format!("target/navguard/gate/{kind}/run-1/junit.xml"));
    if let Some(total) = std::fs::read_to_string(&junit).ok().as_deref().and_then(suite_time) {
        println!(
            "last gate repeat ({}): scenario times {total:.1} s in all, / concurrency {DEFAULT_CONCURRENCY} = {:.1} s; time it at the command for its wall time",
            junit.display(),
            total / DEFAULT_CONCURRENCY as f64
        );
    }
    if let Some(peer) = peer {
        peer.quit().await;
    }
    browser.shutdown().await;
    site.shutdown().await;
}
