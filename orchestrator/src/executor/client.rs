//! The executor's side of the wire: `next` and `report`, each try with a deadline, retried with
//! backoff while the orchestrator is unreachable or failing (a restart), never on an answer that
//! refuses the call (4xx). Retrying is safe by the contract: `next` hands out the same action
//! until it is reported, and a second report of an action changes nothing.

use crate::model::{Action, Observation, TaskStatus};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The deadline of one try.
const CALL_DEADLINE: Duration = Duration::from_secs(10);
/// The first pause before another try; doubled up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// The orchestrator refused a call (it will refuse it again: not retried).
#[derive(Debug, thiserror::Error)]
#[error("the orchestrator answered {status} to {call}: {body}")]
pub struct Refused {
    pub call: &'static str,
    pub status: u16,
    pub body: String,
}

impl Refused {
    /// The orchestrator does not know the task (404).
    pub fn is_no_such_task(&self) -> bool {
        self.status == 404
    }
}

/// `next`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct NextAnswer {
    pub(crate) action: Option<Action>,
    pub(crate) status: Option<TaskStatus>,
}

/// A try that did not get a usable answer.
enum Try {
    /// Unreachable, a deadline, a 5xx, an unreadable answer: worth another try.
    Again(String),
    Refused(Refused),
}

/// The orchestrator, as the executor reaches it.
#[derive(Debug)]
pub(crate) struct Client {
    base: String,
    secret: String,
    agent: ureq::Agent,
    /// Logged once per outage, not once per try.
    down: AtomicBool,
}

impl Client {
    /// `base`: `http://127.0.0.1:<port>`.
    pub(crate) fn new(base: &str, secret: String) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(CALL_DEADLINE))
            .http_status_as_error(false)
            .build()
            .into();
        Self { base: base.trim_end_matches('/').to_owned(), secret, agent, down: AtomicBool::new(false) }
    }

    /// The next action: of `task` when given, else of any task not in `except`.
    pub(crate) async fn next(&self, task: Option<&str>, except: &[String]) -> Result<NextAnswer, Refused> {
        let body = match task {
            Some(task) => json!({ "taskId": task }),
            None => json!({ "exceptTasks": except }),
        };
        let answer = self.call("next", "/api/agent/next", body).await?;
        serde_json::from_value(answer.clone()).map_err(|e| Refused {
            call: "next",
            status: 200,
            body: format!("an answer the contract does not know ({e}): {answer}"),
        })
    }

    /// Reports an action's observation; `true` if the orchestrator had it already.
    pub(crate) async fn report(&self, task: &str, action: &str, observation: &Observation) -> Result<bool, Refused> {
        let body = json!({ "taskId": task, "actionId": action, "observation": observation });
        let answer = self.call("report", "/api/agent/report", body).await?;
        Ok(answer.get("duplicate").and_then(Value::as_bool) == Some(true))
    }

    /// One call, tried until it is answered or refused.
    async fn call(&self, call: &'static str, path: &str, body: Value) -> Result<Value, Refused> {
        let mut backoff = FIRST_BACKOFF;
        loop {
            match self.try_once(call, path, body.to_string()).await {
                Ok(answer) => {
                    if self.down.swap(false, Ordering::Relaxed) {
                        tracing::warn!(target: "navguard::executor", "the orchestrator answers again");
                    }
                    return Ok(answer);
                }
                Err(Try::Refused(refused)) => return Err(refused),
                Err(Try::Again(why)) => {
                    if !self.down.swap(true, Ordering::Relaxed) {
                        tracing::warn!(
                            target: "navguard::executor",
                            "the orchestrator at {} does not answer ({why}); trying again with backoff",
                            self.base
                        );
                    }
                    // Backoff between tries of an unreachable service, not a synchronization.
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    async fn try_once(&self, call: &'static str, path: &str, body: String) -> Result<Value, Try> {
        let url = format!("{}{path}", self.base);
        let (status, text) =
            crate::post::post_json(&self.agent, url, Some(&self.secret), body).await.map_err(Try::Again)?;
        match status {
            200..=299 => serde_json::from_str(&text).map_err(|e| Try::Again(format!("unreadable answer: {e}"))),
            500.. => Err(Try::Again(format!("HTTP {status}"))),
            _ => Err(Try::Refused(Refused { call, status, body: text })),
        }
    }
}
