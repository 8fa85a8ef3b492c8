//! One turn: choose the client, prepare the page (reuse the task's tab or open one), offer the
//! tools that fit, run the loop, keep the record.

use super::clients::Clients;
use super::error::TurnError;
use crate::agent::{
    Agent, AgentConfig, Note, Planner, RoundHook, SettleOutcome, StopReason, Task, ToolSet, TraceEvent, UrlSettle,
    is_restricted_url, safe_parse_origin,
};
use crate::browser::{BrowserPort, TabId};
use crate::store::{Field, KnownStatus, TaskStore, TaskUpdate};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What a turn did.
#[derive(Clone, Debug)]
pub struct TurnOutcome {
    /// How the agent loop ended.
    pub stop: StopReason,
    /// The tools offered to the model.
    pub offered: ToolSet,
    /// The task's tab in this turn.
    pub tab: TabId,
    /// The tab was reused rather than opened.
    pub reused: bool,
    /// The browser client used.
    pub client: String,
}

/// Turns on tasks of a store, with a set of browser clients.
pub struct Conversation<'a> {
    pub store: &'a TaskStore,
    pub clients: &'a Clients,
    pub config: AgentConfig,
}

impl std::fmt::Debug for Conversation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conversation").field("config", &self.config).finish_non_exhaustive()
    }
}

struct Prepared {
    tab: TabId,
    reused: bool,
}

