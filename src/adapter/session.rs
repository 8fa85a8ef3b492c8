//! Opening the WebDriver session (fantoccini) and finding its BiDi websocket.

use super::error::LaunchError;
use super::launch::CHROMIUM_ARGS;
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// The capabilities of a Chromium session with BiDi, a temp profile and the flags that work
/// on a machine with no display and no outside network.
pub fn chromium_capabilities(binary: Option<&Path>, profile: &Path, headless: bool) -> Capabilities {
    let mut args: Vec<String> =
        CHROMIUM_ARGS.iter().filter(|a| headless || !a.starts_with("--headless")).map(|a| (*a).to_owned()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let mut options = json!({ "args": args });
    if let Some(binary) = binary {
        options["binary"] = json!(binary.display().to_string());
    }
    let caps = json!({
        "browserName": "chrome",
        "webSocketUrl": true,
        "goog:chromeOptions": options,
    });
    match caps {
        Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}

/// Opens a session at `webdriver_url` within `deadline`; returns the client and its BiDi URL.
pub async fn open(
    webdriver_url: &str,
    caps: Capabilities,
    deadline: Duration,
) -> Result<(Client, String), LaunchError> {
    let session_error = |detail: String| LaunchError::Session { url: webdriver_url.to_owned(), detail };
    let mut builder = ClientBuilder::new(HttpConnector::new());
    builder.capabilities(caps);
    let client = tokio::time::timeout(deadline, builder.connect(webdriver_url))
        .await
        .map_err(|_| session_error(format!("no answer within {} ms", deadline.as_millis())))?
        .map_err(|e| session_error(e.to_string()))?;
    let ws = client.capabilities().and_then(|c| c.get("webSocketUrl")).and_then(Value::as_str).map(str::to_owned);
    match ws {
        Some(ws) => Ok((client, ws)),
        None => Err(LaunchError::NoBidi(webdriver_url.to_owned())),
    }
}
