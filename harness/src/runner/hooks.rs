//! cucumber's hooks around each scenario: before it, its world is set up on the run's browser;
//! after it, what it did is read from its world into its result, and its world torn down.

use super::print_timeline::show_timeline;
use super::teardown::teardown;
use crate::artifacts;
use crate::report;
use crate::run_context::RunContext;
use crate::summary::{self, ScenarioResult, TaskEnd};
use crate::timeline::{self, Timeline};
use crate::world::NavWorld;
use futures::FutureExt as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub(super) type Hook<'a> = futures::future::LocalBoxFuture<'a, ()>;

pub(super) fn before_hook(
    run: Arc<RunContext>,
) -> impl for<'a> Fn(
    &'a cucumber::gherkin::Feature,
    Option<&'a cucumber::gherkin::Rule>,
    &'a cucumber::gherkin::Scenario,
    &'a mut NavWorld,
) -> Hook<'a> {
    move |feature, _, scenario, world| {
        let run = Arc::clone(&run);
        async move {
            let name = format!("{}:{}  {}", report::feature_key(feature), scenario.position.line, scenario.name);
            world.progress = crate::progress::ScenarioSpan::new(&name, run.live_progress);
            // A panic here is how cucumber fails a scenario from its hook.
            if let Err(e) = world.setup(run).await {
                panic!("{e}");
            }
        }
        .boxed_local()
    }
}

pub(super) fn after_hook(
    run: Arc<RunContext>,
) -> impl for<'a> Fn(
    &'a cucumber::gherkin::Feature,
    Option<&'a cucumber::gherkin::Rule>,
    &'a cucumber::gherkin::Scenario,
    &'a cucumber::event::ScenarioFinished,
    Option<&'a mut NavWorld>,
) -> Hook<'a> {
    move |feature, _, scenario, finished, world| {
        let run = Arc::clone(&run);
        async move {
            let mut failure = summary::failure_of(finished, scenario);
            let not_applicable = world.as_ref().and_then(|w| w.conformance.not_applicable.clone());
            if not_applicable.is_some() {
                failure = None;
            }
            let calls = world.as_ref().map(|w| summary::call_records(&w.conformance)).unwrap_or_default();
            let feature_path = report::feature_key(feature);
            let folder = run
                .report_dir
                .join("artifacts")
                .join(artifact_feature(&feature_path))
                .join(artifacts::folder_name(&scenario.name, scenario.position.line));
            let (duration, artifacts, race, task_end, guard_waits_ms, timeline) = match world {
                Some(world) => {
                    let timeline = timeline_of(world);
                    let race = run.mode.timeline.then(|| show_timeline(world, &timeline, &feature_path, scenario));
                    let (task_end, waits) = task_facts(world);
                    let (duration, artifacts) = teardown(world, failure.is_some(), folder).await;
                    (duration, artifacts, race, task_end, waits, timeline)
                }
                None => (Duration::ZERO, None, None, None, Vec::new(), Timeline::default()),
            };
            run.record(ScenarioResult {
                feature_path,
                feature: feature.name.clone(),
                scenario: scenario.name.clone(),
                line: scenario.position.line,
                failure,
                not_applicable,
                calls,
                duration,
                artifacts,
                race,
                expects: summary::expects_of(&scenario.steps),
                task_end,
                guard_waits_ms,
                timeline,
                steps: Vec::new(),
                gherkin: None,
            });
        }
        .boxed_local()
    }
}

/// How the agent's task ended and how long its guards waited.
fn task_facts(world: &NavWorld) -> (Option<TaskEnd>, Vec<u64>) {
    use navguard::agent::GuardDecision;
    let end = world.core.stop.as_ref().map(|stop| TaskEnd::of(stop, &world.core.task.trace));
    let waits = world
        .core
        .task
        .trace
        .guards()
        .filter(|(_, d, _)| matches!(d, GuardDecision::Settled { .. }))
        .map(|(_, _, ms)| ms)
        .collect();
    (end, waits)
}

/// The scenario's timeline: its agent's trace and its browser events.
fn timeline_of(world: &NavWorld) -> Timeline {
    let events = world.port().map(|p| p.events()).unwrap_or_default();
    timeline::build(&world.core.task.trace, &events)
}

/// The artifacts folder of a feature: its file name without `.feature`.
fn artifact_feature(path: &str) -> String {
    Path::new(path).file_stem().map_or_else(|| "feature".into(), |s| s.to_string_lossy().into_owned())
}
