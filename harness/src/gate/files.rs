//! The files the gate judges by: the thresholds and the known failures (the browser's, the
//! agent's), each as given on the command line, else in the current folder laid out as
//! navguard's repository lays it out, else the copy navguard carries ([`crate::builtin`]).

use super::{Threshold, Thresholds};
use crate::builtin::{self, Source};
use navguard::adapter::BrowserKind;
use std::collections::{BTreeMap, BTreeSet};
use std::num::ParseFloatError;
use std::path::{Path, PathBuf};

/// Why a gate file (the thresholds or an expectations file) cannot be used. Each message names
/// the file, and the line when one line is at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GateFileError {
    #[error("{}: {source}", .path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: expected `name value`", .path.display())]
    NoValue { path: PathBuf, line: usize },
    #[error("{}:{line}: {value:?} is not a number", .path.display())]
    NotANumber {
        path: PathBuf,
        line: usize,
        value: String,
        #[source]
        source: ParseFloatError,
    },
    #[error("{}:{line}: unknown threshold {name:?} (known: {})", .path.display(), Threshold::list())]
    UnknownThreshold { path: PathBuf, line: usize, name: String },
    #[error("{}:{line}: a known failure needs its reason: write it after ` # ` on the line, or as a comment just above", .path.display())]
    NoReason { path: PathBuf, line: usize },
}

fn read(file: &Source) -> Result<std::borrow::Cow<'static, str>, GateFileError> {
    file.read().map_err(|source| GateFileError::Unreadable { path: file.label(), source })
}

/// What an expectations file's `# Recorded on: <browser build>` line says, if it has one.
pub(super) fn recorded_on(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let said = line.trim().strip_prefix('#')?.trim_start();
        let (label, on) = said.split_once(':')?;
        label.eq_ignore_ascii_case("recorded on").then(|| on.trim().to_owned()).filter(|on| !on.is_empty())
    })
}

/// Reads `name value` lines; a malformed line or an unknown name is an error naming the line.
pub fn read_thresholds(file: &Source) -> Result<Thresholds, GateFileError> {
    parse_thresholds(&read(file)?, &file.label())
}

fn parse_thresholds(text: &str, path: &Path) -> Result<Thresholds, GateFileError> {
    let mut map = BTreeMap::new();
    for (line, text) in
        text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
    {
        let (name, value) = text
            .split_once(char::is_whitespace)
            .ok_or_else(|| GateFileError::NoValue { path: path.to_owned(), line })?;
        let limit = value.trim().parse::<f64>().map_err(|source| GateFileError::NotANumber {
            path: path.to_owned(),
            line,
            value: value.to_owned(),
            source,
        })?;
        let threshold = name.parse::<Threshold>().map_err(|_| GateFileError::UnknownThreshold {
            path: path.to_owned(),
            line,
            name: name.to_owned(),
        })?;
        map.insert(threshold, limit);
    }
    Ok(Thresholds(map))
}

/// Reads the expected failures: `<feature file name>: <scenario name>` lines.
pub fn read_expectations(file: &Source) -> Result<BTreeSet<String>, GateFileError> {
    Ok(read_known_failures(file, false)?.into_keys().collect())
}

/// Reads the expected failures with their reasons: each `<feature file name>: <scenario name>`
/// line's reason is what follows ` # ` on it, else the comment lines just above it (a blank
/// line ends a comment). With `need_reason` (an agent's file), an entry without one is an error
/// naming its line.
pub fn read_known_failures(file: &Source, need_reason: bool) -> Result<BTreeMap<String, String>, GateFileError> {
    parse_known_failures(&read(file)?, &file.label(), need_reason)
}

fn parse_known_failures(text: &str, path: &Path, need_reason: bool) -> Result<BTreeMap<String, String>, GateFileError> {
    let mut known = BTreeMap::new();
    let mut comment: Vec<&str> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            comment.clear();
        } else if let Some(words) = line.strip_prefix('#') {
            comment.push(words.trim());
        } else {
            let (key, reason) = match line.split_once(" # ") {
                Some((key, reason)) => (key.trim(), reason.trim().to_owned()),
                None => (line, comment.join(" ")),
            };
            if need_reason && reason.is_empty() {
                return Err(GateFileError::NoReason { path: path.to_owned(), line: n + 1 });
            }
            known.insert(key.to_owned(), reason);
        }
    }
    Ok(known)
}

/// The files the gate judges by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateFiles {
    pub thresholds: Source,
    /// The browser's known deviations.
    pub expectations: Source,
    /// The agent's known failures (`--agent`), each with its reason.
    pub agent_expectations: Option<AgentKnownFailures>,
}

/// Where an agent's known failures are looked for, and what was found there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentKnownFailures {
    pub path: String,
    /// `None`: neither the current folder nor navguard has a file for it.
    pub found: Option<Source>,
}

