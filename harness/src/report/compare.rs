//! The page and the Markdown of `navguard compare`: the same agent-neutral scenarios run against
//! several browser agents on one machine and browser, side by side. Both say the same facts:
//! per agent its totals and call times, per scenario each agent's outcome, and per call its time
//! against the baseline agent's for the same scenario and call number.

use crate::gate::key;
use crate::summary::{CallRecord, ScenarioResult};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One compare run.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// `2026-11-23`.
    pub date: String,
    /// `Debian GNU/Linux 13, 2 cores, 23 GiB`.
    pub machine: String,
    /// `chromium 156.0.7500.1`.
    pub browser: String,
    /// What ran, e.g. `features/agents`.
    pub features: String,
    /// In the order given. The baseline is the one named [`BASELINE`] if present, else the first.
    pub agents: Vec<AgentColumn>,
}

/// One agent's run.
#[derive(Clone, Debug, Default)]
pub struct AgentColumn {
    /// `playwright-mcp`.
    pub name: String,
    /// `@playwright/mcp 0.0.83` (may be empty).
    pub version: String,
    /// One line: how it meets the browser.
    pub about: String,
    /// Its run, one result per scenario.
    pub results: Vec<ScenarioResult>,
    /// It could not run at all: why, in one line (then `results` is empty).
    pub not_started: Option<String>,
}

/// The agent the others' call times are measured against, when it ran.
pub const BASELINE: &str = "navguard";

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

/// The index of the baseline agent: the one named [`BASELINE`], else the first.
pub fn baseline(c: &Comparison) -> usize {
    c.agents.iter().position(|a| a.name == BASELINE).unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// The facts both renderings show, computed once so the page and the Markdown cannot disagree.

/// How a scenario went for one agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Passed,
    Failed,
    NotApplicable,
    NotRun,
}

/// A failure counts before "not applicable" (as in the terminal summary): a scenario that
/// failed while deciding it does not apply still failed.
fn outcome(r: Option<&ScenarioResult>) -> Outcome {
    match r {
        None => Outcome::NotRun,
        Some(r) if r.failure.is_some() => Outcome::Failed,
        Some(r) if r.not_applicable.is_some() => Outcome::NotApplicable,
        Some(_) => Outcome::Passed,
    }
}

/// One scenario (the union over agents) and each agent's result for it, in agent order.
struct Row<'a> {
    /// The feature file's name and the scenario's line: `x.feature:12`.
    place: String,
    scenario: &'a str,
    cells: Vec<Option<&'a ScenarioResult>>,
}

/// The scenarios any agent ran, ordered by feature file then line, matched across agents by
/// [`key`] (the same scenario may sit at the same line of differently rooted paths).
fn rows(c: &Comparison) -> Vec<Row<'_>> {
    let mut by_key: BTreeMap<String, (&ScenarioResult, Vec<Option<&ScenarioResult>>)> = BTreeMap::new();
    for (i, agent) in c.agents.iter().enumerate() {
        for r in &agent.results {
            let entry = by_key.entry(key(r)).or_insert_with(|| (r, vec![None; c.agents.len()]));
            // One result per scenario is the contract; should one repeat, the first counts.
            entry.1[i].get_or_insert(r);
        }
    }
    let mut rows: Vec<(&ScenarioResult, Row<'_>)> = by_key
        .into_values()
        .map(|(first, cells)| {
            let place = format!("{}:{}", file_name(&first.feature_path), first.line);
            (first, Row { place, scenario: &first.scenario, cells })
        })
        .collect();
    rows.sort_by(|(a, _), (b, _)| (&a.feature_path, a.line, &a.scenario).cmp(&(&b.feature_path, b.line, &b.scenario)));
    rows.into_iter().map(|(_, row)| row).collect()
}

fn file_name(path: &str) -> String {
    Path::new(path).file_name().map_or_else(|| path.to_owned(), |f| f.to_string_lossy().into_owned())
}

/// One agent's totals over the rows.
struct Totals {
    passed: usize,
    failed: usize,
    not_applicable: usize,
    not_run: usize,
    calls_ms: u64,
    median_ms: Option<f64>,
    /// Its total call time over the scenarios both it and the baseline ran, over the
    /// baseline's, and how many scenarios that was; `None` for the baseline itself or with
    /// nothing to compare.
    vs_baseline: Option<(f64, usize)>,
}

