//! The result of each scenario, and what the terminal says of it: its one line as it ends, the
//! failures in full, the per-feature table (the runner prints the closing line `features: N
//! passed, N failed`).

mod read;
mod result;
mod terminal;

pub use read::{expects_of, failure_of, unmatched_steps};
pub use result::{CallRecord, Counts, Expects, ScenarioResult, TaskEnd, call_records};
pub use terminal::{Status, line, print_failures, print_not_applicable, print_parse_failures, print_per_feature};
