//! The page and the Markdown of `navguard compare`: the same agent-neutral scenarios run against
//! several browser agents on one machine and browser, side by side. Both say the same facts:
//! per agent its totals and call times, per scenario each agent's outcome, and per call its time
//! against the baseline agent's for the same scenario and call number.

mod html;
mod markdown;

pub use html::render_html;
pub use markdown::render_markdown;

use crate::gate::key;
use crate::summary::{CallRecord, ScenarioResult};
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

/// The index of the baseline agent: the one named [`BASELINE`], else the first.
pub fn baseline(c: &Comparison) -> usize {
    c.agents.iter().position(|a| a.name == BASELINE).unwrap_or(0)
}

// The facts both renderings show, computed once here so that the page and the Markdown cannot
// disagree.

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