fn totals(rows: &[Row<'_>], agent: usize, base: usize) -> Totals {
    let count = |o: Outcome| rows.iter().filter(|row| outcome(row.cells[agent]) == o).count();
    let mut took: Vec<u64> = rows.iter().filter_map(|row| row.cells[agent]).flat_map(call_times).collect();
    took.sort_unstable();
    let (mut mine, mut theirs, mut both) = (0, 0, 0);
    for row in rows {
        if let (Some(a), Some(b)) = (row.cells[agent], row.cells[base]) {
            mine += call_times(a).sum::<u64>();
            theirs += call_times(b).sum::<u64>();
            both += 1;
        }
    }
    Totals {
        passed: count(Outcome::Passed),
        failed: count(Outcome::Failed),
        not_applicable: count(Outcome::NotApplicable),
        not_run: count(Outcome::NotRun),
        calls_ms: took.iter().sum(),
        median_ms: median(&took),
        vs_baseline: if agent == base { None } else { ratio(mine, theirs).map(|r| (r, both)) },
    }
}

fn call_times(r: &ScenarioResult) -> impl Iterator<Item = u64> + '_ {
    r.calls.iter().map(|c| c.took_ms)
}

/// The median of sorted values (the mean of the middle two for an even count).
fn median(sorted: &[u64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2] as f64),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0),
    }
}

/// `took` over the baseline's time; none when the baseline took 0 ms (no meaningful ratio).
fn ratio(took: u64, baseline_took: u64) -> Option<f64> {
    (baseline_took > 0).then(|| took as f64 / baseline_took as f64)
}

/// The ratio of a call to the baseline's call with the same number in the same scenario.
fn call_ratio(call: &CallRecord, baseline: Option<&ScenarioResult>) -> Option<f64> {
    let theirs = baseline?.calls.iter().find(|b| b.call == call.call)?;
    ratio(call.took_ms, theirs.took_ms)
}

/// `×1.4`; two decimals below ×0.1 so a much faster agent does not read `×0.0`.
fn times(ratio: f64) -> String {
    if ratio < 0.1 { format!("×{ratio:.2}") } else { format!("×{ratio:.1}") }
}

/// `1 navigate 812 ms ×1.4`, with its ratio to the baseline if any and its failure class if it
/// failed.
fn call_words(c: &CallRecord, ratio: Option<f64>) -> String {
    let mut words = format!("{} {} {} ms", c.call, c.tool, c.took_ms);
    if let Some(x) = ratio {
        let _ = write!(words, " {}", times(x));
    }
    if let Some(class) = &c.failed_as {
        let _ = write!(words, " (failed: {class})");
    }
    words
}

/// The first failing step, `line 14: When I click "Next"`.
fn failing_step(r: &ScenarioResult) -> Option<String> {
    r.first_failing_step().map(|s| format!("line {}: {} {}", s.line, s.keyword, s.text))
}

/// The first line of a failure: the rest (backtraces, page dumps) belongs in the run's report.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The baseline's result for a row, to measure agent `agent`'s calls against; none for the
/// baseline itself.
fn baseline_cell<'a>(row: &Row<'a>, agent: usize, base: usize) -> Option<&'a ScenarioResult> {
    if agent == base { None } else { row.cells[base] }
}

/// Whether any agent made a call in this scenario (scenarios with none have no call times).
fn has_calls(row: &Row<'_>) -> bool {
    row.cells.iter().flatten().any(|r| !r.calls.is_empty())
}

fn version_or_dash(version: &str) -> &str {
    if version.is_empty() { "—" } else { version }
}

// ---------------------------------------------------------------------------------------------
// HTML

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

// ---------------------------------------------------------------------------------------------
// Markdown

/// The Markdown (`compare.md`): compact tables, the failures' details below them.
pub fn render_markdown(c: &Comparison) -> String {
    let rows = rows(c);
    let base = baseline(c);
    let mut md = String::new();
    let _ = writeln!(md, "# navguard compare {}\n", cell(&c.date));
    let _ = writeln!(md, "- Machine: {}", cell(&c.machine));
    let _ = writeln!(md, "- Browser: {}", cell(&c.browser));
    let _ = writeln!(md, "- Features: {}", cell(&c.features));
    if let Some(b) = c.agents.get(base) {
        let _ = writeln!(md, "- Baseline for call times: {}", cell(&b.name));
    }
    md_agents(&mut md, c, &rows, base);
    md_scenarios(&mut md, c, &rows);
    md_details(&mut md, c, &rows);
    md_calls(&mut md, c, &rows, base);
    md
}

