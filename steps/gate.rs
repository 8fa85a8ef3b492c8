//! `navguard gate`: the suite, repeated, judged by metrics against checked-in thresholds, with
//! a per-browser expectations file of known deviations.

use crate::summary::{Expects, ScenarioResult};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The thresholds, from `gate/thresholds.txt`.
#[derive(Clone, Debug, PartialEq)]
pub struct Thresholds(pub BTreeMap<String, f64>);

/// Reads `name value` lines; a malformed line is an error naming it.
pub fn read_thresholds(path: &Path) -> Result<Thresholds, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut map = BTreeMap::new();
    for (n, line) in
        text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
    {
        let (name, value) = line
            .split_once(char::is_whitespace)
            .ok_or_else(|| format!("{}:{n}: expected `name value`", path.display()))?;
        let value =
            value.trim().parse::<f64>().map_err(|_| format!("{}:{n}: {value:?} is not a number", path.display()))?;
        if !KNOWN.contains(&name) {
            return Err(format!("{}:{n}: unknown threshold {name:?} (known: {})", path.display(), KNOWN.join(", ")));
        }
        map.insert(name.to_owned(), value);
    }
    Ok(Thresholds(map))
}

const KNOWN: [&str; 6] = [
    "min_pass_rate",
    "max_flake_rate",
    "max_false_stop_rate",
    "max_misjudgement_rate",
    "max_p95_scenario_ms",
    "max_p95_guard_wait_ms",
];

/// Reads the expected failures: `<feature file name>: <scenario name>` lines.
pub fn read_expectations(path: &Path) -> Result<BTreeSet<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned).collect())
}

/// A scenario's key in the expectations file.
pub fn key(result: &ScenarioResult) -> String {
    let file = Path::new(&result.feature_path)
        .file_name()
        .map_or_else(|| result.feature_path.clone(), |f| f.to_string_lossy().into_owned());
    format!("{file}: {}", result.scenario)
}

/// A stable 64-bit FNV-1a hash, for sharding by scenario name (the same on every machine).
pub fn stable_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Whether the scenario `name` belongs to shard `index` of `count` (1-based).
pub fn in_shard(name: &str, index: u64, count: u64) -> bool {
    stable_hash(name) % count == index - 1
}

fn percentile(mut values: Vec<f64>, p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[((p / 100.0) * (values.len() - 1) as f64).round() as usize]
}

fn rate(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

/// The gate's measurements over every run of every scenario.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Scenarios (distinct), runs (all repeats).
    pub scenarios: usize,
    /// Runs.
    pub runs: usize,
    /// Passed runs of scenarios not expected to fail, over those runs.
    pub pass_rate: f64,
    /// Scenarios that both passed and failed, over scenarios.
    pub flake_rate: f64,
    /// Runs expecting success whose task stopped as restricted or different origin.
    pub false_stop_rate: f64,
    /// Runs whose task's success contradicts what the scenario says.
    pub misjudgement_rate: f64,
    /// Scenario duration p50 / p95, ms.
    pub duration_ms: (f64, f64),
    /// Guard wait p50 / p95, ms (waits that happened).
    pub guard_wait_ms: (f64, f64),
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
}

impl Metrics {
    /// The rates and percentiles in two lines, as the terminal shows them.
    pub fn lines(&self) -> String {
        format!(
            "  pass {:.1}%  flake {:.1}%  false-stop {:.1}%  misjudgement {:.1}%\n  \
             scenario time p50 {:.0} ms, p95 {:.0} ms; guard wait p50 {:.0} ms, p95 {:.0} ms",
            self.pass_rate * 100.0,
            self.flake_rate * 100.0,
            self.false_stop_rate * 100.0,
            self.misjudgement_rate * 100.0,
            self.duration_ms.0,
            self.duration_ms.1,
            self.guard_wait_ms.0,
            self.guard_wait_ms.1
        )
    }
}

