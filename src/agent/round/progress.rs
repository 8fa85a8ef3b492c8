//! no_progress (docs/design/closed-loop.md): the same action on an unchanged page, or a page that swings between
//! two states, is an agent going nowhere. A pure detector over the actions' signatures, so it
//! is tested without a browser.

use crate::agent::tools::ToolName;
use serde::Serialize;

/// One action as the detector sees it: which tool, on what, on which page state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(in crate::agent) struct Signature {
    pub tool: ToolName,
    /// The action's target and arguments, canonical (the same call gives the same text).
    pub target: String,
    /// A digest of the page the action was decided on (URL, title, text, elements).
    pub page: u64,
}

/// When to warn and when to stop (the contract's numbers are the defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Thresholds {
    /// A repeat warns at this occurrence, and at each one after it until the stop.
    pub warn_repeats: usize,
    pub stop_repeats: usize,
    /// An A-B-A-B swing warns when this many cycles have completed.
    pub warn_cycles: usize,
    pub stop_cycles: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self { warn_repeats: 3, stop_repeats: 5, warn_cycles: 2, stop_cycles: 3 }
    }
}

/// What the detector saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "pattern", rename_all = "kebab-case")]
pub enum Pattern {
    /// The same action on the same page, `times` times.
    Repeat { tool: ToolName, target: String, times: usize },
    /// Two actions swinging the page between two states, `cycles` times.
    Oscillation { cycles: usize },
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Repeat { tool, target, times } => {
                write!(f, "{tool} {target} ran {times} times on a page that did not change")
            }
            Self::Oscillation { cycles } => {
                write!(f, "the last actions swung the page back and forth between two states {cycles} times")
            }
        }
    }
}

/// The detector's answer for one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::agent) enum Progress {
    Fine,
    /// Tell the model; the task goes on.
    Warn(Pattern),
    /// Stop the task: `No progress, agent stopped`.
    Stop(Pattern),
}

/// The detector: the task's actions so far.
#[derive(Clone, Debug, Default)]
pub(in crate::agent) struct ProgressDetector {
    thresholds: Thresholds,
    history: Vec<Signature>,
}

impl ProgressDetector {
    /// Records an action and judges the history it completes.
    pub(in crate::agent) fn record(&mut self, signature: Signature) -> Progress {
        self.history.push(signature);
        let t = self.thresholds;
        let cycles = self.cycles();
        if cycles >= t.stop_cycles {
            return Progress::Stop(Pattern::Oscillation { cycles });
        }
        let repeat = self.repeat();
        if let Some(pattern @ Pattern::Repeat { times, .. }) = &repeat
            && *times >= t.stop_repeats
        {
            return Progress::Stop(pattern.clone());
        }
        if cycles >= t.warn_cycles {
            return Progress::Warn(Pattern::Oscillation { cycles });
        }
        match repeat {
            Some(pattern @ Pattern::Repeat { times, .. }) if times >= t.warn_repeats => Progress::Warn(pattern),
            _ => Progress::Fine,
        }
    }

    /// How often the last action ran, each time on the page it left unchanged: the count runs
    /// back through identical signatures, skipping only actions on the same page state (an
    /// action in between that changed nothing does not break the repeat).
    fn repeat(&self) -> Option<Pattern> {
        let last = self.history.last()?;
        let times = self
            .history
            .iter()
            .rev()
            .take_while(|s| s.page == last.page)
            .filter(|s| s.tool == last.tool && s.target == last.target)
            .count();
        Some(Pattern::Repeat { tool: last.tool, target: last.target.clone(), times })
    }

    /// Completed A-B cycles at the end of the history: the last actions alternate between two
    /// signatures on two different page states.
    fn cycles(&self) -> usize {
        let h = &self.history;
        let n = h.len();
        if n < 4 {
            return 0;
        }
        let (a, b) = (&h[n - 2], &h[n - 1]);
        if a == b || a.page == b.page {
            return 0;
        }
        let swing = h.iter().rev().enumerate().take_while(|(i, s)| *s == if i % 2 == 0 { b } else { a }).count();
        swing / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn click(target: &str, page: u64) -> Signature {
        Signature { tool: ToolName::Click, target: target.into(), page }
    }

    fn run(detector: &mut ProgressDetector, actions: &[Signature]) -> Vec<Progress> {
        actions.iter().cloned().map(|a| detector.record(a)).collect()
    }

    #[test]
    fn a_repeat_on_an_unchanged_page_warns_at_the_third_and_stops_at_the_fifth() {
        let mut d = ProgressDetector::default();
        let verdicts = run(&mut d, &vec![click("#noop", 1); 5]);
        let repeat = |times| Pattern::Repeat { tool: ToolName::Click, target: "#noop".into(), times };
        assert_eq!(
            verdicts,
            [
                Progress::Fine,
                Progress::Fine,
                Progress::Warn(repeat(3)),
                Progress::Warn(repeat(4)),
                Progress::Stop(repeat(5))
            ]
        );
    }

    #[test]
    fn an_action_that_changes_the_page_each_time_is_progress() {
        let mut d = ProgressDetector::default();
        let counting: Vec<Signature> = (0..10).map(|n| click("#inc", n)).collect();
        assert!(run(&mut d, &counting).iter().all(|v| *v == Progress::Fine));
    }

    #[test]
    fn an_a_b_a_b_swing_warns_when_the_second_cycle_completes_and_stops_at_the_third() {
        let mut d = ProgressDetector::default();
        let swing = [
            click("#one", 1),
            click("#two", 2),
            click("#one", 1),
            click("#two", 2),
            click("#one", 1),
            click("#two", 2),
        ];
        let verdicts = run(&mut d, &swing);
        assert_eq!(verdicts[..3], [Progress::Fine, Progress::Fine, Progress::Fine]);
        assert_eq!(verdicts[3], Progress::Warn(Pattern::Oscillation { cycles: 2 }));
        assert_eq!(verdicts[4], Progress::Warn(Pattern::Oscillation { cycles: 2 }));
        assert_eq!(verdicts[5], Progress::Stop(Pattern::Oscillation { cycles: 3 }));
    }

    #[test]
    fn a_different_action_in_between_on_the_same_page_does_not_reset_a_repeat() {
        let mut d = ProgressDetector::default();
        let verdicts = run(&mut d, &[click("#noop", 1), click("#other", 1), click("#noop", 1), click("#noop", 1)]);
        assert!(matches!(verdicts[3], Progress::Warn(Pattern::Repeat { times: 3, .. })), "{verdicts:?}");
    }

    #[test]
    fn a_page_change_resets_the_repeat_count() {
        let mut d = ProgressDetector::default();
        let verdicts = run(&mut d, &[click("#x", 1), click("#x", 1), click("#x", 2), click("#x", 2), click("#x", 3)]);
        assert!(verdicts.iter().all(|v| *v == Progress::Fine), "{verdicts:?}");
    }
}
