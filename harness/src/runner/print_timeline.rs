//! `navguard repro`'s view of a scenario: its timeline printed as it ends, and whether the race
//! showed.

use crate::timeline::{self, Timeline};
use crate::world::NavWorld;

/// Prints the scenario's timeline and its race verdict; returns the verdict.
pub(super) fn show_timeline(
    world: &NavWorld,
    timeline: &Timeline,
    feature_path: &str,
    scenario: &cucumber::gherkin::Scenario,
) -> String {
    println!("\n── {feature_path}:{}  {}", scenario.position.line, scenario.name);
    println!("{}", timeline::render(timeline));
    let verdict = match timeline::race_reproduced(&world.core.task.trace) {
        Some(how) => format!("race reproduced: {how}, with no guard waiting for the navigation"),
        None => match &world.core.stop {
            Some(stop) => format!("race not reproduced: the task ended with {:?}", stop.message()),
            None => "race not reproduced: the agent did not run".to_owned(),
        },
    };
    println!("{verdict}");
    verdict
}
