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
//! The sources are grouped by what each part is for, one folder each, in layers (lowest first;
//! each imports only from its own layer and those below: docs/architecture.md, and a test):
//!
//! - `guards/`: the URL checks both guards make (restricted URLs, origins);
//! - `settle/`: the waits (a navigation's commit, a quiet page, an action's settle, network
//!   idle) and what a waiting call says it waits for;
//! - `closed_loop/`: the observation and its refs, and verification;
//! - `tools/`: the tools, their table, their arguments, their execution and failures, the task's
//!   tabs they move, the notes they leave;
//! - `reliability/`: the watchdog, pause and resume, checkpoints;
//! - `round/`: the loop and what it keeps: the agent, the task, the loop-top guard, the settings,
//!   the planner seam, done, no_progress, the stop, the trace and its segments, the one-call
//!   session.
//!
//! What is public is what an embedder needs (most of it also in [`crate::prelude`]), all of it
//! re-exported here, at one path whatever folder it lives in; the pieces the round is made of
//! stay inside, apart from the few waits the harness's benchmarks time alone (hidden from the
//! documentation).

mod closed_loop;
pub(crate) mod guards;
mod reliability;
pub(crate) mod round;
pub(crate) mod settle;
mod tools;

pub use closed_loop::{Element, FormContext, FrameSeen, LeftOut, Miss, Observation, Verdict, observe};
pub use guards::safe_parse_origin;
pub use reliability::{
    Checkpoint, Checkpoints, ControlState, Pause, PauseReason, RetryPolicy, StoredCheckpoints, TaskControl,
};
pub use round::{
    Agent, AgentConfig, CallResult, GuardDecision, GuardKind, InFlightTrigger, ModelTurn, NoPlanner, Pattern,
    PlanRequest, Planner, PlannerError, RepairReason, RoundHook, ScriptedPlanner, Session, SessionAnswer, StopKind,
    StopReason, TabSummary, Task, ToolCall, ToolReply, Trace, TraceEntry, TraceEvent, tab_lines,
};
pub use settle::{SettleKind, SettleOutcome, SettleReport, UrlSettle, wait_for_url_settle};
pub use tools::{
    FailureKind, Note, Offered, Pinned, RefArg, Repeat, RiskHint, TaskTabs, ToolName, ToolSet, ToolSpec, model_tools,
};

// How the quiet page is judged (a field of `AgentConfig`); the agent's own steps that the
// benchmarks time alone are in `navguard::__private`, not here.
pub use settle::Quiet;

pub(crate) use guards::is_restricted_url;
