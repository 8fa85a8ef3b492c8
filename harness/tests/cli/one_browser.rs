//! A machine with one browser: each command that needs one browser runs where only that one is
//! installed (a `PATH` that holds only its binaries), and a command asked for the missing one
//! says in one line which it is and how to install it.

use crate::support::*;
use std::path::{Path, PathBuf};

/// The folder of `binary` on this machine (as `command -v` finds it on the test's own PATH).
fn found(binary: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cargo_bin = std::env::var_os("CARGO_HOME").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo/bin"),
        |home| PathBuf::from(home).join("bin"),
    );
    std::env::split_paths(&path)
        .chain([cargo_bin])
        .map(|dir| dir.join(binary))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{binary} is installed (bash ci/setup.sh chromium firefox)"))
}

/// A folder holding links to `binaries` and nothing else: the machine's PATH with one browser.
fn path_with(dir: &Path, binaries: &[&str]) -> String {
    for binary in binaries {
        std::os::unix::fs::symlink(found(binary), dir.join(binary)).unwrap();
    }
    dir.display().to_string()
}

/// The agent-neutral scenario the core runs in process, on the browser named.
fn run_one(browser: &str, path: &str, report: &Path) -> std::process::Output {
    let args = [
        "run",
        "features/agents/anchors.feature",
        "--name",
        "^Navigating to an anchor",
        "--browser",
        browser,
        "--report-dir",
        report.to_str().unwrap(),
    ];
    navguard_with(&args, &[("PATH", path)])
}

/// With only `binaries` on the PATH, the core's scenario passes on `present`, and asking for
/// `missing` is one line naming it (`named` is in that line) with exit 2.
fn alone(binaries: &[&str], present: &str, missing: &str, named: &str) {
    let (bin, report) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let path = path_with(bin.path(), binaries);
    let out = run_one(present, &path, report.path());
    assert!(out.status.success() && text(&out).contains("features: 1 passed, 0 failed"), "{}", text(&out));
    let out = run_one(missing, &path, report.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not found") && stderr.contains(named), "{stderr}");
}

#[test]
fn firefox_alone_runs_the_agent_neutral_scenarios_on_the_core_and_names_chromium_when_asked() {
    alone(&["firefox-esr", "geckodriver"], "firefox", "chromium", "apt-get install chromium");
}

#[test]
fn chromium_alone_runs_the_agent_neutral_scenarios_on_the_core_and_names_firefox_when_asked() {
    alone(&["chromium", "chromedriver"], "chromium", "firefox", "firefox-esr");
}
