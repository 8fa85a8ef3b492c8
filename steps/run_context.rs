//! What all scenarios of one run share: the browser (started once, by the first scenario's
//! hook), the browser settings, and the results the summary prints.

use crate::error::SetupError;
use crate::gate::Shard;
use crate::report::StepLog;
use crate::summary::ScenarioResult;
use navguard::adapter::{BidiBrowser, BrowserConfig, LaunchError};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::OnceCell;

/// How a run is narrowed, and what it shows beyond the report.
#[derive(Clone, Debug, Default)]
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
}

/// Shared by every scenario of a run.
#[derive(Debug)]
pub struct RunContext {
    pub mode: RunMode,
    browser: OnceCell<Result<Arc<BidiBrowser>, Arc<LaunchError>>>,
    config: BrowserConfig,
    pub report_dir: PathBuf,
    /// One entry per finished scenario.
    pub results: Mutex<Vec<ScenarioResult>>,
    /// Each scenario's steps, as cucumber ran them.
    pub steps: StepLog,
}

impl RunContext {
    /// A run that will start its browser with `config`.
    pub fn new(config: BrowserConfig, report_dir: PathBuf, mode: RunMode) -> Arc<Self> {
        Arc::new(Self {
            mode,
            browser: OnceCell::new(),
            config,
            report_dir,
            results: Mutex::default(),
            steps: StepLog::default(),
        })
    }

    /// The run's browser, started on first use; a failed start fails every scenario alike.
    pub async fn browser(&self) -> Result<Arc<BidiBrowser>, SetupError> {
        self.browser
            .get_or_init(|| async { BidiBrowser::launch(self.config.clone()).await.map(Arc::new).map_err(Arc::new) })
            .await
            .clone()
            .map_err(SetupError::Browser)
    }

    pub fn browser_kind(&self) -> navguard::adapter::BrowserKind {
        self.config.browser
    }

    /// The browser, if it was started.
    pub fn started_browser(&self) -> Option<Arc<BidiBrowser>> {
        self.browser.get().and_then(|b| b.as_ref().ok()).cloned()
    }

    /// Why the browser did not start, if a scenario tried and it failed.
    pub fn launch_error(&self) -> Option<Arc<LaunchError>> {
        self.browser.get().and_then(|b| b.as_ref().err()).cloned()
    }

    /// Every finished scenario, with its steps.
    pub fn finished(&self) -> Vec<ScenarioResult> {
        let mut results = self.results.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        for r in &mut results {
            let key = (r.feature_path.clone(), r.line);
            r.steps = self.steps.steps(&key);
            r.gherkin = self.steps.gherkin(&key);
        }
        results
    }

    pub fn record(&self, result: ScenarioResult) {
        self.results.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(result);
    }
}
