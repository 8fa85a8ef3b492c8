//! The page of `navguard compare` (`index.html`).

use super::{
    Comparison, Outcome, Row, baseline, baseline_cell, call_ratio, failing_step, first_line, has_calls, outcome, rows,
    times, totals, version_or_dash,
};
use crate::summary::ScenarioResult;
use maud::{DOCTYPE, Markup, PreEscaped, html};

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; } td, th { padding: 0.25em 0.7em; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td.num { text-align: right; }
.passed { color: #2b7a2b; } .failed { color: #b52b27; } .skipped, .not-run { color: #888; }
.badge { font-weight: bold; }
.small, .where { color: #777; font-size: 12px; } div.small { max-width: 28em; }
table.calls td { padding: 0 0.5em 0 0; border: none; font-size: 12px; }
"#;

/// The page (`index.html`): one self-contained file, no script.
pub fn render_html(c: &Comparison) -> String {
    let rows = rows(c);
    let base = baseline(c);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "navguard compare " (c.date) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "navguard compare " (c.date) }
                p {
                    "Machine: " (c.machine) br;
                    "Browser: " (c.browser) br;
                    "Features: " (c.features)
                    @if let Some(b) = c.agents.get(base) { br; "Baseline for call times: " (b.name) }
                }
                (html_agents(c, &rows, base))
                (html_scenarios(c, &rows))
                (html_calls(c, &rows, base))
            }
        }
    };
    page.into_string()
}

fn html_agents(c: &Comparison, rows: &[Row<'_>], base: usize) -> Markup {
    html! {
        h2 { "Agents" }
        table {
            tr {
                th { "agent" } th { "version" } th { "about" } th { "passed" } th { "failed" }
                th { "not applicable" } th { "not run" } th { "call time total" } th { "median call" }
                th { "total call time vs " @if let Some(b) = c.agents.get(base) { (b.name) } }
            }
            @for (i, agent) in c.agents.iter().enumerate() {
                tr {
                    th { (agent.name) } td { (version_or_dash(&agent.version)) } td { (agent.about) }
                    @if let Some(why) = &agent.not_started {
                        td.failed colspan="7" { "did not start: " (why) }
                    } @else {
                        @let t = totals(rows, i, base);
                        td.num.passed { (t.passed) } td.num.failed { (t.failed) }
                        td.num.skipped { (t.not_applicable) } td.num.not-run { (t.not_run) }
                        td.num { (t.calls_ms) " ms" }
                        td.num { @match t.median_ms { Some(m) => { (format!("{m:.0} ms")) }, None => "—" } }
                        td {
                            @if i == base { "baseline" }
                            @else if let Some((r, n)) = t.vs_baseline { (times(r)) span.small { " over " (n) " scenario(s)" } }
                            @else { "—" }
                        }
                    }
                }
            }
        }
    }
}

fn html_scenarios(c: &Comparison, rows: &[Row<'_>]) -> Markup {
    html! {
        h2 { "Scenarios" }
        table {
            tr { th { "scenario" } @for agent in &c.agents { th { (agent.name) } } }
            @for row in rows {
                tr {
                    td { (row.scenario) br; span.where { (row.place) } }
                    @for cell in &row.cells { td { (html_outcome(*cell)) } }
                }
            }
        }
    }
}

/// A cell: the outcome, and for a failure its step and reason (the whole reason as a tooltip).
fn html_outcome(r: Option<&ScenarioResult>) -> Markup {
    html! {
        @match (outcome(r), r) {
            (Outcome::Failed, Some(r)) => {
                @let failure = r.failure.as_deref().unwrap_or_default();
                span.badge.failed title=(failure) { "failed" }
                @if let Some(step) = failing_step(r) { div.small { (step) } }
                div.small { (first_line(failure)) }
            },
            (Outcome::NotApplicable, Some(r)) => {
                span.badge.skipped { "not applicable" }
                div.small { (r.not_applicable.as_deref().unwrap_or_default()) }
            },
            (Outcome::Passed, _) => span.badge.passed { "passed" },
            _ => span.not-run title="not run" { "—" },
        }
    }
}

fn html_calls(c: &Comparison, rows: &[Row<'_>], base: usize) -> Markup {
    html! {
        @if rows.iter().any(has_calls) {
            h2 { "Call times" }
            p.small {
                "Each call in order, in ms; the ratio is to "
                @if let Some(b) = c.agents.get(base) { (b.name) }
                "'s time for the same scenario and call number."
            }
            table {
                tr { th { "scenario" } @for agent in &c.agents { th { (agent.name) } } }
                @for row in rows.iter().filter(|row| has_calls(row)) {
                    tr {
                        td { (row.scenario) br; span.where { (row.place) } }
                        @for (i, cell) in row.cells.iter().enumerate() {
                            td { (html_call_cell(*cell, baseline_cell(row, i, base))) }
                        }
                    }
                }
            }
        }
    }
}

fn html_call_cell(r: Option<&ScenarioResult>, baseline: Option<&ScenarioResult>) -> Markup {
    html! {
        @match r {
            None => span.not-run { "—" },
            Some(r) if r.calls.is_empty() => span.small { "no calls" },
            Some(r) => table.calls {
                @for call in &r.calls {
                    tr class=[call.failed_as.as_ref().map(|_| "failed")] {
                        td.num { (call.call) } td { (call.tool) } td.num { (call.took_ms) " ms" }
                        td { @if let Some(x) = call_ratio(call, baseline) { (times(x)) } }
                        td { @if let Some(class) = &call.failed_as { "failed: " (class) } }
                    }
                }
            },
        }
    }
}
