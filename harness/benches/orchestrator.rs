//! `cargo bench --bench orchestrator`: the real `navguard serve` under load over loopback. 50
//! tasks run at once, each driven by its own simulated executor (a thread with a real HTTP
//! client) through start → next → report until done; reports throughput and p50/p99 latency per
//! call, and checks that no action was lost or handed out twice.

use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TASKS: usize = 50;
const ACTIONS: usize = 8;
const SECRET: &str = "a-secret-of-32-characters-length";

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank]
}

struct Timings {
    start: Vec<f64>,
    next: Vec<f64>,
    report: Vec<f64>,
    actions: Vec<String>,
}

fn call(agent: &ureq::Agent, base: &str, path: &str, body: &Value, into: &mut Vec<f64>) -> Value {
    let t = Instant::now();
    let mut response = agent
        .post(format!("{base}{path}"))
        .header("Authorization", format!("Bearer {SECRET}"))
        .header("Content-Type", "application/json")
        .send(body.to_string())
        .expect("an answer");
    let text = response.body_mut().read_to_string().expect("a body");
    into.push(t.elapsed().as_secs_f64() * 1000.0);
    serde_json::from_str(&text).expect("JSON")
}

/// One simulated executor driving one task to its end.
fn drive(base: &str) -> Timings {
    let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(30))).build().into();
    let mut t = Timings { start: Vec::new(), next: Vec::new(), report: Vec::new(), actions: Vec::new() };
    let mut plan: Vec<Value> = (0..ACTIONS)
        .map(|i| json!({"round": i + 1, "tool": "navigate", "args": {"url": format!("http://127.0.0.1:1/{i}")}}))
        .collect();
    plan.push(json!({"round": ACTIONS + 1, "tool": "done", "args": {"summary": "ok"}}));
    let started = call(&agent, base, "/api/agent/start", &json!({"goal": "load", "plan": plan}), &mut t.start);
    let task = started["taskId"].as_str().expect("a task id").to_owned();
    loop {
        let next = call(&agent, base, "/api/agent/next", &json!({"taskId": task}), &mut t.next);
        let Some(id) = next["action"]["actionId"].as_str() else {
            assert_eq!(next["status"], "SUCCEEDED", "{next}");
            return t;
        };
        let observation = json!({"url": "http://127.0.0.1:1/", "title": "Page"});
        let reported = call(
            &agent,
            base,
            "/api/agent/report",
            &json!({"taskId": task, "actionId": id, "observation": observation}),
            &mut t.report,
        );
        assert_eq!(reported["duplicate"], false, "an action handed out twice: {id}");
        t.actions.push(id.to_owned());
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("a folder");
    let mut server = Command::new(env!("CARGO_BIN_EXE_navguard"))
        .args(["serve", "--data-dir", &dir.path().display().to_string()])
        .env("NAVGUARD_SECRET", SECRET)
        .stdout(Stdio::piped())
        .spawn()
        .expect("navguard serve");
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("stdout")).read_line(&mut line).expect("its first line");
    let base = line.trim().strip_prefix("navguard serve: listening on ").expect("the contract's first line").to_owned();
    let began = Instant::now();
    let runs: Vec<Timings> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..TASKS).map(|_| s.spawn(|| drive(&base))).collect();
        handles.into_iter().map(|h| h.join().expect("an executor")).collect()
    });
    let wall = began.elapsed().as_secs_f64();
    let _ = server.kill();
    let _ = server.wait();
    let mut all: HashSet<String> = HashSet::new();
    let (mut start, mut next, mut report) = (Vec::new(), Vec::new(), Vec::new());
    for run in runs {
        // Every action and the done, which the simulated executor reports verified.
        assert_eq!(run.actions.len(), ACTIONS + 1, "an action was lost");
        for id in run.actions {
            assert!(all.insert(id), "an action id twice");
        }
        start.extend(run.start);
        next.extend(run.next);
        report.extend(run.report);
    }
    let calls = start.len() + next.len() + report.len();
    println!(
        "orchestrator load: {TASKS} tasks at once, {ACTIONS} actions each + a verified done, {} actions reported once each",
        all.len()
    );
    println!("{calls} calls in {wall:.2} s: {:.0} calls/s", calls as f64 / wall);
    println!("{:<8} {:>6} {:>10} {:>10}", "call", "n", "p50", "p99");
    for (name, mut samples) in [("start", start), ("next", next), ("report", report)] {
        let n = samples.len();
        let (p50, p99) = (percentile(&mut samples, 50.0), percentile(&mut samples, 99.0));
        println!("{name:<8} {n:>6} {p50:>8.2}ms {p99:>8.2}ms");
    }
}
