//! What a person does to the browser while the scenario runs.

use crate::error::StepResult;
use crate::world::NavWorld;
use crate::world::parameters::KeyName;
use crate::world::user_action::TabAction;
use cucumber::{given, when};
use navguard::browser::{Key, Target};

#[when(expr = "the user {tab-action}")]
#[given(expr = "the user {tab-action}")]
async fn the_user_acts(world: &mut NavWorld, action: TabAction) -> StepResult {
    let TabAction(action) = action;
    world.mark()?;
    let tab = world.current_tab()?;
    let opened = action.perform(&**world.port()?, &tab, |u| world.expand(u)).await?;
    if let Some(tab) = opened {
        world.adopt(tab);
    }
    Ok(())
}

#[when(expr = "the user clicks {string}")]
async fn the_user_clicks(world: &mut NavWorld, selector: String) -> StepResult {
    world.mark()?;
    let tab = world.current_tab()?;
    world.port()?.click(&tab, &Target::Css(selector)).await?;
    Ok(())
}

/// Sends the click and goes on; `the browser gives no answer within …` checks on it.
#[when(expr = "the user clicks {string} without waiting for the browser")]
async fn the_user_clicks_in_the_background(world: &mut NavWorld, selector: String) -> StepResult {
    world.mark()?;
    let (tab, port) = (world.current_tab()?, world.port()?.clone());
    world.pending_answer =
        Some(tokio::spawn(
            async move { port.click(&tab, &Target::Css(selector)).await.map(|()| serde_json::Value::Null) },
        ));
    Ok(())
}

#[when(regex = r#"^the user types "([^"]*)" into "([^"]*)"( and presses Enter)?$"#)]
async fn the_user_types(world: &mut NavWorld, text: String, selector: String, enter: String) -> StepResult {
    world.mark()?;
    let tab = world.current_tab()?;
    let port = world.port()?;
    port.type_text(&tab, &Target::Css(selector), &world.expand(&text)).await?;
    if !enter.is_empty() {
        world.mark()?;
        world.port()?.press_key(&tab, Key::Enter).await?;
    }
    Ok(())
}

#[when(expr = "the user presses {key}")]
async fn the_user_presses(world: &mut NavWorld, key: KeyName) -> StepResult {
    let KeyName(key) = key;
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
