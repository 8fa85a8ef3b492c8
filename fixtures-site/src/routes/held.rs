//! Responses held back: for a time (`/slow`, `/data`), until a gate is released (`/gate`), until
//! the site shuts down (`/never`, the `/events` stream). Every hold ends when the site shuts down.

use super::pages::PlainPage;
use super::{Page, Query_};
use crate::params::Params;
use crate::state::SiteState;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::time::Duration;

/// How often `/events` sends an event.
const TICK: u64 = 1000;

/// Waits `ms`, or less if the site shuts down; `false` in that case.
pub(super) async fn hold(state: &SiteState, ms: u64) -> bool {
    tokio::select! {
        biased;
        // A hold that ran its time is answered with its page, even as the site shuts down.
        () = tokio::time::sleep(Duration::from_millis(ms)) => true,
        () = state.shut_down() => false,
    }
}

pub(super) fn released() -> Response {
    (StatusCode::SERVICE_UNAVAILABLE, "released: the fixture site shut down").into_response()
}

pub(super) async fn slow(State(state): State<SiteState>, Query(q): Query_) -> Page {
    let p = Params(q);
    let delay = p.ms("delay", 1000)?;
    let page = PlainPage::new(&p, "Slow")?;
    if !hold(&state, delay).await {
        return Ok(released());
    }
    Ok(page.into_response())
}

pub(super) async fn never(State(state): State<SiteState>) -> Response {
    state.shut_down().await;
    released()
}

pub(super) async fn gate(State(state): State<SiteState>, Query(q): Query_) -> Page {
    let p = Params(q);
    let name = p.text("name", "gate");
    let page = PlainPage::new(&p, &name)?;
    if !state.pass(&name).await {
        return Ok(released());
    }
    Ok(page.into_response())
}

/// The event stream `/stream` keeps open: a comment at once, then an event every [`TICK`] ms,
/// until the site shuts down.
pub(super) async fn events(State(state): State<SiteState>) -> Response {
    let ticks = futures::stream::unfold((state, 0_u64), |(state, n)| async move {
        let chunk = if n == 0 {
            ": open\n\n".to_owned()
        } else if hold(&state, TICK).await {
            format!("data: tick {n}\n\n")
        } else {
            return None;
        };
        Some((Ok::<_, Infallible>(chunk), (state, n + 1)))
    });
    ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(ticks)).into_response()
}

/// What the fetching pages ask for: `{"delay":MS}`, answered after MS ms; with `trickle=MS2`,
/// its headers and the first bytes come then and the rest MS2 ms later, as an API that flushes
/// its headers before its data is ready (a script's `await fetch(…)` goes on at once, its
/// `await response.json()` only once the body ends).
pub(super) async fn data(State(state): State<SiteState>, Query(q): Query_) -> Page {
    let p = Params(q);
    let delay = p.ms("delay", 0)?;
    let trickle = p.ms("trickle", 0)?;
    if !hold(&state, delay).await {
        return Ok(released());
    }
    let json = [(header::CONTENT_TYPE, "application/json")];
    if trickle == 0 {
        return Ok((json, format!("{{\"delay\":{delay}}}")).into_response());
    }
    let rest = format!("{delay}}}");
    let parts = futures::stream::unfold((state, 0_u8), move |(state, n)| {
        let rest = rest.clone();
        async move {
            let chunk = match n {
                0 => "{\"delay\":".to_owned(),
                1 if hold(&state, trickle).await => rest,
                _ => return None,
            };
            Some((Ok::<_, Infallible>(chunk), (state, n + 1)))
        }
    });
    Ok((json, Body::from_stream(parts)).into_response())
}

#[cfg(test)]
mod tests {
    use crate::routes::app;
    use crate::routes::tests::{get, send, state};
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn a_held_gate_answers_once_released() {
        let (_shutdown, state) = state();
        let mut held = std::pin::pin!(get(&state, "/gate?name=g&title=Through"));
        assert!(futures::poll!(held.as_mut()).is_pending(), "the gate answered before its release");
        state.release("g");
        let (status, body) = held.await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.contains("<title>Through</title>"), "{body}");
    }

    #[tokio::test]
    async fn shutting_down_releases_a_held_gate_as_a_503() {
        let (shutdown, state) = state();
        let mut held = std::pin::pin!(get(&state, "/gate?name=never"));
        assert!(futures::poll!(held.as_mut()).is_pending());
        shutdown.send(true).unwrap();
        assert_eq!(held.await.0, StatusCode::SERVICE_UNAVAILABLE);
    }

    #[tokio::test]
    async fn data_answers_json_after_its_delay_or_503_at_shutdown() {
        let (shutdown, state) = state();
        let (status, content_type, body) = send(&state, Request::get("/data").body(Body::empty()).unwrap()).await;
        assert_eq!(
            (status, content_type.as_str(), body.as_str()),
            (StatusCode::OK, "application/json", "{\"delay\":0}")
        );
        let mut held = std::pin::pin!(get(&state, "/data?delay=600000&i=1"));
        assert!(futures::poll!(held.as_mut()).is_pending(), "a delayed fetch answered at once");
        shutdown.send(true).unwrap();
        assert_eq!(held.await.0, StatusCode::SERVICE_UNAVAILABLE);
    }

    #[tokio::test]
    async fn a_trickled_answer_sends_its_headers_and_first_bytes_then_the_rest_later() {
        use futures::StreamExt as _;
        let (shutdown, state) = state();
        let response =
            app(state.clone()).oneshot(Request::get("/data?delay=0&trickle=600000").body(Body::empty()).unwrap()).await;
        let response = response.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        let mut body = response.into_body().into_data_stream();
        assert_eq!(body.next().await.unwrap().unwrap(), "{\"delay\":");
        let mut rest = std::pin::pin!(body.next());
        assert!(futures::poll!(rest.as_mut()).is_pending(), "the rest of the body came at once");
        shutdown.send(true).unwrap();
        assert!(rest.await.is_none(), "the body went on after shutdown");
    }

    #[tokio::test]
    async fn a_trickled_answer_ends_as_the_same_json() {
        let (_shutdown, state) = state();
        let (status, _, body) =
            send(&state, Request::get("/data?delay=5&trickle=30").body(Body::empty()).unwrap()).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "{\"delay\":5}"));
    }

    #[tokio::test]
    async fn the_event_stream_stays_open_until_shutdown() {
        use futures::StreamExt as _;
        let (shutdown, state) = state();
        let response = app(state.clone()).oneshot(Request::get("/events").body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "text/event-stream");
        let mut stream = response.into_body().into_data_stream();
        assert_eq!(stream.next().await.unwrap().unwrap(), ": open\n\n");
        let mut next = std::pin::pin!(stream.next());
        assert!(futures::poll!(next.as_mut()).is_pending(), "the stream did not wait for its next tick");
        shutdown.send(true).unwrap();
        assert!(next.await.is_none(), "the stream went on after shutdown");
    }
}
