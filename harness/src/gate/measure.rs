//! The gate's measurements over every run of every scenario: pass, flake, false-stop and
//! misjudgement rates, and the percentiles of scenario time, guard wait and repairs.

use crate::summary::{Expects, ScenarioResult, TaskEnd};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A scenario's key in the expectations file.
pub fn key(result: &ScenarioResult) -> String {
    let file = Path::new(&result.feature_path)
        .file_name()
        .map_or_else(|| result.feature_path.clone(), |f| f.to_string_lossy().into_owned());
    format!("{file}: {}", result.scenario)
}

/// The median and the 95th percentile of a set of values (0 for none).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Percentiles {
    pub p50: f64,
    pub p95: f64,
}

impl Percentiles {
    fn of(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        Self { p50: percentile(&values, 50.0), p95: percentile(&values, 95.0) }
    }
}

/// The nearest-rank percentile `p` of sorted `values`.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((p / 100.0) * (sorted.len() - 1) as f64).round() as usize]
}

fn rate(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

/// The gate's measurements over every run of every scenario.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Distinct scenarios; `runs` counts every repeat.
    pub scenarios: usize,
    pub runs: usize,
    /// Passed runs of scenarios not expected to fail, over those runs.
    pub pass_rate: f64,
    /// Scenarios that both passed and failed, over scenarios.
    pub flake_rate: f64,
    /// Runs expecting success whose task stopped as restricted or different origin.
    pub false_stop_rate: f64,
    /// Runs whose task's success contradicts what the scenario says.
    pub misjudgement_rate: f64,
    /// Scenario duration, ms.
    pub duration_ms: Percentiles,
    /// Guard wait, ms (waits that happened).
    pub guard_wait_ms: Percentiles,
    /// Tasks that ended done with their verification passed, over tasks that ended done.
    pub verified_done_rate: f64,
    /// Tasks that ended done where the scenario says they should stop, over tasks that ended
    /// done.
    pub false_done_rate: f64,
    /// Repair rounds per task.
    pub repairs: Percentiles,
    /// Failed, not expected to fail.
    pub unexpected_failures: Vec<String>,
    /// Expected to fail, passed every time.
    pub now_passing: Vec<String>,
    /// Both passed and failed.
    pub flaky: Vec<String>,
    /// Known deviations that both passed and failed: the browser is not deterministic there.
    /// Reported, not counted: the expectations file already takes them out of judgement.
    pub flaky_known: Vec<String>,
    /// Failed runs of known deviations.
    pub known_failed_runs: usize,
    /// Scenarios that do not apply to the agent under test (a tool it has no counterpart for).
    pub not_applicable: Vec<String>,
}

impl Metrics {
    /// The rates and percentiles in two lines, as the terminal shows them.
    pub fn lines(&self) -> String {
        format!(
            "  pass {:.1}%  flake {:.1}%  false-stop {:.1}%  misjudgement {:.1}%\n  \
             scenario time p50 {:.0} ms, p95 {:.0} ms; guard wait p50 {:.0} ms, p95 {:.0} ms\n  \
             verified done {:.1}%  false done {:.1}%  repairs per task p50 {:.0}, p95 {:.0}",
            self.pass_rate * 100.0,
            self.flake_rate * 100.0,
            self.false_stop_rate * 100.0,
            self.misjudgement_rate * 100.0,
            self.duration_ms.p50,
            self.duration_ms.p95,
            self.guard_wait_ms.p50,
            self.guard_wait_ms.p95,
            self.verified_done_rate * 100.0,
            self.false_done_rate * 100.0,
            self.repairs.p50,
            self.repairs.p95
        )
    }
}

