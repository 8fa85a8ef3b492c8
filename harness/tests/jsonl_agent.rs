//! The `jsonl` kind of agent under test, end to end through the `navguard` binary: the example
//! adapter (`agents/jsonl-example`, installed by `ci/setup.sh agents`) runs the conformance
//! scenarios on Chromium, and passes all but its known findings; a program that does not speak
//! the protocol is one line naming it, before any scenario runs.

use std::path::Path;
use std::process::{Command, Output};

/// How long the conformance run may take before `timeout` ends it (about a minute on 2 cores).
const RUN_DEADLINE_S: &str = "600";

/// The scenarios the example adapter fails today, each with why. `always`: it fails in every
/// run; otherwise it is a race the adapter may win now and then.
const KNOWN: &[(&str, bool, &str)] = &[
    (
        "A snapshot after the page's own script redirect shows where it went",
        false,
        "the snapshot is taken of the page that is about to go (the redirect comes 100 ms after load)",
    ),
    (
        "A meta refresh moves the page at once: the next snapshot shows where it went",
        false,
        "the snapshot's page.evaluate meets the refresh: `Execution context was destroyed` (other)",
    ),
    (
        "The user navigates the agent's tab between two calls: the next snapshot shows it",
        false,
        "the snapshot's page.evaluate meets the user's navigation: `Execution context was destroyed`",
    ),
    (
        "The user reloads the agent's tab between two calls: the ref from before is stale",
        false,
        "the click's ref lookup meets the reload: other (`Execution context was destroyed`), not stale-ref",
    ),
    (
        "A tab the page opens is listed at once, while its first page still loads, and the agent can turn to it",
        true,
        "playwright-core announces a popup only once its first (slow, 1 s) page commits: list_tabs \
         right after the click lacks it, select_tab 2 is not-found",
    ),
    (
        "navigate while an alert is open is never reported done on the page that stayed",
        false,
        "now and then navigate answers that the alert blocked the page while the navigation it \
         asked for still went through (the site served the new page)",
    ),
    (
        "A page whose iframe never loads is answered without waiting for the frame",
        true,
        "navigate waits for the load event, which the frame holds back: it answers after 20 s",
    ),
    (
        "A click on a button a cookie banner covers fails as not-interactable and sends nothing",
        true,
        "locator.click waits for the covered button to receive pointer events and fails after 20 s \
         as a timeout; nothing is sent",
    ),
    (
        "A banner that comes after load makes the click on the button it covers fail, not press the banner",
        true,
        "as above: a timeout after 20 s, not not-interactable; nothing is sent",
    ),
    (
        "An alert the user accepted leaves no phantom dialog: the next snapshot shows the page",
        false,
        "a phantom dialog: it still reports the alert the user accepted, and refuses the snapshot",
    ),
    (
        "A confirm the user dismissed leaves the page free: the agent's click goes through",
        false,
        "a phantom dialog: the snapshot still reports the confirm the user dismissed: no ref to click",
    ),
    (
        "A click whose handler fetches, then navigates, answers with the page it went to",
        false,
        "the click answers in 0.5 to 0.9 s with the page that is about to leave, before the \
         handler's request (800 ms) is answered",
    ),
    (
        "A click whose request outlasts any fixed window answers with the new page, whose links work",
        true,
        "the click answers in about 0.5 s with the page that is about to leave, and the snapshot \
         right after is still that page (the request takes 2.5 s): no link go to click",
    ),
    (
        "A click that fetches, then navigates to a page that polls forever, answers with that page soon",
        false,
        "as the first: the click answers in about 0.6 s with the page that is about to leave",
    ),
    (
        "A snapshot lists the controls of a frame from another origin beside the page's own",
        true,
        "its snapshot is a page.evaluate in the top document: it lists the page's \"go\" and nothing \
         inside the frame",
    ),
    (
        "A click on a button of a frame from another origin sends the frame's form",
        true,
        "its snapshot is a script in the top document: the frame's \"send\" is not in it, so there is \
         no ref to click",
    ),
    (
        "Typing with Enter into a field of a frame from another origin submits the frame's form",
        true,
        "its snapshot is a script in the top document: the frame's field \"Search\" is not in it, so \
         there is no ref to type into",
    ),
    (
        "The page's own link next to a frame from another origin still leads where it says",
        true,
        "its snapshot is a script in the top document: it lists the page's \"go\" but not the \
         frame's \"send\"",
    ),
    (
        "After the user reloads the page, a ref taken inside its frame is stale and sends nothing",
        true,
        "its snapshot is a script in the top document: the frame's \"send\" is not in it, so there \
         is no ref to click",
    ),
];

