//! Arguments: a bad one exits 2 before anything runs, and the help shows the true defaults.

use crate::support::*;

#[test]
fn bad_arguments_exit_2_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "a.feature", PASSING);
    for args in [
        vec!["gate", path.as_str(), "--repeat", "0"],
        vec!["repro", "features/core/coverage_matrix.feature:170", "--repeat", "0"],
        vec!["gate", path.as_str(), "--shard", "3/2"],
        vec!["run", path.as_str(), "--concurrency", "0"],
        vec!["run", path.as_str(), "--sessions", "0"],
        vec!["run", path.as_str(), "--tags", "@a and"],
        vec!["run", path.as_str(), "--retry", "2"],
    ] {
        let out = navguard(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "), "{args:?}: {}", text(&out));
    }
}

#[test]
fn run_help_shows_the_runner_s_options_with_their_true_defaults() {
    let out = navguard(&["run", "--help"], None);
    let help = text(&out);
    assert_eq!(out.status.code(), Some(0), "{help}");
    for option in [
        "--name <regex>",
        "--tags <tagexpr>",
        "--browser",
        "--webdriver-url",
        "--headful",
        "--fail-fast",
        "--sessions <n>",
    ] {
        assert!(help.contains(option), "{option} missing:\n{help}");
    }
    assert!(help.contains("--concurrency <n>") && help.contains("[default: 4]"), "{help}");
    assert!(help.contains("target/navguard]"), "{help}");
    assert!(!help.contains("--retry") && !help.contains("pet a dog"), "{help}");
}

#[test]
fn compare_checks_every_agent_before_the_first_scenario_and_names_the_one_that_is_not_there() {
    let report = tempfile::tempdir().unwrap();
    let args = ["compare", "--agents", "navguard,no-such-agent", "--report-dir", report.path().to_str().unwrap()];
    let out = navguard(&args, None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("navguard compare: no-such-agent: "), "{stderr}");
    // Nothing ran: not even the first agent's scenarios.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("features:"), "{}", text(&out));
    assert!(!report.path().join("navguard").exists());
}
