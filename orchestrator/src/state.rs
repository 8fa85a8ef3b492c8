//! What the HTTP API's handlers and the console's pages share ([`AppState`]): the service, the
//! bearer secret, the model that plans, and the console's sessions. It sits below both, so the
//! console's pages need nothing of the API's module, which mounts them.

use crate::console::{Console, ConsoleError};
use crate::planner::TaskPlanner;
use crate::service::{Service, ServiceError};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// What an internal error's answer says: the details are the operator's, in the log.
pub(crate) const INTERNAL: &str = "internal error: see the server's log";

/// What the handlers share.
#[derive(Debug)]
pub struct AppState {
    pub service: Service,
    pub secret: String,
    /// The model that plans tasks started without a plan, if one is configured.
    pub planner: Option<Arc<dyn TaskPlanner>>,
    /// Tasks whose next step the model is planning now (one call per task at a time).
    pub planning: Mutex<HashSet<String>>,
    /// The console's token and sessions.
    pub console: Console,
}

impl AppState {
    pub fn new(service: Service, secret: String, planner: Option<Arc<dyn TaskPlanner>>) -> Result<Self, ConsoleError> {
        Ok(Self { service, secret, planner, planning: Mutex::default(), console: Console::new()? })
    }

    /// The tasks being planned. A panic while the set was held cannot leave it half-changed (an
    /// insert or a remove is whole), so a poisoned lock is taken as it is.
    fn planning(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.planning.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Asks the model, in the background, for the next step of each of its tasks that has none:
    /// `next` never waits for a model; the executor's next poll finds the step.
    pub(crate) async fn plan_ahead(
        self: &Arc<Self>,
        task_id: Option<String>,
        except: Vec<String>,
    ) -> Result<(), ServiceError> {
        let Some(planner) = &self.planner else { return Ok(()) };
        for task in self.service.needing_a_step(task_id, except).await? {
            if !self.planning().insert(task.clone()) {
                continue;
            }
            let (state, planner) = (Arc::clone(self), Arc::clone(planner));
            tokio::spawn(async move {
                let planned = match state.service.planning_request(task.clone()).await {
                    Ok(request) => planner.next_step(&request).await.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let recorded = match planned {
                    Ok(step) => state.service.add_step(task.clone(), step).await,
                    Err(why) => {
                        tracing::warn!(target: "navguard::serve", "task {task}: {why}");
                        state.service.fail(task.clone(), why).await
                    }
                };
                if let Err(e) = recorded {
                    tracing::error!(target: "navguard::serve", "task {task}: {e}");
                }
                state.planning().remove(&task);
            });
        }
        Ok(())
    }
}
