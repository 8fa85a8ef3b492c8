//! The agent core: the logic of the designs in docs/design/, written once against the browser port.
//!
//! - the round ([`Agent::run`]): loop-top guard → observe → one model turn ([`Planner`]) → its
//!   tool calls in order → next round; round limit, Stop, and a [`Trace`] of every decision;
//! - [`wait_for_url_settle`] / [`UrlSettle`]: the navigation settle waiter, a pure state machine
//!   (`SettleMachine`, src/agent/settle/machine.rs) driven by events, the clock and Stop, with its
//!   [`SettleOutcome`]s;
//! - the loop-top guard and the open_url guard (in the tool), each switchable ([`AgentConfig`])
//!   so the original race can be reproduced;
//! - the tools: one table ([`ToolName::spec`]) of what each is, from which their parsing, the
//!   watchdog's retries and a model API's tool list ([`model_tools`]) derive;
//! - restricted URLs, origins ([`safe_parse_origin`]), the action settle.
//!
//! What is public is what an embedder needs (most of it also in [`crate::prelude`]); the
//! pieces the round is made of stay inside, apart from the few waits the harness's benchmarks
//! time alone (hidden from the documentation).

mod closed_loop;
mod guards;
mod reliability;
mod round;
mod settle;
mod tools;

pub use closed_loop::Pattern;
pub use closed_loop::{Element, FormContext, Observation, observe};
pub use closed_loop::{Miss, Verdict};
pub use guards::safe_parse_origin;
pub use reliability::RetryPolicy;
pub use reliability::{Checkpoint, Checkpoints, StoredCheckpoints};
pub use reliability::{ControlState, Pause, PauseReason, TaskControl};
pub use round::{Agent, RoundHook, Task};
pub use round::{AgentConfig, InFlightTrigger};
pub use round::{CallResult, ModelTurn, PlanRequest, Planner, PlannerError, ScriptedPlanner, ToolCall, ToolReply};
pub use round::{GuardDecision, GuardKind, Note, RepairReason, Trace, TraceEntry, TraceEvent};
pub use round::{Pinned, SavedTabs, TaskTabs};
pub use round::{Session, SessionAnswer};
pub use round::{StopKind, StopReason};
pub use settle::{SettleKind, SettleOutcome, SettleReport, UrlSettle, wait_for_url_settle};
pub use tools::FailureKind;
pub use tools::{Repeat, RiskHint, ToolSpec, model_tools};
pub use tools::{ToolName, ToolSet};

// The agent's own steps, public only for the harness's benchmarks (harness/benches), which time
// each of them alone on a real browser; an embedder runs them through `Agent::run`.
#[doc(hidden)]
pub use guards::{GuardResult, loop_top_guard};
#[doc(hidden)]
pub use settle::is_transient;
#[doc(hidden)]
pub use settle::{IdleOutcome, wait_for_network_idle};
#[doc(hidden)]
pub use settle::{PageState, wait_for_quiet_page};

pub(crate) use guards::is_restricted_url;
