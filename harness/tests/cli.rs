//! The `navguard` command on bad input: a clear message and a non-zero exit, never a hang.

use std::path::Path;
use std::process::{Command, Output};

/// The workspace's top folder: the command runs there, as a user runs it.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace")
}

fn navguard(args: &[&str], path_env: Option<&str>) -> Output {
    let path: Vec<(&str, &str)> = path_env.map(|p| ("PATH", p)).into_iter().collect();
    navguard_with(args, &path)
}

/// `navguard` with these environment variables set (the browser overrides removed first).
fn navguard_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    navguard_in(root(), args, env)
}

/// `navguard` run in `dir`, with these environment variables set (navguard's own removed first).
fn navguard_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_navguard"));
    cmd.current_dir(dir).args(args);
    for name in [
        "NAVGUARD_CHROMEDRIVER",
        "NAVGUARD_CHROMIUM",
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

fn feature(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

const PASSING: &str = "Feature: f\n  Scenario: s\n    When a new tab is created on \"{site}/page\"\n";

#[test]
fn a_machine_without_chromedriver_gets_one_line_naming_it_and_the_install_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "a.feature", PASSING);
    let out = navguard(&["run", &path], Some(dir.path().to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("chromedriver not found") && stderr.contains("apt-get install chromium chromium-driver"),
        "{stderr}"
    );
}

#[test]
fn a_path_that_does_not_exist_is_named() {
    let out = navguard(&["run", "no/such.feature"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no such feature file or folder: no/such.feature"));
}

#[test]
fn an_undefined_step_fails_its_scenario_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let body =
        "Feature: f\n  Scenario: s\n    When a new tab is created on \"{site}/page\"\n    Then the frobnicator spins\n";
    let path = feature(dir.path(), "u.feature", body);
    let report = dir.path().join("report");
    let out = navguard(&["run", &path, "--report-dir", report.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("undefined step at line 4: Then the frobnicator spins"), "{}", text(&out));
    assert!(text(&out).contains("features: 0 passed, 1 failed"));
    let artifacts = report.join("artifacts/u/L2-s");
    for file in ["events.jsonl", "bidi.jsonl", "requests.jsonl", "screenshot.png"] {
        assert!(artifacts.join(file).is_file(), "{file} missing in {}", artifacts.display());
    }
    let events = std::fs::read_to_string(artifacts.join("events.jsonl")).unwrap();
    assert!(events.contains("\"kind\":\"started\""), "{events}");
}

#[test]
fn a_failing_step_is_named_in_the_summary_and_the_html_report_shows_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let body = "Feature: f\n  Scenario: wrong title\n    When a new tab is created on \"{site}/page?title=Home\"\n    \
                Then the page's title is \"<Away>\"\n    And the tab is not loading\n";
    let path = feature(dir.path(), "t.feature", body);
    let report = dir.path().join("report");
    let out = navguard(&["run", &path, "--report-dir", report.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("at line 4: Then the page's title is \"<Away>\" (failed)"), "{}", text(&out));
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    for (status, step) in [
        ("passed", "a new tab is created on"),
        ("failed", "title is &quot;&lt;Away&gt;&quot;"),
        ("not-run", "the tab is not loading"),
    ] {
        let at = html.find(step).unwrap_or_else(|| panic!("{step} missing: {html}"));
        let item = &html[html[..at].rfind("<li").unwrap()..at];
        assert!(item.contains(&format!("class=\"{status}\"")), "{step} is not {status}: {item}");
    }
    assert!(html.contains("href=\"artifacts/t/L2-wrong-title/events.jsonl\""), "{html}");
    assert!(html.contains(
        "<a href=\"artifacts/t/L2-wrong-title/screenshot.png\"><img class=\"shot\" src=\"data:image/png;base64,"
    ));
    assert!(html.contains("<svg"), "no timeline picture: {html}");
}

#[test]
fn an_unknown_browser_is_named_with_the_ones_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "b.feature", PASSING);
    for args in [vec!["run", path.as_str(), "--browser", "safari"], vec!["gate", path.as_str(), "--browser", "safari"]]
    {
        let out = navguard(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("unknown browser \"safari\": use chromium or firefox"), "{}", text(&out));
    }
}

#[test]
fn a_feature_that_does_not_parse_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "broken.feature", "Feature: f\n  Scenarioo: nope\n   | x |\n");
    let report = dir.path().join("report");
    let out = navguard(&["run", &path, "--report-dir", report.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("did not parse"), "{}", text(&out));
}

