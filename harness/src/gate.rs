//! `navguard gate`: the suite, repeated, judged by metrics against checked-in thresholds, with
//! a per-browser expectations file of known deviations.

use crate::builtin::Source;
use crate::summary::{Expects, ScenarioResult, TaskEnd};
use std::collections::{BTreeMap, BTreeSet};
use std::num::{ParseFloatError, ParseIntError};
use std::path::{Path, PathBuf};
use std::str::FromStr;

navguard::closed_set! {
    /// A threshold `gate/thresholds.txt` may set, by the name it is written with there.
    pub enum Threshold("threshold") {
        MinPassRate = "min_pass_rate",
        MaxFlakeRate = "max_flake_rate",
        MaxFalseStopRate = "max_false_stop_rate",
        MaxMisjudgementRate = "max_misjudgement_rate",
        MaxP95ScenarioMs = "max_p95_scenario_ms",
        MaxP95GuardWaitMs = "max_p95_guard_wait_ms",
        MinVerifiedDoneRate = "min_verified_done_rate",
        MaxFalseDoneRate = "max_false_done_rate",
        MaxP95Repairs = "max_p95_repairs",
    }
}

impl Threshold {
    fn measured(self, m: &Metrics) -> f64 {
        match self {
            Self::MinPassRate => m.pass_rate,
            Self::MaxFlakeRate => m.flake_rate,
            Self::MaxFalseStopRate => m.false_stop_rate,
            Self::MaxMisjudgementRate => m.misjudgement_rate,
            Self::MaxP95ScenarioMs => m.duration_ms.p95,
            Self::MaxP95GuardWaitMs => m.guard_wait_ms.p95,
            Self::MinVerifiedDoneRate => m.verified_done_rate,
            Self::MaxFalseDoneRate => m.false_done_rate,
            Self::MaxP95Repairs => m.repairs.p95,
        }
    }

    fn holds(self, value: f64, limit: f64) -> bool {
        match self {
            Self::MinPassRate | Self::MinVerifiedDoneRate => value >= limit,
            Self::MaxFlakeRate
            | Self::MaxFalseStopRate
            | Self::MaxMisjudgementRate
            | Self::MaxP95ScenarioMs
            | Self::MaxP95GuardWaitMs
            | Self::MaxFalseDoneRate
            | Self::MaxP95Repairs => value <= limit,
        }
    }
}

/// The thresholds `gate/thresholds.txt` sets, each with its limit; one it does not set is not
/// judged.
#[derive(Clone, Debug, PartialEq)]
pub struct Thresholds(pub BTreeMap<Threshold, f64>);

/// Why a gate file (the thresholds or an expectations file) cannot be used. Each message names
/// the file, and the line when one line is at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GateFileError {
    #[error("{}: {source}", .path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: expected `name value`", .path.display())]
    NoValue { path: PathBuf, line: usize },
    #[error("{}:{line}: {value:?} is not a number", .path.display())]
    NotANumber {
        path: PathBuf,
        line: usize,
        value: String,
        #[source]
        source: ParseFloatError,
    },
    #[error("{}:{line}: unknown threshold {name:?} (known: {})", .path.display(), Threshold::list())]
    UnknownThreshold { path: PathBuf, line: usize, name: String },
    #[error("{}:{line}: a known failure needs its reason: write it after ` # ` on the line, or as a comment just above", .path.display())]
    NoReason { path: PathBuf, line: usize },
}

fn read(file: &Source) -> Result<std::borrow::Cow<'static, str>, GateFileError> {
    file.read().map_err(|source| GateFileError::Unreadable { path: file.label(), source })
}

/// Reads `name value` lines; a malformed line or an unknown name is an error naming the line.
pub fn read_thresholds(file: &Source) -> Result<Thresholds, GateFileError> {
    parse_thresholds(&read(file)?, &file.label())
}

fn parse_thresholds(text: &str, path: &Path) -> Result<Thresholds, GateFileError> {
    let mut map = BTreeMap::new();
    for (line, text) in
        text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
    {
        let (name, value) = text
            .split_once(char::is_whitespace)
            .ok_or_else(|| GateFileError::NoValue { path: path.to_owned(), line })?;
        let limit = value.trim().parse::<f64>().map_err(|source| GateFileError::NotANumber {
            path: path.to_owned(),
            line,
            value: value.to_owned(),
            source,
        })?;
        let threshold = name.parse::<Threshold>().map_err(|_| GateFileError::UnknownThreshold {
            path: path.to_owned(),
            line,
            name: name.to_owned(),
        })?;
        map.insert(threshold, limit);
    }
    Ok(Thresholds(map))
}

