//! What all scenarios of one run share: its browser sessions (`--sessions N`, all started by the
//! first scenario's hook; each scenario runs on the least loaded live one), the browser
//! settings, the terminal output (held until the sessions have started: each scenario's line as
//! it ends, or cucumber's steps with `--verbose`), and the results the summary prints. The runner
//! owns it; a scenario's world sees only the part it needs, through the world's own interface
//! ([`ScenarioRun`]), which the run context provides.

use crate::error::SetupError;
use crate::gate::Shard;
use crate::report::StepLog;
use crate::summary::ScenarioResult;
use crate::world::{DEFAULT_CALL_TIMEOUT, ScenarioRun, SessionHold, WorldSettings};
use navguard::adapter::{BidiBrowser, BrowserConfig, LaunchError};
use std::collections::BTreeSet;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::OnceCell;

/// How a run is narrowed, and what it shows beyond the report.
#[derive(Clone, Debug)]
pub struct RunMode {
    /// Only the scenario at this line of the feature file.
    pub line: Option<usize>,
    /// Both guards off whatever the scenario says, to see the original race.
    pub guards_off: bool,
    /// Print each scenario's timeline and race verdict.
    pub timeline: bool,
    /// Only this shard of the scenarios.
    pub shard: Option<Shard>,
    /// The gate's known deviations (keys as `gate::key` writes them): their failures are
    /// reported skipped in JUnit, as the gate judges them.
    pub expected: BTreeSet<String>,
    /// The agent under test of the conformance steps (`--agent`); navguard's core when `None`.
    pub agent: Option<Arc<crate::under_test::description::Description>>,
    /// How long one call of the agent under test may take (`--call-timeout`).
    pub call_timeout: std::time::Duration,
    /// The agent's name and version as it gave them before the run.
    pub agent_version: Option<String>,
    /// What the terminal shows.
    pub output: TerminalOutput,
    /// Only the scenarios whose test name this admits (`cargo test <filter>`).
    pub tests: Option<crate::libtest::TestFilter>,
}

/// What the terminal shows of a run's scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TerminalOutput {
    /// One line per scenario as it ends; then the failures in full and the summary: per
    /// feature, the run's metrics, the closing line (`navguard run`).
    #[default]
    Lines,
    /// Every step of every scenario as cucumber prints it, and the progress of waits live,
    /// then the same summary (`--verbose`).
    Steps,
    /// A run of the gate: one line per scenario as it ends (with `passes: false`, only for
    /// those that did not pass: the repeats after the first), the failures the gate does not
    /// expect in full, and the closing line; the gate prints the metrics of all its runs.
    Gate { passes: bool },
}

impl TerminalOutput {
    /// Whether a scenario that ended as `result` gets its one line.
    fn lists(self, result: &ScenarioResult) -> bool {
        match self {
            Self::Lines => true,
            Self::Steps => false,
            Self::Gate { passes } => passes || !result.passed(),
        }
    }
}

impl Default for RunMode {
    fn default() -> Self {
        Self {
            line: None,
            guards_off: false,
            timeline: false,
            shard: None,
            expected: BTreeSet::new(),
            agent: None,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            agent_version: None,
            output: TerminalOutput::default(),
            tests: None,
        }
    }
}

/// The run's browser sessions, and how many scenarios run on each now.
#[derive(Debug)]
struct Pool {
    sessions: Vec<Arc<BidiBrowser>>,
    loads: Mutex<Vec<usize>>,
}

/// A scenario's hold on one session of the run's pool; the session's load drops with it.
#[derive(Debug)]
pub struct SessionLease {
    pool: Arc<Pool>,
    /// Which session of the pool (0-based).
    pub index: usize,
}

impl SessionHold for SessionLease {
    fn browser(&self) -> &Arc<BidiBrowser> {
        &self.pool.sessions[self.index]
    }
}

impl Drop for SessionLease {
    fn drop(&mut self) {
        let mut loads = self.pool.loads.lock().unwrap_or_else(PoisonError::into_inner);
        loads[self.index] = loads[self.index].saturating_sub(1);
    }
}

