//! What a person does to the browser while the scenario runs.

use crate::error::{StepError, StepResult};
use crate::user_action::UserAction;
use crate::world::NavWorld;
use cucumber::{given, when};
use navguard::browser::{BrowserPort, Key};

#[when(regex = r"^the user (reloads the tab|goes back|navigates the tab to .+|closes the tab|opens .+ in a new tab)$")]
#[given(regex = r"^the user (reloads the tab|goes back|navigates the tab to .+|closes the tab|opens .+ in a new tab)$")]
async fn the_user_acts(world: &mut NavWorld, words: String) -> StepResult {
    let action = UserAction::parse(&words).map_err(|e| StepError::Setup(e.to_string()))?;
    world.mark()?;
    let tab = world.current_tab()?;
    let opened = action.perform(world.port()?, &tab, |u| world.expand(u)).await?;
    if let Some(tab) = opened {
        world.adopt(tab);
    }
    Ok(())
}

#[when(expr = "the user clicks {string}")]
async fn the_user_clicks(world: &mut NavWorld, selector: String) -> StepResult {
    world.mark()?;
    let tab = world.current_tab()?;
    world.port()?.click(&tab, &selector).await?;
    Ok(())
}

/// Sends the click and goes on; `the browser gives no answer within …` checks on it.
#[when(expr = "the user clicks {string} without waiting for the browser")]
async fn the_user_clicks_in_the_background(world: &mut NavWorld, selector: String) -> StepResult {
    world.mark()?;
    let (tab, port) = (world.current_tab()?, world.port()?.clone());
    world.pending_answer =
        Some(tokio::spawn(async move { port.click(&tab, &selector).await.map(|()| serde_json::Value::Null) }));
    Ok(())
}

#[when(regex = r#"^the user types "([^"]*)" into "([^"]*)"( and presses Enter)?$"#)]
async fn the_user_types(world: &mut NavWorld, text: String, selector: String, enter: String) -> StepResult {
    world.mark()?;
    let tab = world.current_tab()?;
    let port = world.port()?;
    port.type_text(&tab, &selector, &world.expand(&text)).await?;
    if !enter.is_empty() {
        world.mark()?;
        world.port()?.press_key(&tab, Key::Enter).await?;
    }
    Ok(())
}

#[when(expr = "the user presses {string}")]
async fn the_user_presses(world: &mut NavWorld, key: String) -> StepResult {
    let key = Key::parse(&key)?;
    world.mark()?;
    let tab = world.current_tab()?;
    world.port()?.press_key(&tab, key).await?;
    Ok(())
}

#[when("the user switches to the tab")]
#[given("the user switches to the tab")]
async fn the_user_switches(world: &mut NavWorld) -> StepResult {
    let tab = world.current_tab()?;
    world.port()?.activate(&tab).await?;
    Ok(())
}
