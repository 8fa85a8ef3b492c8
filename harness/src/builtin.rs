//! What the `navguard` command carries, so that it works in any folder, not only in this
//! repository: the gate's thresholds, the browsers' and the built-in agents' known failures,
//! the built-in agents' descriptions and npm pins, and the agent-neutral scenarios.
//!
//! Each file stays where the repository keeps it (`gate/`, `agents/`, `features/agents/`), where
//! CI, the tests and the docs name it; `harness/builtin/` holds links to them, so that the crate's
//! package (which follows links) carries a copy and nothing is read from outside the crate.
//!
//! In use, a file given on the command line comes first, then the same path under the current
//! folder (a user's repository laid out like this one: `gate/thresholds.txt`, …), then the copy
//! built in.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A file the command carries, under the path the repository gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltIn {
    /// Its path in the repository, and where a user's own copy is looked for in the current
    /// folder.
    pub path: &'static str,
    pub text: &'static str,
}

/// The gate's thresholds.
pub const THRESHOLDS: BuiltIn =
    BuiltIn { path: "gate/thresholds.txt", text: include_str!("../builtin/gate/thresholds.txt") };

/// The known failures the gate judges by: each browser's, and each built-in agent's that has
/// any (navguard's own has none).
const EXPECTATIONS: &[BuiltIn] = &[
    BuiltIn { path: "gate/expectations/chromium.txt", text: include_str!("../builtin/gate/expectations/chromium.txt") },
    BuiltIn { path: "gate/expectations/firefox.txt", text: include_str!("../builtin/gate/expectations/firefox.txt") },
    BuiltIn {
        path: "gate/expectations/agent-playwright-mcp.txt",
        text: include_str!("../builtin/gate/expectations/agent-playwright-mcp.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-playwright-cli.txt",
        text: include_str!("../builtin/gate/expectations/agent-playwright-cli.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-chrome-devtools-mcp.txt",
        text: include_str!("../builtin/gate/expectations/agent-chrome-devtools-mcp.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-agent-browser.txt",
        text: include_str!("../builtin/gate/expectations/agent-agent-browser.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-firefox-devtools-mcp.txt",
        text: include_str!("../builtin/gate/expectations/agent-firefox-devtools-mcp.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-puppeteer-mcp.txt",
        text: include_str!("../builtin/gate/expectations/agent-puppeteer-mcp.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-executeautomation.txt",
        text: include_str!("../builtin/gate/expectations/agent-executeautomation.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-agent-infra.txt",
        text: include_str!("../builtin/gate/expectations/agent-agent-infra.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-browser-use.txt",
        text: include_str!("../builtin/gate/expectations/agent-browser-use.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-vibium.txt",
        text: include_str!("../builtin/gate/expectations/agent-vibium.txt"),
    },
    BuiltIn {
        path: "gate/expectations/agent-stagehand.txt",
        text: include_str!("../builtin/gate/expectations/agent-stagehand.txt"),
    },
];

/// Where the agent-neutral scenarios are looked for in the current folder.
pub const AGENT_SCENARIOS_DIR: &str = "features/agents";

/// The agent-neutral scenarios (`docs/agent-conformance.md`): what `navguard gate --agent` and
/// `navguard compare` run when the current folder has no `features/agents`.
const AGENT_SCENARIOS: &[BuiltIn] = &[
    BuiltIn {
        path: "features/agents/navigation.feature",
        text: include_str!("../builtin/features/agents/navigation.feature"),
    },
    BuiltIn {
        path: "features/agents/hazards.feature",
        text: include_str!("../builtin/features/agents/hazards.feature"),
    },
    BuiltIn {
        path: "features/agents/dialogs.feature",
        text: include_str!("../builtin/features/agents/dialogs.feature"),
    },
    BuiltIn {
        path: "features/agents/anchors.feature",
        text: include_str!("../builtin/features/agents/anchors.feature"),
    },
    BuiltIn {
        path: "features/agents/polling.feature",
        text: include_str!("../builtin/features/agents/polling.feature"),
    },
    BuiltIn {
        path: "features/agents/late_navigation.feature",
        text: include_str!("../builtin/features/agents/late_navigation.feature"),
    },
    BuiltIn {
        path: "features/agents/user_hand.feature",
        text: include_str!("../builtin/features/agents/user_hand.feature"),
    },
    BuiltIn {
        path: "features/agents/interaction.feature",
        text: include_str!("../builtin/features/agents/interaction.feature"),
    },
    BuiltIn {
        path: "features/agents/downloads.feature",
        text: include_str!("../builtin/features/agents/downloads.feature"),
    },
    BuiltIn {
        path: "features/agents/file_chooser.feature",
        text: include_str!("../builtin/features/agents/file_chooser.feature"),
    },
    BuiltIn { path: "features/agents/spa.feature", text: include_str!("../builtin/features/agents/spa.feature") },
    BuiltIn {
        path: "features/agents/overlays.feature",
        text: include_str!("../builtin/features/agents/overlays.feature"),
    },
    BuiltIn { path: "features/agents/frames.feature", text: include_str!("../builtin/features/agents/frames.feature") },
    BuiltIn {
        path: "features/agents/back_forward_cache.feature",
        text: include_str!("../builtin/features/agents/back_forward_cache.feature"),
    },
    BuiltIn {
        path: "features/agents/removed.feature",
        text: include_str!("../builtin/features/agents/removed.feature"),
    },
    BuiltIn {
        path: "features/agents/documents.feature",
        text: include_str!("../builtin/features/agents/documents.feature"),
    },
];

/// The built-in agents' descriptions: (name, description).
pub const AGENTS: &[(&str, &str)] = &[
    ("navguard", include_str!("../builtin/agents/navguard.toml")),
    ("navguard-mcp", include_str!("../builtin/agents/navguard-mcp.toml")),
    ("playwright-mcp", include_str!("../builtin/agents/playwright-mcp.toml")),
    ("playwright-cli", include_str!("../builtin/agents/playwright-cli.toml")),
    ("chrome-devtools-mcp", include_str!("../builtin/agents/chrome-devtools-mcp.toml")),
    ("browser-use", include_str!("../builtin/agents/browser-use.toml")),
    ("agent-browser", include_str!("../builtin/agents/agent-browser.toml")),
    ("agent-infra", include_str!("../builtin/agents/agent-infra.toml")),
    ("firefox-devtools-mcp", include_str!("../builtin/agents/firefox-devtools-mcp.toml")),
    ("puppeteer-mcp", include_str!("../builtin/agents/puppeteer-mcp.toml")),
    ("executeautomation", include_str!("../builtin/agents/executeautomation.toml")),
    ("vibium", include_str!("../builtin/agents/vibium.toml")),
    ("stagehand", include_str!("../builtin/agents/stagehand.toml")),
];

/// The built-in agents whose `{here}` is a folder of their own under the agents' folder (an
/// adapter with its own npm pins), not the agents' folder itself: (name, folder).
pub const AGENT_FOLDERS: &[(&str, &str)] = &[("stagehand", "stagehand")];

/// The npm manifest that pins the built-in MCP agents' packages (`npm ci` in `agents/`).
const AGENTS_PACKAGE_JSON: &str = include_str!("../builtin/agents/package.json");

/// The variable that names the folder where the built-in MCP agents' npm packages are
/// installed; without it, `./agents`.
pub const AGENTS_DIR_VAR: &str = "NAVGUARD_AGENTS_DIR";

/// The built-in copy of the file at `path` (as the repository names it), if there is one.
pub fn file(path: &str) -> Option<BuiltIn> {
    std::iter::once(&THRESHOLDS).chain(EXPECTATIONS).find(|b| b.path == path).copied()
}

/// The version of `package` that `agents/package.json` pins, if it pins one.
pub fn pinned(package: &str) -> Option<String> {
    let manifest: serde_json::Value = serde_json::from_str(AGENTS_PACKAGE_JSON).ok()?;
    Some(manifest.get("dependencies")?.get(package)?.as_str()?.to_owned())
}

/// Where the built-in MCP agents' npm packages are looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentsDir {
    pub path: PathBuf,
    /// It came from [`AGENTS_DIR_VAR`], not from the current folder.
    pub from_var: bool,
}

impl AgentsDir {
    /// [`AGENTS_DIR_VAR`] when it is set, else `agents` under the current folder (in this
    /// repository, where `ci/setup.sh agents` installs them).
    pub fn find() -> Self {
        match std::env::var_os(AGENTS_DIR_VAR).filter(|v| !v.is_empty()) {
            Some(dir) => Self { path: absolute(Path::new(&dir)), from_var: true },
            None => Self { path: absolute(Path::new("agents")), from_var: false },
        }
    }
}

/// `path` from the root, so that messages and an agent's command line name one folder whatever
/// the agent's own current folder (`path` itself if the current folder cannot be read).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A file a run reads: one on disk (given, or found in the current folder), or the copy the
/// command carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Disk(PathBuf),
    BuiltIn(BuiltIn),
}

impl Source {
    /// `given` if there is one; else `path` under the current folder when it is there; else
    /// the built-in copy of `path`; `None` when there is none of them.
    pub fn find(given: Option<PathBuf>, path: &str) -> Option<Self> {
        // The empty path joins as nothing: a file found is named as the user would name it.
        Self::find_in(Path::new(""), given, path)
    }

    /// As [`Source::find`], with `root` standing for the current folder.
    pub fn find_in(root: &Path, given: Option<PathBuf>, path: &str) -> Option<Self> {
        if let Some(given) = given {
            return Some(Self::Disk(given));
        }
        let here = root.join(path);
        if here.exists() {
            return Some(Self::Disk(here));
        }
        file(path).map(Self::BuiltIn)
    }

    /// Its text.
    pub fn read(&self) -> std::io::Result<Cow<'static, str>> {
        match self {
            Self::Disk(path) => std::fs::read_to_string(path).map(Cow::Owned),
            Self::BuiltIn(b) => Ok(Cow::Borrowed(b.text)),
        }
    }

    pub fn is_built_in(&self) -> bool {
        matches!(self, Self::BuiltIn(_))
    }

    /// How messages name it: its path, or the built-in copy's path with `(built in)`.
    pub fn label(&self) -> PathBuf {
        match self {
            Self::Disk(path) => path.clone(),
            Self::BuiltIn(b) => PathBuf::from(format!("{} (built in)", b.path)),
        }
    }
}

/// The agent-neutral scenarios a run reads when it is given none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentScenarios {
    /// The folder of `.feature` files.
    pub path: PathBuf,
    /// They are the built-in ones, written out (the current folder has no `features/agents`).
    pub built_in: bool,
}

/// `features/agents` under the current folder when it is there, else the built-in scenarios
/// written under `dir` (see [`write_agent_scenarios`]).
pub fn agent_scenarios(dir: &Path) -> Result<AgentScenarios, ScenariosError> {
    if Path::new(AGENT_SCENARIOS_DIR).exists() {
        return Ok(AgentScenarios { path: PathBuf::from(AGENT_SCENARIOS_DIR), built_in: false });
    }
    let path = write_agent_scenarios(dir).map_err(|source| ScenariosError { dir: dir.to_path_buf(), source })?;
    Ok(AgentScenarios { path, built_in: true })
}

/// The built-in scenarios could not be written out.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the built-in agent-neutral scenarios under {}: {source}", .dir.display())]
pub struct ScenariosError {
    pub dir: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Writes the built-in agent-neutral scenarios under `dir` (as `dir/features/agents/*.feature`,
/// so that reports name each by a file that can be opened) and returns their folder.
pub fn write_agent_scenarios(dir: &Path) -> std::io::Result<PathBuf> {
    let folder = dir.join(AGENT_SCENARIOS_DIR);
    std::fs::create_dir_all(&folder)?;
    for scenario in AGENT_SCENARIOS {
        std::fs::write(dir.join(scenario.path), scenario.text)?;
    }
    Ok(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_file_is_found_by_its_path_and_only_those() {
        for b in std::iter::once(&THRESHOLDS).chain(EXPECTATIONS) {
            assert_eq!(file(b.path), Some(*b));
            assert!(!b.text.trim().is_empty(), "{} is empty", b.path);
        }
        assert_eq!(file("gate/expectations/agent-navguard.txt"), None);
        assert_eq!(file("gate/expectations/agent-jsonl-example.txt"), None);
    }

    #[test]
    fn both_built_in_mcp_agents_have_their_npm_package_pinned() {
        for (package, pin) in
            [("@playwright/mcp", pinned("@playwright/mcp")), ("chrome-devtools-mcp", pinned("chrome-devtools-mcp"))]
        {
            let pin = pin.unwrap_or_else(|| panic!("agents/package.json does not pin {package}"));
            assert!(pin.chars().all(|c| c.is_ascii_digit() || c == '.'), "{package} {pin} is not an exact version");
        }
        assert_eq!(pinned("left-pad"), None);
    }

    /// The names of the `.feature` or `.txt` files in the crate's `builtin/<folder>`.
    fn files_in(folder: &str) -> Vec<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("builtin").join(folder);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".feature") || name.ends_with(".txt"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn every_agent_neutral_scenario_file_is_built_in() {
        let mut built_in: Vec<&str> = AGENT_SCENARIOS.iter().filter_map(|b| b.path.rsplit('/').next()).collect();
        built_in.sort_unstable();
        assert_eq!(files_in("features/agents"), built_in);
    }

    #[test]
    fn every_browser_and_every_built_in_agent_with_known_failures_has_them_built_in() {
        for browser in navguard::adapter::BrowserKind::ALL {
            assert!(file(&format!("gate/expectations/{browser}.txt")).is_some(), "{browser}");
        }
        let on_disk = files_in("gate/expectations");
        for (agent, _) in AGENTS {
            let name = format!("agent-{agent}.txt");
            let built_in = file(&format!("gate/expectations/{name}")).is_some();
            assert_eq!(built_in, on_disk.contains(&name), "{name}");
        }
    }

    #[test]
    fn a_file_given_comes_before_the_current_folder_s_and_the_built_in_one_comes_last() {
        let given = PathBuf::from("/no/such/thresholds.txt");
        assert_eq!(Source::find(Some(given.clone()), THRESHOLDS.path), Some(Source::Disk(given)));
        // Unit tests run in harness/, which has no gate/ of its own.
        assert_eq!(Source::find(None, THRESHOLDS.path), Some(Source::BuiltIn(THRESHOLDS)));
        assert_eq!(Source::find(None, "gate/expectations/agent-mine.txt"), None);
        let built_in = Source::BuiltIn(THRESHOLDS);
        assert_eq!(built_in.label(), PathBuf::from("gate/thresholds.txt (built in)"));
        assert_eq!(built_in.read().unwrap(), THRESHOLDS.text);
    }

    #[test]
    fn the_agent_scenarios_are_written_where_reports_can_name_them() {
        let dir = tempfile::tempdir().unwrap();
        let folder = write_agent_scenarios(dir.path()).unwrap();
        assert_eq!(folder, dir.path().join("features/agents"));
        for scenario in AGENT_SCENARIOS {
            assert_eq!(std::fs::read_to_string(dir.path().join(scenario.path)).unwrap(), scenario.text);
        }
    }
}
