//! A remote WebDriver end checked before a session is asked of it: reachable, and, for a
//! Selenium Grid, with a node that offers the browser. A Grid queues a request no node can serve
//! for up to its own timeout (300 s by default), so asking blindly would look like a hang.

use super::error::{LaunchError, RemoteProblem};
use super::http::{HttpError, Method, request};
use serde_json::Value;
use std::time::Duration;

/// What `GET /status` says about the remote end.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum RemoteKind {
    /// A Selenium Grid (its status lists nodes): the browser names its live nodes' slots offer.
    Grid { offers: Vec<String> },
    /// One node of a Selenium Grid: it takes sessions only from its hub.
    GridNode,
    /// A plain driver (chromedriver, geckodriver) or anything else that answers as one.
    Driver,
}

/// Checks `url` within `deadline`: it answers `/status`, and if it is a Grid, one of its nodes
/// offers `browser_name` (the capability's name: `chrome`, `firefox`).
pub(super) async fn check(url: &str, browser_name: &str, deadline: Duration) -> Result<RemoteKind, LaunchError> {
    let fail = |problem| LaunchError::Remote { url: url.to_owned(), problem };
    let body = tokio::time::timeout(deadline, get_status(url))
        .await
        .map_err(|_| fail(RemoteProblem::NoAnswer(deadline)))?
        .map_err(fail)?;
    match kind_of(&body) {
        RemoteKind::Grid { offers } if !offers.iter().any(|o| o == browser_name) => {
            Err(fail(RemoteProblem::NoNode { browser: browser_name.to_owned(), offers }))
        }
        RemoteKind::GridNode => Err(fail(RemoteProblem::GridNode)),
        kind => Ok(kind),
    }
}

/// Reads a `/status` answer.
pub(super) fn kind_of(status: &Value) -> RemoteKind {
    if status.pointer("/value/node/slots").is_some() {
        return RemoteKind::GridNode;
    }
    let Some(nodes) = status.pointer("/value/nodes").and_then(Value::as_array) else { return RemoteKind::Driver };
    let mut offers: Vec<String> = nodes
        .iter()
        // Another program writes the availability (UP, DOWN, DRAINING): only UP takes sessions.
        .filter(|n| n.get("availability").and_then(Value::as_str).is_none_or(|a| a == "UP"))
        .filter_map(|n| n.get("slots").and_then(Value::as_array))
        .flatten()
        .filter_map(|s| s.pointer("/stereotype/browserName").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    offers.sort();
    offers.dedup();
    RemoteKind::Grid { offers }
}

/// `GET <url>/status`.
async fn get_status(url: &str) -> Result<Value, RemoteProblem> {
    let (status, body) = request(url, Method::Get, "status").await.map_err(|e| match e {
        HttpError::BadUrl(why) => RemoteProblem::BadUrl(why),
        HttpError::Connect(e) => RemoteProblem::Connect(e),
    })?;
    if status != 200 {
        return Err(RemoteProblem::NotWebDriver(format!("its /status answered HTTP {status}")));
    }
    serde_json::from_slice(&body).map_err(|e| RemoteProblem::NotWebDriver(format!("its /status is not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    #[test]
    fn a_grid_status_names_what_its_live_nodes_offer_and_a_driver_status_has_no_nodes() {
        let grid = json!({"value": {"ready": true, "nodes": [
            {"availability": "UP", "slots": [
                {"stereotype": {"browserName": "firefox"}}, {"stereotype": {"browserName": "chrome"}}]},
            {"availability": "DOWN", "slots": [{"stereotype": {"browserName": "safari"}}]},
            {"availability": "DRAINING", "slots": [{"stereotype": {"browserName": "edge"}}]},
            {"availability": "UP", "slots": [{"stereotype": {"browserName": "firefox"}}]}]}});
        assert_eq!(kind_of(&grid), RemoteKind::Grid { offers: vec!["chrome".into(), "firefox".into()] });
        assert_eq!(kind_of(&json!({"value": {"ready": true, "nodes": []}})), RemoteKind::Grid { offers: vec![] });
        assert_eq!(kind_of(&json!({"value": {"ready": true, "message": "ChromeDriver ready"}})), RemoteKind::Driver);
        assert_eq!(kind_of(&json!("odd")), RemoteKind::Driver);
        let node = json!({"value": {"ready": true, "node": {"availability": "UP", "slots": []}}});
        assert_eq!(kind_of(&node), RemoteKind::GridNode);
    }

    #[tokio::test]
    async fn a_closed_port_is_named_at_once() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        let err = check(&url, "chrome", Duration::from_secs(5)).await.unwrap_err();
        assert!(matches!(err, LaunchError::Remote { problem: RemoteProblem::Connect(_), .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(&format!("cannot reach the WebDriver remote end at {url} (")), "{text}");
        assert!(text.contains("refused"), "the cause, not hyper's outer words: {text}");
    }

    /// A server that answers one connection with `answer` (or holds it open when `None`).
    async fn serve_once(answer: Option<&'static str>) -> (String, tokio::task::JoinHandle<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 1024];
            let _ = socket.read(&mut request).await;
            match answer {
                Some(answer) => socket.write_all(answer.as_bytes()).await.unwrap(),
                None => std::future::pending::<()>().await,
            }
        });
        (url, task)
    }

    #[tokio::test]
    async fn a_grid_without_the_browser_a_silent_end_and_a_web_page_are_each_their_own_problem() {
        let grid = "HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n\
                    {\"value\":{\"ready\":false,\"nodes\":[{\"availability\":\"UP\",\"slots\":[{\"stereotype\":{\"browserName\":\"firefox\"}}]}]}}";
        let (url, _server) = serve_once(Some(grid)).await;
        let err = check(&url, "chrome", Duration::from_secs(5)).await.unwrap_err();
        assert!(
            matches!(&err, LaunchError::Remote { problem: RemoteProblem::NoNode { offers, .. }, .. } if offers == &["firefox"])
        );
        let text = err.to_string();
        assert!(text.contains(&format!("the Selenium Grid at {url} has no node offering chrome")), "{text}");
        let (url, _server) = serve_once(Some(grid)).await;
        assert_eq!(
            check(&url, "firefox", Duration::from_secs(5)).await.unwrap(),
            RemoteKind::Grid { offers: vec!["firefox".into()] }
        );

        let (url, _server) = serve_once(None).await;
        let err = check(&url, "chrome", Duration::from_millis(300)).await.unwrap_err();
        assert!(matches!(err, LaunchError::Remote { problem: RemoteProblem::NoAnswer(_), .. }), "{err:?}");

        let (url, _server) = serve_once(Some("HTTP/1.0 404 Not Found\r\n\r\nno")).await;
        let err = check(&url, "chrome", Duration::from_secs(5)).await.unwrap_err();
        assert!(matches!(err, LaunchError::Remote { problem: RemoteProblem::NotWebDriver(_), .. }), "{err:?}");
        assert!(err.to_string().contains("answered HTTP 404"), "{err}");
    }
}