impl GateFiles {
    /// Each file as given, else in the current folder, else built in ([`Source::find`]).
    pub fn find(
        thresholds: Option<PathBuf>,
        expectations: Option<PathBuf>,
        agent: Option<&str>,
        browser: BrowserKind,
    ) -> Self {
        // The empty path joins as nothing: the files are named as the user would name them.
        Self::find_in(Path::new(""), thresholds, expectations, agent, browser)
    }

    /// As [`GateFiles::find`], with `root` standing for the current folder.
    pub fn find_in(
        root: &Path,
        thresholds: Option<PathBuf>,
        expectations: Option<PathBuf>,
        agent: Option<&str>,
        browser: BrowserKind,
    ) -> Self {
        let thresholds =
            Source::find_in(root, thresholds, builtin::THRESHOLDS.path).unwrap_or(Source::BuiltIn(builtin::THRESHOLDS));
        let path = format!("gate/expectations/{browser}.txt");
        // Every browser has its file built in; were one missing, reading the path names it.
        let expectations = Source::find_in(root, expectations, &path).unwrap_or_else(|| Source::Disk(root.join(path)));
        let agent_expectations = agent.map(|a| {
            let path = format!("gate/expectations/agent-{a}.txt");
            AgentKnownFailures { found: Source::find_in(root, None, &path), path }
        });
        Self { thresholds, expectations, agent_expectations }
    }

