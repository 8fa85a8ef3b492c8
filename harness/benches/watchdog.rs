//! `cargo bench --bench watchdog`: what the watchdog (a deadline per call, progress every
//! 500 ms, the retry decision) adds to a round on a settled page (docs/design/reliability-layer.md: under 5%), on
//! real Chromium (or `NAVGUARD_BROWSER=firefox`), in one run: the same tasks with the watchdog
//! on and off, interleaved, on the same tab. Each task is 10 rounds of one call on `/counter`
//! (a click on `#noop` with a 20 ms quiet window, or a zero wait), so the round's own work
//! (guard, quiet-page check, snapshot, the call) is all there is besides the watchdog.

use navguard::agent::{Agent, AgentConfig, ScriptedPlanner, Task, UrlSettle, safe_parse_origin};
use navguard::browser::{BrowserPort, TabId};
use navguard_harness::fixtures::FixtureSite;
use serde_json::json;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

const TASKS: usize = 30;
const ROUNDS: u32 = 10;

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank]
}

/// A plan of `ROUNDS` rounds of the call, then done.
fn plan(tool: &str, args: &serde_json::Value) -> ScriptedPlanner {
    let mut plan = ScriptedPlanner::default();
    for round in 1..=ROUNDS {
        plan.add(round, tool, args.clone());
    }
    plan.add(ROUNDS + 1, "done", json!({"summary": "ok"}));
    plan
}

/// One task's time per round, ms.
async fn task_ms(
    port: &dyn BrowserPort,
    tab: &TabId,
    origin: &url::Origin,
    plan: &ScriptedPlanner,
    watchdog: bool,
) -> f64 {
    let config = AgentConfig { watchdog, no_progress: false, ..AgentConfig::default() };
    let mut task = Task::default();
    task.tabs.adopt_primary(tab.clone(), origin.clone());
    let played = plan.clone();
    let agent = Agent::new(port, &played, config);
    let started = Instant::now();
    let stop = agent.run(&mut task, &CancellationToken::new()).await;
    assert!(stop.is_success(), "the task failed: {}", stop.message());
    started.elapsed().as_secs_f64() * 1000.0 / f64::from(ROUNDS + 1)
}

#[tokio::main]
async fn main() {
    let site = FixtureSite::start().await.expect("fixture site");
    let (kind, browser) = navguard_harness::bench::launch_from_env().await;
    let port = browser.open_port().await.unwrap();
    let url = format!("{}/counter", site.site);
    let origin = safe_parse_origin(&url).unwrap();
    let tab = port.create_tab(&url, true).await.unwrap();
    UrlSettle::new(tab.clone(), origin.clone()).wait(&port, &CancellationToken::new()).await.unwrap();
    println!("watchdog overhead on {kind}: {TASKS} tasks of {ROUNDS} rounds + done each way, interleaved");
    println!("{:<28} {:>10} {:>10} {:>10} {:>10} {:>8}", "call", "off p50", "on p50", "off p95", "on p95", "on/off");
    for (tool, args) in [("click", json!({"selector": "#noop"})), ("wait", json!({"ms": 0}))] {
        let plan = plan(tool, &args);
        let (mut off, mut on) = (Vec::new(), Vec::new());
        // One warm-up each, then alternate which goes first, so drift hits both alike.
        task_ms(&port, &tab, &origin, &plan, false).await;
        task_ms(&port, &tab, &origin, &plan, true).await;
        for i in 0..TASKS {
            let first = i % 2 == 0;
            let a = task_ms(&port, &tab, &origin, &plan, first).await;
            let b = task_ms(&port, &tab, &origin, &plan, !first).await;
            let (with, without) = if first { (a, b) } else { (b, a) };
            on.push(with);
            off.push(without);
        }
        let (off50, on50) = (percentile(&mut off, 50.0), percentile(&mut on, 50.0));
        let (off95, on95) = (percentile(&mut off, 95.0), percentile(&mut on, 95.0));
        let name = format!("{tool} {args}");
        println!("{name:<28} {off50:>8.1}ms {on50:>8.1}ms {off95:>8.1}ms {on95:>8.1}ms {:>8.3}", on50 / off50);
    }
    port.close(&tab).await.unwrap();
    browser.shutdown().await;
    site.shutdown().await;
}