/// Reads the expected failures: `<feature file name>: <scenario name>` lines.
pub fn read_expectations(file: &Source) -> Result<BTreeSet<String>, GateFileError> {
    Ok(read_known_failures(file, false)?.into_keys().collect())
}

/// Reads the expected failures with their reasons: each `<feature file name>: <scenario name>`
/// line's reason is what follows ` # ` on it, else the comment lines just above it (a blank
/// line ends a comment). With `need_reason` (an agent's file), an entry without one is an error
/// naming its line.
pub fn read_known_failures(file: &Source, need_reason: bool) -> Result<BTreeMap<String, String>, GateFileError> {
    parse_known_failures(&read(file)?, &file.label(), need_reason)
}

fn parse_known_failures(text: &str, path: &Path, need_reason: bool) -> Result<BTreeMap<String, String>, GateFileError> {
    let mut known = BTreeMap::new();
    let mut comment: Vec<&str> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            comment.clear();
        } else if let Some(words) = line.strip_prefix('#') {
            comment.push(words.trim());
        } else {
            let (key, reason) = match line.split_once(" # ") {
                Some((key, reason)) => (key.trim(), reason.trim().to_owned()),
                None => (line, comment.join(" ")),
            };
            if need_reason && reason.is_empty() {
                return Err(GateFileError::NoReason { path: path.to_owned(), line: n + 1 });
            }
            known.insert(key.to_owned(), reason);
        }
    }
    Ok(known)
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

/// Shard `index` of `count` (1-based, `1 <= index <= count`), written `i/n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

impl Shard {
    pub fn index(self) -> u64 {
        self.index
    }

    pub fn count(self) -> u64 {
        self.count
    }

    /// Whether the scenario `name` belongs to this shard, by a stable hash of the name.
    pub fn contains(self, name: &str) -> bool {
        stable_hash(name) % self.count == self.index - 1
    }
}

/// A `--shard` that is not `i/n` with `1 <= i <= n`.
#[derive(Debug, thiserror::Error)]
#[error("{text:?} is not a shard i/n with 1 <= i <= n")]
#[non_exhaustive]
pub struct ShardError {
    pub text: String,
    /// Why a number did not parse, if that was it.
    #[source]
    pub source: Option<ParseIntError>,
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Self, ShardError> {
        let bad = |source| ShardError { text: text.to_owned(), source };
        let (index, count) = text.split_once('/').ok_or_else(|| bad(None))?;
        let number = |n: &str| n.parse::<u64>().map_err(|e| bad(Some(e)));
        let (index, count) = (number(index)?, number(count)?);
        match count >= 1 && (1..=count).contains(&index) {
            true => Ok(Self { index, count }),
            false => Err(bad(None)),
        }
    }
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
    let durations: Vec<f64> = results.iter().map(|r| r.duration.as_secs_f64() * 1000.0).collect();
    m.duration_ms = Percentiles::of(durations);
    let waits: Vec<f64> = results.iter().flat_map(|r| r.guard_waits_ms.iter().map(|w| *w as f64)).collect();
    m.guard_wait_ms = Percentiles::of(waits);
    m
}

/// One threshold against its measured value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub threshold: Threshold,
    pub measured: f64,
    pub limit: f64,
    pub held: bool,
}

/// What the gate decided, and from what.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// Each threshold the file sets, by name.
    pub verdicts: Vec<Verdict>,
    /// Something ran, every threshold held and no scenario failed unexpectedly.
    pub passed: bool,
}

impl Judgement {
    /// The thresholds that did not hold.
    pub fn missed(&self) -> Vec<Threshold> {
        self.verdicts.iter().filter(|v| !v.held).map(|v| v.threshold).collect()
    }
}

