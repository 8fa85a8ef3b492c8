//! The orchestrator's console, in the scenario's browser: the orchestrator served in process, a
//! task that waits for the user (its page observed in a tab, as the executor would report it),
//! the console opened from its token URL, and what the person's answer did.

use crate::error::{StepError, StepResult};
use crate::world::{EVENT_DEADLINE, NavWorld, Orchestrated};
use base64::Engine as _;
use cucumber::{given, then, when};
use navguard::browser::PageScript;
use navguard_orchestrator::model::{Observation, PlanStep, TaskStatus, ToolName};
use navguard_orchestrator::permissions::PermissionMode;
use navguard_orchestrator::service::Service;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How often a step looks again at what another party (the page's script, the service) is
/// about to change: polling with a deadline, there being no event to wait for.
const LOOK_AGAIN: Duration = Duration::from_millis(100);

fn orchestrator(world: &NavWorld) -> StepResult<&Orchestrated> {
    world
        .orchestrator
        .as_ref()
        .ok_or_else(|| StepError::Setup("no orchestrator: say `Given the orchestrator serves`".into()))
}

fn failed(what: &str) -> impl FnOnce(navguard_orchestrator::service::ServiceError) -> StepError + '_ {
    move |e| StepError::Expectation(format!("the orchestrator, {what}: {e}"))
}

#[given("the orchestrator serves")]
async fn the_orchestrator_serves(world: &mut NavWorld) -> StepResult {
    world.orchestrator = Some(Orchestrated::start(PermissionMode::Open).await?);
    Ok(())
}

#[given("the orchestrator serves, asking for site permissions")]
async fn the_orchestrator_serves_asking(world: &mut NavWorld) -> StepResult {
    world.orchestrator = Some(Orchestrated::start(PermissionMode::Ask).await?);
    Ok(())
}

/// Starts a task on `url` that waits 1 ms, then clicks `selector`; reports the wait as the
/// executor would, with the page as the core observes it in a tab of its own and its
/// screenshot; then asks for the click. The task is expected to wait for the user after that;
/// it is the scenario's waiting task.
async fn task_waiting_on(world: &mut NavWorld, selector: &str, url: &str) -> StepResult {
    let url = world.expand(url);
    let tab = world.open_loaded_tab(&url).await?;
    let port = world.port()?.clone();
    let seen = navguard::agent::observe(port.as_ref(), &tab).await?;
    let png = port.screenshot(&tab).await?;
    let mut observation = Observation::of_page(&seen);
    observation.artifacts.screenshots.push(base64::engine::general_purpose::STANDARD.encode(png));
    let service = &orchestrator(world)?.service;
    let step = |round, tool, args: Value| PlanStep { round, tool, args: args.as_object().cloned().unwrap_or_default() };
    let plan = vec![step(1, ToolName::Wait, json!({"ms": 1})), step(2, ToolName::Click, json!({"selector": selector}))];
    let (task, _) = service.start("the scenario's task".into(), Some(url), plan).await.map_err(failed("start"))?;
    let (wait, _) = service.next(Some(task.clone())).await.map_err(failed("next"))?;
    let wait = wait.ok_or_else(|| StepError::Expectation("the task's wait was not handed out".into()))?;
    service.report(task.clone(), wait.action_id, observation).await.map_err(failed("report"))?;
    let (click, status) = service.next(Some(task.clone())).await.map_err(failed("next"))?;
    if click.is_some() || status != Some(TaskStatus::WaitingConfirmation) {
        return Err(StepError::Expectation(format!("the click did not wait for the user: {status:?}, {click:?}")));
    }
    world.orchestrator_task = Some(task);
    Ok(())
}

/// The same task either way: the orchestrator's `--permissions` decides what it waits for.
#[given(expr = "a task waits for the user to confirm a click on {string} of {string}")]
async fn a_task_waits_for_confirmation(world: &mut NavWorld, selector: String, url: String) -> StepResult {
    task_waiting_on(world, &selector, &url).await
}

#[given(expr = "a task waits for the user to allow the site of {string} for a click on {string}")]
async fn a_task_waits_for_permission(world: &mut NavWorld, url: String, selector: String) -> StepResult {
    task_waiting_on(world, &selector, &url).await
}

#[when("the user opens the console")]
async fn the_user_opens_the_console(world: &mut NavWorld) -> StepResult {
    let url = orchestrator(world)?.console_url.clone();
    world.open_loaded_tab(&url).await.map(|_| ())
}

/// Looks again, every [`LOOK_AGAIN`], until `look` finds what it looks for, within the deadline.
async fn look_until<T>(what: &str, mut look: impl AsyncFnMut() -> StepResult<Option<T>>) -> StepResult<T> {
    let started = Instant::now();
    loop {
        if let Some(found) = look().await? {
            return Ok(found);
        }
        if started.elapsed() > EVENT_DEADLINE {
            return Err(StepError::Timeout { what: what.to_owned(), after: EVENT_DEADLINE });
        }
        tokio::time::sleep(LOOK_AGAIN).await;
    }
}