    /// The built-in files it judges by, by their paths in navguard's repository.
    pub fn built_in(&self) -> Vec<&'static str> {
        let agent = self.agent_expectations.as_ref().and_then(|a| a.found.as_ref());
        [Some(&self.thresholds), Some(&self.expectations), agent]
            .into_iter()
            .flatten()
            .filter_map(|s| match s {
                Source::BuiltIn(b) => Some(b.path),
                Source::Disk(_) => None,
            })
            .collect()
    }

    /// The line that says which built-in files it takes, if any: a run outside a repository
    /// laid out like navguard's is judged by files it can name.
    pub fn built_in_note(&self) -> Option<String> {
        let built_in = self.built_in();
        (!built_in.is_empty()).then(|| {
            format!(
                "navguard gate: judged by navguard's built-in {} (none in ./gate here; --thresholds and --expectations give others)",
                built_in.join(", ")
            )
        })
    }

    /// The line that says the agent has no known failures, when no file lists any.
    pub fn no_agent_file_note(&self) -> Option<String> {
        let agent = self.agent_expectations.as_ref()?;
        match agent.found {
            Some(_) => None,
            None => Some(format!("navguard gate: no {}: the agent has no known failures", agent.path)),
        }
    }

    /// Which browser build each expectations file was recorded on (its `# Recorded on: …`
    /// line), beside `this_run`'s build, one line per file that says; the reader sees at once
    /// when a file was recorded on another build than the one the gate runs.
    pub fn recorded_on_notes(&self, this_run: &str) -> Vec<String> {
        let agent = self.agent_expectations.as_ref().and_then(|a| a.found.as_ref());
        [Some(&self.expectations), agent]
            .into_iter()
            .flatten()
            .filter_map(|file| {
                let on = recorded_on(&read(file).ok()?)?;
                Some(format!("navguard gate: {} was recorded on {on}; this run: {this_run}", file.label().display()))
            })
            .collect()
    }

    /// The known failures the gate judges by: the browser's, and the agent's when one is named
    /// (an agent with no file has none).
    pub fn known_failures(&self) -> Result<BTreeSet<String>, GateFileError> {
        let mut known = read_expectations(&self.expectations)?;
        if let Some(AgentKnownFailures { found: Some(file), .. }) = &self.agent_expectations {
            known.extend(read_known_failures(file, true)?.into_keys());
        }
        Ok(known)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_failure_reads_its_reason_from_its_line_or_the_comment_above() {
        let text =
            "# header\n\n# stays on the old page\na.feature: one\nb.feature: two # no answer\n\nc.feature: three\n";
        let known = parse_known_failures(text, Path::new("x.txt"), false).unwrap();
        assert_eq!(known["a.feature: one"], "stays on the old page");
        assert_eq!(known["b.feature: two"], "no answer");
        assert_eq!(known["c.feature: three"], "");
        let e = parse_known_failures(text, Path::new("x.txt"), true).unwrap_err().to_string();
        assert!(e.contains("x.txt:7") && e.contains("reason"), "{e}");
    }

    #[test]
    fn an_unknown_threshold_is_an_error_naming_it_and_its_line() {
        let text = "# comment\nmin_pass_rate 1.0\nmax_speed 3\n";
        let err = parse_thresholds(text, Path::new("gate/thresholds.txt")).unwrap_err();
        assert!(matches!(err, GateFileError::UnknownThreshold { line: 3, .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "gate/thresholds.txt:3: unknown threshold \"max_speed\" (known: min_pass_rate, max_flake_rate, \
             max_false_stop_rate, max_misjudgement_rate, max_p95_scenario_ms, max_p95_guard_wait_ms, \
             min_verified_done_rate, max_false_done_rate, max_p95_repairs)"
        );
    }

    /// A folder laid out as navguard's repository, with the thresholds and Chromium's known
    /// deviations in it.
    fn repository() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("gate/expectations")).unwrap();
        std::fs::write(root.path().join("gate/thresholds.txt"), "min_pass_rate 1\n").unwrap();
        std::fs::write(root.path().join("gate/expectations/chromium.txt"), "").unwrap();
        root
    }

    #[test]
    fn a_file_given_on_the_command_line_comes_before_the_folder_s() {
        let root = repository();
        let given = PathBuf::from("/elsewhere/thresholds.txt");
        let files = GateFiles::find_in(root.path(), Some(given.clone()), None, None, BrowserKind::Chromium);
        assert_eq!(files.thresholds, Source::Disk(given));
        assert_eq!(files.expectations, Source::Disk(root.path().join("gate/expectations/chromium.txt")));
    }

    #[test]
    fn the_folder_s_files_come_before_the_built_in_copies() {
        let root = repository();
        let files = GateFiles::find_in(root.path(), None, None, None, BrowserKind::Chromium);
        assert_eq!(files.thresholds, Source::Disk(root.path().join("gate/thresholds.txt")));
        assert_eq!(files.built_in(), Vec::<&str>::new());
        assert_eq!(files.built_in_note(), None);
        // Firefox's file is not in the folder: its built-in copy is taken, and said so.
        let firefox = GateFiles::find_in(root.path(), None, None, None, BrowserKind::Firefox);
        assert_eq!(firefox.built_in(), ["gate/expectations/firefox.txt"]);
    }

    #[test]
    fn in_a_folder_without_gate_files_the_built_in_copies_are_taken_and_named() {
        let root = tempfile::tempdir().unwrap();
        let files = GateFiles::find_in(root.path(), None, None, Some("playwright-mcp"), BrowserKind::Chromium);
        assert_eq!(files.thresholds, Source::BuiltIn(builtin::THRESHOLDS));
        assert_eq!(
            files.built_in(),
            ["gate/thresholds.txt", "gate/expectations/chromium.txt", "gate/expectations/agent-playwright-mcp.txt"]
        );
        assert_eq!(
            files.built_in_note().unwrap(),
            "navguard gate: judged by navguard's built-in gate/thresholds.txt, gate/expectations/chromium.txt, \
             gate/expectations/agent-playwright-mcp.txt (none in ./gate here; --thresholds and --expectations give \
             others)"
        );
        assert_eq!(files.no_agent_file_note(), None);
        assert!(!files.known_failures().unwrap().is_empty());
    }

    #[test]
    fn an_agent_without_known_failures_anywhere_has_none_and_it_is_said() {
        let root = repository();
        let files = GateFiles::find_in(root.path(), None, None, Some("mine"), BrowserKind::Chromium);
        let agent = files.agent_expectations.as_ref().unwrap();
        assert_eq!((agent.path.as_str(), &agent.found), ("gate/expectations/agent-mine.txt", &None));
        assert_eq!(
            files.no_agent_file_note().unwrap(),
            "navguard gate: no gate/expectations/agent-mine.txt: the agent has no known failures"
        );
        assert!(files.known_failures().unwrap().is_empty());
    }

    #[test]
    fn an_expectations_file_says_which_build_it_was_recorded_on() {
        assert_eq!(
            recorded_on("# a\n#  Recorded on: Firefox ESR 153.8.0esr \nx.feature: y"),
            Some("Firefox ESR 153.8.0esr".into())
        );
        assert_eq!(recorded_on("# recorded on:\n"), None);
        assert_eq!(recorded_on("x.feature: recorded on: y"), None);
        for browser in ["chromium", "firefox"] {
            let file = crate::builtin::file(&format!("gate/expectations/{browser}.txt")).unwrap();
            assert!(recorded_on(file.text).is_some(), "{browser}.txt says its build");
        }
    }

    #[test]
    fn the_built_in_thresholds_and_known_failures_parse() {
        let thresholds = Source::BuiltIn(crate::builtin::THRESHOLDS);
        // Every threshold but the two times, which are reported and not judged (see the file).
        let judged = read_thresholds(&thresholds).unwrap().0;
        assert_eq!(judged.len(), Threshold::ALL.len() - 2);
        assert!(!format!("{judged:?}").contains("P95ScenarioMs"), "{judged:?}");
        for agent in ["playwright-mcp", "chrome-devtools-mcp"] {
            let file = crate::builtin::file(&format!("gate/expectations/agent-{agent}.txt")).unwrap();
            assert!(!read_known_failures(&Source::BuiltIn(file), true).unwrap().is_empty(), "{agent}");
        }
    }
}
