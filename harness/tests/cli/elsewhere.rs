//! In a folder outside the repository: what navguard carries (thresholds, known failures, the
//! agent-neutral scenarios) stands in for the repository's files.

use crate::support::*;

#[test]
fn in_a_folder_outside_the_repository_run_validate_and_gate_work_with_what_navguard_carries() {
    let dir = elsewhere();
    feature(
        dir.path(),
        "my.feature",
        "Feature: mine\n  Scenario: a page opens\n    Given a tab is open on \"{site}/page?title=Mine\"\n    Then the page's title is \"Mine\"\n",
    );
    let here = dir.path();

    let out = navguard_in(here, &["validate", "my.feature"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("navguard validate: valid: 1 scenarios, 0 problems (1 feature files)"),
        "{}",
        text(&out)
    );
    let out = navguard_in(here, &["validate"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no ./features here: give a .feature file or a folder"), "{}", text(&out));

    // The fixture site is built into the command: the page is served with no file beside it.
    let out = navguard_in(here, &["run", "my.feature"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("features: 1 passed, 0 failed"), "{}", text(&out));
    assert!(here.join("target/navguard/report.html").is_file(), "no report under the current folder");

    // No gate/ here: the built-in thresholds and Chromium's known deviations judge the run.
    let out = navguard_in(here, &["gate", "my.feature"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("judged by navguard's built-in gate/thresholds.txt, gate/expectations/chromium.txt"),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("min_verified_done_rate"),
        "the built-in thresholds were not all read:\n{}",
        text(&out)
    );
    assert!(text(&out).contains("gate: PASSED"), "{}", text(&out));
    assert!(here.join("target/navguard/gate/chromium/index.html").is_file());

    // A thresholds file in the current folder takes the built-in one's place.
    std::fs::create_dir(here.join("gate")).unwrap();
    std::fs::write(here.join("gate/thresholds.txt"), "max_p95_scenario_ms 1\n").unwrap();
    let out = navguard_in(here, &["gate", "my.feature"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("judged by navguard's built-in gate/expectations/chromium.txt ("), "{}", text(&out));
    assert!(text(&out).contains("gate: FAILED (1 missed thresholds: max_p95_scenario_ms;"), "{}", text(&out));

    let out = navguard_in(here, &["gate"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("navguard gate: no ./features here"), "{}", text(&out));
}

#[test]
fn in_a_folder_outside_the_repository_the_gate_of_an_agent_runs_the_built_in_agent_neutral_scenarios() {
    let dir = elsewhere();
    let name = "navigate to a slow page answers with that page";
    let out = navguard_in(dir.path(), &["gate", "--agent", "navguard", "--name", name], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let written = dir.path().join("target/navguard/gate/agent-navguard-chromium/features/agents");
    assert!(
        text(&out).contains(&format!(
            "no ./features/agents here: running the built-in agent-neutral scenarios, written to {}",
            "target/navguard/gate/agent-navguard-chromium/features/agents"
        )),
        "{}",
        text(&out)
    );
    let navigation = std::fs::read_to_string(written.join("navigation.feature")).unwrap();
    assert!(navigation.contains(&format!("Scenario: {name}")), "{navigation}");
    assert!(text(&out).contains("gate: 1 passed, 0 failed"), "{}", text(&out));

    // `run` likewise: with an agent and no path, the built-in scenarios; with neither, one line.
    let out = navguard_in(dir.path(), &["run", "--agent", "navguard", "--name", name], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("written to target/navguard/features/agents"), "{}", text(&out));
    assert!(text(&out).contains("features: 1 passed, 0 failed"), "{}", text(&out));
    let out = navguard_in(dir.path(), &["run"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("navguard run: no ./features here"), "{}", text(&out));
}

#[test]
fn a_built_in_mcp_agent_whose_npm_package_is_not_installed_is_one_line_saying_what_to_run() {
    let dir = elsewhere();
    let path = feature(dir.path(), "a.feature", PASSING);
    let pin = |package: &str| {
        let manifest = std::fs::read_to_string(root().join("agents/package.json")).unwrap();
        let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        manifest["dependencies"][package].as_str().unwrap().to_owned()
    };
    // No agents/ here and no NAVGUARD_AGENTS_DIR: it says where it looked and both ways out.
    let out = navguard_in(dir.path(), &["run", &path, "--agent", "playwright-mcp"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let looked_in = std::path::absolute(dir.path().join("agents")).unwrap();
    for expected in [
        format!("agent playwright-mcp: its npm package @playwright/mcp is not installed in {}", looked_in.display()),
        format!("npm install --ignore-scripts @playwright/mcp@{}", pin("@playwright/mcp")),
        "set NAVGUARD_AGENTS_DIR=<that folder>".to_owned(),
    ] {
        assert!(stderr.contains(&expected), "missing {expected:?} in: {stderr}");
    }
    // A folder named by NAVGUARD_AGENTS_DIR that lacks it is named as such; the gate says so
    // before it writes or reads anything.
    let (empty, fresh) = (elsewhere(), elsewhere());
    let folder = empty.path().to_str().unwrap();
    let out =
        navguard_in(fresh.path(), &["gate", "--agent", "chrome-devtools-mcp"], &[("NAVGUARD_AGENTS_DIR", folder)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let expected = format!(
        "navguard gate: agent chrome-devtools-mcp: its npm package chrome-devtools-mcp is not installed in \
         {folder}: run `npm install --ignore-scripts chrome-devtools-mcp@{}` there",
        pin("chrome-devtools-mcp")
    );
    assert!(stderr.contains(&expected), "missing {expected:?} in: {stderr}");
    assert!(!fresh.path().join("target").exists(), "the gate wrote files for an agent that cannot start");
}
