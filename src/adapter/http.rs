//! Plain HTTP to a WebDriver remote end, for what fantoccini does not tell us: its `/status`
//! (is it a Selenium Grid, and which browsers do its nodes offer), whether a session still
//! answers, and whether ending a session worked (fantoccini's `close` reports success either way).
//! The remote ends are plain http on loopback or a LAN, as the session's own client is.

use http_body_util::{BodyExt as _, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// The most of an answer that is read (a Grid's `/status` lists every slot of every node).
const ANSWER_LIMIT: usize = 8 << 20;

/// What can go wrong with one request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(super) enum HttpError {
    /// The URL is not an `http://host:port/...` one.
    #[error("{0}")]
    BadUrl(String),
    /// No connection, or it broke before the whole answer came.
    #[error("{0}")]
    Connect(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The `GET` and `DELETE` navguard sends on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Method {
    Get,
    Delete,
}

/// One request to `<base>/<path>`; returns the status code and the body. No deadline of its
/// own: the caller gives it one.
pub(super) async fn request(base: &str, method: Method, path: &str) -> Result<(u16, Bytes), HttpError> {
    let parsed = url::Url::parse(base).map_err(|e| HttpError::BadUrl(e.to_string()))?;
    if parsed.scheme() != "http" {
        return Err(HttpError::BadUrl(format!("scheme {} (only http is supported)", parsed.scheme())));
    }
    if parsed.host_str().is_none() {
        return Err(HttpError::BadUrl("no host".into()));
    }
    let uri = format!("{}/{}", parsed.as_str().trim_end_matches('/'), path.trim_start_matches('/'));
    let method = match method {
        Method::Get => hyper::Method::GET,
        Method::Delete => hyper::Method::DELETE,
    };
    let request = hyper::Request::builder()
        .method(method)
        .uri(&uri)
        .header(hyper::header::ACCEPT, "application/json")
        .body(Empty::<Bytes>::new())
        .map_err(|e| HttpError::BadUrl(e.to_string()))?;
    let client = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    let answer = client.request(request).await.map_err(|e| HttpError::Connect(Box::new(e)))?;
    let status = answer.status().as_u16();
    let body = Limited::new(answer.into_body(), ANSWER_LIMIT).collect().await.map_err(HttpError::Connect)?.to_bytes();
    Ok((status, body))
}
