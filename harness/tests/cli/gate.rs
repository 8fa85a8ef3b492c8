//! `navguard gate`: judged by its thresholds and known failures, its log kept readable over
//! repeats.

use crate::support::*;

#[test]
fn the_gate_fails_on_an_unexpected_failure_and_passes_when_it_is_an_expected_deviation() {
    let dir = tempfile::tempdir().unwrap();
    let body = "Feature: f\n  Scenario: deviates\n    When a new tab is created on \"{site}/page\"\n    Then the frobnicator spins\n";
    let path = feature(dir.path(), "g.feature", body);
    let thresholds = feature(dir.path(), "thresholds.txt", "min_pass_rate 1.0\nmax_flake_rate 0.0\n");
    let none = feature(dir.path(), "none.txt", "# nothing expected\n");
    let known = feature(dir.path(), "known.txt", "g.feature: deviates\n");
    let report = dir.path().join("gate").display().to_string();
    let gate = |expectations: &str| {
        navguard(
            &["gate", &path, "--thresholds", &thresholds, "--expectations", expectations, "--report-dir", &report],
            None,
        )
    };
    let failed = gate(&none);
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed));
    assert!(text(&failed).contains("unexpected failure: g.feature: deviates"), "{}", text(&failed));
    assert!(
        text(&failed).contains("gate: FAILED (1 missed thresholds: min_pass_rate; 1 unexpected failures)"),
        "{}",
        text(&failed)
    );
    let index = std::fs::read_to_string(dir.path().join("gate/index.html")).unwrap();
    assert!(index.contains("MISSED") && index.contains("href=\"run-1/report.html#g-L2\""), "{index}");
    let passed = gate(&known);
    assert_eq!(passed.status.code(), Some(0), "{}", text(&passed));
    assert!(text(&passed).contains("gate: PASSED"));
}

#[test]
fn a_gate_whose_run_could_not_start_exits_2_and_measures_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "a.feature", PASSING);
    let report = dir.path().join("gate");
    let args = ["gate", &path, "--report-dir", report.to_str().unwrap()];
    let out = navguard_with(&args, &[("NAVGUARD_CHROMEDRIVER", "/nowhere/chromedriver")]);
    let text = text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("could not start: chromedriver not found"), "{text}");
    // Words of a measurement or a verdict (whole words: the browser's build may say "bookworm").
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).collect();
    for measured in ["pass", "ok", "FAILED", "PASSED"] {
        assert!(!words.contains(&measured), "{measured:?} printed for a run that did not start:\n{text}");
    }
    assert!(!report.join("index.html").exists());
}

#[test]
fn the_gate_lists_its_first_run_and_then_only_what_did_not_pass_leaving_known_failures_brief() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "t.feature", ONE_FAILS);
    let known = feature(dir.path(), "known.txt", "t.feature: wrong title\n");
    let report = dir.path().join("gate").display().to_string();
    let out = navguard(&["gate", &path, "--repeat", "2", "--expectations", &known, "--report-dir", &report], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lines = scenario_lines(&out);
    let passing: Vec<&String> = lines.iter().filter(|l| l.ends_with("right title")).collect();
    let known: Vec<&String> = lines.iter().filter(|l| l.ends_with("wrong title")).collect();
    assert_eq!(passing.len(), 1, "the passing scenario is listed in the first run only:\n{stdout}");
    assert_eq!(known.len(), 2, "the known failure is listed in each run:\n{stdout}");
    assert!(known.iter().all(|l| l.starts_with("xfail ")), "{stdout}");
    assert!(stdout.contains("gate: run 2 of 2 (listing only the scenarios that do not pass)"), "{stdout}");
    assert!(!stdout.contains("\nFAILED "), "a known failure printed in full:\n{stdout}");
    assert!(!stdout.contains("navguard: per feature"), "a gate run printed its own table:\n{stdout}");
    assert!(stdout.contains("gate: PASSED"), "{stdout}");
}
