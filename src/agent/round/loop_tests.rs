//! The loop and the guards on a simulated browser with a paused clock: every outcome of the
//! error matrix of docs/design/navigation-transients.md, both guard switches, Stop, bad tool input. Pure logic only; the real
//! browser features are the evidence that the guards work.

use crate::agent::*;
use crate::browser::{BrowserPort, SimPort, TabId};
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const SITE: &str = "https://docs.example.com/start";
const SLOW: Duration = Duration::from_millis(1200);

fn origin(url: &str) -> url::Origin {
    safe_parse_origin(url).unwrap()
}

async fn run(port: &SimPort, plan: &ScriptedPlanner, config: AgentConfig, task: &mut Task) -> StopReason {
    Agent::new(port, plan, config).run(task, &CancellationToken::new()).await
}

fn open_then_done() -> ScriptedPlanner {
    let mut plan = ScriptedPlanner::new();
    plan.add(1, "open_url", json!({ "url": SITE }));
    plan.add(1, "focus_tab", json!({ "tab": "@opened" }));
    plan.add(2, "done", json!({ "summary": "read the docs" }));
    plan
}

fn guards(open_url: bool, loop_top: bool) -> AgentConfig {
    AgentConfig { open_url_guard: open_url, loop_top_guard: loop_top, ..AgentConfig::default() }
}

#[tokio::test(start_paused = true)]
async fn open_url_on_a_slow_site_succeeds_with_both_guards() {
    let port = SimPort::committing_after(SLOW);
    let mut task = Task::default();
    let stop = run(&port, &open_then_done(), guards(true, true), &mut task).await;
    assert!(stop.is_success(), "{stop:?}");
    let (_, call) = task.trace.tool_calls().next().unwrap();
    assert!(matches!(call, TraceEvent::ToolCall { guard: Some((SettleOutcome::Committed { .. }, _)), .. }), "{call:?}");
    let round2: Vec<_> = task.trace.guards().filter(|(r, ..)| *r == 2).collect();
    assert_eq!(round2[0].1, &GuardDecision::NotInFlight);
    assert_eq!(crate::browser::PortDiagnostics::listener_count(&port), 0);
}

#[tokio::test(start_paused = true)]
async fn both_guards_off_reproduce_the_restricted_url_race() {
    let port = SimPort::committing_after(SLOW);
    let mut task = Task::default();
    let stop = run(&port, &open_then_done(), guards(false, false), &mut task).await;
    assert_eq!(stop.message(), "Page navigated to a restricted URL, agent stopped");
}

#[tokio::test(start_paused = true)]
async fn either_guard_alone_catches_the_race() {
    for (open_url, loop_top) in [(true, false), (false, true)] {
        let port = SimPort::committing_after(SLOW);
        let mut task = Task::default();
        let stop = run(&port, &open_then_done(), guards(open_url, loop_top), &mut task).await;
        assert!(stop.is_success(), "open_url={open_url} loop_top={loop_top}: {stop:?}");
    }
}

/// A task already on `SITE` in a tab the plan focuses.
async fn started_task(port: &SimPort) -> (Task, TabId) {
    let tab = port.create_tab(SITE, true).await.unwrap();
    port.commit(&tab);
    let mut task = Task::default();
    task.tabs.adopt_primary(tab.clone(), origin(SITE));
    (task, tab)
}

#[tokio::test(start_paused = true)]
async fn a_pending_url_on_another_origin_stops_at_once_without_waiting() {
    let port = SimPort::new();
    let (mut task, tab) = started_task(&port).await;
    port.navigate(&tab, "https://evil.example.net/").await.unwrap();
    let stop = run(&port, &ScriptedPlanner::new(), AgentConfig::default(), &mut task).await;
    assert_eq!(stop, StopReason::OriginChanged);
    let (_, decision, waited) = task.trace.guards().next().unwrap();
    assert_eq!(decision.outcome_name(), Some("fast-fail"));
    assert_eq!(waited, 0);
}

#[tokio::test(start_paused = true)]
async fn a_commit_on_another_origin_stops_with_origin_changed() {
    let port = SimPort::committing_after(SLOW);
    let (mut task, tab) = started_task(&port).await;
    port.redirect("https://docs.example.com/next", "https://evil.example.net/");
    port.navigate(&tab, "https://docs.example.com/next").await.unwrap();
    let stop = run(&port, &ScriptedPlanner::new(), AgentConfig::default(), &mut task).await;
    assert_eq!(stop, StopReason::OriginChanged);
    assert_eq!(task.trace.guards().next().unwrap().1.outcome_name(), Some("origin-mismatch"));
}