#[test]
fn a_folder_without_features_is_a_failure_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let out = navguard(&["run", dir.path().to_str().unwrap(), "--report-dir", report.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("no scenario ran"));
}

#[test]
fn a_feature_outside_the_repository_runs_with_the_same_steps_and_writes_junit() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "ok.feature", PASSING);
    let report = dir.path().join("report");
    let out = navguard(&["run", &path, "--report-dir", report.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("features: 1 passed, 0 failed"));
    let junit = std::fs::read_to_string(report.join("junit.xml")).unwrap();
    assert!(junit.contains("<testsuite") && junit.contains("testcase"), "{junit}");
}

#[test]
fn validate_names_every_kind_of_problem_without_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let contracts = feature(
        dir.path(),
        "contracts.txt",
        "# ids\nproven   A thing that is proven.\nlonely   A thing with no scenario.\n",
    );
    feature(
        dir.path(),
        "a.feature",
        "Feature: f\n  @contract-proven\n  Scenario: fine\n    When a new tab is created on \"{site}/page\"\n\n  Scenario: untagged\n    When a new tab is created on \"{site}/page\"\n\n  @contract-nope\n  Scenario: unknown\n    Then the frobnicator spins\n",
    );
    feature(dir.path(), "broken.feature", "Feature: b\n  Scenarioo: nope\n   | x |\n");
    let out = navguard(&["validate", "--features", dir.path().to_str().unwrap(), "--contracts", &contracts], Some(""));
    let text = text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for expected in [
        "a.feature:6: scenario \"untagged\" proves no contract",
        "a.feature:10: scenario \"unknown\" names an unknown contract nope",
        "undefined step at line 11: Then the frobnicator spins",
        "broken.feature:3: a table row belongs right under a step or an Examples line",
        "contract lonely has no scenario",
        "INVALID: 2 contracts, 3 scenarios, 5 problems",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn the_repository_s_features_are_valid() {
    let root = root().display();
    let (features, contracts) = (format!("{root}/features"), format!("{root}/features/contracts.txt"));
    let out = navguard(&["validate", "--features", &features, "--contracts", &contracts], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // With no argument, from the top folder (as CI runs it): features/ against its contracts.
    let out = navguard(&["validate"], Some(""));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let listed = std::fs::read_to_string(&contracts).unwrap();
    let n = listed.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')).count();
    assert!(text(&out).contains(&format!("navguard validate: valid: {n} contracts,")), "{}", text(&out));
}

#[test]
fn validate_checks_a_user_s_folder_without_contracts_and_names_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    feature(
        dir.path(),
        "mine.feature",
        "\u{feff}Feature: f\n  Scenario: s\n    * a new tab is created on \"{site}/page\"\n    * the tab is not loading\n",
    );
    feature(dir.path(), "later.feature", "# to write\n");
    let out = navguard(&["validate", dir.path().to_str().unwrap()], Some(""));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("valid: 1 scenarios, 0 problems (2 feature files)"), "{}", text(&out));
    let missing = dir.path().join("nope");
    let out = navguard(&["validate", missing.to_str().unwrap()], Some(""));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains(&format!("no such feature file or folder: {}", missing.display())), "{}", text(&out));
    let empty = tempfile::tempdir().unwrap();
    let out = navguard(&["validate", empty.path().to_str().unwrap()], Some(""));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("holds no .feature file"), "{}", text(&out));
}

/// The line of the scenario called `name` in a feature of the repository.
fn scenario_line(feature_file: &str, name: &str) -> String {
    let text = std::fs::read_to_string(feature_file).unwrap();
    let line = text.lines().position(|l| l.trim() == format!("Scenario: {name}")).expect("the scenario exists");
    format!("{feature_file}:{}", line + 1)
}

