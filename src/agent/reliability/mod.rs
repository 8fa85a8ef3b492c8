//! The reliability layer (docs/design/reliability-layer.md): what lets a long task survive a
//! slow page, a flaky call and its user. The watchdog around every tool call (a deadline,
//! progress at least once a second, retries of what may safely be tried again), pause and
//! resume at a safe point, the checkpoint a pause keeps so the task resumes where it stood
//! (after a restart too), and the segments a long task is cut into, each summed up for the
//! model.
//!
//! The round calls them between and around its steps; what they decide (a retry, a summary,
//! what the user changed during a pause) is pure, so it is unit-tested without a browser.

mod checkpoint;
mod control;
mod watchdog;

pub use checkpoint::{Checkpoint, Checkpoints, StoredCheckpoints};
pub use control::{ControlState, Pause, PauseReason, TaskControl};
pub use watchdog::RetryPolicy;

pub(super) use checkpoint::changes;
pub(super) use watchdog::{RetryDecision, watch};
