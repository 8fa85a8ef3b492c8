//! Steps about conversation turns on a stored task: tab reuse, the tools offered, the record,
//! the browser clients, the tab ledger.

use crate::error::{StepError, StepResult, expect_eq, expect_success};
use crate::world::NavWorld;
use crate::world::round_hook::user_script;
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use navguard::agent::{TaskTabs, TraceEvent};
use tracing::Instrument as _;

use navguard::conversation::{Conversation, TurnOutcome};
use navguard::store::{Field, TaskRecord, TaskStore, TaskUpdate};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The browser client whose tabs are the scenario's own (`Given a new task` registers it).
const SCENARIO_CLIENT: &str = "A";

fn setup(e: impl std::fmt::Display) -> StepError {
    StepError::Setup(e.to_string())
}

fn store(world: &NavWorld) -> StepResult<&TaskStore> {
    world.core.conversation.store.as_ref().ok_or_else(|| setup("no task yet: start with `Given a new task`"))
}

#[given("a new task")]
async fn a_new_task(world: &mut NavWorld) -> StepResult {
    let dir = navguard::__private::scratch_dir("conversation-").map_err(setup)?;
    let store = TaskStore::open(&dir.path().join("tasks.db")).map_err(setup)?;
    store.create("task-1", "Task").map_err(setup)?;
    let port = world.port()?.clone();
    let conversation = &mut world.core.conversation;
    conversation.clients.register(SCENARIO_CLIENT, port);
    (conversation.dir, conversation.store, conversation.task_id) = (Some(dir), Some(store), "task-1".into());
    Ok(())
}

#[given(expr = "a second browser client {string}")]
async fn a_second_client(world: &mut NavWorld, name: String) -> StepResult {
    let port = world.env()?.browser.open_port().await?;
    world.core.conversation.clients.register(&name, Arc::new(port.clone()));
    world.core.conversation.extra_ports.push(port);
    Ok(())
}

#[when(expr = "the browser client {string} goes away")]
#[given(expr = "the browser client {string} goes away")]
async fn a_client_goes_away(world: &mut NavWorld, name: String) -> StepResult {
    match world.core.conversation.clients.unregister(&name) {
        true => Ok(()),
        false => Err(setup(format!("there is no browser client {name:?}"))),
    }
}

/// Runs one turn. The task's tab becomes "the tab" of the steps that follow, as the agent's
/// first tab does in an agent scenario (when it is one of the scenario's own tabs: client A's).
async fn ask(world: &mut NavWorld, task_id: String, url: String) -> StepResult {
    world.mark()?;
    let url = world.expand(&url);
    let plan = world.core.plan.clone();
    let script = user_script(world)?;
    let mut task = std::mem::take(&mut world.core.task);
    let start = task.trace.entries.len();
    let conversation = Conversation {
        store: store(world)?,
        clients: &world.core.conversation.clients,
        config: world.core.effective_config(),
    };
    let cancel = CancellationToken::new();
    let turn = conversation.turn(&task_id, &mut task, &url, &plan, Some(&script), &cancel);
    let result = turn.instrument(world.progress.span()).await;
    world.core.task = task;
    if let [first, ..] = script.failures().as_slice() {
        return Err(StepError::Setup(first.clone()));
    }
    let state = &mut world.core.conversation;
    match result {
        Ok(outcome) => {
            let tab = (outcome.client == SCENARIO_CLIENT).then(|| outcome.tab.clone());
            state.turn_starts.push(start);
            world.core.stop = Some(outcome.stop.clone());
            state.turns.push(outcome);
            state.turn_error = None;
            if let Some(tab) = tab {
                world.adopt(tab);
            }
        }
        Err(e) => state.turn_error = Some(e.to_string()),
    }
    Ok(())
}

#[when(expr = "the user asks to open {string}")]
async fn the_user_asks(world: &mut NavWorld, url: String) -> StepResult {
    let task_id = world.core.conversation.task_id.clone();
    ask(world, task_id, url).await
}

#[when(expr = "the user asks to open {string} in task {string}")]
async fn the_user_asks_in_task(world: &mut NavWorld, url: String, task_id: String) -> StepResult {
    ask(world, task_id, url).await
}

