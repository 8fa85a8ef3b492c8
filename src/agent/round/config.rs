//! The agent's settings, each guard switchable on its own so the harness can reproduce the
//! original race on demand.

use crate::agent::reliability::RetryPolicy;
use crate::agent::settle::Quiet;
use crate::agent::tools::{ToolName, ToolSettings};
use std::collections::BTreeMap;
use std::time::Duration;

/// What counts as "a navigation in flight" at the top of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InFlightTrigger {
    /// The design's trigger only (docs/design/navigation-transients.md#the-in-flight-trigger):
    /// the tab's URL is empty or `about:blank`.
    Seed,
    /// The design's trigger, and any top-level navigation that has started and not committed
    /// (a snapshot is never taken of a page that is leaving).
    Extended,
}

/// The agent's settings.
///
/// ```
/// use navguard::prelude::*;
/// use std::time::Duration;
///
/// let config = AgentConfig::default();
/// assert!(config.open_url_guard && config.loop_top_guard);
/// assert_eq!(config.settle_timeout, Duration::from_secs(5));
///
/// // Each guard switches off on its own; with both off, the agent has the original race back.
/// let racy = AgentConfig { open_url_guard: false, loop_top_guard: false, ..AgentConfig::default() };
/// assert!(!racy.open_url_guard && !racy.loop_top_guard);
///
/// // The watchdog gives a call that waits by design its own length and a grace.
/// let deadline = config.deadline_for(ToolName::Wait, Some(Duration::from_secs(30)));
/// assert_eq!(deadline, Duration::from_secs(32));
/// ```
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// How long a settle waits for a commit.
    pub settle_timeout: Duration,
    /// How a page is taken to have gone quiet after an action or a load: by its next frames,
    /// or by a fixed window with no navigation event.
    pub quiet: Quiet,
    /// The action settle's cap: the most it waits for navigation events once the requests the
    /// action started are done.
    pub action_cap: Duration,
    /// The most the whole action settle waits, requests the action started still in flight
    /// or not.
    pub action_deadline: Duration,
    /// open_url waits for its tab to commit before pinning it.
    pub open_url_guard: bool,
    /// The top of every round waits for a navigation in flight.
    pub loop_top_guard: bool,
    /// What the loop-top guard treats as in flight.
    pub in_flight_trigger: InFlightTrigger,
    /// The most rounds a task may run.
    pub round_limit: u32,
    /// How long an `expect` is re-checked before it counts as failed.
    pub verify_timeout: Duration,
    /// `done` without `expect` is refused.
    pub done_needs_verification: bool,
    /// Repeats and A-B-A-B swings warn the model, then stop the task.
    pub no_progress: bool,
    /// Every tool call runs under the watchdog (its deadline, progress reports, retries).
    /// Off only to measure what it costs.
    pub watchdog: bool,
    /// A tool call's deadline, unless `tool_timeouts` names its tool.
    pub tool_timeout: Duration,
    /// Per-tool deadlines.
    pub tool_timeouts: BTreeMap<ToolName, Duration>,
    /// Retries of failures worth another try.
    pub retry: RetryPolicy,
    /// How long `click` and `type` wait for their target to be present and visible.
    pub target_wait: Duration,
    /// Rounds per segment: each new segment begins with a summary of the last.
    pub segment_rounds: u32,
    /// Segments a task may run before it pauses to ask whether to go on (`None`: no limit
    /// but the round limit).
    pub segments_allowed: Option<u32>,
    /// The folder `upload_file` may take files from (`None`: none; every upload is refused).
    /// A path outside it, or a link inside it that leads outside, is refused before the
    /// browser sees it.
    pub files: Option<std::path::PathBuf>,
}

impl AgentConfig {
    /// Default settle timeout (the design's 5 s).
    pub const SETTLE_TIMEOUT: Duration = Duration::from_millis(5000);
    /// Default action settle cap.
    pub const ACTION_CAP: Duration = Duration::from_millis(3000);
    /// Default action deadline: a click's own request may take this long (a slow save before
    /// the handler moves on), the design's settle timeout; a request the site holds longer is
    /// said to be still open, and the next look shows where the page went.
    pub const ACTION_DEADLINE: Duration = Duration::from_millis(5000);
    pub const ROUND_LIMIT: u32 = 40;
    /// Default verification deadline (the contract's 3 s).
    pub const VERIFY_TIMEOUT: Duration = Duration::from_millis(3000);
    /// Default tool deadline (docs/design/reliability-layer.md).
    pub const TOOL_TIMEOUT: Duration = Duration::from_millis(15_000);
    /// Default wait for a click's or a typing's target (Playwright's actionability wait).
    pub const TARGET_WAIT: Duration = Duration::from_millis(5000);
    /// Default rounds per segment (the reliability layer's `SEGMENT_SIZE`).
    pub const SEGMENT_ROUNDS: u32 = 5;
    /// What a call that waits by design (`wait`, `wait_for`) gets beyond its own length.
    pub const WAIT_GRACE: Duration = Duration::from_millis(2000);

    /// The watchdog's deadline for `tool`; a call that waits by design gets its own length
    /// and a grace, if that is longer.
    pub(in crate::agent) fn tool_settings(&self) -> ToolSettings<'_> {
        ToolSettings {
            open_url_guard: self.open_url_guard,
            settle_timeout: self.settle_timeout,
            quiet: self.quiet,
            action_cap: self.action_cap,
            action_deadline: self.action_deadline,
            target_wait: self.target_wait,
            files: self.files.as_deref(),
        }
    }

    pub fn deadline_for(&self, tool: ToolName, own_wait: Option<Duration>) -> Duration {
        let set = self.tool_timeouts.get(&tool).copied().unwrap_or(self.tool_timeout);
        own_wait.map_or(set, |own| set.max(own + Self::WAIT_GRACE))
    }
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            settle_timeout: Self::SETTLE_TIMEOUT,
            quiet: Quiet::Frames,
            action_cap: Self::ACTION_CAP,
            action_deadline: Self::ACTION_DEADLINE,
            open_url_guard: true,
            loop_top_guard: true,
            in_flight_trigger: InFlightTrigger::Extended,
            round_limit: Self::ROUND_LIMIT,
            verify_timeout: Self::VERIFY_TIMEOUT,
            done_needs_verification: false,
            no_progress: true,
            watchdog: true,
            tool_timeout: Self::TOOL_TIMEOUT,
            tool_timeouts: BTreeMap::new(),
            retry: RetryPolicy::default(),
            target_wait: Self::TARGET_WAIT,
            segment_rounds: Self::SEGMENT_ROUNDS,
            segments_allowed: None,
            files: None,
        }
    }
}
