//! The reports of a real run, checked by tools nobody on this project wrote: xmllint against
//! the Jenkins JUnit schema, the official Cucumber JSON converter, an HTML parse for duplicate
//! ids (`ci/report-check/check-reports`, its judges installed by `ci/setup.sh reports`), on
//! texts that hold `]]>`,
//! `<script>`, `&` and quotes, with a failing scenario, a data table, and a rule with a
//! background.

use navguard::adapter::{BidiBrowser, BrowserConfig};
use navguard::browser::BrowserPort;
use std::path::Path;
use std::process::{Command, Output};

/// The workspace's top folder: the command runs there, as a user runs it.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace")
}

fn navguard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_navguard")).current_dir(root()).args(args).output().expect("navguard runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

const NASTY: &str = r#"# texts that break reports written carelessly
@reports @x&y
Feature: Reports ]]> <script>alert("f")</script> & 'quotes'
  A description with ]]> and <b>bold</b> & "quotes".

  @first
  Scenario: passes ]]> <script>x</script> & "q" 'a'
    Given a tab is open on "{site}/page?title=x"
    Then the tab's events include, in order:
      | event   | url                 |
      | started | {site}/page?title=x |

  Scenario: fails ]]> & <i>
    Given a tab is open on "{site}/page?title=x"
    Then the tab's URL is "{site}/nope]]><script>&"
    And the tab's URL is "{site}/page?title=x"

  Rule: a rule ]]> & <r>
    Background:
      Given a tab is open on "{site}/page?title=x"

    Scenario: under the rule "q" ]]>
      Then the tab's URL is "{site}/page?title=x"
"#;

/// The failing scenario's name, and how the expectations file names it.
const FAILING: &str = "fails ]]&gt; &amp; &lt;i&gt;";
const FAILING_KEY: &str = "nasty.feature: fails ]]> & <i>";

/// Runs `ci/report-check/check-reports` on `dir`: its verdict and
/// what it said. Without the tool the outside check cannot run, and that fails the test: a
/// report check that passes without checking would be a test that cannot fail.
fn checked(dir: &Path) -> (bool, String) {
    let tool = root().join("ci/report-check/check-reports");
    assert!(tool.is_file(), "{} is missing: the outside tools cannot check {}", tool.display(), dir.display());
    let out = Command::new(tool).arg(dir).output().expect("check-reports runs");
    (out.status.success(), text(&out))
}

/// Each testcase of a junit.xml: its name attribute (escaped as written) and its body.
fn testcases(junit: &str) -> Vec<(String, String)> {
    junit
        .split("<testcase ")
        .skip(1)
        .map(|case| {
            let name = case.split("name=\"").nth(1).and_then(|n| n.split('"').next()).unwrap_or_default();
            let body = case.split("</testcase>").next().unwrap_or_default();
            let body = if case.split('>').next().unwrap_or_default().ends_with('/') { "" } else { body };
            (name.to_owned(), body.to_owned())
        })
        .collect()
}

#[test]
fn the_reports_of_a_run_with_hostile_texts_pass_the_outside_tools() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nasty.feature");
    std::fs::write(&path, NASTY).unwrap();
    let report = dir.path().join("report");
    let out = navguard(&["run", path.to_str().unwrap(), "--report-dir", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("features: 2 passed, 1 failed"), "{}", text(&out));

    let junit = std::fs::read_to_string(report.join("junit.xml")).unwrap();
    let cases = testcases(&junit);
    assert_eq!(cases.len(), 3, "{junit}");
    for (name, body) in &cases {
        match name.as_str() {
            FAILING => assert!(body.contains("<failure ") && body.contains("line 15: Then"), "{junit}"),
            _ => assert!(!body.contains("<failure") && !body.contains("<skipped"), "{name} not passed: {junit}"),
        }
    }
    assert!(cases.iter().any(|(name, _)| name == FAILING), "{junit}");
    assert!(
        cases.iter().any(|(name, _)| name.starts_with("a rule ]]&gt; &amp; &lt;r&gt; / under the rule")),
        "{junit}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("cucumber.json")).unwrap()).unwrap();
    let elements = json[0]["elements"].as_array().unwrap();
    let kinds: Vec<&str> = elements.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["scenario", "scenario", "background", "scenario"], "{json}");
    let failing = &elements[1]["steps"];
    assert_eq!(failing[2]["result"]["status"], "skipped", "{json}");

    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.contains("src=\"data:image/png;base64,"), "the failure's screenshot is not inline");

    let (passed, said) = checked(&report);
    assert!(passed, "check-reports rejected the reports:\n{said}");
}

#[test]
fn a_known_deviation_is_skipped_in_the_gate_s_junit_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nasty.feature");
    std::fs::write(&path, NASTY).unwrap();
    let thresholds = dir.path().join("thresholds.txt");
    std::fs::write(&thresholds, "min_pass_rate 1.0\nmax_flake_rate 0.0\n").unwrap();
    let known = dir.path().join("known.txt");
    std::fs::write(&known, format!("{FAILING_KEY}\n")).unwrap();
    let report = dir.path().join("gate");
    let args = [
        "gate",
        path.to_str().unwrap(),
        "--thresholds",
        thresholds.to_str().unwrap(),
        "--expectations",
        known.to_str().unwrap(),
        "--report-dir",
        report.to_str().unwrap(),
    ];
    let out = navguard(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("gate: PASSED"), "{}", text(&out));

    let run = report.join("run-1");
    let junit = std::fs::read_to_string(run.join("junit.xml")).unwrap();
    assert!(!junit.contains("<failure"), "the gate passed, its junit.xml must not fail:\n{junit}");
    let (_, body) = testcases(&junit).into_iter().find(|(name, _)| name == FAILING).expect("the deviation's testcase");
    assert!(body.contains("<skipped message=\"known deviation: line 15: Then"), "{junit}");
    assert!(junit.contains("failures=\"0\" errors=\"0\" skipped=\"1\""), "{junit}");

    for dir in [&run, &report] {
        let (passed, said) = checked(dir);
        assert!(passed, "check-reports rejected {}:\n{said}", dir.display());
    }
}