fn turn(world: &NavWorld, n: usize) -> StepResult<&TurnOutcome> {
    let turns = &world.core.conversation.turns;
    n.checked_sub(1).and_then(|i| turns.get(i)).ok_or_else(|| {
        let failure = world.core.conversation.turn_error.as_deref().unwrap_or("none");
        StepError::Expectation(format!("there is no turn {n}: {} ran (last failure: {failure})", turns.len()))
    })
}

fn last_turn(world: &NavWorld) -> StepResult<&TurnOutcome> {
    turn(world, world.core.conversation.turns.len().max(1))
}

#[then(expr = "turn {int} succeeded")]
async fn turn_succeeded(world: &mut NavWorld, n: usize) -> StepResult {
    expect_success(&format!("turn {n}"), &turn(world, n)?.stop)
}

#[then(expr = "the turn failed with {string}")]
async fn the_turn_failed(world: &mut NavWorld, text: String) -> StepResult {
    match &world.core.conversation.turn_error {
        Some(e) if e.contains(&text) => Ok(()),
        other => {
            Err(StepError::Expectation(format!("expected the turn to fail with {text:?}, it failed with {other:?}")))
        }
    }
}

#[then(regex = r"^the task's tab is (the same as|not the same as) after turn (\d+)$")]
async fn same_tab(world: &mut NavWorld, how: String, n: usize) -> StepResult {
    let (now, then) = (&last_turn(world)?.tab, &turn(world, n)?.tab);
    expect_eq(&format!("the task's tab is the same as after turn {n}"), how == "the same as", now == then)
}

fn tool_list(text: &str) -> Vec<String> {
    let mut tools: Vec<String> = text.split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect();
    tools.sort();
    tools
}

#[then(expr = "the model was offered the tools {string}")]
async fn offered_tools(world: &mut NavWorld, list: String) -> StepResult {
    let offered = last_turn(world)?.offered.to_string();
    expect_eq("the tools offered", tool_list(&list), tool_list(&offered))
}

#[then(expr = "the model was offered the tools {string} in turn {int}")]
async fn offered_tools_in_turn(world: &mut NavWorld, list: String, n: usize) -> StepResult {
    let offered = turn(world, n)?.offered.to_string();
    expect_eq(&format!("the tools offered in turn {n}"), tool_list(&list), tool_list(&offered))
}

#[when("the user closes the task's tab")]
async fn close_the_tasks_tab(world: &mut NavWorld) -> StepResult {
    let tab = last_turn(world)?.tab.clone();
    world.port()?.close(&tab).await?;
    Ok(())
}

/// A field of the record by its name in the step language (`tab id`, `current url`, …), as text.
fn field_text(record: &TaskRecord, name: &str) -> Option<Option<String>> {
    let value = match name.trim().to_ascii_lowercase().replace(['_', '-'], " ").as_str() {
        "task id" => Some(record.task_id.clone()),
        "title" => Some(record.title.clone()),
        "status" => Some(record.status.as_str().to_owned()),
        "client" | "client id" => record.client_id.clone(),
        "current url" => record.current_url.clone(),
        "tab" | "tab id" => record.tab_id.clone(),
        "group" | "group id" => record.group_id.clone(),
        "window" | "window id" => record.window_id.clone(),
        _ => return None,
    };
    Some(value)
}

fn record_field(world: &NavWorld, field: &str) -> StepResult<Option<String>> {
    let record = store(world)?.get(&world.core.conversation.task_id).map_err(setup)?;
    field_text(&record, field).ok_or_else(|| setup(format!("the task record has no field {field:?}")))
}

#[then(expr = "the task record has {string} = {string}")]
async fn record_has(world: &mut NavWorld, field: String, value: String) -> StepResult {
    let value = world.expand(&value);
    expect_eq(&format!("the task record's {field}"), Some(value), record_field(world, &field)?)
}

#[then(expr = "the task record has no {string}")]
async fn record_has_no(world: &mut NavWorld, field: String) -> StepResult {
    expect_eq(&format!("the task record's {field}"), None, record_field(world, &field)?)
}