/// The workspace's top folder: the command runs there, as a user runs it.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace")
}

/// `navguard` with `args`, in the workspace, without the browser overrides of the caller's
/// environment, under `timeout`.
fn navguard(args: &[&str]) -> Output {
    let mut cmd = Command::new("timeout");
    cmd.current_dir(root()).args(["--kill-after=10", RUN_DEADLINE_S, env!("CARGO_BIN_EXE_navguard")]).args(args);
    for name in ["NAVGUARD_CHROMEDRIVER", "NAVGUARD_CHROMIUM", "NAVGUARD_BROWSER", "NAVGUARD_WEBDRIVER_URL", "RUST_LOG"]
    {
        cmd.env_remove(name);
    }
    cmd.output().expect("navguard runs")
}

/// The closing line's counts: (passed, failed, not applicable).
fn counts(stdout: &str) -> Option<(u32, u32, u32)> {
    let line = stdout.lines().rev().find_map(|l| l.strip_prefix("features: "))?;
    let mut numbers = line.split(", ").map(|part| part.split(' ').next().and_then(|n| n.parse::<u32>().ok()));
    let passed = numbers.next()??;
    let failed = numbers.next()??;
    let not_applicable = numbers.next().flatten().unwrap_or(0);
    Some((passed, failed, not_applicable))
}

/// The names of the failed scenarios (`FAILED <file>:<line>  <name>`).
fn failed(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("FAILED "))
        .filter_map(|l| l.split_once("  ").map(|(_, name)| name.trim()))
        .collect()
}

#[test]
fn the_closing_line_and_the_failed_scenarios_are_read() {
    let out = "x\nFAILED features/agents/a.feature:8  A one\n  why\nfeatures: 10 passed, 6 failed\n";
    assert_eq!(counts(out), Some((10, 6, 0)));
    assert_eq!(counts("features: 3 passed, 0 failed, 2 not applicable"), Some((3, 0, 2)));
    assert_eq!(counts("no summary"), None);
    assert_eq!(failed(out), ["A one"]);
}