/// Computes the metrics of `results` (all repeats) given the expected failures.
pub fn measure<'a>(results: impl IntoIterator<Item = &'a ScenarioResult>, expected: &BTreeSet<String>) -> Metrics {
    let results: Vec<&ScenarioResult> = results.into_iter().collect();
    let mut by_key: BTreeMap<String, Vec<&ScenarioResult>> = BTreeMap::new();
    results.iter().for_each(|r| by_key.entry(key(r)).or_default().push(r));
    let mut m = Metrics { scenarios: by_key.len(), runs: results.len(), ..Metrics::default() };
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
    m.false_stop_rate =
        rate(expecting_success.iter().filter(|r| r.task_end.is_some_and(|e| e.1)).count(), expecting_success.len());
    let claimed: Vec<_> = judged.iter().filter(|r| r.expects != Expects::Nothing && r.task_end.is_some()).collect();
    let wrong =
        claimed.iter().filter(|r| r.task_end.is_some_and(|(ok, _)| ok != (r.expects == Expects::Success))).count();
    m.misjudgement_rate = rate(wrong, claimed.len());
    let durations: Vec<f64> = results.iter().map(|r| r.duration.as_secs_f64() * 1000.0).collect();
    m.duration_ms = (percentile(durations.clone(), 50.0), percentile(durations, 95.0));
    let waits: Vec<f64> = results.iter().flat_map(|r| r.guard_waits_ms.iter().map(|w| *w as f64)).collect();
    m.guard_wait_ms = (percentile(waits.clone(), 50.0), percentile(waits, 95.0));
    m
}

/// One threshold's verdict: its name, the measured value, the limit, whether it held.
pub type Verdict = (String, f64, f64, bool);

/// Each threshold with its measured value and whether it held.
pub fn judge(m: &Metrics, t: &Thresholds) -> Vec<Verdict> {
    t.0.iter()
        .map(|(name, limit)| {
            let value = match name.as_str() {
                "min_pass_rate" => m.pass_rate,
                "max_flake_rate" => m.flake_rate,
                "max_false_stop_rate" => m.false_stop_rate,
                "max_misjudgement_rate" => m.misjudgement_rate,
                "max_p95_scenario_ms" => m.duration_ms.1,
                _ => m.guard_wait_ms.1,
            };
            let held = if name.starts_with("min_") { value >= *limit } else { value <= *limit };
            (name.clone(), value, *limit, held)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn result(name: &str, passed: bool, expects: Expects, task_end: Option<(bool, bool)>) -> ScenarioResult {
        ScenarioResult {
            feature_path: "features/x.feature".into(),
            feature: "X".into(),
            scenario: name.into(),
            line: 1,
            failure: (!passed).then(|| "failed".into()),
            duration: Duration::from_millis(100),
            artifacts: None,
            race: None,
            expects,
            task_end,
            guard_waits_ms: vec![],
            timeline: Default::default(),
            steps: vec![],
        }
    }

    #[test]
    fn a_scenario_that_passed_and_failed_is_a_flake_and_an_unexpected_failure() {
        let runs = [result("a", true, Expects::Nothing, None), result("a", false, Expects::Nothing, None)];
        let m = measure(&runs, &BTreeSet::new());
        assert_eq!((m.flaky.len(), m.unexpected_failures.len(), m.pass_rate), (1, 1, 0.5));
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

    #[test]
    fn a_missed_threshold_is_named() {
        let m = Metrics { pass_rate: 0.9, ..Metrics::default() };
        let t = Thresholds(BTreeMap::from([("min_pass_rate".to_owned(), 1.0)]));
        assert_eq!(judge(&m, &t), vec![("min_pass_rate".to_owned(), 0.9, 1.0, false)]);
    }

    #[test]
    fn shards_split_every_name_exactly_once() {
        let names: Vec<String> = (0..50).map(|i| format!("scenario {i}")).collect();
        let counts: Vec<usize> = (1..=3).map(|i| names.iter().filter(|n| in_shard(n, i, 3)).count()).collect();
        assert_eq!(counts.iter().sum::<usize>(), 50);
        assert!(counts.iter().all(|c| *c > 0), "{counts:?}");
    }
}
