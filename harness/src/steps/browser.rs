//! Steps about tabs, navigations and their events, straight on the browser port.

use crate::error::{StepError, StepResult, expect_eq};
use crate::world::parameters::{Event, event_kind};
use crate::world::{EVENT_DEADLINE, NavWorld, same_url};
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use navguard::browser::{NavEvent, NavEventKind};
use std::time::Duration;

#[given(expr = "a tab is open on {string}")]
async fn a_tab_is_open(world: &mut NavWorld, url: String) -> StepResult {
    world.open_loaded_tab(&url).await.map(|_| ())
}

#[when(expr = "a new tab is created on {string}")]
async fn a_new_tab_is_created(world: &mut NavWorld, url: String) -> StepResult {
    world.mark()?;
    let tab = world.port()?.create_tab(&world.expand(&url), true).await?;
    world.adopt(tab);
    Ok(())
}

/// The scenario's own script, sent as it is (its value, whatever it is, is not read).
#[when(expr = "the page runs {string}")]
#[given(expr = "the page runs {string}")]
async fn the_page_runs(world: &mut NavWorld, script: String) -> StepResult {
    world.mark()?;
    let tab = world.current_tab()?;
    world.port()?.evaluate(&tab, &world.expand(&script)).await?;
    Ok(())
}

#[when(expr = "the tab's navigation to {string} starts")]
#[given(expr = "the tab's navigation to {string} starts")]
async fn navigation_starts(world: &mut NavWorld, url: String) -> StepResult {
    let (tab, url) = (world.current_tab()?, world.expand(&url));
    let what = format!("tab {tab} to start navigating to {url}");
    world
        .wait_for_event(&what, |e| {
            e.tab == tab && e.kind == NavEventKind::Started && e.url.as_deref().is_some_and(|u| same_url(u, &url))
        })
        .await
        .map(|_| ())
}

#[when(expr = "the tab's {event} event arrives")]
#[given(expr = "the tab's {event} event arrives")]
async fn event_arrives(world: &mut NavWorld, event: Event) -> StepResult {
    let (tab, kind) = (world.current_tab()?, event.0);
    let what = format!("a {:?} event of tab {tab}", kind.name());
    world.wait_for_event(&what, |e| e.tab == tab && e.kind == kind).await.map(|_| ())
}

#[when("a new tab appears")]
async fn a_new_tab_appears(world: &mut NavWorld) -> StepResult {
    let known = |e: &NavEvent| e.kind == NavEventKind::TabCreated && !world.knows(&e.tab);
    let event = world.wait_for_event("a new tab to appear", known).await?;
    world.adopt(event.tab);
    Ok(())
}

#[then(expr = "the tab's URL is {string}")]
async fn the_url_is(world: &mut NavWorld, url: String) -> StepResult {
    let tab = world.current_tab()?;
    let info = world.port()?.tab(&tab).await?;
    let expected = world.expand(&url);
    if same_url(&info.url, &expected) {
        return Ok(());
    }
    expect_eq("the tab's URL", expected, info.url)
}

#[then(expr = "the tab's pending URL is {string}")]
async fn the_pending_url_is(world: &mut NavWorld, url: String) -> StepResult {
    let tab = world.current_tab()?;
    let info = world.port()?.tab(&tab).await?;
    let expected = world.expand(&url);
    match info.pending_url {
        Some(pending) if same_url(&pending, &expected) => Ok(()),
        other => expect_eq("the tab's pending URL", Some(expected), other),
    }
}

#[then("the tab has no pending URL")]
async fn no_pending_url(world: &mut NavWorld) -> StepResult {
    let tab = world.current_tab()?;
    expect_eq("the tab's pending URL", None, world.port()?.tab(&tab).await?.pending_url)
}

#[then(regex = r"^the tab is (loading|not loading)$")]
async fn the_tab_is_loading(world: &mut NavWorld, state: String) -> StepResult {
    let tab = world.current_tab()?;
    expect_eq("the tab is loading", state == "loading", world.port()?.tab(&tab).await?.loading)
}

#[then(expr = "the page's title is {string}")]
async fn the_title_is(world: &mut NavWorld, title: String) -> StepResult {
    let tab = world.current_tab()?;
    let actual = world.port()?.evaluate(&tab, "document.title").await?;
    expect_eq("the page's title", serde_json::Value::String(world.expand(&title)), actual)
}

#[then("the tab is gone")]
async fn the_tab_is_gone(world: &mut NavWorld) -> StepResult {
    let tab = world.current_tab()?;
    match world.port()?.tab(&tab).await {
        Err(e) if e.is_tab_gone() => Ok(()),
        Err(e) => {
            Err(StepError::Expectation(format!("expected tab {tab} to be gone, reading it failed otherwise: {e}")))
        }
        Ok(info) => Err(StepError::Expectation(format!("expected tab {tab} to be gone, it is open on {}", info.url))),
    }
}

