//! The agent core's progress lines (`round 2: waiting for the navigation to commit (1.2 s)`),
//! named by the scenario they come from. Several scenarios run at once, so a bare progress line
//! cannot be told apart from its neighbours': each scenario's agent runs inside a span
//! ([`ScenarioSpan`]) that carries the scenario's `file:line  name`, and [`ScenarioProgress`]
//! prints the line after it. They are shown live only when the run asks for it (a terminal, or
//! `--verbose`): in a log file, lines every 250 ms from several scenarios are noise; the report's
//! timeline keeps every one of them anyway.
//!
//! Progress outside a scenario (the executor's tasks) is left to the ordinary log format.

use std::io::Write as _;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// The target the core reports progress under.
pub const TARGET: &str = "navguard::progress";

/// The name of a scenario's span.
const SPAN: &str = "scenario";

/// The span a scenario's agents run in; none until the scenario's before hook names it.
#[derive(Clone, Debug)]
pub struct ScenarioSpan(tracing::Span);

impl Default for ScenarioSpan {
    fn default() -> Self {
        Self(tracing::Span::none())
    }
}

impl ScenarioSpan {
    /// The progress reported in it is named after `scenario` (`file:line  name`), and printed
    /// as it comes only if `live`.
    pub fn new(scenario: &str, live: bool) -> Self {
        Self(tracing::info_span!(target: TARGET, SPAN, name = scenario, live))
    }

    /// The span, to run a scenario's agent in (`future.instrument(span)`).
    pub fn span(&self) -> tracing::Span {
        self.0.clone()
    }
}

/// What a scenario's span says, kept with the span.
#[derive(Debug, Default)]
struct Scenario {
    name: String,
    live: bool,
}

impl Visit for Scenario {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "name" {
            value.clone_into(&mut self.name);
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if field.name() == "live" {
            self.live = value;
        }
    }

    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

/// An event's message.
#[derive(Default)]
struct Message(String);

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            value.clone_into(&mut self.0);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

fn is_scenario(metadata: &Metadata<'_>) -> bool {
    metadata.target() == TARGET && metadata.name() == SPAN
}

/// Prints the progress reported inside a scenario's span to stderr, after the scenario's name,
/// when the span is live.
#[derive(Debug, Default)]
pub struct ScenarioProgress;

impl<S> Layer<S> for ScenarioProgress
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if !is_scenario(attrs.metadata()) {
            return;
        }
        let mut scenario = Scenario::default();
        attrs.record(&mut scenario);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(scenario);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        if event.metadata().target() != TARGET {
            return;
        }
        let Some(scope) = ctx.event_scope(event) else { return };
        for span in scope {
            let extensions = span.extensions();
            let Some(scenario) = extensions.get::<Scenario>() else { continue };
            if scenario.live {
                let mut message = Message::default();
                event.record(&mut message);
                // Progress is best effort: a closed stderr must not fail the scenario.
                let _ = writeln!(std::io::stderr().lock(), "{}: {}", scenario.name, message.0);
            }
            return;
        }
    }
}

/// The ordinary log's filter: everything but the progress reported inside a scenario (which
/// [`ScenarioProgress`] prints).
pub fn outside_scenarios<S>() -> tracing_subscriber::filter::DynFilterFn<S>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    tracing_subscriber::filter::DynFilterFn::new(|metadata, ctx| {
        if metadata.target() != TARGET || !metadata.is_event() {
            return true;
        }
        ctx.lookup_current().is_none_or(|span| !span.scope().any(|s| is_scenario(s.metadata())))
    })
}
