//! What one scenario owns: its tabs (a port on a user context of its own), its fixture site, and
//! how it got them from the run.

use super::NavWorld;
use super::run::{ScenarioRun, SessionHold};
use crate::error::SetupError;
use crate::fixtures::FixtureSite;
use navguard::adapter::{BidiBrowser, BidiPort};
use navguard::browser::BrowserPort;
use std::sync::Arc;
use std::time::Instant;

/// What one scenario owns.
#[derive(Debug)]
pub struct ScenarioEnv {
    pub browser: Arc<BidiBrowser>,
    /// The scenario's hold on its session of the run's pool (`--sessions`); given back with
    /// the env. `None`: the browser is the scenario's own (an agent under test attaches to it),
    /// ended with the scenario.
    pub session: Option<Box<dyn SessionHold>>,
    /// The scenario's tabs, as everything but the teardown sees them.
    pub port: Arc<dyn BrowserPort>,
    /// The same tabs as the adapter made them: the teardown hands them back to the browser.
    pub user_context: BidiPort,
    /// The scenario's fixture site.
    pub site: FixtureSite,
    /// When the scenario began.
    pub started: Instant,
    /// The scenario's own folder of files to upload (`{files}`: `report.csv` and `photo.png`),
    /// the folder its agent is allowed to upload from; removed with the scenario.
    pub files: tempfile::TempDir,
}

/// The files of a scenario's `{files}` folder: a small table, and a picture of one pixel.
const SCENARIO_FILES: [(&str, &[u8]); 2] = [
    ("report.csv", b"item,count\nbooks,3\n"),
    (
        "photo.png",
        b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\x00\x01\x00\x00\x05\x00\x01\x0d\x0a\x2d\xb4\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",

    ),
];

/// A new `{files}` folder.
fn scenario_files() -> std::io::Result<tempfile::TempDir> {
    let dir = navguard::__private::scratch_dir("files-")?;
    for (name, bytes) in SCENARIO_FILES {
        std::fs::write(dir.path().join(name), bytes)?;
    }
    Ok(dir)
}

impl NavWorld {
    /// Gives the scenario its tabs and site (the before hook), as the run's settings say.
    pub async fn setup(&mut self, run: Arc<dyn ScenarioRun>) -> Result<(), SetupError> {
        let settings = run.settings();
        self.core.force_guards_off = settings.guards_off;
        let (browser, session, port) = if settings.agent_attaches() {
            // The agent sees the whole browser: the scenario's tabs are the default context's.
            let browser = run.own_browser().await?;
            let port = browser.default_port();
            (browser, None, port)
        } else {
            let session = run.lease().await?;
            let browser = Arc::clone(session.browser());
            let port = browser.open_port().await.map_err(SetupError::Tabs)?;
            (browser, Some(session), port)
        };
        let site = FixtureSite::start().await.map_err(SetupError::Site)?;
        let files = scenario_files().map_err(SetupError::Files)?;
        self.core.config.files = Some(files.path().to_path_buf());
        let shared: Arc<dyn BrowserPort> = Arc::new(port.clone());
        let started = Instant::now();
        self.conformance.agent_description = settings.agent;
        self.conformance.call_timeout = settings.call_timeout;
        self.env = Some(ScenarioEnv { browser, session, port: shared, user_context: port, site, started, files });
        Ok(())
    }

    /// Takes the scenario's environment back (the after hook closes it).
    pub fn take_env(&mut self) -> Option<ScenarioEnv> {
        self.env.take()
    }
}