/// Two scenarios on two hazards, one of them fails for the example adapter in every run (it
/// has no refusal of a covered button), for the compare page's scoreboard and drawing.
const COMPARED: &str = r#"@conformance
Feature: Compared

  @contract-agent-anchors
  Scenario: An anchor link keeps the page
    Given the agent under test is on "{site}/anchors"
    When the agent under test is called:
      | call | tool     | args                         |
      | 1    | snapshot | {}                           |
      | 2    | click    | {"ref": "{ref:to the form}"} |
      | 3    | snapshot | {}                           |
    Then call 3 answered with the page titled "Anchors"

  @contract-agent-covered
  Scenario: A covered button is refused
    Given the agent under test is on "{site}/overlay"
    When the agent under test is called:
      | call | tool     | args                 |
      | 1    | snapshot | {}                   |
      | 2    | click    | {"ref": "{ref:Send}"} |
    Then call 2 failed as "not-interactable"
"#;

/// What the page looks like to a reader, measured by the browser that lays it out.
const MEASURE: &str = r#"(() => {
  const lanes = [...document.querySelectorAll('.lane')].map(lane => ({
    ms: Number(lane.dataset.ms),
    bars: [...lane.querySelectorAll('.bar')].map(b => ({ ms: Number(b.dataset.ms), px: b.getBoundingClientRect().width })),
    track: lane.querySelector('.track').getBoundingClientRect().width,
  }));
  const board = document.getElementById('scoreboard');
  return {
    scripts: document.scripts.length,
    loaded: performance.getEntriesByType('resource').map(e => e.name),
    board_top: board ? board.getBoundingClientRect().top : -1,
    viewport: window.innerHeight,
    hazards: board ? [...board.querySelectorAll('tr')].slice(1).map(tr => [...tr.cells].map(c => c.textContent.trim())) : [],
    lanes,
  };
})()"#;

/// The compare page of a real two-agent, two-run compare, opened in Chromium: no script and
/// nothing loaded from elsewhere; the scoreboard is the first thing in view and counts each
/// hazard's scenarios; and every drawn call is as wide as its time on the one scale.
#[tokio::test]
async fn the_compare_page_draws_its_scoreboard_and_call_times_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("compared.feature"), COMPARED).unwrap();
    let report = dir.path().join("report");
    let out = navguard(&[
        "compare",
        "--repeat",
        "2",
        // The example adapter waits for the covered button until its call's deadline.
        "--call-timeout",
        "5",
        "--agents",
        "navguard,agents/jsonl-example/agent.toml",
        "--report-dir",
        report.to_str().unwrap(),
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let page = report.join("index.html");

    let browser = BidiBrowser::launch(BrowserConfig::default()).await.unwrap();
    let port = browser.open_port().await.unwrap();
    // The page as a web server serves a report folder (the port keeps http(s) tabs only).
    let html = std::fs::read_to_string(&page).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/", axum::routing::get(move || async move { axum::response::Html(html) }));
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let mut events = port.subscribe_from_start();
    let tab = port.create_tab(&format!("http://{address}/"), true).await.unwrap();
    let loaded = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Ok(e) = events.next().await {
            if e.tab == tab && e.kind == navguard::browser::NavEventKind::Load {
                return;
            }
        }
    });
    loaded.await.expect("the page loads");
    let seen = port.evaluate(&tab, MEASURE).await;
    server.abort();
    browser.shutdown().await;
    let seen = seen.unwrap();

    assert_eq!(seen["scripts"], 0, "{seen}");
    assert_eq!(seen["loaded"], serde_json::json!([]), "the page loads nothing: {seen}");
    let top = seen["board_top"].as_f64().unwrap();
    assert!(top >= 0.0 && top < seen["viewport"].as_f64().unwrap(), "the scoreboard is in view: {seen}");
    assert_eq!(
        seen["hazards"],
        serde_json::json!([["anchors", "1/1", "1/1"], ["covered", "1/1", "0/1"]]),
        "navguard refuses the covered button, the example adapter presses it: {seen}"
    );
    let lanes = seen["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 4, "two scenarios, two agents: {seen}");
    let longest = lanes.iter().map(|l| l["ms"].as_f64().unwrap()).fold(0.0, f64::max);
    for lane in lanes {
        let track = lane["track"].as_f64().unwrap();
        for bar in lane["bars"].as_array().unwrap() {
            let (ms, px) = (bar["ms"].as_f64().unwrap(), bar["px"].as_f64().unwrap());
            // A box's white edge is one pixel: a call shorter than that still shows as one.
            let expected = (ms / longest * track).max(1.0);
            assert!((px - expected).abs() <= 1.0, "a {ms} ms call is {px} px wide, not {expected}: {seen}");
        }
    }
}
