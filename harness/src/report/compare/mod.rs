//! The page and the Markdown of `navguard compare`: the same agent-neutral scenarios run against
//! several browser agents on one machine and browser, side by side, each as many times as asked.
//! Both say the same facts: per agent its totals and call times, per hazard how many of its
//! scenarios each agent passed, per scenario each agent's outcome over the runs (passed, failed,
//! flaky with how often, not applicable) with each distinct reason, and per call its time against
//! the baseline agent's for the same scenario and call number.

mod html;
mod markdown;

pub use html::render_html;
pub use markdown::render_markdown;

use crate::gate::key;
use crate::summary::{CallRecord, ScenarioResult};
use std::collections::{BTreeMap, BTreeSet};
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
    /// How many times each agent ran the scenarios (`--repeat`; at least 1).
    pub repeat: u32,
    /// The hazards' contracts (name without `contract-`, e.g. `agent-covered`, and its sentence),
    /// from the contracts file beside the features, to name the scoreboard's rows.
    pub contracts: BTreeMap<String, String>,
    /// In the order given. The baseline is the one named [`BASELINE`] if present, else the first.
    pub agents: Vec<AgentColumn>,
    /// The agents named that cannot drive this browser, in the order given: listed under the
    /// agents with the browsers they drive, and not run.
    pub elsewhere: Vec<Elsewhere>,
    /// What had not run when the report was written (an agent, or its runs still to come): a
    /// compare writes its report after every run, so a stopped one can be read as far as it got.
    pub unfinished: Vec<String>,
}

impl Comparison {
    /// The line that says the report is not whole, if it is not.
    pub fn unfinished_line(&self) -> Option<String> {
        (!self.unfinished.is_empty()).then(|| {
            format!(
                "Not finished: {} had not run when this report was written (the compare was stopped, or is still running); the report holds every run that ended",
                self.unfinished.join(", ")
            )
        })
    }
}

/// One agent's runs.
#[derive(Clone, Debug, Default)]
pub struct AgentColumn {
    /// `playwright-mcp`.
    pub name: String,
    /// `@playwright/mcp 0.0.83` (may be empty).
    pub version: String,
    /// One line: how it meets the browser.
    pub about: String,
    /// Its runs in the order they ran, each with one result per scenario.
    pub runs: Vec<Vec<ScenarioResult>>,
    /// It could not run at all: why, in one line (then `runs` is empty).
    pub not_started: Option<String>,
    /// Its known failures (its expectations file: scenario key, as [`key`] writes it, and the
    /// reason), so that a reader sees which failures and flakes are known and why.
    pub known: BTreeMap<String, String>,
}

/// An agent named that cannot drive the compare's browser.
#[derive(Clone, Debug, Default)]
pub struct Elsewhere {
    /// `playwright-mcp`.
    pub name: String,
    /// `@playwright/mcp 0.0.83` (may be empty).
    pub version: String,
    /// One line: how it meets the browser.
    pub about: String,
    /// The browsers it drives, as its description names them: `["chromium"]`.
    pub browsers: Vec<String>,
}

impl Elsewhere {
    /// `Chromium only`, `Chromium and Firefox only`: what its row says.
    pub fn words(&self) -> String {
        let names: Vec<String> = self.browsers.iter().map(|b| capitalised(b)).collect();
        format!("{} only", names.join(" and "))
    }
}

/// `chromium` → `Chromium`.
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The agent the others' call times are measured against, when it ran.
pub const BASELINE: &str = "navguard";

/// The index of the baseline agent: the one named [`BASELINE`], else the first.
pub fn baseline(c: &Comparison) -> usize {
    c.agents.iter().position(|a| a.name == BASELINE).unwrap_or(0)
}

// The facts both renderings show, computed once here so that the page and the Markdown cannot
// disagree.

/// How a scenario went for one agent over its runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Passed,
    Failed,
    /// It passed in some runs and failed in `failed` of its `runs`.
    Flaky {
        failed: usize,
        runs: usize,
    },
    NotApplicable,
    NotRun,
}

