//! The run's reports beyond cucumber's own: each scenario's steps (collected by a writer teed
//! beside the others) and the HTML report.

mod gate_html;
mod html;
mod step_log;

pub use gate_html::render_gate;
pub use html::render;
pub use step_log::{StepLog, StepLogWriter, StepRecord, StepStatus, error_text, feature_key, panic_text};
