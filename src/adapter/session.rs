//! The WebDriver session: opened by fantoccini (which finds its BiDi websocket), asked whether it
//! still answers, and ended with a deadline, checking that the remote end did end it.

use super::error::{LaunchError, NoBidi};
use super::http::{HttpError, Method, request};
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::Value;
use std::time::Duration;

/// An open WebDriver session.
#[derive(Debug)]
pub(super) struct WebDriverSession {
    /// Kept for its lifetime: marked persistent once the session is ended by hand, so dropping
    /// it sends nothing; until then, dropping it ends the session in the background.
    client: Client,
    /// The remote end's base URL.
    pub(super) url: String,
    pub(super) id: String,
}

/// Why a session was not ended.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(super) enum EndError {
    #[error("no answer within {} ms", .0.as_millis())]
    NoAnswer(Duration),
    #[error("{0}")]
    Http(#[source] HttpError),
    #[error("the remote end answered HTTP {status}: {message}")]
    Refused { status: u16, message: String },
}

/// What a new session's answer says of where to reach its browser.
#[derive(Debug)]
pub(super) struct Endpoints {
    /// The BiDi websocket.
    pub(super) bidi: String,
    /// Chromium's DevTools endpoint (`goog:chromeOptions.debuggerAddress`), for agents that
    /// attach to a running browser over CDP.
    pub(super) cdp: Option<String>,
}

/// Opens a session at `webdriver_url` within `deadline`; returns it and its endpoints. A
/// session that came without BiDi is ended (within `deadline`) before the error is returned.
pub(super) async fn open(
    webdriver_url: &str,
    caps: Capabilities,
    deadline: Duration,
) -> Result<(WebDriverSession, Endpoints), LaunchError> {
    let mut builder = ClientBuilder::new(HttpConnector::new());
    builder.capabilities(caps);
    let client = tokio::time::timeout(deadline, builder.connect(webdriver_url))
        .await
        .map_err(|_| LaunchError::SessionTimeout { url: webdriver_url.to_owned(), after: deadline })?
        .map_err(|e| LaunchError::Session { url: webdriver_url.to_owned(), source: Box::new(e) })?;
    let caps = client.capabilities();
    let ws = caps.and_then(|c| c.get("webSocketUrl")).and_then(Value::as_str).map(str::to_owned);
    let cdp = caps
        .and_then(|c| c.get("goog:chromeOptions"))
        .and_then(|o| o.get("debuggerAddress"))
        .and_then(Value::as_str)
        // chromedriver says `localhost:PORT`; the loopback address, so nothing resolves a name.
        .map(|address| format!("http://{}", address.replace("localhost", "127.0.0.1")));
    let why = match caps.and_then(|c| c.get("se:bidiEnabled")) {
        Some(Value::Bool(false)) => NoBidi::GridBidiOff,
        _ => NoBidi::NotOffered,
    };
    // Local housekeeping in fantoccini's session task: no request goes out.
    let id = client.session_id().await.ok().flatten().unwrap_or_default();
    let session = WebDriverSession { client, url: webdriver_url.to_owned(), id };
    match ws {
        Some(bidi) => Ok((session, Endpoints { bidi, cdp })),
        None => {
            if let Err(e) = session.end(deadline).await {
                tracing::warn!(url = webdriver_url, error = %e, "the WebDriver session without BiDi was not ended");
            }
            Err(LaunchError::NoBidi { url: webdriver_url.to_owned(), why })
        }
    }
}

/// A WebDriver error answer's `value.message`, on one line (or the start of a body that is not
/// one).
fn error_message(body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let text = match parsed.as_ref().and_then(|v| v.pointer("/value/message")).and_then(Value::as_str) {
        Some(message) => message.to_owned(),
        None => String::from_utf8_lossy(body).into_owned(),
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(300).collect()
}

impl WebDriverSession {
    /// Ends the session (`DELETE /session/<id>`) within `deadline`, and says whether the remote
    /// end did. A session the remote end no longer knows (404) counts as ended.
    pub(super) async fn end(self, deadline: Duration) -> Result<(), EndError> {
        // From here on, dropping the client sends nothing: the DELETE below is the only one.
        let _ = self.client.persist().await;
        let path = format!("session/{}", self.id);
        let (status, body) = tokio::time::timeout(deadline, request(&self.url, Method::Delete, &path))
            .await
            .map_err(|_| EndError::NoAnswer(deadline))?
            .map_err(EndError::Http)?;
        match status {
            200 | 404 => Ok(()),
            status => Err(EndError::Refused { status, message: error_message(&body) }),
        }
    }

    /// The session's own URL: the remote end's, then `session/<id>`.
    pub(super) fn url_of_session(&self) -> String {
        format!("{}/session/{}", self.url.trim_end_matches('/'), self.id)
    }

    /// The URL and id, to ask after the session without holding it.
    pub(super) fn probe(&self) -> SessionProbe {
        SessionProbe { url: self.url.clone(), id: self.id.clone() }
    }
}

/// Asks a session over plain WebDriver whether it still answers.
#[derive(Clone, Debug)]
pub(super) struct SessionProbe {
    url: String,
    id: String,
}

impl SessionProbe {
    /// `GET /session/<id>/timeouts` (answered by the driver without touching the page) within
    /// `deadline`: true when it answered 200. A Selenium Grid whose node is gone answers with an
    /// error at once.
    pub(super) async fn answers(&self, deadline: Duration) -> bool {
        let path = format!("session/{}/timeouts", self.id);
        matches!(tokio::time::timeout(deadline, request(&self.url, Method::Get, &path)).await, Ok(Ok((200, _))))
    }
}