/// One agent's results for one scenario: one per run that had it, in run order.
#[derive(Clone, Debug, Default)]
struct Cell<'a> {
    runs: Vec<&'a ScenarioResult>,
    /// The run whose call times the tables and drawings show (see [`median_run`]), found once
    /// when the rows are made.
    typical: Option<&'a ScenarioResult>,
}

impl<'a> Cell<'a> {
    /// A failure counts before "not applicable" (as in the terminal summary): a scenario that
    /// failed while deciding it does not apply still failed. A scenario that both passed and
    /// failed is flaky, whatever the proportion: a verdict that flips is not a verdict.
    fn outcome(&self) -> Outcome {
        let runs = self.runs.len();
        let failed = self.runs.iter().filter(|r| r.failure.is_some()).count();
        let not_applicable = self.runs.iter().filter(|r| r.failure.is_none() && r.not_applicable.is_some()).count();
        let passed = runs - failed - not_applicable;
        match (passed, failed) {
            _ if runs == 0 => Outcome::NotRun,
            (0, 0) => Outcome::NotApplicable,
            (_, 0) => Outcome::Passed,
            (0, _) => Outcome::Failed,
            (_, failed) => Outcome::Flaky { failed, runs },
        }
    }

    fn typical(&self) -> Option<&'a ScenarioResult> {
        self.typical
    }

    /// Each distinct way it failed (first failing step and the reason's first line), how many
    /// runs failed so, in the order first seen.
    fn reasons(&self) -> Vec<Reason> {
        let mut reasons: Vec<Reason> = Vec::new();
        for r in self.runs.iter().filter(|r| r.failure.is_some()) {
            let (step, text) = (failing_step(r), first_line(r.failure.as_deref().unwrap_or_default()).to_owned());
            match reasons.iter_mut().find(|seen| seen.step == step && same_shape(&seen.text, &text)) {
                Some(seen) => seen.runs += 1,
                None => reasons.push(Reason { step, text, runs: 1 }),
            }
        }
        reasons
    }

    /// Why it does not apply (the first run's words: the reason is the agent's, not the run's).
    fn not_applicable(&self) -> &'a str {
        self.runs.iter().find_map(|r| r.not_applicable.as_deref()).unwrap_or_default()
    }

    fn has_calls(&self) -> bool {
        self.typical().is_some_and(|r| !r.calls.is_empty())
    }
}

/// Whether two reasons say the same thing but for their numbers: each run has its own ports
/// and timings (`call 2 took 5125 ms`, `…5177 ms`; `http://127.0.0.1:41323/…`), and a reason
/// that differs only there is the same way of failing, shown once with the first run's words.
fn same_shape(a: &str, b: &str) -> bool {
    let shape = |text: &str| {
        let mut shaped = String::with_capacity(text.len());
        for ch in text.chars() {
            if !(ch.is_ascii_digit() && shaped.ends_with('#')) {
                shaped.push(if ch.is_ascii_digit() { '#' } else { ch });
            }
        }
        shaped
    };
    shape(a) == shape(b)
}

/// The run with the median total call time (a real run, not an average of several), the lower
/// middle for an even count.
fn median_run<'a>(runs: &[&'a ScenarioResult]) -> Option<&'a ScenarioResult> {
    let mut by_time = runs.to_vec();
    by_time.sort_by_key(|r| call_times(r).sum::<u64>());
    by_time.get(by_time.len().saturating_sub(1) / 2).copied()
}

/// One way a scenario failed, and in how many runs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reason {
    /// `line 14: When I click "Next"`.
    step: Option<String>,
    /// The reason's first line.
    text: String,
    runs: usize,
}

/// One scenario (the union over agents) and each agent's results for it, in agent order.
struct Row<'a> {
    /// As [`key`] writes it: `x.feature: <scenario>`.
    key: String,
    /// The feature file's name and the scenario's line: `x.feature:12`.
    place: String,
    scenario: &'a str,
    /// The hazard it belongs to (see [`hazard_of`]).
    hazard: String,
    cells: Vec<Cell<'a>>,
}

