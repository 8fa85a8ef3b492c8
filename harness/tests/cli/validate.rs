//! `navguard validate`: every kind of problem named without a browser, the repository's features
//! valid.

use crate::support::*;

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
