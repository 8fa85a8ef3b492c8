//! The step definitions, one module per domain of the step language (docs/gherkin-language.md).
//! Each module defines phrases on [`crate::world::NavWorld`] and shares nothing with the others
//! except through the world: no step module imports another, and nothing outside this folder
//! imports one. Cucumber collects the steps from the World type; these `mod` lines only make
//! sure they are compiled into the crate.
//!
//! "Agent" names two things here: the agent core (navguard's own agent, run in process with a
//! scripted model: `agent_core`, `closed_loop`, `reliability`, `conversation`) and the agent
//! under test (navguard's core or another agent, driven through the neutral tools:
//! `conformance`).

/// The agent core in process: its settings, the scripted model's plan, the run, the settle
/// helper and the trace (rounds, guards, tool calls, observations).
mod agent_core;
/// Tabs, navigations and their events, straight on the browser port; questions to the page.
mod browser;
/// The agent core's closed loop: verification, refused `done`, no-progress, what the model saw,
/// repairs.
mod closed_loop;
/// The agent-neutral conformance profile: calls to the agent under test and their answers.
mod conformance;
/// The orchestrator's console in the browser: a task that waits for the user, the console,
/// the person's answer.
mod console;
/// Conversation turns on a stored task: tab reuse, the tools offered, the record, the clients.
mod conversation;
/// The agent core's reliability layer: the watchdog, retries, a background run that pauses,
/// resumes and restarts from its checkpoint, segments.
mod reliability;
/// The fixture site: gates released, requests served.
mod site;
/// What a person does to the browser: tab actions, clicks, typing, keys.
mod user;
