//! The Markdown of `navguard compare` (`compare.md`).

use super::{
    Comparison, Outcome, Row, baseline, baseline_cell, call_ratio, call_words, failing_step, first_line, has_calls,
    outcome, rows, times, totals, version_or_dash,
};
use crate::summary::ScenarioResult;
use std::fmt::Write as _;

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