/// Text made safe for one Markdown table cell (or list line): on one line, its `|` escaped
/// (and backslashes first, so a `\|` in the text cannot unescape ours), and `<` escaped so a
/// `<button>` in a reason shows rather than being taken for HTML.
fn cell(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('\\', "\\\\").replace('|', "\\|").replace('<', "\\<")
}

/// A table row from its cells (already escaped).
fn md_row(md: &mut String, cells: &[String]) {
    let _ = writeln!(md, "| {} |", cells.join(" | "));
}

/// A table's header and its separator line.
fn md_header(md: &mut String, headers: &[String]) {
    md_row(md, headers);
    md_row(md, &vec!["---".to_owned(); headers.len()]);
}

/// The header of the per-scenario tables: a scenario column, then one per agent.
fn md_agent_header(md: &mut String, c: &Comparison) {
    let headers: Vec<String> =
        std::iter::once("scenario".to_owned()).chain(c.agents.iter().map(|a| cell(&a.name))).collect();
    md_header(md, &headers);
}

fn md_scenario(row: &Row<'_>) -> String {
    cell(&format!("{} {}", row.place, row.scenario))
}

fn md_agents(md: &mut String, c: &Comparison, rows: &[Row<'_>], base: usize) {
    md.push_str("\n## Agents\n\n");
    let base_name = c.agents.get(base).map_or("", |b| b.name.as_str());
    let headers = ["agent", "version", "about", "passed", "failed", "N/A", "not run", "call time total", "median call"];
    let mut headers: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    headers.push(cell(&format!("total call time vs {base_name}")));
    md_header(md, &headers);
    for (i, agent) in c.agents.iter().enumerate() {
        let mut cells = vec![cell(&agent.name), cell(version_or_dash(&agent.version)), cell(&agent.about)];
        if let Some(why) = &agent.not_started {
            // A table cannot span columns: the reason takes the first, the rest stay empty.
            cells.push(cell(&format!("did not start: {why}")));
            cells.extend(std::iter::repeat_n(String::new(), 6));
        } else {
            let t = totals(rows, i, base);
            cells.extend([t.passed, t.failed, t.not_applicable, t.not_run].map(|n| n.to_string()));
            cells.push(format!("{} ms", t.calls_ms));
            cells.push(t.median_ms.map_or_else(|| "—".to_owned(), |m| format!("{m:.0} ms")));
            cells.push(match t.vs_baseline {
                _ if i == base => "baseline".to_owned(),
                Some((r, n)) => format!("{} over {n} scenario(s)", times(r)),
                None => "—".to_owned(),
            });
        }
        md_row(md, &cells);
    }
}

fn md_scenarios(md: &mut String, c: &Comparison, rows: &[Row<'_>]) {
    md.push_str("\n## Scenarios\n\n✅ passed, ❌ failed, N/A not applicable, — not run; details below.\n\n");
    md_agent_header(md, c);
    for row in rows {
        let mut cells = vec![md_scenario(row)];
        cells.extend(row.cells.iter().map(|r| {
            match outcome(*r) {
                Outcome::Passed => "✅",
                Outcome::Failed => "❌",
                Outcome::NotApplicable => "N/A",
                Outcome::NotRun => "—",
            }
            .to_owned()
        }));
        md_row(md, &cells);
    }
}

/// Per agent, its failures (first failing step, first line of the reason) and the scenarios that
/// did not apply (why), so the outcome table stays one symbol a cell.
fn md_details(md: &mut String, c: &Comparison, rows: &[Row<'_>]) {
    for (i, agent) in c.agents.iter().enumerate() {
        let listed: Vec<(&Row<'_>, &ScenarioResult)> = rows
            .iter()
            .filter_map(|row| row.cells[i].map(|r| (row, r)))
            .filter(|(_, r)| matches!(outcome(Some(r)), Outcome::Failed | Outcome::NotApplicable))
            .collect();
        if listed.is_empty() {
            continue;
        }
        let _ = writeln!(md, "\n### {}: failed and not applicable\n", cell(&agent.name));
        md_header(md, &["scenario", "outcome", "first failing step", "reason"].map(str::to_owned));
        for (row, r) in listed {
            let (word, step, reason) = match (&r.failure, &r.not_applicable) {
                (Some(failure), _) => ("❌ failed", failing_step(r).unwrap_or_default(), first_line(failure)),
                (None, why) => ("N/A", String::new(), why.as_deref().unwrap_or_default()),
            };
            md_row(md, &[md_scenario(row), word.to_owned(), cell(&step), cell(reason)]);
        }
    }
}

fn md_calls(md: &mut String, c: &Comparison, rows: &[Row<'_>], base: usize) {
    if !rows.iter().any(has_calls) {
        return;
    }
    let base_name = c.agents.get(base).map_or("", |b| b.name.as_str());
    let _ = writeln!(
        md,
        "\n## Call times\n\nEach call in order; the ratio is to {}'s time for the same scenario and call number.\n",
        cell(base_name)
    );
    md_agent_header(md, c);
    for row in rows.iter().filter(|row| has_calls(row)) {
        let mut cells = vec![md_scenario(row)];
        for (i, r) in row.cells.iter().enumerate() {
            let baseline = baseline_cell(row, i, base);
            cells.push(match r {
                None => "—".to_owned(),
                Some(r) if r.calls.is_empty() => "no calls".to_owned(),
                Some(r) => cell(&md_calls_of(r, baseline)),
            });
        }
        md_row(md, &cells);
    }
}

/// `1 navigate 812 ms ×1.4 · 2 click 40 ms`.
fn md_calls_of(r: &ScenarioResult, baseline: Option<&ScenarioResult>) -> String {
    let words = r.calls.iter().map(|call| call_words(call, call_ratio(call, baseline)));
    words.collect::<Vec<_>>().join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{StepRecord, StepStatus};

    fn call(call: u32, tool: &str, took_ms: u64) -> CallRecord {
        CallRecord { call, tool: tool.into(), took_ms, failed_as: None }
    }

    fn agent(name: &str, results: Vec<ScenarioResult>) -> AgentColumn {
        AgentColumn {
            name: name.into(),
            version: format!("{name} 1.0"),
            about: "over CDP".into(),
            results,
            not_started: None,
        }
    }

    fn step(line: usize, keyword: &str, text: &str, status: StepStatus) -> StepRecord {
        StepRecord {
            keyword: keyword.into(),
            text: text.into(),
            line,
            argument: None,
            table: None,
            doc_string: None,
            background: None,
            definition: None,
            status,
            took: None,
            error: None,
        }
    }

    fn failed(name: &str, line: usize, reason: &str) -> ScenarioResult {
        ScenarioResult {
            line,
            failure: Some(reason.into()),
            steps: vec![
                step(line + 1, "Given", "the page is loaded", StepStatus::Passed),
                step(line + 2, "When", "I click \"Next\"", StepStatus::Failed),
            ],
            ..ScenarioResult::sample(name)
        }
    }

    fn comparison(agents: Vec<AgentColumn>) -> Comparison {
        Comparison {
            date: "2026-11-23".into(),
            machine: "Debian GNU/Linux 13, 2 cores, 23 GiB".into(),
            browser: "chromium 156.0.7500.1".into(),
            features: "features/agents".into(),
            agents,
        }
    }

    /// The Markdown table row of a scenario in the given section.
    fn md_line<'a>(md: &'a str, section: &str, scenario: &str) -> &'a str {
        let start = md.find(section).expect("section");
        md[start..].lines().find(|l| l.starts_with('|') && l.contains(scenario)).expect("row")
    }

    /// The cells of a Markdown row, split at the pipes that are not escaped.
    fn md_cells(row: &str) -> Vec<String> {
        let (mut cells, mut current, mut chars) = (vec![], String::new(), row.trim().chars());
        while let Some(ch) = chars.next() {
            match ch {
                '\\' => {
                    current.push(ch);
                    current.extend(chars.next());
                }
                '|' => cells.push(std::mem::take(&mut current).trim().to_owned()),
                _ => current.push(ch),
            }
        }
        cells.into_iter().skip(1).collect() // before the leading pipe
    }

    #[test]
    fn a_failed_cell_names_the_step_and_the_reason() {
        let c = comparison(vec![
            agent("navguard", vec![ScenarioResult::sample("Wizard")]),
            agent("playwright-mcp", vec![failed("Wizard", 1, "the button was gone\nbacktrace …")]),
        ]);
        let html = render_html(&c);
        assert!(html.contains("line 3: When I click &quot;Next&quot;"));
        assert!(html.contains("the button was gone"));
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "Wizard")), ["x.feature:1 Wizard", "✅", "❌"]);
        let detail = md_line(&md, "### playwright-mcp", "Wizard");
        assert_eq!(
            md_cells(detail),
            ["x.feature:1 Wizard", "❌ failed", "line 3: When I click \"Next\"", "the button was gone"]
        );
        assert!(!md.contains("backtrace"), "only the reason's first line");
    }

    #[test]
    fn not_applicable_is_never_shown_as_passed() {
        let na = ScenarioResult { not_applicable: Some("no upload tool".into()), ..ScenarioResult::sample("Upload") };
        let c = comparison(vec![agent("navguard", vec![ScenarioResult::sample("Upload")]), agent("other", vec![na])]);
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "Upload")), ["x.feature:1 Upload", "✅", "N/A"]);
        assert_eq!(md_cells(md_line(&md, "### other", "Upload"))[3], "no upload tool");
        let other = md_cells(md_line(&md, "## Agents", "| other"));
        assert_eq!(other[3..7], ["0", "0", "1", "0"], "passed, failed, N/A, not run");
        let html = render_html(&c);
        assert_eq!(html.matches("badge passed\">passed<").count(), 1, "only navguard's cell");
        assert!(html.contains("not applicable</span><div class=\"small\">no upload tool"));
    }

    #[test]
    fn call_ratios_are_to_the_baseline_even_when_it_is_not_first() {
        let run = |calls| vec![ScenarioResult { calls, ..ScenarioResult::sample("Login") }];
        let c = comparison(vec![
            agent("playwright-mcp", run(vec![call(1, "navigate", 500), call(2, "click", 30), call(3, "type", 5)])),
            agent("navguard", run(vec![call(1, "navigate", 250), call(2, "click", 0)])),
        ]);
        let md = render_markdown(&c);
        let cells = md_cells(md_line(&md, "## Call times", "Login"));
        // ×2.0 against navguard's 250 ms; none against its 0 ms, none for a call it lacks.
        assert_eq!(cells[1], "1 navigate 500 ms ×2.0 · 2 click 30 ms · 3 type 5 ms");
        assert_eq!(cells[2], "1 navigate 250 ms · 2 click 0 ms");
        let agents = md_cells(md_line(&md, "## Agents", "| playwright-mcp"));
        assert_eq!(agents[7..], ["535 ms", "30 ms", "×2.1 over 1 scenario(s)"]);
        assert_eq!(md_cells(md_line(&md, "## Agents", "| navguard"))[9], "baseline");
        let html = render_html(&c);
        assert!(html.contains("×2.0") && html.contains("×2.1"));
    }

    #[test]
    fn a_scenario_an_agent_did_not_run_shows_a_dash() {
        let later = ScenarioResult {
            feature_path: "features/a.feature".into(),
            line: 9,
            ..ScenarioResult::sample("Only here")
        };
        let c = comparison(vec![
            agent("navguard", vec![ScenarioResult::sample("Both"), later]),
            agent("other", vec![ScenarioResult::sample("Both")]),
        ]);
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "Only here")), ["a.feature:9 Only here", "✅", "—"]);
        // Ordered by feature file, then line.
        assert!(md.find("a.feature:9").unwrap() < md.find("x.feature:1 Both").unwrap());
        assert_eq!(md_cells(md_line(&md, "## Agents", "| other"))[6], "1", "one not run");
        assert!(render_html(&c).contains("title=\"not run\">—"));
    }

    #[test]
    fn a_pipe_does_not_break_a_markdown_row() {
        let c = comparison(vec![
            agent("navguard", vec![ScenarioResult::sample("a | b")]),
            agent("other", vec![failed("a | b", 1, r"expected a|b, got \| <none>")]),
        ]);
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "a \\| b")).len(), 3);
        let detail = md_cells(md_line(&md, "### other", "a \\| b"));
        assert_eq!(detail.len(), 4);
        assert_eq!(detail[3], r"expected a\|b, got \\\| \<none>");
    }

    #[test]
    fn an_agent_that_did_not_start_shows_why() {
        let missing =
            AgentColumn { not_started: Some("npx: not found".into()), ..agent("chrome-devtools-mcp", vec![]) };
        let c = comparison(vec![agent("navguard", vec![ScenarioResult::sample("S")]), missing]);
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Agents", "| chrome-devtools-mcp"))[3], "did not start: npx: not found");
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "x.feature:1 S")), ["x.feature:1 S", "✅", "—"]);
        assert!(render_html(&c).contains("did not start: npx: not found"));
    }

    #[test]
    fn the_heading_says_when_where_and_what() {
        let html = render_html(&comparison(vec![agent("navguard", vec![])]));
        let md = render_markdown(&comparison(vec![agent("navguard", vec![])]));
        for text in ["2026-11-23", "Debian GNU/Linux 13, 2 cores, 23 GiB", "chromium 156.0.7500.1", "features/agents"] {
            assert!(html.contains(text) && md.contains(text), "{text}");
        }
    }
}
