//! The Markdown of `navguard compare` (`compare.md`).

use super::{
    Cell, Comparison, Outcome, Row, Score, baseline, baseline_cell, call_ratio, call_words, flaky_words, has_calls,
    hazard_label, hazards, known_words, reason_words, times, tool_medians, totals, version_or_dash,
};
use crate::summary::ScenarioResult;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The Markdown (`compare.md`): compact tables, the failures' details below them.
pub fn render_markdown(c: &Comparison) -> String {
    let rows = super::rows(c);
    let base = baseline(c);
    let mut md = String::new();
    let _ = writeln!(md, "# navguard compare {}\n", cell(&c.date));
    let _ = writeln!(md, "- Machine: {}", cell(&c.machine));
    let _ = writeln!(md, "- Browser: {}", cell(&c.browser));
    let _ = writeln!(md, "- Features: {}", cell(&c.features));
    let _ = writeln!(md, "- Runs per agent: {}", c.repeat.max(1));
    if let Some(b) = c.agents.get(base) {
        let _ = writeln!(md, "- Baseline for call times: {}", cell(&b.name));
    }
    if let Some(line) = c.unfinished_line() {
        let _ = writeln!(md, "\n**{}.**", cell(&line));
    }
    md_agents(&mut md, c, &rows, base);
    md_hazards(&mut md, c, &rows);
    md_tools(&mut md, c, &rows);
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

/// The header of the per-scenario tables: a first column, then one per agent.
fn md_agent_header(md: &mut String, c: &Comparison, first: &str) {
    let headers: Vec<String> =
        std::iter::once(first.to_owned()).chain(c.agents.iter().map(|a| cell(&a.name))).collect();
    md_header(md, &headers);
}

fn md_scenario(row: &Row<'_>) -> String {
    cell(&format!("{} {}", row.place, row.scenario))
}

fn md_agents(md: &mut String, c: &Comparison, rows: &[Row<'_>], base: usize) {
    md.push_str("\n## Agents\n\n");
    let base_name = c.agents.get(base).map_or("", |b| b.name.as_str());
    let headers =
        ["agent", "version", "about", "passed", "failed", "flaky", "N/A", "not run", "call time total", "median call"];
    let mut headers: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    headers.push(cell(&format!("total call time vs {base_name}")));
    md_header(md, &headers);
    for (i, agent) in c.agents.iter().enumerate() {
        let mut cells = vec![cell(&agent.name), cell(version_or_dash(&agent.version)), cell(&agent.about)];
        if let Some(why) = &agent.not_started {
            // A table cannot span columns: the reason takes the first, the rest stay empty.
            cells.push(cell(&format!("did not start: {why}")));
            cells.extend(std::iter::repeat_n(String::new(), 7));
        } else {
            let t = totals(rows, i, base);
            cells.extend([t.passed, t.failed, t.flaky, t.not_applicable, t.not_run].map(|n| n.to_string()));
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
    for agent in &c.elsewhere {
        let mut cells = vec![cell(&agent.name), cell(version_or_dash(&agent.version)), cell(&agent.about)];
        cells.push(cell(&agent.words()));
        cells.extend(std::iter::repeat_n(String::new(), 7));
        md_row(md, &cells);
    }
}

/// Per neutral tool and agent, the median call and how many calls it is of.
fn md_tools(md: &mut String, c: &Comparison, rows: &[Row<'_>]) {
    let medians: Vec<_> = (0..c.agents.len()).map(|i| tool_medians(rows, i)).collect();
    let tools: BTreeSet<&String> = medians.iter().flat_map(BTreeMap::keys).collect();
    if tools.is_empty() {
        return;
    }
    md.push_str("\n## Median call per tool\n\nOver each scenario's typical run (with several runs, the one with the median total call time), the calls that failed included; how many calls in brackets. A call whose answer carries no page counts the look the harness took after it (`looks_after`), as its model would.\n\n");
    md_agent_header(md, c, "tool");
    for tool in tools {
        let mut cells = vec![cell(tool)];
        cells.extend(medians.iter().map(|m| match m.get(tool) {
            Some((median, n)) => format!("{median:.0} ms ({n})"),
            None => "—".to_owned(),
        }));
        md_row(md, &cells);
    }
}

/// The scoreboard: per hazard and agent, how many of the hazard's scenarios passed in every run.
fn md_hazards(md: &mut String, c: &Comparison, rows: &[Row<'_>]) {
    md.push_str("\n## By hazard\n\nPer hazard, the scenarios that passed in every run of those that applied; flaky ones passed in some runs only.\n\n");
    md_agent_header(md, c, "hazard");
    for hazard in hazards(rows) {
        let mut cells = vec![cell(hazard_label(hazard.name))];
        cells.extend((0..c.agents.len()).map(|i| cell(&Score::of(&hazard.rows, i).words())));
        md_row(md, &cells);
    }
    let named: Vec<_> =
        hazards(rows).into_iter().filter_map(|h| c.contracts.get(h.name).map(|s| (h.name, s))).collect();
    if !named.is_empty() {
        md.push('\n');
        for (name, sentence) in named {
            let _ = writeln!(md, "- {}: {}", cell(hazard_label(name)), cell(sentence));
        }
    }
}

/// A cell of the scenarios table: one symbol, and a flaky cell's count.
fn symbol(cell: &Cell<'_>) -> String {
    match cell.outcome() {
        Outcome::Passed => "✅".to_owned(),
        Outcome::Failed => "❌".to_owned(),
        Outcome::Flaky { failed, runs } => format!("⚠️ {failed}/{runs}"),
        Outcome::NotApplicable => "N/A".to_owned(),
        Outcome::NotRun => "—".to_owned(),
    }
}

fn md_scenarios(md: &mut String, c: &Comparison, rows: &[Row<'_>]) {
    md.push_str(
        "\n## Scenarios\n\n✅ passed, ❌ failed, ⚠️ k/n flaky (failed k of n runs), N/A not applicable, — not run; details below.\n\n",
    );
    md_agent_header(md, c, "scenario");
    for row in rows {
        let mut cells = vec![md_scenario(row)];
        cells.extend(row.cells.iter().map(symbol));
        md_row(md, &cells);
    }
}

/// Per agent, its failures and flaky scenarios (each distinct first failing step and reason,
/// with how often) and the scenarios that did not apply (why), so the outcome table stays one
/// symbol a cell.
fn md_details(md: &mut String, c: &Comparison, rows: &[Row<'_>]) {
    for (i, agent) in c.agents.iter().enumerate() {
        let listed: Vec<(&Row<'_>, &Cell<'_>)> = rows
            .iter()
            .map(|row| (row, &row.cells[i]))
            .filter(|(_, cell)| !matches!(cell.outcome(), Outcome::Passed | Outcome::NotRun))
            .collect();
        if listed.is_empty() {
            continue;
        }
        let _ = writeln!(md, "\n### {}: failed, flaky and not applicable\n", cell(&agent.name));
        md_header(md, &["scenario", "outcome", "first failing step", "reason", "its expectations"].map(str::to_owned));
        for (row, scenario) in listed {
            let outcome = scenario.outcome();
            let word = match outcome {
                Outcome::Failed => "❌ failed".to_owned(),
                Outcome::Flaky { .. } => format!("⚠️ flaky, {}", flaky_words(outcome)),
                _ => "N/A".to_owned(),
            };
            if outcome == Outcome::NotApplicable {
                md_row(md, &[md_scenario(row), word, String::new(), cell(scenario.not_applicable()), String::new()]);
                continue;
            }
            let known = cell(&known_words(agent, row, outcome).unwrap_or_default());
            for reason in scenario.reasons() {
                let step = reason.step.clone().unwrap_or_default();
                let why = cell(&reason_words(&reason, scenario.runs.len()));
                md_row(md, &[md_scenario(row), word.clone(), cell(&step), why, known.clone()]);
            }
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
        "\n## Call times\n\nEach call in order; the ratio is to {}'s time for the same scenario and call number. With several runs, each cell is the run with the median total call time.\n",
        cell(base_name)
    );
    md_agent_header(md, c, "scenario");
    for row in rows.iter().filter(|row| has_calls(row)) {
        let mut cells = vec![md_scenario(row)];
        for (i, scenario) in row.cells.iter().enumerate() {
            let baseline = baseline_cell(row, i, base);
            cells.push(match scenario.typical() {
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