#[test]
fn repro_shows_the_race_with_the_guards_off_and_not_with_them_on() {
    let feature = format!("{}/features/agent/coverage_matrix.feature", root().display());
    let target = scenario_line(&feature, "focus_tab moves to a tab that is still loading: the loop top settles it");
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().to_str().unwrap();
    let off = navguard(&["repro", &target, "--guards", "off", "--report-dir", report], None);
    let off_text = text(&off);
    assert!(off_text.contains("guard OFF: reads about:blank"), "{off_text}");
    assert!(off_text.contains("(guards off): the race reproduced in 1 of 1 runs"), "{off_text}");
    let on = navguard(&["repro", &target, "--report-dir", report], None);
    let on_text = text(&on);
    assert!(on_text.contains("WAIT  guard waits"), "{on_text}");
    assert!(on_text.contains("<- ends the wait (committed)"), "{on_text}");
    assert!(on_text.contains("(guards on): the race reproduced in 0 of 1 runs"), "{on_text}");
    // The repro's HTML report draws the same wait: its span, the event that ended it, the resumption.
    let html = std::fs::read_to_string(dir.path().join("run-1/report.html")).unwrap();
    assert!(html.contains("The loop-top guard waited from"), "{html}");
    assert!(html.contains("(committed)") || html.contains(": committed; ended by"), "{html}");
    assert!(html.contains("; the round resumed at"), "{html}");
    assert!(html.contains("marker-end=\"url(#arrow-"), "{html}");
}

#[test]
fn repro_names_a_target_it_cannot_use() {
    let out = navguard(&["repro", "features/agent/coverage_matrix.feature"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("is not <feature file>:<line>"));
    let feature = format!("{}/features/agent/coverage_matrix.feature", root().display());
    let out = navguard(&["repro", &format!("{feature}:2")], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no scenario at"), "{}", text(&out));
}

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
fn validate_names_a_misspelt_member_of_a_closed_set_as_an_undefined_step() {
    let dir = tempfile::tempdir().unwrap();
    let contracts = feature(dir.path(), "contracts.txt", "typed   A thing.\n");
    let path = feature(
        dir.path(),
        "typed.feature",
        "Feature: f\n  @contract-typed\n  Scenario: s\n    Given the agent starts on \"{site}/page\"\n    And before round 2 the user reload the tab\n    And before round 3 the user reloads the tab\n    When the agent runs the task\n    And the tab's \"loadd\" event arrives\n",
    );
    let out = navguard(&["validate", "--features", &path, "--contracts", &contracts], Some(""));
    let text = text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for expected in [
        "undefined step at line 5: And before round 2 the user reload the tab",
        "undefined step at line 8: And the tab's \"loadd\" event arrives",
        "INVALID: 1 contracts, 1 scenarios, 2 problems",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
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
    for measured in ["pass ", "ok", "FAILED", "PASSED"] {
        assert!(!text.contains(measured), "{measured:?} printed for a run that did not start:\n{text}");
    }
    assert!(!report.join("index.html").exists());
}

#[test]
fn a_browser_that_cannot_be_reached_is_one_line_naming_it_and_what_to_do_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "a.feature", PASSING);
    let report = dir.path().join("report");
    // A port nothing listens on: the connection is refused at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let started = std::time::Instant::now();
    let out = navguard(
        &["run", &path, "--webdriver-url", &url, "--sessions", "2", "--report-dir", report.to_str().unwrap()],
        None,
    );
    let text = text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    // One line, and nothing on stdout: no failure per scenario, no rates.
    assert!(out.stdout.is_empty(), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "navguard: cannot start the browser: cannot reach the WebDriver remote end at {url} ("
        )),
        "{stderr}"
    );
    assert!(stderr.contains("start the Selenium Grid (or driver) there"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "took {:?}", started.elapsed());
}

#[test]
fn repro_without_a_browser_says_so_and_not_that_the_scenario_is_missing() {
    let feature = format!("{}/features/agent/coverage_matrix.feature", root().display());
    let target = scenario_line(&feature, "focus_tab moves to a tab that is still loading: the loop top settles it");
    let out = navguard_with(&["repro", &target], &[("NAVGUARD_CHROMEDRIVER", "/nowhere/chromedriver")]);
    let text = text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("navguard repro: chromedriver not found"), "{text}");
    assert!(!text.contains("no scenario at"), "{text}");
}