/// Looks from the latest action on.
#[then(expr = "the tab has no {event} event within {int} ms")]
async fn no_event_within(world: &mut NavWorld, event: Event, ms: u64) -> StepResult {
    let (tab, kind) = (world.current_tab()?, event.0);
    let mut events = world.port()?.subscribe_from(world.mark_position());
    let found = async {
        loop {
            match events.next().await {
                Ok(e) if e.tab == tab && e.kind == kind => return Some(e),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    };
    match tokio::time::timeout(Duration::from_millis(ms), found).await {
        Ok(Some(e)) => Err(StepError::Expectation(format!("tab {tab} had a {:?} event: {:?}", kind.name(), e.url))),
        _ => Ok(()),
    }
}

#[then(expr = "the tab had no {event} event")]
async fn had_no_event(world: &mut NavWorld, event: Event) -> StepResult {
    let (tab, kind) = (world.current_tab()?, event.0);
    match world.events_of(&tab)?.into_iter().find(|e| e.kind == kind) {
        Some(e) => {
            Err(StepError::Expectation(format!("tab {tab} had a {:?} event (#{}, {:?})", kind.name(), e.seq, e.url)))
        }
        None => Ok(()),
    }
}

fn row_matches(event: &NavEvent, kind: NavEventKind, url: &str) -> bool {
    event.kind == kind && (url.is_empty() || event.url.as_deref().is_some_and(|u| same_url(u, url)))
}

fn describe(events: &[NavEvent]) -> String {
    events
        .iter()
        .map(|e| format!("{} {}", e.kind.name(), e.url.as_deref().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("\n  ")
}

#[then("the tab's events include, in order:")]
async fn events_include_in_order(world: &mut NavWorld, step: &Step) -> StepResult {
    let tab = world.current_tab()?;
    let table =
        step.table.as_ref().ok_or_else(|| StepError::Setup("this step needs a table | event | url |".into()))?;
    let events = world.events_of(&tab)?;
    let mut rest = events.iter();
    for row in table.rows.iter().skip(1) {
        let (name, url) =
            (row.first().map_or("", String::as_str), row.get(1).map_or(String::new(), |u| world.expand(u)));
        let kind = event_kind(name)?;
        if !rest.any(|e| row_matches(e, kind, &url)) {
            return Err(StepError::Expectation(format!(
                "tab {tab} has no {name} {url} event after the rows before it; its events were:\n  {}",
                describe(&events)
            )));
        }
    }
    Ok(())
}

#[then(expr = "the tab was opened by tab {int}")]
async fn opened_by(world: &mut NavWorld, n: usize) -> StepResult {
    let (tab, opener) = (world.current_tab()?, world.tab_number(n)?);
    let created = world.events_of(&tab)?.into_iter().find(|e| e.kind == NavEventKind::TabCreated);
    expect_eq("the tab's opener", Some(opener), created.and_then(|e| e.opener))
}

#[then(regex = r"^(\d+) tabs? (?:is|are) open$")]
async fn tabs_open(world: &mut NavWorld, n: usize) -> StepResult {
    expect_eq("open tabs", n, world.port()?.tabs().await?.len())
}

#[then(expr = "the tab's last {event} event has another navigation id than its last {event} event")]
async fn navigation_ids_differ(world: &mut NavWorld, first: Event, second: Event) -> StepResult {
    let tab = world.current_tab()?;
    let events = world.events_of(&tab)?;
    let last = |k: NavEventKind| -> StepResult<Option<navguard::browser::NavigationId>> {
        let event = events.iter().rev().find(|e| e.kind == k);
        let event = event.ok_or_else(|| StepError::Expectation(format!("tab {tab} had no {:?} event", k.name())))?;
        Ok(event.navigation.clone())
    };
    let (a, b) = (last(first.0)?, last(second.0)?);
    if a == b {
        return Err(StepError::Expectation(format!("both carry navigation id {a:?}")));
    }
    Ok(())
}

#[when(expr = "the page is asked for {string}")]
async fn the_page_is_asked(world: &mut NavWorld, expression: String) -> StepResult {
    let (tab, port, expression) = (world.current_tab()?, world.port()?.clone(), world.expand(&expression));
    world.pending_answer = Some(tokio::spawn(async move { port.evaluate(&tab, &expression).await }));
    Ok(())
}

fn pending_answer(
    world: &mut NavWorld,
) -> StepResult<&mut tokio::task::JoinHandle<Result<serde_json::Value, navguard::browser::BrowserError>>> {
    world.pending_answer.as_mut().ok_or_else(|| StepError::Setup("ask the page something first".into()))
}

#[then(expr = "the browser gives no answer within {int} ms")]
#[then(expr = "the page gives no answer within {int} ms")]
async fn no_answer_within(world: &mut NavWorld, ms: u64) -> StepResult {
    let answer = pending_answer(world)?;
    match tokio::time::timeout(Duration::from_millis(ms), answer).await {
        Err(_) => Ok(()),
        Ok(result) => Err(StepError::Expectation(format!("the page answered: {result:?}"))),
    }
}

#[then("the page's answer is an error")]
async fn the_answer_is_an_error(world: &mut NavWorld) -> StepResult {
    let answer = pending_answer(world)?;
    let result = tokio::time::timeout(EVENT_DEADLINE, answer).await;
    world.pending_answer = None;
    match result {
        Ok(Ok(Err(_))) => Ok(()),
        Ok(Ok(Ok(value))) => Err(StepError::Expectation(format!("the page answered {value}"))),
        Ok(Err(e)) => Err(StepError::Setup(e.to_string())),
        Err(_) => Err(StepError::Timeout { what: "the page's answer".into(), after: EVENT_DEADLINE }),
    }
}

#[then(expr = "the page answers {string}")]
async fn the_page_answers(world: &mut NavWorld, expected: String) -> StepResult {
    let expected = world.expand(&expected);
    let answer = pending_answer(world)?;
    let result = tokio::time::timeout(EVENT_DEADLINE, answer).await;
    let value = match result {
        Err(_) => {
            return Err(StepError::Timeout { what: "the page's answer".into(), after: EVENT_DEADLINE });
        }
        Ok(joined) => joined.map_err(|e| StepError::Setup(e.to_string()))??,
    };
    world.pending_answer = None;
    let actual = match value {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    };
    expect_eq("the page's answer", expected, actual)
}