#[test]
fn the_example_jsonl_adapter_passes_the_conformance_scenarios_but_its_known_findings() {
    let example = root().join("agents/jsonl-example");
    assert!(
        example.join("node_modules/playwright-core/package.json").is_file(),
        "the example adapter is not installed: run `bash ci/setup.sh agents` (npm ci in agents/jsonl-example)"
    );
    let reports = tempfile::tempdir().unwrap();
    let out = navguard(&[
        "run",
        "features/agents",
        "--agent",
        "agents/jsonl-example/agent.toml",
        "--report-dir",
        reports.path().to_str().unwrap(),
        // Two at once on a 2-core machine: the scenarios that time an answer stay fair.
        "-c",
        "2",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let Some((passed, failures, _)) = counts(&stdout) else {
        panic!("the run did not complete (exit {:?}):\n{all}", out.status.code());
    };
    let failed = failed(&stdout);
    assert_eq!(failed.len() as u32, failures, "{all}");
    let unknown: Vec<&&str> = failed.iter().filter(|name| !KNOWN.iter().any(|(known, ..)| known == *name)).collect();
    assert!(unknown.is_empty(), "scenarios the example adapter newly fails: {unknown:?}\n{all}");
    let fixed: Vec<&str> =
        KNOWN.iter().filter(|(name, always, _)| *always && !failed.contains(name)).map(|(name, ..)| *name).collect();
    assert!(fixed.is_empty(), "known failures that passed: update KNOWN (and the adapter's README): {fixed:?}");
    // 10 of 16 on 2026-11-23 (Chromium 156, playwright-core 1.65.1); at least all but the known.
    assert!(passed >= 10, "only {passed} passed:\n{all}");
    assert_eq!(out.status.code(), Some(if failures == 0 { 0 } else { 1 }), "{all}");
    assert!(reports.path().join("junit.xml").is_file(), "the reports were written");
}

#[test]
fn a_jsonl_agent_that_does_not_speak_the_protocol_is_one_line_naming_it_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    // What it prints instead of an answer, as the error quotes it.
    let cases: [(&str, &[&str]); 2] = [
        (
            "command = \"sh\"\nargs = [\"-c\", \"echo garbage\"]",
            &["the start line was answered with a line that is not JSON", "`garbage`"],
        ),
        // `cat` echoes the start line back: JSON, but not an answer.
        ("command = \"cat\"", &["a line that is not an answer (missing field `ok`)", "`{\"id\":0,\"start\":"]),
    ];
    for (start, said) in cases {
        let description = dir.path().join("not-an-agent.toml");
        std::fs::write(&description, format!("name = \"not-an-agent\"\nkind = \"jsonl\"\n[start]\n{start}\n")).unwrap();
        let reports = dir.path().join("reports");
        let out = navguard(&[
            "run",
            "features/agents/navigation.feature",
            "--agent",
            description.to_str().unwrap(),
            "--report-dir",
            reports.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let all = format!("{}{stderr}", String::from_utf8_lossy(&out.stdout));
        // The run's pre-flight start of the agent finds it: exit 2, before any scenario.
        assert_eq!(out.status.code(), Some(2), "{all}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("agent not-an-agent is not a JSON-lines agent over stdio"), "{stderr}");
        for words in said {
            assert!(stderr.contains(words), "{words:?} missing: {stderr}");
        }
        assert!(!all.contains("features: "), "no scenario ran: {all}");
    }
}

#[test]
fn a_call_the_agent_never_answers_fails_its_scenario_after_the_call_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // Answers the start line, then reads every call and answers none.
    let description = dir.path().join("mute.toml");
    std::fs::write(
        &description,
        "name = \"mute\"\nkind = \"jsonl\"\n[start]\ncommand = \"sh\"\nargs = [\"-c\", \
         \"read start; echo '{\\\"id\\\":0,\\\"ok\\\":true}'; while read call; do :; done\"]\n",
    )
    .unwrap();
    let reports = dir.path().join("reports");
    let out = navguard(&[
        "run",
        "features/agents/navigation.feature",
        "--name",
        "go back",
        "--agent",
        description.to_str().unwrap(),
        "--call-timeout",
        "2",
        "--report-dir",
        reports.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(counts(&stdout), Some((0, 1, 0)), "{all}");
    assert!(stdout.contains("agent mute gave no answer within 2 s"), "{all}");
    assert_eq!(out.status.code(), Some(1), "{all}");
}

#[test]
fn a_scenario_calling_a_tool_the_agent_lacks_is_not_applicable_never_passed() {
    let dir = tempfile::tempdir().unwrap();
    // The example adapter, offering every tool but handle_dialog.
    let description = dir.path().join("no-dialogs.toml");
    let adapter = root().join("agents/jsonl-example/adapter.mjs");
    std::fs::write(
        &description,
        format!(
            "name = \"no-dialogs\"\nkind = \"jsonl\"\nbrowsers = [\"chromium\"]\n[start]\ncommand = \"node\"\n\
             args = [\"{}\"]\nenv = {{ JSONL_EXAMPLE_TOOLS = \"navigate,new_tab,snapshot,click,type,press_key,go_back,wait_for,list_tabs,select_tab,close_tab\" }}\n",
            adapter.display()
        ),
    )
    .unwrap();
    let reports = dir.path().join("reports");
    let out = navguard(&[
        "run",
        "features/agents/dialogs.feature",
        "--agent",
        description.to_str().unwrap(),
        "--report-dir",
        reports.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let Some((passed, failed, not_applicable)) = counts(&stdout) else { panic!("no closing line:\n{all}") };
    assert!(stdout.contains("no-dialogs has no handle_dialog"), "the pre-flight names the missing tool:\n{all}");
    // Every dialog scenario but one answers the dialog; each of those is not applicable.
    assert!(not_applicable >= 3, "{all}");
    assert_eq!(passed + failed + not_applicable, 5, "{all}");
    assert!(stdout.contains("NOT APPLICABLE features/agents/dialogs.feature:14"), "{all}");
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    assert!(junit.contains("<skipped message=\"not applicable: no-dialogs has no handle_dialog\""), "{junit}");
    assert_eq!(out.status.code(), Some(if failed == 0 { 0 } else { 1 }), "{all}");
}
