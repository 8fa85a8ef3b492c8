//! The gate's HTML page (`index.html` in the gate's report folder): the metrics against their
//! thresholds, the flaky and unexpected scenarios, and every failed run linked to its place in
//! that repeat's own report.

use crate::gate::{Judgement, Metrics, Verdict, key};
use crate::report::html::anchor;
use crate::summary::ScenarioResult;
use maud::{DOCTYPE, Markup, PreEscaped, html};

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; } td, th { padding: 0.2em 0.8em; border-bottom: 1px solid #eee; text-align: left; }
.ok { color: #2b7a2b; font-weight: bold; } .missed { color: #b52b27; font-weight: bold; }
"#;

/// The page. `runs` holds each repeat's number and results, in order.
pub fn render_gate(
    browser: &str,
    metrics: &Metrics,
    judgement: &Judgement,
    runs: &[(u32, Vec<ScenarioResult>)],
) -> String {
    let passed = judgement.passed;
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { "navguard gate" } style { (PreEscaped(STYLE)) } }
            body {
                h1 { "navguard gate: " span class=(if passed { "ok" } else { "missed" }) { (if passed { "PASSED" } else { "FAILED" }) } }
                p { (browser) ", " (runs.len()) " repeat(s), " (metrics.scenarios) " scenarios, " (metrics.runs) " runs" }
                (metric_table(metrics, &judgement.verdicts))
                (lists(metrics))
                h2 { "Repeats" }
                @for (run, results) in runs { (repeat(*run, results)) }
            }
        }
    };
    page.into_string()
}

fn metric_table(m: &Metrics, verdicts: &[Verdict]) -> Markup {
    let rows = [
        ("pass rate", format!("{:.1}%", m.pass_rate * 100.0)),
        ("flake rate", format!("{:.1}%", m.flake_rate * 100.0)),
        ("false-stop rate", format!("{:.1}%", m.false_stop_rate * 100.0)),
        ("misjudgement rate", format!("{:.1}%", m.misjudgement_rate * 100.0)),
        ("scenario time p50 / p95", format!("{:.0} / {:.0} ms", m.duration_ms.p50, m.duration_ms.p95)),
        ("guard wait p50 / p95", format!("{:.0} / {:.0} ms", m.guard_wait_ms.p50, m.guard_wait_ms.p95)),
    ];
    html! {
        h2 { "Metrics" }
        table { @for (name, value) in rows { tr { th { (name) } td { (value) } } } }
        h2 { "Thresholds" }
        table {
            tr { th { "threshold" } th { "measured" } th { "limit" } th {} }
            @for v in verdicts {
                tr {
                    td { (v.threshold.name()) } td { (format!("{:.3}", v.measured)) } td { (format!("{:.3}", v.limit)) }
                    td class=(if v.held { "ok" } else { "missed" }) { (if v.held { "ok" } else { "MISSED" }) }
                }
            }
        }
    }
}

fn lists(m: &Metrics) -> Markup {
    let lists = [
        ("Flaky (passed and failed across repeats)", &m.flaky),
        ("Known deviations with mixed results (the browser is not deterministic there)", &m.flaky_known),
        ("Unexpected failures", &m.unexpected_failures),
        ("Expected failures that now pass (remove them from the expectations file)", &m.now_passing),
    ];
    html! {
        @for (title, list) in lists {
            @if !list.is_empty() { h2 { (title) } ul { @for k in list { li { (k) } } } }
        }
    }
}

fn repeat(run: u32, results: &[ScenarioResult]) -> Markup {
    let report = format!("run-{run}/report.html");
    let failed: Vec<&ScenarioResult> = results.iter().filter(|r| r.failure.is_some()).collect();
    html! {
        h3 { a href=(report) { "Repeat " (run) } ": " (results.len() - failed.len()) " passed, " (failed.len()) " failed" }
        @if !failed.is_empty() {
            ul { @for r in failed { li { a href={ (report) "#" (anchor(r)) } { (key(r)) } } } }
        }
    }
}
