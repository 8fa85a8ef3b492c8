//! The features a command runs when given none: `./features`, or with an agent the
//! agent-neutral scenarios (`./features/agents`, else the built-in ones written out).

use crate::builtin::ScenariosError;
use crate::under_test::AgentError;
use crate::under_test::description::Description;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The folder of feature files `run`, `validate` and `gate` read when given none.
pub(super) const FEATURES: &str = "features";

/// Why the feature files a command reads by default cannot be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuiteError {
    #[error("no ./features here: give a .feature file or a folder of them")]
    NoFeatures,
    /// `run` or `gate` with neither a path nor an agent, where there is no `./features`.
    #[error(
        "no ./features here: give a .feature file or a folder of them, or an agent (--agent) to run the \
         built-in agent-neutral scenarios"
    )]
    NoSuite,
    #[error(transparent)]
    Scenarios(#[from] ScenariosError),
}

/// The features a command runs: the path it was given, else `default` (which may write the
/// built-in scenarios out); when there are none, one line naming the command, and exit 2.
pub(super) fn suite(
    command: &str,
    given: Option<PathBuf>,
    default: impl FnOnce() -> Result<PathBuf, SuiteError>,
) -> Result<PathBuf, ExitCode> {
    given.map_or_else(default, Ok).map_err(|e| {
        eprintln!("navguard {command}: {e}");
        ExitCode::from(2)
    })
}

/// What `run` and `gate` run when given no path: `./features`, or with an agent the
/// agent-neutral scenarios ([`agent_scenarios`]).
pub(super) fn default_suite(agent: bool, report_dir: &Path) -> Result<PathBuf, SuiteError> {
    if agent {
        return agent_scenarios(report_dir);
    }
    if Path::new(FEATURES).exists() { Ok(PathBuf::from(FEATURES)) } else { Err(SuiteError::NoSuite) }
}

/// `./features/agents`, else the built-in agent-neutral scenarios written under `report_dir`
/// (and says so).
pub(super) fn agent_scenarios(report_dir: &Path) -> Result<PathBuf, SuiteError> {
    let scenarios = crate::builtin::agent_scenarios(report_dir)?;
    if scenarios.built_in {
        println!(
            "navguard: no ./features/agents here: running the built-in agent-neutral scenarios, written to {}",
            scenarios.path.display()
        );
    }
    Ok(scenarios.path)
}

/// The name of the agent `--agent` names, if it can be started: one that cannot (a bad
/// description, a built-in one whose npm package is not installed) is said at once, before any
/// file is looked for or written.
pub(super) fn agent_that_can_start(name_or_path: &str) -> Result<String, AgentError> {
    let description = Description::find(name_or_path)?;
    description.check_installed()?;
    Ok(description.name)
}
