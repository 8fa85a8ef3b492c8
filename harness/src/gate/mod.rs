//! `navguard gate`: the suite, repeated, judged by metrics against checked-in thresholds, with
//! a per-browser expectations file of known deviations (and an agent's known failures).

mod files;
mod judge;
mod measure;
mod print;
mod shard;

pub use files::{
    AgentKnownFailures, GateFileError, GateFiles, read_expectations, read_known_failures, read_thresholds,
};
pub use judge::{Judgement, Threshold, Thresholds, Verdict, judge};
pub use measure::{Metrics, Percentiles, key, measure};
pub use print::{closing_line, outcome_line, summary};
pub use shard::{Shard, ShardError, stable_hash};
