//! Navigation the server or the page starts (HTTP, meta and script redirects) and the ways a
//! response fails (a status, a dropped connection).

use super::held::{hold, released};
use super::{Page, Query_};
use crate::params::{BadParam, Params};
use crate::state::SiteState;
use crate::template::{self, html, js_string, render};
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

/// Marks a response whose connection must be dropped unanswered (`/reset`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ResetConnection;

pub(super) async fn redirect(State(state): State<SiteState>, Query(q): Query_) -> Page {
    let p = Params(q);
    let to = p.url("to", None)?;
    let code = p.status("status", 302, &[301, 302, 303, 307, 308])?;
    let delay = p.ms("delay", 0)?;
    if !hold(&state, delay).await {
        return Ok(released());
    }
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::FOUND);
    see_other(status, &to, "to")
}

/// A redirect to `to`, which parameter `name` gave.
pub(super) fn see_other(status: StatusCode, to: &str, name: &'static str) -> Page {
    let location = HeaderValue::from_str(to).map_err(|_| BadParam {
        name,
        expected: "a URL that fits in a header",
        got: to.to_owned(),
    })?;
    Ok((status, [(header::LOCATION, location)]).into_response())
}

pub(super) async fn meta_refresh(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [
        ("title", html(&p.text("title", "Meta refresh"))),
        ("to", html(&p.url("to", None)?)),
        ("after", p.seconds("after", 0)?.to_string()),
    ];
    Ok(Html(render(template::META_REFRESH, &slots)).into_response())
}

pub(super) async fn js_redirect(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [
        ("title", html(&p.text("title", "Script redirect"))),
        ("to_js", js_string(&p.url("to", None)?)),
        ("after", p.ms("after", 0)?.to_string()),
    ];
    Ok(Html(render(template::JS_REDIRECT, &slots)).into_response())
}

pub(super) async fn status(Query(q): Query_) -> Page {
    let allowed: Vec<u16> = (200..=599).collect();
    let code = Params(q).status("code", 200, &allowed)?;
    Ok(StatusCode::from_u16(code).unwrap_or(StatusCode::OK).into_response())
}

pub(super) async fn reset() -> Response {
    let mut response = StatusCode::INTERNAL_SERVER_ERROR.into_response();
    response.extensions_mut().insert(ResetConnection);
    response
}

#[cfg(test)]
mod tests {
    use crate::routes::app;
    use crate::routes::tests::state;
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn a_redirect_sends_its_status_and_location() {
        let (_shutdown, state) = state();
        let request = Request::get("/redirect?to=/page&status=307").body(Body::empty()).unwrap();
        let response = app(state).oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::TEMPORARY_REDIRECT);
        assert_eq!(response.headers()[header::LOCATION], "/page");
    }
}
