//! What the terminal says of a run's scenarios: each one's line as it ends, the failures in full,
//! the files that did not parse, the scenarios that did not apply, and the per-feature table.

use super::{Counts, ScenarioResult};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

navguard::closed_set! {
    /// How a scenario ended, as its line on the terminal says it.
    pub enum Status("scenario status") {
        Passed = "ok",
        Failed = "FAIL",
        /// Failed, as the gate expects it to: a known deviation of the browser or the agent.
        KnownFailure = "xfail",
        /// Neither passed nor failed: it calls a tool the agent under test has no counterpart for.
        NotApplicable = "n/a",
    }
}

impl Status {
    /// `result`'s status; `known` holds the keys ([`crate::gate::key`]) of the failures the gate
    /// expects.
    pub fn of(result: &ScenarioResult, known: &BTreeSet<String>) -> Self {
        match (&result.failure, &result.not_applicable) {
            (Some(_), _) if known.contains(&crate::gate::key(result)) => Self::KnownFailure,
            (Some(_), _) => Self::Failed,
            (None, Some(_)) => Self::NotApplicable,
            (None, None) => Self::Passed,
        }
    }
}

/// A scenario's one line as it ends: its status, its time, where it is and its name.
pub fn line(result: &ScenarioResult, known: &BTreeSet<String>) -> String {
    format!(
        "{:<5} {:>6.1} s  {}:{}  {}",
        Status::of(result, known).name(),
        result.duration.as_secs_f64(),
        result.feature_path,
        result.line,
        result.scenario
    )
}

/// Prints each failure in full: where the scenario is, its first failing step, its error and its
/// artifacts. Known failures (`known`) are left out unless `with_known`: the gate expects them,
/// and the report holds them; one line counts them.
pub fn print_failures(results: &[ScenarioResult], known: &BTreeSet<String>, with_known: bool) {
    let mut left_out = 0;
    for r in results.iter().filter(|r| r.failure.is_some()) {
        if !with_known && Status::of(r, known) == Status::KnownFailure {
            left_out += 1;
            continue;
        }
        println!("\nFAILED {}:{}  {}", r.feature_path, r.line, r.scenario);
        if let Some(step) = r.first_failing_step() {
            println!("  at line {}: {} {} ({})", step.line, step.keyword, step.text, step.status.name());
        }
        println!("  {}", r.failure.as_deref().unwrap_or_default().replace('\n', "\n  "));
        if let Some(dir) = &r.artifacts {
            println!("  artifacts: {}", dir.display());
        }
    }
    if left_out > 0 {
        println!("\n{left_out} known deviation(s) failed as expected (xfail above); the report has each failure");
    }
}

/// Prints the feature files that did not parse, each with why.
pub fn print_parse_failures(failures: &[crate::report::ParseFailure]) {
    for failure in failures {
        let path = failure.path.as_deref().unwrap_or("a feature file");
        println!("\nDID NOT PARSE {path}");
        println!("  {}", failure.message.replace('\n', "\n  "));
        println!("  (`navguard validate {path}` says where)");
    }
}

/// Prints the scenarios that did not apply, each with why.
pub fn print_not_applicable(results: &[ScenarioResult]) {
    for r in results.iter().filter(|r| r.failure.is_none()) {
        if let Some(why) = &r.not_applicable {
            println!("\nNOT APPLICABLE {}:{}  {}\n  {why}", r.feature_path, r.line, r.scenario);
        }
    }
}

/// Prints the per-feature table: passed, failed and scenario time of each feature file.
pub fn print_per_feature(results: &[ScenarioResult]) {
    let mut by_feature: BTreeMap<&str, (Counts, Duration, &str)> = BTreeMap::new();
    for r in results {
        let entry = by_feature.entry(&r.feature_path).or_insert((Counts::default(), Duration::ZERO, &r.feature));
        match (&r.failure, &r.not_applicable) {
            (Some(_), _) => entry.0.failed += 1,
            (None, Some(_)) => entry.0.not_applicable += 1,
            (None, None) => entry.0.passed += 1,
        }
        entry.1 += r.duration;
    }
    println!("\nnavguard: per feature (passed, failed, scenario time)");
    for (path, (counts, time, name)) in &by_feature {
        let na = match counts.not_applicable {
            0 => String::new(),
            n => format!(", {n} not applicable"),
        };
        println!(
            "  {:>3} passed {:>3} failed {:>7.1} s  {path}  ({name}){na}",
            counts.passed,
            counts.failed,
            time.as_secs_f64()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_s_line_says_its_status_time_place_and_name() {
        let known = BTreeSet::from(["x.feature: known".to_owned()]);
        let at = |name: &str| ScenarioResult {
            line: 12,
            duration: Duration::from_millis(1234),
            ..ScenarioResult::sample(name)
        };
        let failed = |name: &str| ScenarioResult { failure: Some("why".into()), ..at(name) };
        assert_eq!(line(&at("fine"), &known), "ok       1.2 s  features/x.feature:12  fine");
        assert_eq!(line(&failed("broken"), &known), "FAIL     1.2 s  features/x.feature:12  broken");
        assert_eq!(line(&failed("known"), &known), "xfail    1.2 s  features/x.feature:12  known");
        let skipped = ScenarioResult { not_applicable: Some("no tool".into()), ..at("skipped") };
        assert_eq!(line(&skipped, &known), "n/a      1.2 s  features/x.feature:12  skipped");
    }
}
