//! The page of `navguard compare` (`index.html`): one self-contained file, no script, nothing
//! loaded from elsewhere; the call times are drawn with plain boxes on one scale.

use super::{
    Cell, Comparison, Outcome, Row, Score, baseline, baseline_cell, call_ratio, call_times, flaky_words, has_calls,
    hazard_label, hazards, known_words, longest_ms, reason_words, times, totals, version_or_dash,
};
use crate::summary::ScenarioResult;
use maud::{DOCTYPE, Markup, PreEscaped, html};

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; } td, th { padding: 0.25em 0.7em; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td.num { text-align: right; }
.passed { color: #2b7a2b; } .failed { color: #b52b27; } .flaky { color: #a86400; } .skipped, .not-run { color: #888; }
.badge { font-weight: bold; }
.small, .where { color: #777; font-size: 12px; } div.small { max-width: 28em; }
table.calls td { padding: 0 0.5em 0 0; border: none; font-size: 12px; }
table.score td { text-align: center; font-weight: bold; min-width: 6em; }
table.score td.passed { background: #e3f3e3; } table.score td.failed { background: #f8e1e0; }
table.score td.partial { background: #fdf0d5; color: #8a5a00; } table.score td.skipped { background: #f3f3f3; }
table.score td.flaky-mark::after { content: " ⚠"; }
.drawn { margin: 0.6em 0 1.2em; } .drawn .name { font-size: 13px; margin-bottom: 0.2em; }
.lane { display: flex; align-items: center; height: 16px; margin: 2px 0; font-size: 12px; }
.lane .who { width: 12em; flex: none; color: #555; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.lane .track { flex: none; display: flex; background: #f6f6f6; height: 12px; }
.lane .bar { height: 12px; box-sizing: border-box; border-right: 1px solid #fff; background: #4a7fc1; }
.lane .bar:nth-child(even) { background: #7aa3d6; } .lane .bar.failed { background: #c9483f; }
.lane .ms { margin-left: 0.6em; color: #555; }
"#;

/// The width of the drawn call times' track, in CSS pixels: the longest run fills it.
const TRACK_PX: u32 = 640;

/// The page (`index.html`).
pub fn render_html(c: &Comparison) -> String {
    let rows = super::rows(c);
    let base = baseline(c);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                // No icon to fetch: the page loads nothing from anywhere.
                link rel="icon" href="data:,";
                title { "navguard compare " (c.date) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "navguard compare " (c.date) }
                p {
                    "Machine: " (c.machine) br;
                    "Browser: " (c.browser) br;
                    "Features: " (c.features) br;
                    "Runs per agent: " (c.repeat.max(1))
                    @if let Some(b) = c.agents.get(base) { br; "Baseline for call times: " (b.name) }
                }
                @if let Some(line) = c.unfinished_line() { p { strong { (line) "." } } }
                (html_hazards(c, &rows))
                (html_agents(c, &rows, base))
                (html_scenarios(c, &rows))
                (html_drawn(c, &rows))
                (html_calls(c, &rows, base))
            }
        }
    };
    page.into_string()
}

/// The scoreboard first: what a reader wants at a glance is who holds which hazard.
fn html_hazards(c: &Comparison, rows: &[Row<'_>]) -> Markup {
    html! {
        h2 { "By hazard" }
        p.small { "Per hazard, the scenarios that passed in every run, of those that applied; ⚠ marks flaky ones (passed in some runs only)." }
        table.score id="scoreboard" {
            tr { th { "hazard" } @for agent in &c.agents { th { (agent.name) } } }
            @for hazard in hazards(rows) {
                tr {
                    th title=[c.contracts.get(hazard.name)] { (hazard_label(hazard.name)) }
                    @for i in 0..c.agents.len() {
                        @let score = Score::of(&hazard.rows, i);
                        td class={ (score.class()) @if score.flaky > 0 { " flaky-mark" } } { (score.words()) }
                    }
                }
            }
        }
    }
}

fn html_agents(c: &Comparison, rows: &[Row<'_>], base: usize) -> Markup {
    html! {
        h2 { "Agents" }
        table {
            tr {
                th { "agent" } th { "version" } th { "about" } th { "passed" } th { "failed" } th { "flaky" }
                th { "not applicable" } th { "not run" } th { "call time total" } th { "median call" }
                th { "total call time vs " @if let Some(b) = c.agents.get(base) { (b.name) } }
            }
            @for (i, agent) in c.agents.iter().enumerate() {
                tr {
                    th { (agent.name) } td { (version_or_dash(&agent.version)) } td { (agent.about) }
                    @if let Some(why) = &agent.not_started {
                        td.failed colspan="8" { "did not start: " (why) }
                    } @else {
                        @let t = totals(rows, i, base);
                        td.num.passed { (t.passed) } td.num.failed { (t.failed) } td.num.flaky { (t.flaky) }
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
            @for agent in &c.elsewhere {
                tr {
                    th { (agent.name) } td { (version_or_dash(&agent.version)) } td { (agent.about) }
                    td.skipped colspan="8" { (agent.words()) }
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
                    td { (row.scenario) br; span.where { (row.place) " · " (hazard_label(&row.hazard)) } }
                    @for (i, cell) in row.cells.iter().enumerate() {
                        td {
                            (html_outcome(cell))
                            @if let Some(words) = known_words(&c.agents[i], row, cell.outcome()) { div.small.known { (words) } }
                        }
                    }
                }
            }
        }
    }
}

/// A cell: the outcome, and for a failure each distinct step and reason (with how often).
fn html_outcome(cell: &Cell<'_>) -> Markup {
    let outcome = cell.outcome();
    html! {
        @match outcome {
            Outcome::Failed | Outcome::Flaky { .. } => {
                @if outcome == Outcome::Failed { span.badge.failed { "failed" } }
                @else { span.badge.flaky { "flaky" } span.small { " " (flaky_words(outcome)) } }
                @for reason in cell.reasons() {
                    @if let Some(step) = &reason.step { div.small { (step) } }
                    div.small { (reason_words(&reason, cell.runs.len())) }
                }
            },
            Outcome::NotApplicable => {
                span.badge.skipped { "not applicable" }
                div.small { (cell.not_applicable()) }
            },
            Outcome::Passed => span.badge.passed { "passed" },
            Outcome::NotRun => span.not-run title="not run" { "—" },
        }
    }
}

/// Each scenario's calls drawn per agent, one box per call, every box on the same scale (the
/// longest run fills the track), so a slow call or a slow agent shows without reading numbers.
fn html_drawn(c: &Comparison, rows: &[Row<'_>]) -> Markup {
    let longest = longest_ms(rows);
    html! {
        @if longest > 0 {
            h2 { "Call times, drawn" }
            p.small { "One lane per agent, one box per call in order, all on one scale: the track is " (longest) " ms wide. Red boxes are calls that failed." }
            @for row in rows.iter().filter(|row| has_calls(row)) {
                div.drawn {
                    div.name { (row.scenario) " " span.where { (row.place) } }
                    @for (i, cell) in row.cells.iter().enumerate() {
                        (html_lane(&c.agents[i].name, cell.typical(), longest))
                    }
                }
            }
        }
    }
}

fn html_lane(agent: &str, run: Option<&ScenarioResult>, longest: u64) -> Markup {
    let total: u64 = run.map_or(0, |r| call_times(r).sum());
    html! {
        div.lane data-agent=(agent) data-ms=(total) {
            span.who { (agent) }
            span.track style=(format!("width:{TRACK_PX}px")) {
                @for call in run.map_or(&[][..], |r| &r.calls[..]) {
                    span class={ "bar" @if call.failed_as.is_some() { " failed" } }
                        style=(format!("width:{:.3}px", share_px(call.took_ms, longest)))
                        data-ms=(call.took_ms)
                        title=(format!("{} {} {} ms", call.call, call.tool, call.took_ms)) {}
                }
            }
            span.ms { @match run { Some(r) if !r.calls.is_empty() => { (total) " ms" }, _ => "—" } }
        }
    }
}

/// A call's width on the track.
fn share_px(took_ms: u64, longest_ms: u64) -> f64 {
    if longest_ms == 0 { 0.0 } else { took_ms as f64 / longest_ms as f64 * f64::from(TRACK_PX) }
}

fn html_calls(c: &Comparison, rows: &[Row<'_>], base: usize) -> Markup {
    html! {
        @if rows.iter().any(has_calls) {
            h2 { "Call times" }
            p.small {
                "Each call in order, in ms; the ratio is to "
                @if let Some(b) = c.agents.get(base) { (b.name) }
                "'s time for the same scenario and call number. With several runs, each cell is the run with the median total call time."
            }
            table {
                tr { th { "scenario" } @for agent in &c.agents { th { (agent.name) } } }
                @for row in rows.iter().filter(|row| has_calls(row)) {
                    tr {
                        td { (row.scenario) br; span.where { (row.place) } }
                        @for (i, cell) in row.cells.iter().enumerate() {
                            td { (html_call_cell(cell.typical(), baseline_cell(row, i, base))) }
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