/// The scenarios any agent ran, ordered by feature file then line, matched across agents by
/// [`key`] (the same scenario may sit at the same line of differently rooted paths).
fn rows(c: &Comparison) -> Vec<Row<'_>> {
    let mut by_key: BTreeMap<String, (&ScenarioResult, Vec<Cell<'_>>)> = BTreeMap::new();
    for (i, agent) in c.agents.iter().enumerate() {
        for run in &agent.runs {
            // One result per scenario and run is the contract; should one repeat, the first counts.
            let mut seen = BTreeSet::new();
            for r in run.iter().filter(|r| seen.insert(key(r))) {
                let entry = by_key.entry(key(r)).or_insert_with(|| (r, vec![Cell::default(); c.agents.len()]));
                entry.1[i].runs.push(r);
            }
        }
    }
    let mut rows: Vec<(&ScenarioResult, Row<'_>)> = by_key
        .into_iter()
        .map(|(key, (first, mut cells))| {
            for cell in &mut cells {
                cell.typical = median_run(&cell.runs);
            }
            let place = format!("{}:{}", file_name(&first.feature_path), first.line);
            (first, Row { key, place, scenario: &first.scenario, hazard: hazard_of(first), cells })
        })
        .collect();
    rows.sort_by(|(a, _), (b, _)| (&a.feature_path, a.line, &a.scenario).cmp(&(&b.feature_path, b.line, &b.scenario)));
    rows.into_iter().map(|(_, row)| row).collect()
}

fn file_name(path: &str) -> String {
    Path::new(path).file_name().map_or_else(|| path.to_owned(), |f| f.to_string_lossy().into_owned())
}

/// The hazard a scenario holds: its contract tag (`@contract-agent-covered` is `agent-covered`),
/// the agent-neutral one first; a scenario without one is its feature's.
fn hazard_of(r: &ScenarioResult) -> String {
    // The scenario's own tags first, then its rule's and its feature's.
    let tags: Vec<&str> = r
        .gherkin
        .iter()
        .flat_map(|g| {
            let rule = g.rule.iter().flat_map(|rule| rule.tags.iter());
            g.tags.iter().chain(rule).chain(g.feature.tags.iter().map(|t| &t.name))
        })
        .map(|t| t.trim_start_matches('@'))
        .collect();
    let contract =
        |prefix: &str| tags.iter().find_map(|t| t.strip_prefix("contract-").filter(|c| c.starts_with(prefix)));
    contract("agent-").or_else(|| contract("")).map_or_else(|| r.feature.clone(), str::to_owned)
}

/// One row of the scoreboard: a hazard and the scenarios that hold it.
struct HazardRow<'r, 'a> {
    name: &'r str,
    rows: Vec<&'r Row<'a>>,
}

/// The scenarios grouped by hazard, in the hazards' name order.
fn hazards<'r, 'a>(rows: &'r [Row<'a>]) -> Vec<HazardRow<'r, 'a>> {
    let mut by_name: BTreeMap<&str, Vec<&Row<'a>>> = BTreeMap::new();
    for row in rows {
        by_name.entry(row.hazard.as_str()).or_default().push(row);
    }
    by_name.into_iter().map(|(name, rows)| HazardRow { name, rows }).collect()
}

/// A hazard's row label: its contract name without the `agent-` every agent-neutral one has.
fn hazard_label(name: &str) -> &str {
    name.strip_prefix("agent-").unwrap_or(name)
}

/// One agent's score on one hazard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Score {
    passed: usize,
    flaky: usize,
    failed: usize,
    not_applicable: usize,
    not_run: usize,
}

impl Score {
    fn of(rows: &[&Row<'_>], agent: usize) -> Self {
        let mut score = Score::default();
        for row in rows {
            match row.cells[agent].outcome() {
                Outcome::Passed => score.passed += 1,
                Outcome::Flaky { .. } => score.flaky += 1,
                Outcome::Failed => score.failed += 1,
                Outcome::NotApplicable => score.not_applicable += 1,
                Outcome::NotRun => score.not_run += 1,
            }
        }
        score
    }

    /// The scenarios that applied and ran: what `passed` is out of.
    fn judged(&self) -> usize {
        self.passed + self.flaky + self.failed
    }

    /// `3/4`, `3/4, 1 flaky`, `N/A`, `—`.
    fn words(&self) -> String {
        if self.judged() == 0 {
            return if self.not_applicable > 0 { "N/A".to_owned() } else { "—".to_owned() };
        }
        let mut words = format!("{}/{}", self.passed, self.judged());
        if self.flaky > 0 {
            let _ = write!(words, ", {} flaky", self.flaky);
        }
        if self.not_applicable > 0 {
            let _ = write!(words, ", {} N/A", self.not_applicable);
        }
        words
    }

    /// How the cell is coloured: all passed, none passed, or between.
    fn class(&self) -> &'static str {
        match (self.judged(), self.passed) {
            (0, _) => "skipped",
            (n, p) if n == p => "passed",
            (_, 0) => "failed",
            _ => "partial",
        }
    }
}