#[tokio::test(start_paused = true)]
async fn a_navigation_that_never_commits_times_out_as_restricted_after_the_settle_timeout() {
    let port = SimPort::new();
    let (mut task, tab) = started_task(&port).await;
    port.navigate(&tab, "https://docs.example.com/never").await.unwrap();
    let stop = run(&port, &ScriptedPlanner::new(), AgentConfig::default(), &mut task).await;
    assert_eq!(stop, StopReason::Restricted);
    let (_, decision, waited) = task.trace.guards().next().unwrap();
    assert_eq!(decision.outcome_name(), Some("timeout"));
    assert_eq!(waited, AgentConfig::SETTLE_TIMEOUT.as_millis() as u64);
}

#[tokio::test(start_paused = true)]
async fn a_closed_focused_tab_stops_the_task() {
    let port = SimPort::new();
    let (mut task, tab) = started_task(&port).await;
    port.close_tab(&tab);
    let stop = run(&port, &ScriptedPlanner::new(), AgentConfig::default(), &mut task).await;
    assert_eq!(stop.message(), "Tab was closed, agent stopped");
}

#[tokio::test(start_paused = true)]
async fn stop_during_a_settle_aborts_and_leaves_no_listener() {
    let port = SimPort::new();
    let (mut task, tab) = started_task(&port).await;
    port.navigate(&tab, "https://docs.example.com/never").await.unwrap();
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        stopper.cancel();
    });
    let plan = ScriptedPlanner::new();
    let stop = Agent::new(&port, &plan, AgentConfig::default()).run(&mut task, &cancel).await;
    assert_eq!(stop.message(), "Task stopped by the user");
    assert_eq!(task.trace.guards().next().unwrap().1.outcome_name(), Some("aborted"));
    assert_eq!(crate::browser::PortDiagnostics::listener_count(&port), 0);
}

#[tokio::test(start_paused = true)]
async fn the_seed_trigger_does_not_wait_for_an_existing_tab_that_is_leaving() {
    let port = SimPort::committing_after(SLOW);
    let (mut task, tab) = started_task(&port).await;
    port.navigate(&tab, "https://docs.example.com/next").await.unwrap();
    let mut plan = ScriptedPlanner::new();
    plan.add(1, "done", json!({}));
    let config = AgentConfig { in_flight_trigger: InFlightTrigger::Seed, ..AgentConfig::default() };
    run(&port, &plan, config, &mut task).await;
    assert_eq!(task.trace.guards().next().unwrap().1, &GuardDecision::NotInFlight);
    let (mut task, tab) = started_task(&port).await;
    port.navigate(&tab, "https://docs.example.com/next").await.unwrap();
    run(&port, &plan, AgentConfig::default(), &mut task).await;
    assert_eq!(task.trace.guards().next().unwrap().1.outcome_name(), Some("committed"));
}

#[tokio::test(start_paused = true)]
async fn a_commit_between_subscribe_and_read_is_not_lost() {
    let port = SimPort::new();
    let tab = port.create_tab(SITE, true).await.unwrap();
    port.commit_on_next_read(&tab);
    let report =
        wait_for_url_settle(&port, &tab, &origin(SITE), AgentConfig::SETTLE_TIMEOUT, &CancellationToken::new())
            .await
            .unwrap();
    assert_eq!(report.outcome, SettleOutcome::Committed { url: SITE.into() });
    assert_eq!(report.waited, Duration::ZERO);
    assert_eq!(crate::browser::PortDiagnostics::listener_count(&port), 0);
}

#[tokio::test(start_paused = true)]
async fn two_tabs_settling_at_once_do_not_see_each_others_events() {
    let port = SimPort::new();
    let a = port.create_tab(SITE, true).await.unwrap();
    let b = port.create_tab("https://other.example.org/", true).await.unwrap();
    let cancel = CancellationToken::new();
    let (origin_a, origin_b) = (origin(SITE), origin("https://other.example.org/"));
    let wait_a = wait_for_url_settle(&port, &a, &origin_a, AgentConfig::SETTLE_TIMEOUT, &cancel);
    let wait_b = wait_for_url_settle(&port, &b, &origin_b, AgentConfig::SETTLE_TIMEOUT, &cancel);
    let commits = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        port.commit(&b);
        tokio::time::sleep(Duration::from_millis(100)).await;
        port.commit(&a);
    };
    let (ra, rb, ()) = tokio::join!(wait_a, wait_b, commits);
    assert_eq!(ra.unwrap().waited, Duration::from_millis(200));
    assert_eq!(rb.unwrap().waited, Duration::from_millis(100));
    assert_eq!(crate::browser::PortDiagnostics::listener_count(&port), 0);
}