/// Shared by every scenario of a run.
#[derive(Debug)]
pub struct RunContext {
    pub mode: RunMode,
    pool: OnceCell<Result<Arc<Pool>, Arc<LaunchError>>>,
    sessions: usize,
    config: BrowserConfig,
    pub report_dir: PathBuf,
    /// The terminal writer's output.
    pub output: HeldOutput,
    /// One entry per finished scenario.
    pub results: Mutex<Vec<ScenarioResult>>,
    /// Each scenario's steps, as cucumber ran them.
    pub steps: StepLog,
    /// Whether the progress of waits shows as it comes: on a terminal, or with `--verbose`.
    pub live_progress: bool,
}

impl RunContext {
    /// A run that will spread its scenarios over `sessions` browser sessions (at least one),
    /// each started with `config`.
    pub fn new(config: BrowserConfig, sessions: usize, report_dir: PathBuf, mode: RunMode) -> Arc<Self> {
        Arc::new(Self {
            pool: OnceCell::new(),
            sessions: sessions.max(1),
            config,
            report_dir,
            output: HeldOutput::default(),
            results: Mutex::default(),
            steps: StepLog::default(),
            live_progress: mode.output == TerminalOutput::Steps || std::io::stderr().is_terminal(),
            mode,
        })
    }

    /// Starts every session at once. If one fails, those that started are ended and the run has
    /// no sessions: it could not start.
    async fn start_pool(&self) -> Result<Arc<Pool>, Arc<LaunchError>> {
        let launches = (0..self.sessions).map(|_| BidiBrowser::launch(self.config.clone()));
        let (started, failed): (Vec<_>, Vec<_>) =
            futures::future::join_all(launches).await.into_iter().partition(Result::is_ok);
        let started: Vec<Arc<BidiBrowser>> = started.into_iter().filter_map(Result::ok).map(Arc::new).collect();
        if let Some(e) = failed.into_iter().find_map(Result::err) {
            futures::future::join_all(started.iter().map(|b| b.shutdown())).await;
            self.output.drop_held();
            return Err(Arc::new(e));
        }
        self.output.release();
        Ok(Arc::new(Pool { loads: Mutex::new(vec![0; started.len()]), sessions: started }))
    }

    pub fn browser_kind(&self) -> navguard::adapter::BrowserKind {
        self.config.browser
    }

    /// How many sessions the run spreads its scenarios over.
    pub fn session_count(&self) -> usize {
        self.sessions
    }

    /// The sessions, if they were started.
    pub fn started_browsers(&self) -> Vec<Arc<BidiBrowser>> {
        self.pool.get().and_then(|p| p.as_ref().ok()).map(|p| p.sessions.clone()).unwrap_or_default()
    }

    /// Ends every session the run started, all at once.
    pub async fn shutdown(&self) {
        let browsers = self.started_browsers();
        futures::future::join_all(browsers.iter().map(|b| b.shutdown())).await;
    }

    /// Why the sessions did not start, if a scenario tried and it failed.
    pub fn launch_error(&self) -> Option<Arc<LaunchError>> {
        self.pool.get().and_then(|p| p.as_ref().err()).cloned()
    }

    /// Every finished scenario, with its steps.
    pub fn finished(&self) -> Vec<ScenarioResult> {
        let mut results = self.results.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        for r in &mut results {
            let key = (r.feature_path.clone(), r.line);
            r.steps = self.steps.steps(&key);
            r.gherkin = self.steps.gherkin(&key);
            // The step that found the scenario not applicable stopped it; it did not fail.
            if r.not_applicable.is_some() {
                r.steps
                    .iter_mut()
                    .filter(|s| s.status == crate::report::StepStatus::Failed)
                    .for_each(|s| s.status = crate::report::StepStatus::Skipped);
            }
        }
        results
    }

    /// Keeps a finished scenario's result, and prints its line when the output lists it.
    pub fn record(&self, result: ScenarioResult) {
        if self.mode.output.lists(&result) {
            self.output.line(&crate::summary::line(&result, &self.mode.expected));
        }
        self.results.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(result);
    }
}

