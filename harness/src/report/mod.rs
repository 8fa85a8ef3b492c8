//! The run's reports: each scenario's gherkin and steps (collected by a writer teed beside the
//! terminal's), and from them the HTML report, JUnit XML and Cucumber JSON.

pub mod compare;
mod cucumber_json;
mod gate_html;
mod html;
mod junit;
mod step_log;

pub use cucumber_json::render_cucumber_json;
pub use gate_html::render_gate;
pub use html::render;
pub use junit::{Verdict, render_junit, verdict};
pub use step_log::{
    BackgroundMeta, FeatureMeta, Gherkin, HookRecord, ParseFailure, RuleMeta, StepLog, StepLogWriter, StepRecord,
    StepStatus, TagAt, as_typed, error_text, feature_key, panic_text, parse_failure, tag_positions,
};