#[test]
fn bad_arguments_exit_2_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "a.feature", PASSING);
    for args in [
        vec!["gate", path.as_str(), "--repeat", "0"],
        vec!["repro", "features/agent/coverage_matrix.feature:170", "--repeat", "0"],
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
fn filters_that_match_nothing_are_a_failure_and_start_no_browser() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(
        dir.path(),
        "a.feature",
        "@here\nFeature: f\n  Scenario: s\n    When a new tab is created on \"{site}/page\"\n",
    );
    let report = dir.path().join("report");
    for filter in [["--tags", "not @here"], ["--name", "^nothing$"]] {
        let out = navguard(&["run", &path, filter[0], filter[1], "--report-dir", report.to_str().unwrap()], None);
        assert_eq!(out.status.code(), Some(1), "{filter:?}: {}", text(&out));
        assert!(text(&out).contains("no scenario ran"), "{}", text(&out));
        assert!(!text(&out).contains("browser start"), "{}", text(&out));
    }
}

#[test]
fn repro_calls_a_done_on_a_page_that_began_to_leave_the_race_with_the_guards_off_only() {
    let feature = format!("{}/features/agent/closed_loop.feature", root().display());
    let target = scenario_line(&feature, "A done on a page that began to leave after it was observed is refused");
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().to_str().unwrap();
    let off = text(&navguard(&["repro", &target, "--guards", "off", "--report-dir", report], None));
    assert!(off.contains("(guards off): the race reproduced in 1 of 1 runs"), "{off}");
    assert!(off.contains("accepts done on a page that changed"), "{off}");
    let on = text(&navguard(&["repro", &target, "--report-dir", report], None));
    assert!(on.contains("refuses done: the page changed since it was observed"), "{on}");
    assert!(on.contains("(guards on): the race reproduced in 0 of 1 runs"), "{on}");
}

#[test]
fn a_call_that_waits_shows_its_progress_live_on_the_terminal_and_in_the_repro_timeline() {
    let feature = format!("{}/features/agent/reliability.feature", root().display());
    let target = scenario_line(&feature, "A wait reports what it waits for at least once a second");
    let dir = tempfile::tempdir().unwrap();
    let out = navguard(&["repro", &target, "--report-dir", &dir.path().display().to_string()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}", text(&out));
    assert!(stderr.contains("round 2: waiting for the navigation to commit ("), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("progress: waiting for the navigation to commit"), "{stdout}");
}

/// A folder outside the repository, as a user of an installed navguard has: no features/, no
/// gate/, no agents/ (the system's temporary folder, never inside the workspace).
fn elsewhere() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    assert!(!dir.path().starts_with(root()), "{} is inside the repository", dir.path().display());
    dir
}

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

/// Two scenarios: one that passes, one whose title check fails (line 7).
const ONE_FAILS: &str = "Feature: f\n  Scenario: right title\n    Given a tab is open on \"{site}/page?title=Home\"\n    \
                         Then the page's title is \"Home\"\n\n  Scenario: wrong title\n    \
                         Given a tab is open on \"{site}/page?title=Home\"\n    Then the page's title is \"Away\"\n    \
                         And the tab is not loading\n";

/// The lines of `out`'s stdout that are a scenario's one line: `<status> <time> s  <where>  <name>`.
fn scenario_lines(out: &Output) -> Vec<String> {
    let line = regex::Regex::new(r"^(ok|FAIL|xfail|n/a) +\d+\.\d s  \S+:\d+  .+$").unwrap();
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| line.is_match(l)).map(str::to_owned).collect()
}