/// The part of the run a scenario's world sees.
#[async_trait::async_trait]
impl ScenarioRun for RunContext {
    fn settings(&self) -> WorldSettings {
        WorldSettings {
            guards_off: self.mode.guards_off,
            agent: self.mode.agent.clone(),
            call_timeout: self.mode.call_timeout,
        }
    }

    /// A session for one scenario: the least loaded live one (the first of equals). The first
    /// call starts them all; a failed start fails every scenario alike. When every session has
    /// disconnected, the scenario fails with "browser disconnected".
    async fn lease(&self) -> Result<Box<dyn SessionHold>, SetupError> {
        let pool = self.pool.get_or_init(|| self.start_pool()).await.clone().map_err(SetupError::Browser)?;
        let index = {
            // Choosing and counting under one lock keeps concurrent hooks from piling onto one.
            let mut loads = pool.loads.lock().unwrap_or_else(PoisonError::into_inner);
            let index = (0..pool.sessions.len())
                .filter(|&i| !pool.sessions[i].is_disconnected())
                .min_by_key(|&i| loads[i])
                .ok_or(SetupError::Disconnected)?;
            loads[index] += 1;
            index
        };
        Ok(Box::new(SessionLease { pool, index }))
    }

    /// A browser of the scenario's own, for an agent under test that attaches to the browser
    /// (over CDP): it sees every tab of the browser, so it must not share one with another
    /// scenario. Ended with the scenario.
    async fn own_browser(&self) -> Result<Arc<BidiBrowser>, SetupError> {
        let browser = BidiBrowser::launch(self.config.clone()).await.map_err(|e| SetupError::Browser(Arc::new(e)))?;
        self.output.release();
        Ok(Arc::new(browser))
    }
}

/// The terminal writer's output, held until the run's sessions have started: a run that could
/// not start says so in one line, not in a failure per scenario. A run that starts no session
/// (nothing matched) has its output released at the end.
#[derive(Clone, Debug, Default)]
pub struct HeldOutput(Arc<Mutex<Held>>);

#[derive(Debug)]
enum Held {
    Buffer(Vec<u8>),
    Released,
    Dropped,
}

impl Default for Held {
    fn default() -> Self {
        Self::Buffer(Vec::new())
    }
}

impl HeldOutput {
    /// Writes what was held to stdout, and everything after it as it comes.
    pub fn release(&self) {
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Held::Buffer(bytes) = std::mem::replace(&mut *held, Held::Released) {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(&bytes).and_then(|()| out.flush());
        }
    }

    /// Writes one line (held as the rest is), in one piece: scenarios end at the same time.
    pub fn line(&self, text: &str) {
        let mut out = self.clone();
        let _ = out.write_all(format!("{text}\n").as_bytes()).and_then(|()| out.flush());
    }

    /// What cucumber's own writer prints goes here: shown with `--verbose` (`shown`), else
    /// dropped (the run prints each scenario's line instead).
    pub fn steps(&self, shown: bool) -> StepsOutput {
        StepsOutput(shown.then(|| self.clone()))
    }

    /// Forgets what was held, and everything after it (the run could not start).
    fn drop_held(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Held::Dropped;
    }
}

impl std::io::Write for HeldOutput {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match &mut *held {
            Held::Buffer(buffer) => buffer.extend_from_slice(bytes),
            Held::Released => std::io::stdout().write_all(bytes)?,
            Held::Dropped => {}
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &*self.0.lock().unwrap_or_else(PoisonError::into_inner) {
            Held::Released => std::io::stdout().flush(),
            Held::Buffer(_) | Held::Dropped => Ok(()),
        }
    }
}

/// Cucumber's step-by-step output: the run's terminal output, or nowhere.
#[derive(Clone, Debug)]
pub struct StepsOutput(Option<HeldOutput>);

impl std::io::Write for StepsOutput {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match &mut self.0 {
            Some(out) => out.write(bytes),
            None => Ok(bytes.len()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.0 {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}
