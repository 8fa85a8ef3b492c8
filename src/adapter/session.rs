//! Opening the WebDriver session (fantoccini) and finding its BiDi websocket.

use super::error::LaunchError;
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::Value;
use std::time::Duration;

/// Opens a session at `webdriver_url` within `deadline`; returns the client and its BiDi URL.
pub(super) async fn open(
    webdriver_url: &str,
    caps: Capabilities,
    deadline: Duration,
) -> Result<(Client, String), LaunchError> {
    let mut builder = ClientBuilder::new(HttpConnector::new());
    builder.capabilities(caps);
    let client = tokio::time::timeout(deadline, builder.connect(webdriver_url))
        .await
        .map_err(|_| LaunchError::SessionTimeout { url: webdriver_url.to_owned(), after: deadline })?
        .map_err(|e| LaunchError::Session { url: webdriver_url.to_owned(), source: Box::new(e) })?;
    let ws = client.capabilities().and_then(|c| c.get("webSocketUrl")).and_then(Value::as_str).map(str::to_owned);
    match ws {
        Some(ws) => Ok((client, ws)),
        None => Err(LaunchError::NoBidi(webdriver_url.to_owned())),
    }
}
