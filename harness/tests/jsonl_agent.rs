//! The `jsonl` kind of agent under test, end to end through the `navguard` binary: a program
//! that does not speak the protocol is one line naming it, before any scenario runs; a call it
//! never answers fails its scenario at the call deadline; a tool it lacks makes a scenario not
//! applicable. The example adapter (`agents/jsonl-example`, installed by `ci/setup.sh agents`)
//! runs one scenario in `agents.rs`, and the whole agent-neutral suite in the main job
//! (`ci/conformance.sh`), judged by `gate/expectations/agent-jsonl-example.txt`.

use std::path::Path;
use std::process::{Command, Output};

/// How long a run here may take before `timeout` ends it.
const RUN_DEADLINE_S: &str = "300";

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

#[test]
fn the_closing_line_is_read() {
    let out = "x\nFAILED features/agents/a.feature:8  A one\n  why\nfeatures: 10 passed, 6 failed\n";
    assert_eq!(counts(out), Some((10, 6, 0)));
    assert_eq!(counts("features: 3 passed, 0 failed, 2 not applicable"), Some((3, 0, 2)));
    assert_eq!(counts("no summary"), None);
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
