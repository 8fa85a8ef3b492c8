//! The round and what it is made of: the task (its tabs and its trace), the agent's settings,
//! the planner seam a model plugs into, the loop itself (loop-top guard → observe → one model
//! turn → its tool calls in order → next round), why a task stopped, and the session that runs
//! the same calls one at a time for a caller other than the loop.
//!
//! The other groups are the round's parts (guards, settle, tools, closed loop, reliability);
//! this one puts them in order and keeps the record of what each decided.

mod calls;
mod config;
mod done;
mod look;
mod loop_top;
mod pause;
mod planner;
mod progress;
mod run;
mod segment;
mod session;
mod stop;
mod tab_list;
mod task;
mod trace;

#[cfg(test)]
mod loop_tests;

pub use config::{AgentConfig, InFlightTrigger};
pub use planner::{
    CallResult, ModelTurn, NoPlanner, PlanRequest, Planner, PlannerError, ScriptedPlanner, ToolCall, ToolReply,
};
pub use run::{Agent, RoundHook};
pub use session::{Session, SessionAnswer};
pub use stop::{StopKind, StopReason};
pub use tab_list::{TabSummary, tab_lines};
pub use task::Task;
pub use trace::{GuardDecision, GuardKind, RepairReason, Trace, TraceEntry, TraceEvent};

pub use loop_top::{GuardRead, GuardResult, loop_top_guard};
pub use progress::Pattern;
