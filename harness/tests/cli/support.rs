//! What the tests of the `navguard` command share: the binary run as a user runs it, in the
//! repository or in a folder of the test's own, and the feature files they write.

use std::path::Path;
use std::process::{Command, Output};

/// The workspace's top folder: the command runs there, as a user runs it.
pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace")
}

pub(crate) fn navguard(args: &[&str], path_env: Option<&str>) -> Output {
    let path: Vec<(&str, &str)> = path_env.map(|p| ("PATH", p)).into_iter().collect();
    navguard_with(args, &path)
}

/// `navguard` with these environment variables set (the browser overrides removed first).
pub(crate) fn navguard_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    navguard_in(root(), args, env)
}

/// `navguard` run in `dir`, with these environment variables set (navguard's own removed first).
pub(crate) fn navguard_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_navguard"));
    cmd.current_dir(dir).args(args);
    for name in [
        "NAVGUARD_CHROMEDRIVER",
        "NAVGUARD_CHROMIUM",
        "NAVGUARD_GECKODRIVER",
        "NAVGUARD_FIREFOX",
        "NAVGUARD_BROWSER",
        "NAVGUARD_WEBDRIVER_URL",
        "NAVGUARD_AGENTS_DIR",
        "RUST_LOG",
    ] {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().copied());
    cmd.output().expect("navguard runs")
}

pub(crate) fn feature(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

pub(crate) fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

pub(crate) const PASSING: &str = "Feature: f\n  Scenario: s\n    When a new tab is created on \"{site}/page\"\n";

/// The line of the scenario called `name` in a feature of the repository.
pub(crate) fn scenario_line(feature_file: &str, name: &str) -> String {
    let text = std::fs::read_to_string(feature_file).unwrap();
    let line = text.lines().position(|l| l.trim() == format!("Scenario: {name}")).expect("the scenario exists");
    format!("{feature_file}:{}", line + 1)
}

/// A folder outside the repository, as a user of an installed navguard has: no features/, no
/// gate/, no agents/ (the system's temporary folder, never inside the workspace).
pub(crate) fn elsewhere() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    assert!(!dir.path().starts_with(root()), "{} is inside the repository", dir.path().display());
    dir
}

/// Two scenarios: one that passes, one whose title check fails (line 7).
pub(crate) const ONE_FAILS: &str = "Feature: f\n  Scenario: right title\n    Given a tab is open on \"{site}/page?title=Home\"\n    \
                         Then the page's title is \"Home\"\n\n  Scenario: wrong title\n    \
                         Given a tab is open on \"{site}/page?title=Home\"\n    Then the page's title is \"Away\"\n    \
                         And the tab is not loading\n";

/// The lines of `out`'s stdout that are a scenario's one line: `<status> <time> s  <where>  <name>`.
pub(crate) fn scenario_lines(out: &Output) -> Vec<String> {
    let line = regex::Regex::new(r"^(ok|FAIL|xfail|n/a) +\d+\.\d s  \S+:\d+  .+$").unwrap();
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| line.is_match(l)).map(str::to_owned).collect()
}