#[test]
fn run_prints_a_line_per_scenario_by_default_and_every_step_with_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let body = "Feature: f\n  Scenario: first\n    Given a tab is open on \"{site}/page?title=One\"\n    \
                Then the page's title is \"One\"\n\n  Scenario: second\n    \
                Given a tab is open on \"{site}/page?title=Two\"\n    Then the page's title is \"Two\"\n";
    let path = feature(dir.path(), "lines.feature", body);
    let report = dir.path().join("report").display().to_string();
    let out = navguard(&["run", &path, "--report-dir", &report], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lines = scenario_lines(&out);
    assert_eq!(lines.len(), 2, "{}", text(&out));
    for place in [format!("{path}:2  first"), format!("{path}:6  second")] {
        let line =
            lines.iter().find(|l| l.ends_with(&place)).unwrap_or_else(|| panic!("{place} not listed: {lines:?}"));
        assert!(line.starts_with("ok "), "{line:?} is not ok");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("a tab is open on") && !stdout.contains("[Summary]"), "steps printed:\n{stdout}");
    assert!(stdout.trim_end().ends_with("features: 2 passed, 0 failed"), "{stdout}");
    for verbose in [vec!["-v"], vec!["--verbose"]] {
        let out = navguard(&[&["run", path.as_str(), "--report-dir", &report][..], &verbose].concat(), None);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        for step in [
            "Scenario: first",
            "✔  Given a tab is open on \"{site}/page?title=One\"",
            "✔  Then the page's title is \"Two\"",
        ] {
            assert!(stdout.contains(step), "{verbose:?}: no {step:?} in:\n{stdout}");
        }
        assert!(scenario_lines(&out).is_empty(), "{verbose:?} lists the scenarios as well:\n{stdout}");
    }
}

#[test]
fn a_failed_scenario_is_listed_as_it_ends_then_printed_in_full_before_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "t.feature", ONE_FAILS);
    let report = dir.path().join("report");
    let out = navguard(&["run", &path, "--report-dir", report.to_str().unwrap()], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let failed = format!("{path}:6  wrong title");
    let lines = scenario_lines(&out);
    assert!(lines.iter().any(|l| l.starts_with("FAIL ") && l.ends_with(&failed)), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("ok ") && l.ends_with(&format!("{path}:2  right title"))), "{stdout}");
    // In full, after the list and before the summary: the failing step, its error, its artifacts.
    let block = stdout.find(&format!("\nFAILED {failed}\n")).unwrap_or_else(|| panic!("no failure block:\n{stdout}"));
    let listed = stdout.find(&lines[lines.len() - 1]).unwrap();
    let summary = stdout.find("navguard: per feature").unwrap_or_else(|| panic!("no summary:\n{stdout}"));
    assert!(listed < block && block < summary, "not list, failure, summary:\n{stdout}");
    let full = &stdout[block..summary];
    for said in [
        "  at line 8: Then the page's title is \"Away\" (failed)\n",
        "\"Away\"",
        "\"Home\"",
        &format!("  artifacts: {}\n", report.join("artifacts/t/L6-wrong-title").display()),
    ] {
        assert!(full.contains(said), "{said:?} missing from the failure:\n{full}");
    }
    assert_eq!(stdout.matches("\nFAILED ").count(), 1, "{stdout}");
    assert!(stdout.trim_end().ends_with("features: 1 passed, 1 failed"), "{stdout}");
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

#[test]
fn a_run_s_progress_names_its_scenario_and_shows_only_with_verbose_when_not_on_a_terminal() {
    let feature = format!("{}/features/agent/reliability.feature", root().display());
    let name = "A wait reports what it waits for at least once a second";
    let target = scenario_line(&feature, name);
    let line = target.rsplit_once(':').unwrap().1;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().display().to_string();
    let run = |extra: &[&str]| {
        navguard(&[&["run", &feature, "--name", name, "--report-dir", &report][..], extra].concat(), None)
    };
    let quiet = run(&[]);
    assert!(quiet.status.success(), "{}", text(&quiet));
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(!stderr.contains("waiting for"), "progress shown on a pipe:\n{stderr}");
    let verbose = run(&["-v"]);
    assert!(verbose.status.success(), "{}", text(&verbose));
    let stderr = String::from_utf8_lossy(&verbose.stderr);
    let progress: Vec<&str> = stderr.lines().filter(|l| l.contains("waiting for the navigation to commit (")).collect();
    let named =
        format!("features/agent/reliability.feature:{line}  {name}: round 2: waiting for the navigation to commit (");
    assert!(!progress.is_empty() && progress.iter().all(|l| l.starts_with(&named)), "{stderr}");
}