impl Conversation<'_> {
    /// Runs one turn of `task_id` for a message that needs `url` (empty: the task's current
    /// URL, else `about:blank`). `task` holds the task's tabs and trace between turns; a fresh
    /// one (after a restart) is rebuilt from the record.
    pub async fn turn(
        &self,
        task_id: &str,
        task: &mut Task,
        url: &str,
        planner: &dyn Planner,
        hook: Option<&dyn RoundHook>,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome, TurnError> {
        let record = self.store.get(task_id)?;
        let (client, port, moved) = self.client_for(task_id, task, record.client_id.as_deref())?;
        // A tab of the old client means nothing to the new one.
        let stored_tab = if moved { None } else { record.tab_id.as_deref() };
        let url = target_url(url, record.current_url.as_deref());
        if url != "about:blank" && is_restricted_url(&url) {
            return Err(TurnError::Restricted(url));
        }
        let known_tab = self.live_task_tab(task_id, task, &*port, stored_tab).await?;
        let prepared = self.prepare_page(task, &*port, known_tab, &url).await?;
        self.store.update(
            task_id,
            &TaskUpdate {
                tab_id: Field::Set(prepared.tab.0.clone()),
                current_url: Field::Set(url.clone()),
                client_id: Field::Set(client.clone()),
                status: Some(KnownStatus::Ongoing.into()),
                ..TaskUpdate::default()
            },
        )?;
        let offered = if prepared.reused { ToolSet::Tab } else { ToolSet::Creation };
        let agent = Agent { hook, tools: offered, ..Agent::new(&*port, planner, self.config.clone()) };
        let stop = agent.run(task, cancel).await;
        self.record_end(task_id, task, &*port, &stop).await?;
        Ok(TurnOutcome { stop, offered, tab: prepared.tab, reused: prepared.reused, client })
    }

    /// The task's client, or another one if it went away (its tabs are then forgotten, and the
    /// flag says so).
    fn client_for(
        &self,
        task_id: &str,
        task: &mut Task,
        used: Option<&str>,
    ) -> Result<(String, Arc<dyn BrowserPort>, bool), TurnError> {
        let (client, port) = self.clients.pick(used).ok_or(TurnError::NoClient)?;
        let gone = used.filter(|u| *u != client);
        if let Some(gone) = gone {
            task.tabs.clear();
            task.trace.record(
                0,
                TraceEvent::Note { note: Note::ClientGone { gone: gone.to_owned(), using: client.to_string() } },
            );
            self.store.update(
                task_id,
                &TaskUpdate { tab_id: Field::Clear, client_id: Field::Set(client.clone()), ..TaskUpdate::default() },
            )?;
        }
        Ok((client, port, gone.is_some()))
    }

    /// The task's tab if it is still open; a closed one is cleared from the record and noted.
    async fn live_task_tab(
        &self,
        task_id: &str,
        task: &mut Task,
        port: &dyn BrowserPort,
        stored: Option<&str>,
    ) -> Result<Option<TabId>, TurnError> {
        let Some(tab) = task.tabs.primary().cloned().or_else(|| stored.map(|s| TabId(s.to_owned()))) else {
            return Ok(None);
        };
        match port.tab(&tab).await {
            Ok(_) => Ok(Some(tab)),
            Err(e) if e.is_tab_gone() => {
                task.tabs.forget(&tab);
                task.trace.record(0, TraceEvent::Note { note: Note::TabClosed { tab: tab.clone() } });
                self.store.update(task_id, &TaskUpdate { tab_id: Field::Clear, ..TaskUpdate::default() })?;
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Navigates the task's tab, or opens one, and waits until it settles on the URL's origin.
    async fn prepare_page(
        &self,
        task: &mut Task,
        port: &dyn BrowserPort,
        tab: Option<TabId>,
        url: &str,
    ) -> Result<Prepared, TurnError> {
        let reused = tab.is_some();
        let tab = match tab {
            Some(tab) => {
                port.navigate(&tab, url).await?;
                tab
            }
            None => port.create_tab(url, true).await?,
        };
        let settled_url = self.settle(port, &tab, url).await?;
        let origin = safe_parse_origin(&settled_url).or_else(|| safe_parse_origin(url));
        match origin {
            Some(origin) => task.tabs.adopt_primary(tab.clone(), origin),
            None => task.tabs.focus(tab.clone()),
        }
        task.trace.record(0, TraceEvent::PagePrepared { tab: tab.to_string(), url: settled_url, reused });
        Ok(Prepared { tab, reused })
    }

    async fn settle(&self, port: &dyn BrowserPort, tab: &TabId, url: &str) -> Result<String, TurnError> {
        let Some(origin) = safe_parse_origin(url) else { return Ok(url.to_owned()) };
        let settle = UrlSettle::new(tab.clone(), origin).timeout(self.config.settle_timeout);
        match settle.wait(port, &CancellationToken::new()).await?.outcome {
            SettleOutcome::Committed { url } => Ok(url),
            outcome => Err(TurnError::PageNotReady { url: url.to_owned(), outcome }),
        }
    }

    /// Keeps where the task ended up.
    async fn record_end(
        &self,
        task_id: &str,
        task: &Task,
        port: &dyn BrowserPort,
        stop: &StopReason,
    ) -> Result<(), TurnError> {
        let status = if stop.is_success() { KnownStatus::Done } else { KnownStatus::Stopped };
        let mut update = TaskUpdate { status: Some(status.into()), ..TaskUpdate::default() };
        if let Some(tab) = task.tabs.focused()
            && let Ok(info) = port.tab(tab).await
        {
            update.current_url = Field::Set(info.url);
        }
        self.store.update(task_id, &update)?;
        Ok(())
    }
}

/// The URL a turn needs: the message's, else the task's current one, else `about:blank`.
fn target_url(url: &str, current: Option<&str>) -> String {
    match (url.trim(), current) {
        ("", Some(current)) if !current.trim().is_empty() => current.to_owned(),
        ("", _) => "about:blank".to_owned(),
        (url, _) => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_url_takes_the_current_one_else_about_blank() {
        assert_eq!(target_url("", Some("https://a.test/")), "https://a.test/");
        assert_eq!(target_url("  ", None), "about:blank");
        assert_eq!(target_url("https://b.test/", Some("https://a.test/")), "https://b.test/");
    }
}

#[cfg(test)]
mod turn_tests {
    use super::*;
    use crate::agent::{ScriptedPlanner, ToolName};
    use crate::browser::SimPort;
    use serde_json::json;
    use std::time::Duration;

    fn setup() -> (TaskStore, Clients, SimPort, ScriptedPlanner) {
        let store = TaskStore::in_memory().unwrap();
        store.create("t", "A task").unwrap();
        let sim = SimPort::committing_after(Duration::from_millis(300));
        let clients = Clients::default();
        clients.register("A", Arc::new(sim.clone()));
        let mut plan = ScriptedPlanner::new();
        plan.add(1, "done", json!({}));
        (store, clients, sim, plan)
    }

    async fn turn(
        store: &TaskStore,
        clients: &Clients,
        task: &mut Task,
        url: &str,
        plan: &ScriptedPlanner,
    ) -> Result<TurnOutcome, TurnError> {
        let conversation = Conversation { store, clients, config: AgentConfig::default() };
        conversation.turn("t", task, url, plan, None, &CancellationToken::new()).await
    }

    #[tokio::test(start_paused = true)]
    async fn later_turns_reuse_the_first_tab_and_are_never_offered_open_url() {
        let (store, clients, _sim, plan) = setup();
        let mut task = Task::default();
        let first = turn(&store, &clients, &mut task, "https://a.test/1", &plan).await.unwrap();
        let second = turn(&store, &clients, &mut task, "https://b.test/2", &plan).await.unwrap();
        assert_eq!(first.tab, second.tab);
        assert!(!first.reused && second.reused);
        assert!(first.offered.offers(ToolName::OpenUrl) && !second.offered.offers(ToolName::OpenUrl));
        assert_eq!(store.get("t").unwrap().current_url.as_deref(), Some("https://b.test/2"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_tab_is_cleared_and_replaced() {
        let (store, clients, sim, plan) = setup();
        let mut task = Task::default();
        let first = turn(&store, &clients, &mut task, "https://a.test/1", &plan).await.unwrap();
        sim.close_tab(&first.tab);
        let second = turn(&store, &clients, &mut task, "https://a.test/2", &plan).await.unwrap();
        assert_ne!(first.tab, second.tab);
        assert!(!second.reused);
        assert_eq!(store.get("t").unwrap().tab_id, Some(second.tab.0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_gone_client_is_replaced_or_named() {
        let (store, clients, _sim, plan) = setup();
        let mut task = Task::default();
        turn(&store, &clients, &mut task, "https://a.test/1", &plan).await.unwrap();
        clients.register("B", Arc::new(SimPort::committing_after(Duration::from_millis(300))));
        clients.unregister("A");
        let moved = turn(&store, &clients, &mut task, "https://a.test/2", &plan).await.unwrap();
        assert_eq!((moved.client.as_str(), moved.reused), ("B", false));
        clients.unregister("B");
        let err = turn(&store, &clients, &mut task, "https://a.test/3", &plan).await.unwrap_err();
        assert_eq!(err.to_string(), "no browser client available");
    }

    #[tokio::test(start_paused = true)]
    async fn an_unknown_task_is_no_such_task_and_nothing_is_created() {
        let (store, clients, sim, plan) = setup();
        let conversation = Conversation { store: &store, clients: &clients, config: AgentConfig::default() };
        let err = conversation
            .turn("ghost", &mut Task::default(), "https://a.test/", &plan, None, &CancellationToken::new())
            .await
            .unwrap_err();
        assert!(err.is_no_such_task(), "{err}");
        assert_eq!(sim.tabs_created(), 0);
    }
}