/// One agent's totals over the rows.
struct Totals {
    passed: usize,
    failed: usize,
    flaky: usize,
    not_applicable: usize,
    not_run: usize,
    /// Over each scenario's typical run.
    calls_ms: u64,
    median_ms: Option<f64>,
    /// Its total call time over the scenarios both it and the baseline made calls in, over the
    /// baseline's, and how many scenarios that was; `None` for the baseline itself or with
    /// nothing to compare.
    vs_baseline: Option<(f64, usize)>,
}

fn totals(rows: &[Row<'_>], agent: usize, base: usize) -> Totals {
    let all: Vec<&Row<'_>> = rows.iter().collect();
    let score = Score::of(&all, agent);
    let mut took: Vec<u64> = rows.iter().filter_map(|row| row.cells[agent].typical()).flat_map(call_times).collect();
    took.sort_unstable();
    let (mut mine, mut theirs, mut both) = (0, 0, 0);
    for row in rows.iter().filter(|row| row.cells[agent].has_calls() && row.cells[base].has_calls()) {
        mine += row.cells[agent].typical().map_or(0, |r| call_times(r).sum::<u64>());
        theirs += row.cells[base].typical().map_or(0, |r| call_times(r).sum::<u64>());
        both += 1;
    }
    Totals {
        passed: score.passed,
        failed: score.failed,
        flaky: score.flaky,
        not_applicable: score.not_applicable,
        not_run: score.not_run,
        calls_ms: took.iter().sum(),
        median_ms: median(&took),
        vs_baseline: if agent == base { None } else { ratio(mine, theirs).map(|r| (r, both)) },
    }
}

fn call_times(r: &ScenarioResult) -> impl Iterator<Item = u64> + '_ {
    r.calls.iter().map(|c| c.took_ms)
}

/// Per neutral tool, an agent's median call and how many calls it is of, over each scenario's
/// typical run (the calls that failed too: a refusal is an answer, and it took its time).
fn tool_medians(rows: &[Row<'_>], agent: usize) -> BTreeMap<String, (f64, usize)> {
    let mut took: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for call in rows.iter().filter_map(|row| row.cells[agent].typical()).flat_map(|r| r.calls.iter()) {
        took.entry(call.tool.clone()).or_default().push(call.took_ms);
    }
    took.into_iter()
        .filter_map(|(tool, mut times)| {
            times.sort_unstable();
            median(&times).map(|m| (tool, (m, times.len())))
        })
        .collect()
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

/// `failed 2 of 3` for a flaky cell; empty otherwise.
fn flaky_words(outcome: Outcome) -> String {
    match outcome {
        Outcome::Flaky { failed, runs } => format!("failed {failed} of {runs}"),
        _ => String::new(),
    }
}

/// A reason with how often, when the cell ran more than once: `2 of 3: <reason>`.
fn reason_words(reason: &Reason, runs: usize) -> String {
    if runs > 1 { format!("{} of {runs}: {}", reason.runs, reason.text) } else { reason.text.clone() }
}

/// What an agent's expectations say of a scenario that did not pass for it: `known: <reason>`,
/// or, for a flaky one they do not list, that it is not known; nothing for the rest.
fn known_words(agent: &AgentColumn, row: &Row<'_>, outcome: Outcome) -> Option<String> {
    match (agent.known.get(&row.key), outcome) {
        (_, Outcome::Passed | Outcome::NotApplicable | Outcome::NotRun) => None,
        (Some(reason), _) => Some(format!("known: {reason}")),
        (None, Outcome::Flaky { .. }) => Some("not in its expectations".to_owned()),
        (None, _) => None,
    }
}

/// The baseline's typical result for a row, to measure agent `agent`'s calls against; none for
/// the baseline itself.
fn baseline_cell<'a>(row: &Row<'a>, agent: usize, base: usize) -> Option<&'a ScenarioResult> {
    if agent == base { None } else { row.cells[base].typical() }
}

