//! `navguard repro`: the race shown with the guards off and not with them on, and a target it
//! cannot use named.

use crate::support::*;

#[test]
fn repro_shows_the_race_with_the_guards_off_and_not_with_them_on() {
    let feature = format!("{}/features/core/coverage_matrix.feature", root().display());
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
    let out = navguard(&["repro", "features/core/coverage_matrix.feature"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("is not <feature file>:<line>"));
    let feature = format!("{}/features/core/coverage_matrix.feature", root().display());
    let out = navguard(&["repro", &format!("{feature}:2")], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no scenario at"), "{}", text(&out));
}

#[test]
fn repro_without_a_browser_says_so_and_not_that_the_scenario_is_missing() {
    let feature = format!("{}/features/core/coverage_matrix.feature", root().display());
    let target = scenario_line(&feature, "focus_tab moves to a tab that is still loading: the loop top settles it");
    let out = navguard_with(&["repro", &target], &[("NAVGUARD_CHROMEDRIVER", "/nowhere/chromedriver")]);
    let text = text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("navguard repro: chromedriver not found"), "{text}");
    assert!(!text.contains("no scenario at"), "{text}");
}

#[test]
fn repro_calls_a_done_on_a_page_that_began_to_leave_the_race_with_the_guards_off_only() {
    let feature = format!("{}/features/core/closed_loop.feature", root().display());
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
    let feature = format!("{}/features/core/reliability.feature", root().display());
    let target = scenario_line(&feature, "A wait reports what it waits for at least once a second");
    let dir = tempfile::tempdir().unwrap();
    let out = navguard(&["repro", &target, "--report-dir", &dir.path().display().to_string()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}", text(&out));
    assert!(stderr.contains("round 2: waiting for the navigation to commit ("), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("progress: waiting for the navigation to commit"), "{stdout}");
}