/// Computes the metrics of `results` (all repeats) given the expected failures.
pub fn measure<'a>(results: impl IntoIterator<Item = &'a ScenarioResult>, expected: &BTreeSet<String>) -> Metrics {
    let (results, not_applicable): (Vec<&ScenarioResult>, Vec<&ScenarioResult>) =
        results.into_iter().partition(|r| r.not_applicable.is_none());
    let mut by_key: BTreeMap<String, Vec<&ScenarioResult>> = BTreeMap::new();
    results.iter().for_each(|r| by_key.entry(key(r)).or_default().push(r));
    let mut m = Metrics { scenarios: by_key.len(), runs: results.len(), ..Metrics::default() };
    // Neither passed nor failed: listed, never judged.
    m.not_applicable = not_applicable.iter().map(|r| key(r)).collect::<BTreeSet<_>>().into_iter().collect();
    for (k, runs) in &by_key {
        let passed = runs.iter().filter(|r| r.failure.is_none()).count();
        if expected.contains(k) {
            m.known_failed_runs += runs.len() - passed;
        }
        if passed > 0 && passed < runs.len() {
            match expected.contains(k) {
                true => m.flaky_known.push(k.clone()),
                false => m.flaky.push(k.clone()),
            }
        }
        match (expected.contains(k), passed) {
            (false, p) if p < runs.len() => m.unexpected_failures.push(k.clone()),
            (true, p) if p == runs.len() => m.now_passing.push(k.clone()),
            _ => {}
        }
    }
    let judged: Vec<&ScenarioResult> =
        by_key.iter().filter(|(k, _)| !expected.contains(*k)).flat_map(|(_, runs)| runs.iter().copied()).collect();
    // Nothing left to judge (every run an expected deviation) passes vacuously.
    m.pass_rate =
        if judged.is_empty() { 1.0 } else { rate(judged.iter().filter(|r| r.failure.is_none()).count(), judged.len()) };
    m.flake_rate = rate(m.flaky.len(), m.scenarios);
    // A known deviation is judged by the expectations file, not by the task-end rates.
    let expecting_success: Vec<_> =
        judged.iter().filter(|r| r.expects == Expects::Success && r.task_end.is_some()).collect();
    let false_stops = expecting_success.iter().filter(|r| r.task_end.is_some_and(|e| e.restricted_or_cross_origin));
    m.false_stop_rate = rate(false_stops.count(), expecting_success.len());
    let claimed: Vec<_> = judged.iter().filter(|r| r.expects != Expects::Nothing && r.task_end.is_some()).collect();
    let wrong =
        claimed.iter().filter(|r| r.task_end.is_some_and(|e| e.succeeded != (r.expects == Expects::Success))).count();
    m.misjudgement_rate = rate(wrong, claimed.len());
    let ended: Vec<TaskEnd> = judged.iter().filter_map(|r| r.task_end).collect();
    let done: Vec<&&ScenarioResult> = judged.iter().filter(|r| r.task_end.is_some_and(|e| e.succeeded)).collect();
    // No done at all verifies vacuously: nothing was claimed.
    m.verified_done_rate = if done.is_empty() {
        1.0
    } else {
        rate(done.iter().filter(|r| r.task_end.is_some_and(|e| e.verified)).count(), done.len())
    };
    m.false_done_rate = rate(done.iter().filter(|r| r.expects == Expects::Stop).count(), done.len());
    m.repairs = Percentiles::of(ended.iter().map(|e| e.repairs as f64).collect());
    // A known deviation's failed run is judged by its expectations entry, its time included
    // (an agent's call that waited out the harness's deadline is such a failure): it does not
    // count again in the scenario times. Its runs that pass do.
    let durations: Vec<f64> = results
        .iter()
        .filter(|r| r.failure.is_none() || !expected.contains(&key(r)))
        .map(|r| r.duration.as_secs_f64() * 1000.0)
        .collect();
    m.duration_ms = Percentiles::of(durations);
    let waits: Vec<f64> = results.iter().flat_map(|r| r.guard_waits_ms.iter().map(|w| *w as f64)).collect();
    m.guard_wait_ms = Percentiles::of(waits);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, passed: bool, expects: Expects, task_end: Option<(bool, bool)>) -> ScenarioResult {
        let task_end = task_end.map(|(succeeded, restricted_or_cross_origin)| TaskEnd {
            succeeded,
            restricted_or_cross_origin,
            verified: false,
            repairs: 0,
        });
        ScenarioResult {
            failure: (!passed).then(|| "failed".into()),
            not_applicable: None,
            calls: vec![],
            expects,
            task_end,
            ..ScenarioResult::sample(name)
        }
    }

    #[test]
    fn a_scenario_that_passed_and_failed_is_a_flake_and_an_unexpected_failure() {
        let runs = [result("a", true, Expects::Nothing, None), result("a", false, Expects::Nothing, None)];
        let m = measure(&runs, &BTreeSet::new());
        assert_eq!((m.flaky.len(), m.unexpected_failures.len(), m.pass_rate), (1, 1, 0.5));
    }

    #[test]
    fn a_known_deviation_s_failed_run_does_not_count_in_the_scenario_times() {
        let timed = |name: &str, passed: bool, ms: u64| ScenarioResult {
            duration: std::time::Duration::from_millis(ms),
            ..result(name, passed, Expects::Nothing, None)
        };
        let expected = BTreeSet::from(["x.feature: slow".to_owned()]);
        let runs = [timed("slow", false, 31_000), timed("slow", true, 900), timed("a", true, 1_000)];
        let m = measure(&runs, &expected);
        assert!(m.duration_ms.p95 <= 1_000.0, "{:?}", m.duration_ms);
        // An unexpected failure's time still counts.
        let m = measure(&[timed("b", false, 31_000), timed("a", true, 1_000)], &expected);
        assert!(m.duration_ms.p95 > 30_000.0, "{:?}", m.duration_ms);
    }

    #[test]
    fn an_expected_failure_that_passes_is_reported_and_not_counted() {
        let expected = BTreeSet::from(["x.feature: a".to_owned()]);
        let m = measure(&[result("a", true, Expects::Nothing, None)], &expected);
        assert_eq!((m.now_passing.len(), m.unexpected_failures.len()), (1, 0));
    }

    #[test]
    fn false_stops_and_misjudgements_are_counted_from_what_the_scenario_says() {
        let runs = [
            result("ok", true, Expects::Success, Some((true, false))),
            result("false stop", false, Expects::Success, Some((false, true))),
            result("done but should stop", false, Expects::Stop, Some((true, false))),
            result("stopped as it should", true, Expects::Stop, Some((false, true))),
        ];
        let m = measure(&runs, &BTreeSet::new());
        assert_eq!(m.false_stop_rate, 0.5);
        assert_eq!(m.misjudgement_rate, 0.5);
    }

    #[test]
    fn a_known_deviation_does_not_count_as_a_misjudgement() {
        let expected = BTreeSet::from(["x.feature: race".to_owned()]);
        let runs = [
            result("race", false, Expects::Stop, Some((true, false))),
            result("ok", true, Expects::Success, Some((true, false))),
        ];
        let m = measure(&runs, &expected);
        assert_eq!((m.misjudgement_rate, m.pass_rate, m.unexpected_failures.len()), (0.0, 1.0, 0));
    }

    #[test]
    fn a_known_deviation_with_mixed_results_is_reported_not_counted_as_a_flake() {
        let expected = BTreeSet::from(["x.feature: quirk".to_owned()]);
        let runs = [result("quirk", true, Expects::Nothing, None), result("quirk", false, Expects::Nothing, None)];
        let m = measure(&runs, &expected);
        assert_eq!((m.flake_rate, m.flaky_known.len(), m.now_passing.len()), (0.0, 1, 0));
    }
}
