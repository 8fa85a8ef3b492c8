//! What is left of a scenario when it ends: the artifacts of a failure kept, its background
//! task stopped, its tabs, its agent under test and its fixture site closed.

use crate::artifacts;
use crate::world::NavWorld;
use std::path::PathBuf;
use std::time::Duration;

/// How long closing a scenario's tabs may take.
const TEARDOWN_DEADLINE: Duration = Duration::from_secs(10);

/// Keeps the artifacts of a failed scenario, then closes its tabs and its site.
pub(super) async fn teardown(world: &mut NavWorld, failed: bool, folder: PathBuf) -> (Duration, Option<PathBuf>) {
    // A task a failed scenario left running in the background must not outlive it.
    if let Some(background) = world.core.running.take() {
        background.stop(TEARDOWN_DEADLINE).await;
    }
    let tab = world.current_tab().ok();
    let Some(env) = world.take_env() else { return (Duration::ZERO, None) };
    let duration = env.started.elapsed();
    let kept = match failed {
        true => artifacts::write(&env, tab, Some(&world.core.task.trace), folder).await.ok(),
        false => None,
    };
    for port in std::mem::take(&mut world.core.conversation.extra_ports) {
        let _ = tokio::time::timeout(TEARDOWN_DEADLINE, env.browser.close_port(&port)).await;
    }
    world.conformance.close().await;
    // What the agent under test was asked and answered, word for word, and the end of what
    // it wrote to stderr (all of it, now that it is closed): where its failure shows.
    if let Some(dir) = &kept {
        if let Some(calls) = world.conformance.transcript() {
            let _ = std::fs::write(dir.join("calls.json"), calls);
        }
        if let Some(stderr) = world.conformance.agent_stderr() {
            let _ = std::fs::write(dir.join("agent-stderr.txt"), stderr);
        }
    }
    let _ = tokio::time::timeout(TEARDOWN_DEADLINE, env.browser.close_port(&env.user_context)).await;
    if env.session.is_none() {
        env.browser.shutdown().await;
    }
    env.site.shutdown().await;
    (duration, kept)
}
