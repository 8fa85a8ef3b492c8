//! What the gate says on the terminal at its end: the metrics of all its runs with each
//! threshold's verdict and the scenarios to look at, whether it passed, and the closing line CI
//! reads.

use super::{Judgement, Metrics, Threshold, Verdict};
use crate::summary::ScenarioResult;
use navguard::adapter::BrowserKind;

/// The metrics of all the runs, each threshold against its limit, and the scenarios that
/// flaked, failed unexpectedly, now pass or did not apply; printed after the runs, its first
/// line blank.
pub fn summary(browser: BrowserKind, m: &Metrics, verdicts: &[Verdict], repeat: u32, reruns: usize) -> String {
    let again = match reruns {
        0 => String::new(),
        n => format!(" and {n} re-run(s) of what failed"),
    };
    let mut lines = vec![
        format!("\nnavguard gate: {browser}, {repeat} repeat(s){again}, {} scenarios, {} runs", m.scenarios, m.runs),
        m.lines(),
    ];
    for v in verdicts {
        let (name, value, limit) = (v.threshold.name(), v.measured, v.limit);
        lines
            .push(format!("  {name:<24} {value:>10.3}  limit {limit:>10.3}  {}", if v.held { "ok" } else { "MISSED" }));
    }
    for (label, list) in [
        ("flaky", &m.flaky),
        ("known deviation with mixed results", &m.flaky_known),
        ("unexpected failure", &m.unexpected_failures),
        ("expected failure now passing", &m.now_passing),
        ("not applicable (neither passed nor failed)", &m.not_applicable),
    ] {
        lines.extend(list.iter().map(|k| format!("  {label}: {k}")));
    }
    lines.join("\n")
}

/// Whether the gate passed, and if not, why.
pub fn outcome_line(parse_errors: usize, judgement: &Judgement, m: &Metrics) -> String {
    if parse_errors > 0 {
        return format!("gate: FAILED ({parse_errors} feature file(s) did not parse)");
    }
    if judgement.passed {
        return "gate: PASSED".to_owned();
    }
    let missed: Vec<&str> = judgement.missed().into_iter().map(Threshold::name).collect();
    format!(
        "gate: FAILED ({} missed thresholds: {}; {} unexpected failures)",
        missed.len(),
        missed.join(", "),
        m.unexpected_failures.len()
    )
}

/// The plain closing line CI reads: every run of every scenario counted.
pub fn closing_line(results: &[&ScenarioResult], m: &Metrics) -> String {
    let passed = results.iter().filter(|r| r.passed()).count();
    let failed = results.iter().filter(|r| r.failure.is_some()).count();
    match m.known_failed_runs {
        0 => format!("gate: {passed} passed, {failed} failed"),
        n => format!("gate: {passed} passed, {failed} failed ({n} of them known deviations)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_lists_each_verdict_and_each_scenario_to_look_at() {
        let m = Metrics { scenarios: 2, runs: 4, flaky: vec!["x.feature: a".into()], ..Metrics::default() };
        let verdicts = [Verdict { threshold: Threshold::MinPassRate, measured: 0.5, limit: 1.0, held: false }];
        let text = summary(BrowserKind::Firefox, &m, &verdicts, 2, 0);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[..2], ["", "navguard gate: firefox, 2 repeat(s), 2 scenarios, 4 runs"]);
        let again = summary(BrowserKind::Firefox, &m, &verdicts, 1, 1);
        assert!(again.starts_with("\nnavguard gate: firefox, 1 repeat(s) and 1 re-run(s) of what failed,"), "{again}");
        assert!(lines.contains(&"  min_pass_rate                 0.500  limit      1.000  MISSED"), "{text}");
        assert_eq!(lines.last(), Some(&"  flaky: x.feature: a"));
    }

    #[test]
    fn the_outcome_names_the_missed_thresholds_and_parse_errors_come_first() {
        let m = Metrics { unexpected_failures: vec!["x.feature: a".into()], ..Metrics::default() };
        let missed = Verdict { threshold: Threshold::MaxFlakeRate, measured: 0.5, limit: 0.0, held: false };
        let failed = Judgement { verdicts: vec![missed], passed: false };
        assert_eq!(
            outcome_line(0, &failed, &m),
            "gate: FAILED (1 missed thresholds: max_flake_rate; 1 unexpected failures)"
        );
        assert_eq!(outcome_line(2, &failed, &m), "gate: FAILED (2 feature file(s) did not parse)");
        let passed = Judgement { verdicts: vec![], passed: true };
        assert_eq!(outcome_line(0, &passed, &m), "gate: PASSED");
    }

    #[test]
    fn the_closing_line_counts_runs_and_says_how_many_failures_were_known() {
        let passed = ScenarioResult::sample("a");
        let failed = ScenarioResult { failure: Some("why".into()), ..ScenarioResult::sample("b") };
        let results = [&passed, &failed];
        assert_eq!(closing_line(&results, &Metrics::default()), "gate: 1 passed, 1 failed");
        let known = Metrics { known_failed_runs: 1, ..Metrics::default() };
        assert_eq!(closing_line(&results, &known), "gate: 1 passed, 1 failed (1 of them known deviations)");
    }
}
