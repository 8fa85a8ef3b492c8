//! The executor's side of the wire: `next` and `report`, each try with a deadline, retried with
//! backoff while the orchestrator is unreachable or failing (a restart), never on an answer that
//! refuses the call (4xx). Retrying is safe by the contract: `next` hands out the same action
//! until it is reported, and a second report of an action changes nothing. Its bodies are
//! [`crate::wire`]'s, the service's own.

use crate::audit::ClientKind;
use crate::model::Observation;
use crate::wire::{self, NextAnswer, NextRequest, PermissionsAnswer, ReportAnswer, ReportRequest};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
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

/// Why a call gave no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    #[error(transparent)]
    Refused(#[from] Refused),
    /// Its request could not be written as JSON (a bug: [`crate::wire`]'s bodies always can be);
    /// it was not sent.
    #[error("the executor could not write its {call} request: {source}")]
    Unwritable {
        call: &'static str,
        #[source]
        source: serde_json::Error,
    },
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
    /// Who it is, on every request: the orchestrator's audit names it.
    identity: Vec<(&'static str, String)>,
}

impl Client {
    /// `base`: `http://127.0.0.1:<port>`; `browser`, the browser the executor drives.
    pub(crate) fn new(base: &str, secret: String, browser: &str) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(CALL_DEADLINE))
            .http_status_as_error(false)
            .build()
            .into();
        let identity = vec![
            (crate::http::CLIENT_HEADER, ClientKind::Executor.name().to_owned()),
            (crate::http::CLIENT_ID_HEADER, format!("executor-{}", std::process::id())),
            (crate::http::BROWSER_HEADER, browser.to_owned()),
            ("user-agent", format!("navguard-executor/{}", env!("CARGO_PKG_VERSION"))),
        ];
        Self { base: base.trim_end_matches('/').to_owned(), secret, agent, down: AtomicBool::new(false), identity }
    }

    /// The next action: of `task` when given, else of any task not in `except`.
    pub(crate) async fn next(&self, task: Option<&str>, except: &[String]) -> Result<NextAnswer, CallError> {
        let request = match task {
            Some(task) => NextRequest::of_task(task),
            None => NextRequest::passing_over(except),
        };
        let answer = self.call("next", "/api/agent/next", &request).await?;
        let read = serde_json::from_value(answer.clone()).map_err(|e| Refused {
            call: "next",
            status: 200,
            body: format!("an answer the contract does not know ({e}): {answer}"),
        })?;
        Ok(read)
    }

    /// Reports an action's observation; `true` if the orchestrator had it already.
    pub(crate) async fn report(&self, task: &str, action: &str, observation: &Observation) -> Result<bool, CallError> {
        let request =
            ReportRequest { task_id: task.into(), action_id: action.into(), observation: Cow::Borrowed(observation) };
        let answer = self.call("report", "/api/agent/report", &request).await?;
        // The report was taken (2xx): an answer this version cannot read does not undo that.
        match serde_json::from_value::<ReportAnswer>(answer) {
            Ok(answer) => Ok(answer.duplicate),
            Err(e) => {
                tracing::warn!(target: "navguard::executor", "report's answer is not the contract's ({e}); taken as new");
                Ok(false)
            }
        }
    }

    /// Whether the user granted `origin` (`GET /api/agent/permissions`): the executor's last
    /// check before it acts on a page that moved to another origin than its action's grant.
    pub(crate) async fn granted(&self, origin: &str) -> Result<bool, CallError> {
        let answer = self.call_with("permissions", "/api/agent/permissions", None).await?;
        let read: PermissionsAnswer = serde_json::from_value(answer.clone()).map_err(|e| Refused {
            call: "permissions",
            status: 200,
            body: format!("an answer the contract does not know ({e}): {answer}"),
        })?;
        Ok(read.origins.iter().any(|g| g.origin == origin && g.granted))
    }

    /// One POST call, tried until it is answered or refused.
    async fn call(&self, call: &'static str, path: &str, request: &impl Serialize) -> Result<Value, CallError> {
        let body = wire::encode(request).map_err(|source| CallError::Unwritable { call, source })?.to_string();
        self.call_with(call, path, Some(body)).await
    }

    /// One call (a POST of `body`, or a GET), tried until it is answered or refused.
    async fn call_with(&self, call: &'static str, path: &str, body: Option<String>) -> Result<Value, CallError> {
        let mut backoff = FIRST_BACKOFF;
        loop {
            match self.try_once(call, path, body.clone()).await {
                Ok(answer) => {
                    if self.down.swap(false, Ordering::Relaxed) {
                        tracing::warn!(target: "navguard::executor", "the orchestrator answers again");
                    }
                    return Ok(answer);
                }
                Err(Try::Refused(refused)) => return Err(refused.into()),
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

    async fn try_once(&self, call: &'static str, path: &str, body: Option<String>) -> Result<Value, Try> {
        let url = format!("{}{path}", self.base);
        let (secret, identity) = (Some(self.secret.as_str()), &self.identity);
        let sent = match body {
            Some(body) => crate::post::post_json(&self.agent, url, secret, identity, body).await,
            None => crate::post::get_json(&self.agent, url, secret, identity).await,
        };
        let (status, text) = sent.map_err(Try::Again)?;
        match status {
            200..=299 => serde_json::from_str(&text).map_err(|e| Try::Again(format!("unreadable answer: {e}"))),
            500.. => Err(Try::Again(format!("HTTP {status}"))),
            _ => Err(Try::Refused(Refused { call, status, body: text })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{AppState, app};
    use crate::model::{PlanStep, TaskStatus, ToolName};
    use crate::service::{Service, ServiceOptions};
    use std::sync::Arc;

    const SECRET: &str = "a-secret-of-32-characters-length";

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_executor_reads_the_service_s_answers_and_a_refusal_keeps_its_status() {
        let dir = tempfile::tempdir().unwrap();
        let service = Service::open(dir.path(), ServiceOptions::default()).unwrap();
        let step = PlanStep { round: 1, tool: ToolName::Wait, args: serde_json::Map::new() };
        let (task, _) = service.start("g".into(), Some("http://127.0.0.1:1/".into()), vec![step]).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/", listener.local_addr().unwrap());
        let app = app(Arc::new(AppState::new(service, SECRET.into(), None).unwrap()));
        tokio::spawn(async move { axum::serve(listener, app).await });
        let client = Client::new(&base, SECRET.into(), "chromium");

        let passed_over = client.next(None, std::slice::from_ref(&task)).await.unwrap();
        assert_eq!((passed_over.action, passed_over.status), (None, None));
        let answer = client.next(None, &[]).await.unwrap();
        let action = answer.action.unwrap();
        assert_eq!((action.task_id.as_str(), action.kind), (task.as_str(), ToolName::Wait));
        assert_eq!(
            (action.task_url.as_deref(), answer.status),
            (Some("http://127.0.0.1:1/"), Some(TaskStatus::Running))
        );
        assert_eq!(client.next(Some(&task), &[]).await.unwrap().action, Some(action.clone()), "handed out again");
        assert!(!client.report(&task, &action.action_id, &Observation::default()).await.unwrap());
        assert!(client.report(&task, &action.action_id, &Observation::default()).await.unwrap(), "a duplicate");
        let ended = client.next(Some(&task), &[]).await.unwrap();
        assert_eq!((ended.action, ended.status), (None, Some(TaskStatus::Failed)));

        let Err(CallError::Refused(refused)) = client.next(Some("nope"), &[]).await else { panic!("not refused") };
        assert!(refused.is_no_such_task(), "{refused}");
        let Err(CallError::Refused(refused)) = client.report(&task, "never", &Observation::default()).await else {
            panic!("not refused")
        };
        assert_eq!((refused.call, refused.status), ("report", 409), "{refused}");
    }
}
