//! What an embedder needs, in one `use navguard::prelude::*;`: a browser to launch, the agent
//! and its settings, the planner seam where a model plugs in (what a planner is given, the
//! results of the calls before, the tools as a model API's list), the task and how it ended,
//! and the types those signatures name (a cancellation token, an origin).

pub use crate::adapter::{BidiBrowser, BidiPort, BrowserConfig, BrowserKind, LaunchError};
pub use crate::agent::{
    Agent, AgentConfig, CallResult, FailureKind, ModelTurn, Observation, PlanRequest, Planner, PlannerError,
    ScriptedPlanner, StopKind, StopReason, Task, TaskControl, ToolCall, ToolName, ToolReply, Trace, TraceEvent,
    model_tools,
};
pub use crate::browser::{BrowserError, BrowserPort, TabId};
pub use crate::conversation::Conversation;
pub use crate::store::TaskStore;
pub use tokio_util::sync::CancellationToken;
pub use url::{Origin, Url};
