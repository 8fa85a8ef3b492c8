//! The HTML report of a run (`report.html` beside the JUnit and JSON reports): per scenario its
//! steps, its outcome, links to its failure artifacts, and its timeline picture. One
//! self-contained file: no script, no fetched style, readable from a CI artifact.

use crate::gate::Metrics;
use crate::report::{StepRecord, StepStatus};
use crate::summary::ScenarioResult;
use crate::timeline::{self, Timeline};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use std::collections::BTreeMap;
use std::path::Path;

/// The artifact files a failed scenario may leave, and what each is.
const ARTIFACTS: [(&str, &str); 4] = [
    ("events.jsonl", "navigation events"),
    ("requests.jsonl", "fixture-site requests"),
    ("bidi.jsonl", "raw BiDi events"),
    ("trace.json", "agent trace"),
];

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
.counts span { margin-right: 1.2em; font-weight: bold; }
.passed { color: #2b7a2b; } .failed { color: #b52b27; } .skipped, .not-run { color: #888; }
details { border: 1px solid #ddd; border-radius: 4px; margin: 0.4em 0; padding: 0.3em 0.8em; }
details[open] { padding-bottom: 0.8em; }
summary { cursor: pointer; } summary .where { color: #777; font-size: 12px; margin-left: 0.6em; }
.badge { display: inline-block; min-width: 4.5em; font-weight: bold; }
ol.steps { padding-left: 1.4em; } ol.steps li { margin: 0.15em 0; }
.kw { font-weight: bold; } .took, .line { color: #888; font-size: 12px; margin-left: 0.5em; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; white-space: pre-wrap; margin: 0.3em 0; }
pre.error { background: #fbeaea; }
.timeline-box { overflow-x: auto; border: 1px solid #eee; margin-top: 0.5em; }
.legend span { margin-right: 1em; font-size: 12px; }
img.shot { max-width: 640px; border: 1px solid #ccc; display: block; margin-top: 0.4em; }
"#;

/// The report's HTML. `report_dir` is where it will be written: artifact links are relative
/// to it.
pub fn render(results: &[ScenarioResult], metrics: &Metrics, report_dir: &Path, title: &str) -> String {
    let mut by_feature: BTreeMap<&str, Vec<&ScenarioResult>> = BTreeMap::new();
    for r in results {
        by_feature.entry(&r.feature_path).or_default().push(r);
    }
    for scenarios in by_feature.values_mut() {
        scenarios.sort_by_key(|r| r.line);
    }
    let failed: Vec<&ScenarioResult> = results.iter().filter(|r| r.failure.is_some()).collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { (title) }
                p.counts {
                    span.passed { (results.iter().filter(|r| r.passed()).count()) " passed" }
                    span.failed { (failed.len()) " failed" }
                    @let na = results.iter().filter(|r| r.not_applicable.is_some()).count();
                    @if na > 0 { span { (na) " not applicable" } }
                    span { (by_feature.len()) " feature file(s)" }
                }
                @if !results.is_empty() { pre { (metrics.lines()) } }
                @if !failed.is_empty() {
                    h2 { "Failures" }
                    ul {
                        @for r in &failed {
                            li { a href={ "#" (anchor(r)) } { (r.feature_path) ":" (r.line) } " " (r.scenario) }
                        }
                    }
                }
                @for (path, scenarios) in &by_feature {
                    h2 { (path) " " span.where { "(" (scenarios[0].feature) ")" } }
                    // A report of one scenario (a repro) shows it open.
                    @for r in scenarios { (scenario(r, report_dir, results.len() == 1)) }
                }
            }
        }
    };
    page.into_string()
}

/// The element id of a scenario's section.
pub(super) fn anchor(r: &ScenarioResult) -> String {
    let stem = Path::new(&r.feature_path).file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    format!("{stem}-L{}", r.line)
}

fn scenario(r: &ScenarioResult, report_dir: &Path, open: bool) -> Markup {
    let (class, word) = match (&r.failure, &r.not_applicable) {
        (Some(_), _) => ("failed", "FAILED"),
        (None, Some(_)) => ("skipped", "NOT APPLICABLE"),
        (None, None) => ("passed", "passed"),
    };
    html! {
        details id=(anchor(r)) open[open || r.failure.is_some()] {
            summary {
                span class={ "badge " (class) } { (word) }
                (r.scenario)
                span.where { (r.feature_path) ":" (r.line) " · " (format!("{:.1} s", r.duration.as_secs_f64())) }
            }
            @if let Some(failure) = &r.failure { pre.error { (failure) } }
            @if let Some(why) = &r.not_applicable { p { (why) } }
            @if !r.calls.is_empty() { (calls(&r.calls)) }
            @if let Some(race) = &r.race { p { "Race verdict: " (race) } }
            (steps(&r.steps))
            @if let Some(dir) = &r.artifacts { (artifacts(dir, report_dir)) }
            (timeline_section(&r.timeline, &format!("arrow-{}", anchor(r))))
        }
    }
}

/// The agent-under-test calls, with how long each took.
fn calls(calls: &[crate::summary::CallRecord]) -> Markup {
    html! {
        table.calls {
            tr { th { "call" } th { "tool" } th { "took" } th { "answer" } }
            @for c in calls {
                tr {
                    td { (c.call) } td { (c.tool) } td { (c.took_ms) " ms" }
                    td { @match &c.failed_as { Some(class) => { "failed as " (class) }, None => "succeeded" } }
                }
            }
        }
    }
}

fn steps(steps: &[StepRecord]) -> Markup {
    html! {
        @if !steps.is_empty() {
            ol.steps {
                @for step in steps {
                    li class=(status_class(step.status)) {
                        span.kw { (step.keyword) } " " (step.text)
                        span.line { "line " (step.line) }
                        @if let Some(took) = step.took { span.took { (format!("{} ms", took.as_millis())) } }
                        @if step.status != StepStatus::Passed { span.took { (step.status.name()) } }
                        @if let Some(argument) = &step.argument { pre { (argument) } }
                        @if let Some(error) = &step.error { pre.error { (error) } }
                    }
                }
            }
        }
    }
}

fn status_class(status: StepStatus) -> &'static str {
    match status {
        StepStatus::Passed => "passed",
        StepStatus::Failed => "failed",
        StepStatus::Skipped => "skipped",
        StepStatus::NotRun => "not-run",
    }
}

/// Links to the artifacts that exist, and the screenshot inline (a `data:` URI: the page shows
/// it without its artifacts folder).
fn artifacts(dir: &Path, report_dir: &Path) -> Markup {
    let relative = dir.strip_prefix(report_dir).unwrap_or(dir);
    let link = |file: &str| relative.join(file).display().to_string();
    html! {
        p {
            "Artifacts: "
            @for (file, what) in ARTIFACTS {
                @if dir.join(file).is_file() { a href=(link(file)) { (file) } " (" (what) ") " }
            }
        }
        @if let Some(png) = inline_png(&dir.join("screenshot.png")) {
            a href=(link("screenshot.png")) { img.shot src=(png) alt="the current tab when the scenario failed"; }
        }
    }
}

/// A PNG file as a `data:` URI, if it can be read.
fn inline_png(path: &Path) -> Option<String> {
    use base64::Engine as _;
    let bytes = std::fs::read(path).ok()?;
    Some(format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes)))
}

fn timeline_section(timeline: &Timeline, arrow_id: &str) -> Markup {
    html! {
        @if !timeline.items.is_empty() {
            p.legend {
                "Timeline · "
                span style="color:#d99a1e" { "WAIT: a guard waits" }
                span style="color:#c9302c" { "STOP: the task stops" }
                span style="color:#3d8b3d" { "OK: the round goes on" }
                span { "arrow: the browser event that ended the wait" }
            }
            @for wait in &timeline.waits { p { (wait_words(timeline, wait)) } }
            div.timeline-box { (timeline::picture(timeline, arrow_id)) }
        }
    }
}

/// A wait in one sentence: when it began, what ended it, when the round went on.
fn wait_words(timeline: &Timeline, wait: &timeline::Wait) -> String {
    let at = |i: usize| format!("T0+{:.0}ms", timeline.items[i].t_ms);
    let mut words = format!(
        "The {} waited from {} to {} ({:.0} ms): {}",
        wait.guard,
        at(wait.start),
        at(wait.end),
        timeline.items[wait.end].t_ms - timeline.items[wait.start].t_ms,
        wait.outcome
    );
    match wait.ended_by {
        Some(i) => words += &format!("; ended by {} at {}", timeline.items[i].text, at(i)),
        None => words += "; no browser event ended it",
    }
    if let Some(i) = wait.resumed {
        words += &format!("; the round resumed at {}", at(i));
    }
    words
}