/// Asks the current tab's page `script` with `args` until it answers `true`, within the
/// deadline.
async fn until_the_page_says(world: &NavWorld, what: &str, script: &PageScript, args: &[Value]) -> StepResult {
    let (tab, port) = (world.current_tab()?, world.port()?.clone());
    look_until(what, async || Ok((port.call(&tab, script, args).await? == Value::Bool(true)).then_some(()))).await
}

/// Whether the page's text holds the text given.
const SHOWS_TEXT: PageScript =
    PageScript { name: "shows text", function: "(text) => document.body.innerText.includes(text)" };

/// Whether the page shows the console's latest screenshot, loaded.
const SHOWS_SCREENSHOT: PageScript = PageScript {
    name: "shows a screenshot",
    function: "() => [...document.images].some(i => i.src.includes('/console/shot/') && i.complete && i.naturalWidth > 0)",
};

/// The orchestrator's task that waits for the user.
fn waiting_task(world: &NavWorld) -> StepResult<String> {
    world.orchestrator_task.clone().ok_or_else(|| StepError::Setup("no task waits".into()))
}

#[then(expr = "the console shows {string}")]
async fn the_console_shows(world: &mut NavWorld, text: String) -> StepResult {
    let text = world.expand(&text);
    until_the_page_says(world, &format!("the console to show {text:?}"), &SHOWS_TEXT, &[Value::String(text.clone())])
        .await
}

#[then("the console shows the page's latest screenshot")]
async fn the_console_shows_the_screenshot(world: &mut NavWorld) -> StepResult {
    until_the_page_says(world, "the console to show a screenshot, loaded", &SHOWS_SCREENSHOT, &[]).await
}

/// The audit lines of the scenario's task whose event is `event`.
async fn audit_lines(service: &Service, task: &str, event: &str) -> StepResult<Vec<Value>> {
    let log = service.audit_log(task.to_owned()).await.map_err(failed("audit"))?;
    Ok(log.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).filter(|l| l["event"] == event).collect())
}

#[then(regex = r"^the task's click was (approved|denied) from the console$")]
async fn the_click_was_answered(world: &mut NavWorld, answer: String) -> StepResult {
    let event = if answer == "approved" { "confirmed" } else { "denied" };
    let (service, task) = (orchestrator(world)?.service.clone(), waiting_task(world)?);
    let line = look_until(&format!("the click to be {answer}"), async || {
        Ok(audit_lines(&service, &task, event).await?.into_iter().next())
    })
    .await?;
    match line["client"]["kind"].as_str() {
        Some("console") => Ok(()),
        other => Err(StepError::Expectation(format!("the click was {answer} by {other:?}, not the console"))),
    }
}

#[then(regex = r"^the task's click is (handed out, confirmed|handed out|never handed out)$")]
async fn the_click_is_handed_out(world: &mut NavWorld, how: String) -> StepResult {
    let (service, task) = (orchestrator(world)?.service.clone(), waiting_task(world)?);
    let (action, status) = service.next(Some(task)).await.map_err(failed("next"))?;
    let click = action.as_ref().filter(|a| a.kind == ToolName::Click);
    let holds = match how.as_str() {
        "handed out, confirmed" => click.is_some_and(|a| a.confirmed),
        "handed out" => click.is_some(),
        _ => click.is_none(),
    };
    if holds {
        return Ok(());
    }
    Err(StepError::Expectation(format!("the click {how}: next gave {action:?} ({status:?})")))
}

#[then(regex = r#"^the site of "([^"]*)" was (allowed|refused) from the console$"#)]
async fn the_site_is_answered(world: &mut NavWorld, url: String, answer: String) -> StepResult {
    let origin = navguard_orchestrator::permissions::origin_of(&world.expand(&url));
    let (service, task) = (orchestrator(world)?.service.clone(), waiting_task(world)?);
    let event = if answer == "allowed" { "permission-granted" } else { "permission-refused" };
    let word = look_until(&format!("{origin} to be {answer}"), async || {
        let granted = service.permissions().await.map_err(failed("permissions"))?;
        Ok(granted.iter().find(|g| g.origin == origin).map(|g| g.granted))
    })
    .await?;
    let lines = audit_lines(&service, &task, event).await?;
    let by = lines.first().and_then(|l| l["client"]["kind"].as_str().map(str::to_owned));
    match (word == (answer == "allowed"), by.as_deref()) {
        (true, Some("console")) => Ok(()),
        _ => Err(StepError::Expectation(format!("{origin}: the user's word {word:?}, given by {by:?}"))),
    }
}
