//! `navguard run`: what it prints per scenario and at its end, its reports, and one line with a
//! non-zero exit when it cannot start.

use crate::support::*;

#[test]
fn a_machine_without_chromedriver_gets_one_line_naming_it_and_the_install_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = feature(dir.path(), "a.feature", PASSING);
    let out = navguard(&["run", &path], Some(dir.path().to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("chromedriver not found")
            && stderr.contains("apt-get install chromium chromium-driver")
            && stderr.contains("NAVGUARD_CHROMEDRIVER"),
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
fn a_run_s_progress_names_its_scenario_and_shows_only_with_verbose_when_not_on_a_terminal() {
    let feature = format!("{}/features/core/reliability.feature", root().display());
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
        format!("features/core/reliability.feature:{line}  {name}: round 2: waiting for the navigation to commit (");
    assert!(!progress.is_empty() && progress.iter().all(|l| l.starts_with(&named)), "{stderr}");
}
