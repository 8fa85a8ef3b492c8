//! Steps about the fixture site.

use crate::error::{StepResult, expect_eq};
use crate::world::NavWorld;
use cucumber::{given, then, when};

#[given(expr = "the site releases {string}")]
#[when(expr = "the site releases {string}")]
async fn the_site_releases(world: &mut NavWorld, gate: String) -> StepResult {
    world.mark()?;
    world.site()?.state.release(&world.expand(&gate));
    Ok(())
}

#[then(expr = "the fixture site served {string} {int} times")]
#[then(expr = "the fixture site served {string} {int} time")]
async fn served(world: &mut NavWorld, path: String, n: usize) -> StepResult {
    expect_eq(&format!("requests for {path}"), n, world.site()?.requests().count(&path))
}