/// Judges the metrics against the thresholds: the one place the gate passes or fails.
pub fn judge(m: &Metrics, t: &Thresholds) -> Judgement {
    let mut verdicts: Vec<Verdict> =
        t.0.iter()
            .map(|(&threshold, &limit)| {
                let measured = threshold.measured(m);
                Verdict { threshold, measured, limit, held: threshold.holds(measured, limit) }
            })
            .collect();
    // By name, as the terminal and the report list them.
    verdicts.sort_by_key(|v| v.threshold.name());
    let passed = m.runs > 0 && verdicts.iter().all(|v| v.held) && m.unexpected_failures.is_empty();
    Judgement { verdicts, passed }
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
    fn a_known_failure_reads_its_reason_from_its_line_or_the_comment_above() {
        let text =
            "# header\n\n# stays on the old page\na.feature: one\nb.feature: two # no answer\n\nc.feature: three\n";
        let known = parse_known_failures(text, Path::new("x.txt"), false).unwrap();
        assert_eq!(known["a.feature: one"], "stays on the old page");
        assert_eq!(known["b.feature: two"], "no answer");
        assert_eq!(known["c.feature: three"], "");
        let e = parse_known_failures(text, Path::new("x.txt"), true).unwrap_err().to_string();
        assert!(e.contains("x.txt:7") && e.contains("reason"), "{e}");
    }

    #[test]
    fn a_missed_threshold_is_named() {
        let m = Metrics { pass_rate: 0.9, ..Metrics::default() };
        let t = Thresholds(BTreeMap::from([(Threshold::MinPassRate, 1.0)]));
        let missed = Verdict { threshold: Threshold::MinPassRate, measured: 0.9, limit: 1.0, held: false };
        assert_eq!(judge(&m, &t).verdicts, vec![missed]);
    }

    #[test]
    fn an_unknown_threshold_is_an_error_naming_it_and_its_line() {
        let text = "# comment\nmin_pass_rate 1.0\nmax_speed 3\n";
        let err = parse_thresholds(text, Path::new("gate/thresholds.txt")).unwrap_err();
        assert!(matches!(err, GateFileError::UnknownThreshold { line: 3, .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "gate/thresholds.txt:3: unknown threshold \"max_speed\" (known: min_pass_rate, max_flake_rate, \
             max_false_stop_rate, max_misjudgement_rate, max_p95_scenario_ms, max_p95_guard_wait_ms, \
             min_verified_done_rate, max_false_done_rate, max_p95_repairs)"
        );
    }

    #[test]
    fn the_built_in_thresholds_and_known_failures_parse() {
        let thresholds = Source::BuiltIn(crate::builtin::THRESHOLDS);
        assert_eq!(read_thresholds(&thresholds).unwrap().0.len(), Threshold::ALL.len());
        for agent in ["playwright-mcp", "chrome-devtools-mcp"] {
            let file = crate::builtin::file(&format!("gate/expectations/agent-{agent}.txt")).unwrap();
            assert!(!read_known_failures(&Source::BuiltIn(file), true).unwrap().is_empty(), "{agent}");
        }
    }

    #[test]
    fn verdicts_are_listed_by_name_and_the_gate_passes_only_if_all_held() {
        let m = Metrics { runs: 1, pass_rate: 1.0, ..Metrics::default() };
        let t = Thresholds(
            Threshold::ALL.iter().map(|t| (*t, if *t == Threshold::MinPassRate { 1.0 } else { 0.0 })).collect(),
        );
        let judgement = judge(&m, &t);
        let names: Vec<&str> = judgement.verdicts.iter().map(|v| v.threshold.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!((names, judgement.passed), (sorted, true));
        let failing = Metrics { flake_rate: 0.1, ..m };
        assert_eq!(judge(&failing, &t).missed(), vec![Threshold::MaxFlakeRate]);
    }

    #[test]
    fn shards_split_every_name_exactly_once() {
        let names: Vec<String> = (0..50).map(|i| format!("scenario {i}")).collect();
        let shards = ["1/3", "2/3", "3/3"].map(|s| s.parse::<Shard>().unwrap());
        let counts: Vec<usize> = shards.iter().map(|s| names.iter().filter(|n| s.contains(n)).count()).collect();
        assert_eq!(counts.iter().sum::<usize>(), 50);
        assert!(counts.iter().all(|c| *c > 0), "{counts:?}");
    }

    #[test]
    fn a_shard_is_i_of_n_with_i_from_1_to_n() {
        let shard = "2/3".parse::<Shard>().unwrap();
        assert_eq!((shard.index(), shard.count()), (2, 3));
        for bad in ["0/2", "3/2", "1/0", "2", "a/2", "1/-1"] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert_eq!(err.to_string(), format!("{bad:?} is not a shard i/n with 1 <= i <= n"));
        }
        assert!(std::error::Error::source(&"a/2".parse::<Shard>().unwrap_err()).is_some());
    }
}