#[then("the task record's tab is the task's tab")]
async fn record_tab_is_the_tab(world: &mut NavWorld) -> StepResult {
    let tab = last_turn(world)?.tab.0.clone();
    expect_eq("the task record's tab id", Some(tab), record_field(world, "tab id")?)
}

fn update_for(field: &str, value: Field<String>) -> StepResult<TaskUpdate> {
    let mut update = TaskUpdate::default();
    match field.trim().to_ascii_lowercase().as_str() {
        "title" => update.title = if let Field::Set(v) = value { Some(v) } else { None },
        "tab id" => update.tab_id = value,
        "group id" => update.group_id = value,
        "window id" => update.window_id = value,
        "current url" => update.current_url = value,
        "client id" => update.client_id = value,
        other => return Err(setup(format!("the task record has no updatable field {other:?}"))),
    }
    Ok(update)
}

#[when("the task record is updated with:")]
async fn record_updated(world: &mut NavWorld, step: &Step) -> StepResult {
    let table = step.table.as_ref().ok_or_else(|| setup("this step needs a table | field | value |"))?;
    for row in table.rows.iter().skip(1) {
        let value = match row[1].trim() {
            "<clear>" => Field::Clear,
            v => Field::Set(world.expand(v)),
        };
        let update = update_for(&row[0], value)?;
        store(world)?.update(&world.core.conversation.task_id, &update).map_err(setup)?;
    }
    Ok(())
}

#[when("the store is reopened")]
async fn the_store_is_reopened(world: &mut NavWorld) -> StepResult {
    let state = &mut world.core.conversation;
    let path = state.dir.as_ref().ok_or_else(|| setup("no store"))?.path().join("tasks.db");
    drop(state.store.take());
    state.store = Some(TaskStore::open(&path).map_err(setup)?);
    // A restart: the task's tabs are known again only from its record.
    world.core.task.tabs = TaskTabs::default();
    Ok(())
}

fn turn_entries(world: &NavWorld, n: usize) -> StepResult<&[navguard::agent::TraceEntry]> {
    let starts = &world.core.conversation.turn_starts;
    let start = *n.checked_sub(1).and_then(|i| starts.get(i)).ok_or_else(|| setup(format!("there is no turn {n}")))?;
    let end = starts.get(n).copied().unwrap_or(world.core.task.trace.entries.len());
    Ok(&world.core.task.trace.entries[start..end])
}

#[then(expr = "turn {int} observed the page titled {string}")]
async fn turn_observed(world: &mut NavWorld, n: usize, title: String) -> StepResult {
    let seen: Vec<&str> = turn_entries(world, n)?
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::Observed { title, .. } => Some(title.as_str()),
            _ => None,
        })
        .collect();
    match seen.first() {
        Some(first) => expect_eq(&format!("turn {n}'s first observation"), title.as_str(), first),
        None => Err(StepError::Expectation(format!("turn {n} observed nothing"))),
    }
}

#[then(expr = "the trace says {string}")]
async fn the_trace_says(world: &mut NavWorld, text: String) -> StepResult {
    let notes: Vec<String> = world
        .core
        .task
        .trace
        .entries
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::Note { note } => Some(note.to_string()),
            _ => None,
        })
        .collect();
    if notes.iter().any(|n| n.contains(&text)) {
        return Ok(());
    }
    Err(StepError::Expectation(format!("no trace note says {text:?}; the notes: {notes:?}")))
}

#[then(expr = "the task uses the browser client {string}")]
async fn the_task_uses_client(world: &mut NavWorld, name: String) -> StepResult {
    expect_eq("the turn's client", name.as_str(), last_turn(world)?.client.as_str())?;
    expect_eq("the record's client", Some(name), record_field(world, "client id")?)
}

#[then(regex = r"^the task's ledger has (\d+) child tabs?$")]
async fn ledger_children(world: &mut NavWorld, n: usize) -> StepResult {
    expect_eq("the task's child tabs", n, world.core.task.tabs.children().len())
}

#[then(regex = r"^the model was told of (\d+) new tabs?$")]
async fn told_of_tabs(world: &mut NavWorld, n: usize) -> StepResult {
    let told = world.core.task.trace.entries.iter().filter(|e| matches!(e.event, TraceEvent::ChildTab { .. })).count();
    expect_eq("tabs the model was told of", n, told)
}
