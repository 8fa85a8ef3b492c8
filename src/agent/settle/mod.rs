//! The waits: until a navigation commits (the settle machine and its waiter), until a
//! committed page has stayed quiet before it is observed, until what an action started is done
//! and its navigation events have died down, and until the network is idle.
//!
//! Each is a pure state machine fed with events and the time, and a driver around it that owns
//! the subscription and the clock: the machines are unit tests, and no wait polls the browser.
//! They sit together because the round, the guards and the tools all wait in these few ways.

mod action;
mod frames;
mod machine;
mod network_idle;
mod page;
mod phase;
mod wait;

pub use frames::Quiet;
pub use machine::{SettleKind, SettleOutcome, is_transient};
pub use network_idle::{IdleOutcome, wait_for_network_idle};
pub use page::{PageState, wait_for_quiet_page};
pub use wait::{SettleReport, UrlSettle, wait_for_url_settle};

pub(super) use action::{ACTION_FOLLOW, ActionLimits, ActionSettleEnd, ActionSettled, ActionStreams, settle_action};
pub(super) use frames::told_leaving;
pub(super) use page::{LookedWith, left_since, told_left_since, wait_then_look};
pub(super) use phase::Phase;
