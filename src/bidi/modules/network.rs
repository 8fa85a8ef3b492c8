//! The `network` module's events: what a page fetches, for the wait for network idle.
//! <https://w3c.github.io/webdriver-bidi/#module-network-events>

use super::browsing_context::ContextId;
use serde::Deserialize;
use serde_json::Value;

/// A request id (`network.Request`); the same across the redirects of one request.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(transparent)]
pub struct Request(pub String);

/// A header value (`network.BytesValue`): navguard reads string values only.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct BytesValue {
    #[serde(rename = "type")]
    pub kind: String,
    pub value: String,
}

#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct Header {
    pub name: String,
    pub value: BytesValue,
}

/// `network.RequestData`, the fields navguard reads.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct RequestData {
    pub request: Request,
    pub url: String,
    #[serde(default)]
    pub headers: Vec<Header>,
}

/// `network.ResponseData`, the fields navguard reads.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct ResponseData {
    #[serde(default, rename = "mimeType")]
    pub mime_type: String,
    #[serde(default)]
    pub headers: Vec<Header>,
}

/// The params every network event shares (`network.BaseParameters`), with the response where
/// the event has one.
#[derive(Clone, Debug, Deserialize)]
#[non_exhaustive]
pub struct RequestEventParams {
    /// The context that made the request (`null` for a worker's).
    #[serde(default)]
    pub context: Option<ContextId>,
    pub request: RequestData,
    #[serde(default)]
    pub response: Option<ResponseData>,
    /// The navigation the request loads the document of (`null` for a page's own fetches).
    #[serde(default)]
    pub navigation: Option<super::browsing_context::Navigation>,
}

/// What marks an event stream: its `Accept` request header or its response's content type.
const EVENT_STREAM: &str = "text/event-stream";

impl RequestEventParams {
    /// The request is a long-lived stream: an event stream (by its request's `Accept` or its
    /// response's type) or a WebSocket (by its URL's scheme).
    pub fn is_stream(&self) -> bool {
        let accepts = self.request.headers.iter().any(|h| is_event_stream_header(h, "accept"));
        let answers = self.response.as_ref().is_some_and(|r| {
            r.mime_type.starts_with(EVENT_STREAM) || r.headers.iter().any(|h| is_event_stream_header(h, "content-type"))
        });
        let url = self.request.url.to_ascii_lowercase();
        accepts || answers || url.starts_with("ws:") || url.starts_with("wss:")
    }
}

fn is_event_stream_header(header: &Header, name: &str) -> bool {
    header.name.eq_ignore_ascii_case(name) && header.value.value.to_ascii_lowercase().contains(EVENT_STREAM)
}

crate::closed_set! {
    /// The `network` events navguard subscribes to, by wire method.
    pub enum EventMethod("network event") {
        BeforeRequestSent = "network.beforeRequestSent",
        ResponseStarted = "network.responseStarted",
        ResponseCompleted = "network.responseCompleted",
        FetchError = "network.fetchError",
    }
}

/// A `network` event of [`EventMethod`], with its params.
#[derive(Clone, Debug)]
pub struct Event {
    pub method: EventMethod,
    pub params: RequestEventParams,
}

impl Event {
    /// Parses an event; `Ok(None)` for a method this module does not model.
    pub fn parse(method: &str, params: Value) -> Result<Option<Self>, serde_json::Error> {
        let Ok(method) = method.parse::<EventMethod>() else { return Ok(None) };
        Ok(Some(Self { method, params: serde_json::from_value(params)? }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(request_headers: Value, response: Value) -> RequestEventParams {
        serde_json::from_value(json!({
            "context": "c1",
            "request": {"request": "r1", "url": "http://127.0.0.1:1/events", "headers": request_headers},
            "response": response,
        }))
        .unwrap()
    }

    #[test]
    fn an_event_stream_is_known_by_its_accept_header_or_its_response_type() {
        let accept = json!([{"name": "Accept", "value": {"type": "string", "value": "text/event-stream"}}]);
        assert!(params(accept, Value::Null).is_stream());
        assert!(params(json!([]), json!({"mimeType": "text/event-stream"})).is_stream());
        assert!(!params(json!([]), json!({"mimeType": "application/json"})).is_stream());
    }

    #[test]
    fn parses_a_before_request_sent_and_ignores_other_methods() {
        let event = Event::parse(
            "network.beforeRequestSent",
            json!({"context": null, "redirectCount": 0, "request": {"request": "7", "url": "ws://127.0.0.1:1/"}}),
        )
        .unwrap()
        .unwrap();
        assert_eq!(event.method, EventMethod::BeforeRequestSent);
        assert!(event.params.context.is_none() && event.params.is_stream());
        assert!(Event::parse("network.authRequired", json!({})).unwrap().is_none());
    }
}
