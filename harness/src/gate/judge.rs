//! The one place the gate passes or fails: each threshold `gate/thresholds.txt` sets, against
//! what was measured.

use super::Metrics;
use std::collections::BTreeMap;

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

    #[test]
    fn a_missed_threshold_is_named() {
        let m = Metrics { pass_rate: 0.9, ..Metrics::default() };
        let t = Thresholds(BTreeMap::from([(Threshold::MinPassRate, 1.0)]));
        let missed = Verdict { threshold: Threshold::MinPassRate, measured: 0.9, limit: 1.0, held: false };
        assert_eq!(judge(&m, &t).verdicts, vec![missed]);
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
}