#[tokio::test(start_paused = true)]
async fn bad_tool_input_fails_the_call_and_the_loop_goes_on() {
    let port = SimPort::committing_after(SLOW);
    let (mut task, _) = started_task(&port).await;
    let mut plan = ScriptedPlanner::new();
    plan.add(1, "fly", json!({}));
    plan.add(1, "click", json!({ "selector": 3 }));
    plan.add(1, "focus_tab", json!({ "tab": "nope" }));
    plan.add(1, "navigate", json!({ "url": "not a url" }));
    plan.add(2, "done", json!({ "summary": "ok" }));
    let stop = run(&port, &plan, AgentConfig::default(), &mut task).await;
    assert!(stop.is_success());
    let errors: Vec<String> = task
        .trace
        .tool_calls()
        .filter_map(|(_, c)| match c {
            TraceEvent::ToolCall { result: ToolReply::Failed(e), .. } => Some(e.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors[2].contains("unknown tab reference \"nope\""), "{errors:?}");
}

#[tokio::test(start_paused = true)]
async fn open_url_refuses_a_restricted_url_before_any_tab_exists() {
    let port = SimPort::new();
    let mut plan = ScriptedPlanner::new();
    plan.add(1, "open_url", json!({ "url": "chrome://settings" }));
    let mut task = Task::default();
    run(&port, &plan, AgentConfig::default(), &mut task).await;
    let (_, call) = task.trace.tool_calls().next().unwrap();
    assert!(
        matches!(call, TraceEvent::ToolCall { result: ToolReply::Failed(e), .. } if e == "open_url: chrome://settings is a restricted URL")
    );
    assert_eq!(port.tabs_created(), 0);
}

#[tokio::test(start_paused = true)]
async fn open_url_that_never_commits_fails_the_call_with_the_seed_message_and_keeps_the_tab() {
    let port = SimPort::new();
    let mut plan = ScriptedPlanner::new();
    plan.add(1, "open_url", json!({ "url": SITE }));
    let mut task = Task::default();
    run(&port, &plan, AgentConfig::default(), &mut task).await;
    let (_, call) = task.trace.tool_calls().next().unwrap();
    let TraceEvent::ToolCall { result: ToolReply::Failed(e), .. } = call else { panic!("{call:?}") };
    assert_eq!(
        e,
        "open_url: tab tab-1 created but navigation did not commit to https://docs.example.com within 5s (timeout)."
    );
    assert_eq!(port.tabs().await.unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_round_limit_stops_the_task() {
    let port = SimPort::new();
    let mut plan = ScriptedPlanner::new();
    (1..=3).for_each(|r| plan.add(r, "wait", json!({ "ms": 10 })));
    let mut task = Task::default();
    let stop = run(&port, &plan, AgentConfig { round_limit: 3, ..AgentConfig::default() }, &mut task).await;
    assert_eq!(stop.message(), "Round limit reached, agent stopped");
    assert_eq!(task.trace.rounds(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_page_a_dialog_blocks_is_observed_as_blocked_and_takes_nothing_but_an_answer() {
    use crate::browser::{Dialog, DialogKind};
    let port = SimPort::new();
    let (mut task, tab) = started_task(&port).await;
    port.open_dialog_in(&tab, Dialog { kind: DialogKind::Alert, message: "Saved".into() });
    let mut plan = ScriptedPlanner::new();
    plan.add(1, "click", json!({ "selector": "#go" }));
    plan.add(1, "handle_dialog", json!({ "accept": true }));
    plan.add(1, "handle_dialog", json!({ "accept": true }));
    plan.add(2, "done", json!({}));
    let stop = run(&port, &plan, AgentConfig::default(), &mut task).await;
    assert!(stop.is_success(), "{stop:?}");
    let seen = plan.observations();
    let blocked = &seen[&1];
    assert_eq!((blocked.url.as_str(), blocked.elements.len()), (SITE, 0));
    assert_eq!(blocked.dialog.as_ref().map(|d| d.kind), Some(DialogKind::Alert));
    assert_eq!(seen[&2].dialog, None, "answered, the page is read again");
    assert_eq!(
        task.trace.guards().next().map(|g| g.1.clone()),
        Some(GuardDecision::Dialog { kind: DialogKind::Alert })
    );
    let results: Vec<String> = task
        .trace
        .tool_calls()
        .map(|(_, call)| match call {
            TraceEvent::ToolCall { result, .. } => result.text().to_owned(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(results[0], "click: an alert is open: \"Saved\"; answer it with handle_dialog");
    assert!(results[1].starts_with("accepted an alert: \"Saved\"; the page went quiet"), "{}", results[1]);
    assert_eq!(results[2], format!("handle_dialog: no dialog is open in tab {tab}"));
}