/// Whether any agent made a call in this scenario (scenarios with none have no call times).
fn has_calls(row: &Row<'_>) -> bool {
    row.cells.iter().any(Cell::has_calls)
}

/// The longest total call time of any typical run: the one scale every drawn bar shares.
fn longest_ms(rows: &[Row<'_>]) -> u64 {
    rows.iter().flat_map(|row| &row.cells).filter_map(Cell::typical).map(|r| call_times(r).sum()).max().unwrap_or(0)
}

fn version_or_dash(version: &str) -> &str {
    if version.is_empty() { "—" } else { version }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::step_log::{FeatureMeta, Gherkin, TagAt};
    use crate::report::{StepRecord, StepStatus};

    fn call(call: u32, tool: &str, took_ms: u64) -> CallRecord {
        CallRecord { call, tool: tool.into(), took_ms, failed_as: None }
    }

    fn agent(name: &str, results: Vec<ScenarioResult>) -> AgentColumn {
        AgentColumn {
            name: name.into(),
            version: format!("{name} 1.0"),
            about: "over CDP".into(),
            runs: vec![results],
            not_started: None,
            known: BTreeMap::new(),
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
            repeat: 1,
            contracts: BTreeMap::new(),
            agents,
            elsewhere: Vec::new(),
            unfinished: Vec::new(),
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
            ["x.feature:1 Wizard", "❌ failed", "line 3: When I click \"Next\"", "the button was gone", ""]
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
        assert_eq!(other[3..8], ["0", "0", "0", "1", "0"], "passed, failed, flaky, N/A, not run");
        let html = render_html(&c);
        assert_eq!(html.matches("badge passed\">passed<").count(), 1, "only navguard's cell");
        assert!(html.contains("not applicable</span><div class=\"small\">no upload tool"));
    }

    #[test]
    fn each_tool_s_median_call_is_shown_per_agent_with_how_many_calls_it_is_of() {
        let run = |name: &str, calls| ScenarioResult { calls, ..ScenarioResult::sample(name) };
        let c = comparison(vec![
            agent(
                "navguard",
                vec![run("A", vec![call(1, "click", 40), call(2, "click", 60)]), run("B", vec![call(1, "click", 90)])],
            ),
            agent("other", vec![run("A", vec![call(1, "hover", 20)]), run("B", vec![call(1, "hover", 30)])]),
        ]);
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Median call per tool", "| click")), ["click", "60 ms (3)", "—"]);
        assert_eq!(md_cells(md_line(&md, "## Median call per tool", "| hover")), ["hover", "—", "25 ms (2)"]);
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
        assert_eq!(agents[8..], ["535 ms", "30 ms", "×2.1 over 1 scenario(s)"]);
        assert_eq!(md_cells(md_line(&md, "## Agents", "| navguard"))[10], "baseline");
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
        assert_eq!(md_cells(md_line(&md, "## Agents", "| other"))[7], "1", "one not run");
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
        assert_eq!(detail.len(), 5);
        assert_eq!(detail[3], r"expected a\|b, got \\\| \<none>");
    }

    #[test]
    fn an_agent_for_another_browser_is_listed_with_the_browsers_it_drives_and_no_column() {
        let mut c = comparison(vec![agent("navguard", vec![ScenarioResult::sample("S")])]);
        c.elsewhere.push(Elsewhere {
            name: "playwright-mcp".into(),
            version: "@playwright/mcp 0.0.83".into(),
            about: "over CDP".into(),
            browsers: vec!["chromium".into()],
        });
        let md = render_markdown(&c);
        let row = md_cells(md_line(&md, "## Agents", "| playwright-mcp"));
        assert_eq!(row[..4], ["playwright-mcp", "@playwright/mcp 0.0.83", "over CDP", "Chromium only"]);
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "x.feature:1 S")), ["x.feature:1 S", "✅"]);
        let html = render_html(&c);
        assert!(html.contains("Chromium only"), "{html}");
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

    fn tagged(name: &str, tag: &str, failure: Option<&str>) -> ScenarioResult {
        let mut r = ScenarioResult { failure: failure.map(Into::into), ..ScenarioResult::sample(name) };
        let feature = FeatureMeta {
            uri: r.feature_path.clone(),
            keyword: "Feature".into(),
            name: r.feature.clone(),
            description: String::new(),
            line: 1,
            tags: vec![TagAt { name: "@conformance".into(), line: 1, column: 1 }],
        };
        r.gherkin = Some(Gherkin {
            feature: std::sync::Arc::new(feature),
            rule: None,
            backgrounds: vec![],
            keyword: "Scenario".into(),
            name: name.into(),
            description: String::new(),
            line: r.line,
            tags: vec![format!("@{tag}")],
            hooks: vec![],
            started: None,
            finished: None,
        });
        if failure.is_some() {
            r.steps = failed(name, 1, "x").steps;
        }
        r
    }

    #[test]
    fn a_scenario_that_passed_and_failed_over_the_runs_is_flaky_with_each_reason_and_how_often() {
        let runs = vec![
            vec![failed("Dialog", 1, "phantom dialog\ntrace")],
            vec![ScenarioResult::sample("Dialog")],
            vec![failed("Dialog", 1, "phantom dialog")],
        ];
        let mut flaky = agent("playwright-mcp", vec![]);
        flaky.runs = runs;
        let mut steady = agent("navguard", vec![]);
        steady.runs = vec![vec![ScenarioResult::sample("Dialog")]; 3];
        let c = Comparison { repeat: 3, ..comparison(vec![steady, flaky]) };
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "Dialog")), ["x.feature:1 Dialog", "✅", "⚠️ 2/3"]);
        let detail = md_cells(md_line(&md, "### playwright-mcp", "Dialog"));
        assert_eq!(
            detail[1..],
            [
                "⚠️ flaky, failed 2 of 3",
                "line 3: When I click \"Next\"",
                "2 of 3: phantom dialog",
                "not in its expectations"
            ]
        );
        let agents = md_cells(md_line(&md, "## Agents", "| playwright-mcp"));
        assert_eq!(agents[3..8], ["0", "0", "1", "0", "0"], "passed, failed, flaky, N/A, not run");
        assert!(md.contains("- Runs per agent: 3"));
        let html = render_html(&c);
        assert!(
            html.contains("badge flaky\">flaky<")
                && html.contains("failed 2 of 3")
                && html.contains("2 of 3: phantom dialog")
        );
    }

    #[test]
    fn a_failure_its_expectations_list_shows_their_reason() {
        let mut theirs = agent("playwright-mcp", vec![failed("Wizard", 1, "the button was gone")]);
        theirs.known.insert("x.feature: Wizard".into(), "intermittent: it races the page".into());
        let c = comparison(vec![agent("navguard", vec![ScenarioResult::sample("Wizard")]), theirs]);
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "### playwright-mcp", "Wizard"))[4], "known: intermittent: it races the page");
        assert!(render_html(&c).contains("known: intermittent: it races the page"));
    }

    #[test]
    fn reasons_that_differ_only_in_their_numbers_are_one() {
        let mut a = agent("other", vec![]);
        a.runs = vec![
            vec![failed("S", 1, "call 2 took 5125 ms (http://127.0.0.1:41323/x)")],
            vec![failed("S", 1, "call 2 took 5177 ms (http://127.0.0.1:38033/x)")],
        ];
        let c = Comparison { repeat: 2, ..comparison(vec![agent("navguard", vec![]), a]) };
        let md = render_markdown(&c);
        let section = &md[md.find("### other").unwrap()..];
        assert!(section.contains("2 of 2: call 2 took 5125 ms (http://127.0.0.1:41323/x)"), "{section}");
        assert!(!section.contains("5177"), "{section}");
    }

    #[test]
    fn distinct_reasons_are_listed_apart() {
        let mut a = agent("other", vec![]);
        a.runs = vec![vec![failed("S", 1, "timeout")], vec![failed("S", 1, "stale ref")]];
        let c = Comparison { repeat: 2, ..comparison(vec![agent("navguard", vec![]), a]) };
        let md = render_markdown(&c);
        let section = &md[md.find("### other").unwrap()..];
        assert!(section.contains("1 of 2: timeout") && section.contains("1 of 2: stale ref"), "{section}");
        assert_eq!(md_cells(md_line(&md, "## Scenarios", "x.feature:1 S"))[2], "❌");
    }

    #[test]
    fn the_scoreboard_counts_each_hazard_s_scenarios_per_agent() {
        let ours = vec![
            tagged("Covered", "contract-agent-covered", None),
            ScenarioResult { line: 9, ..tagged("Covered late", "contract-agent-covered", None) },
            ScenarioResult { line: 20, ..tagged("Anchor", "contract-agent-anchors", None) },
        ];
        let theirs = vec![
            tagged("Covered", "contract-agent-covered", Some("pressed the banner")),
            ScenarioResult { line: 9, ..tagged("Covered late", "contract-agent-covered", None) },
            ScenarioResult {
                line: 20,
                not_applicable: Some("no go_back".into()),
                ..tagged("Anchor", "contract-agent-anchors", None)
            },
        ];
        let mut contracts = BTreeMap::new();
        contracts.insert("agent-covered".to_owned(), "Any agent refuses a covered click.".to_owned());
        let c = Comparison { contracts, ..comparison(vec![agent("navguard", ours), agent("other", theirs)]) };
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## By hazard", "| covered")), ["covered", "2/2", "1/2"]);
        assert_eq!(md_cells(md_line(&md, "## By hazard", "| anchors")), ["anchors", "1/1", "N/A"]);
        assert!(md.contains("- covered: Any agent refuses a covered click."));
        let html = render_html(&c);
        assert!(html.contains("<th title=\"Any agent refuses a covered click.\">covered</th>"), "{html}");
        assert!(html.contains("<td class=\"partial\">1/2</td>") && html.contains("<td class=\"passed\">2/2</td>"));
    }

    #[test]
    fn call_times_are_drawn_on_one_scale() {
        let run = |calls| vec![ScenarioResult { calls, ..ScenarioResult::sample("Login") }];
        let c = comparison(vec![
            agent("navguard", run(vec![call(1, "navigate", 200), call(2, "click", 100)])),
            agent("other", run(vec![call(1, "navigate", 600), call(2, "click", 40)])),
        ]);
        let html = render_html(&c);
        // The longest run (640 ms) fills the 640 px track: a millisecond is a pixel here.
        assert!(html.contains("the track is 640 ms wide"));
        for (ms, px) in [(200, "200.000"), (100, "100.000"), (600, "600.000"), (40, "40.000")] {
            assert!(html.contains(&format!("style=\"width:{px}px\" data-ms=\"{ms}\"")), "{ms} ms");
        }
    }

    #[test]
    fn with_several_runs_the_call_times_are_the_median_run_s() {
        let run = |ms| vec![ScenarioResult { calls: vec![call(1, "navigate", ms)], ..ScenarioResult::sample("S") }];
        let mut a = agent("navguard", vec![]);
        a.runs = vec![run(900), run(100), run(300)];
        let c = Comparison { repeat: 3, ..comparison(vec![a]) };
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Call times", "x.feature:1 S"))[1], "1 navigate 300 ms");
    }

    #[test]
    fn an_agent_with_no_calls_has_no_ratio() {
        let na = ScenarioResult { not_applicable: Some("no snapshot".into()), ..ScenarioResult::sample("S") };
        let with_calls = ScenarioResult { calls: vec![call(1, "navigate", 100)], ..ScenarioResult::sample("S") };
        let c = comparison(vec![agent("navguard", vec![with_calls]), agent("vibium", vec![na])]);
        let md = render_markdown(&c);
        assert_eq!(md_cells(md_line(&md, "## Agents", "| vibium"))[10], "—");
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
