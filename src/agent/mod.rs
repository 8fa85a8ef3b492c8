//! The agent core: the seed designs' logic, written once against the browser port.
//!
//! - the round ([`Agent::run`]): loop-top guard → observe → one model turn ([`Planner`]) → its
//!   tool calls in order → next round; round limit, Stop, and a [`Trace`] of every decision;
//! - [`wait_for_url_settle`] / [`UrlSettle`]: the navigation settle waiter, a pure state machine
//!   ([`SettleMachine`]) driven by events, the clock and Stop, with five outcomes;
//! - the loop-top guard ([`loop_top_guard`]) and the open_url guard (in the tool), each
//!   switchable ([`AgentConfig`]) so the original race can be reproduced;
//! - restricted URLs ([`is_restricted_url`]), origins, the action settle, the tools.

mod action_settle;
mod args;
mod checkpoint;
mod config;
mod control;
mod error;
mod execute;
mod guard;
mod network_idle;
mod observe;
mod origin;
mod page_settle;
mod planner;
mod progress;
mod restricted;
mod run;
mod segment;
mod session;
mod settle;
mod settle_wait;
mod stop;
mod tabs;
mod tool_spec;
mod tools;
mod trace;
mod verify;
mod watchdog;

pub use action_settle::{ActionSettleEnd, QuietWindow, settle_action};
pub use checkpoint::{Checkpoint, Checkpoints, StoredCheckpoints, changes};
pub use config::{AgentConfig, InFlightTrigger};
pub use control::{ControlState, Pause, PauseReason, TaskControl};
pub use error::{FailureKind, Refusal, ToolError, ToolFailure};
pub use execute::{ToolContext, ToolRun};
pub use guard::{GuardResult, in_flight, loop_top_guard};
pub use network_idle::{IdleOutcome, IdleState, IdleTracker, REQUEST_CAP, wait_for_network_idle};
pub use observe::{Element, FormContext, Observation, observe};
pub use origin::{origin_text, safe_parse_origin, same_origin};
pub use page_settle::{PageState, wait_for_quiet_page};
pub use planner::{CallResult, ModelTurn, PlanRequest, Planner, PlannerError, ScriptedPlanner, ToolCall, ToolReply};
pub use progress::{Pattern, Progress, ProgressDetector, Signature, Thresholds};
pub use restricted::is_restricted_url;
pub use run::{Agent, RoundHook, Task};
pub use segment::summarise;
pub use session::{Session, SessionAnswer};
pub use settle::{SettleKind, SettleMachine, SettleOutcome, is_transient};
pub use settle_wait::{SettleReport, UrlSettle, wait_for_url_settle};
pub use stop::{StopKind, StopReason};
pub use tabs::{Pinned, TabRef, TaskTabs};
pub use tool_spec::{MAX_WAIT, NETWORK_IDLE, Repeat, RiskHint, ToolSpec, WAIT_FOR_TIMEOUT, model_tools};
pub use tools::{Call, Tool, ToolName, ToolSet, parse_args, parse_call, parse_name, parse_tool};
pub use trace::{GuardDecision, GuardKind, Note, RepairReason, Trace, TraceEntry, TraceEvent};
pub use verify::{ExpectError, ExpectKey, Expectation, Miss, Verdict, verify};
pub use watchdog::{PROGRESS_EVERY, Phase, RetryDecision, RetryPolicy, progress_text, watch};

#[cfg(test)]
mod loop_tests;
