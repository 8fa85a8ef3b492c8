//! Pages for the hazards browser agents meet in the field: a download, a control an overlay
//! covers, a click that fetches and only then navigates, a page that never goes quiet on the
//! network, a button whose presses the site counts, links to the same document, a file chooser,
//! a button the page replaces or removes.

use super::held::{hold, released};
use super::{Page, Query_};
use crate::params::Params;
use crate::state::SiteState;
use crate::template::{self, html, js_string, render};
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

/// `/download`: after `delay` ms, a small CSV the browser saves as `name` instead of showing it.
pub(super) async fn download(State(state): State<SiteState>, Query(q): Query_) -> Page {
    let p = Params(q);
    let delay = p.ms("delay", 0)?;
    // The name goes into a header: only what a file name needs, so it cannot break the header.
    let name: String = p
        .text("name", "report.csv")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .collect();
    if !hold(&state, delay).await {
        return Ok(released());
    }
    let disposition = format!("attachment; filename=\"{name}\"");
    Ok((
        [(header::CONTENT_TYPE, "text/csv".to_owned()), (header::CONTENT_DISPOSITION, disposition)],
        "id,name\n1,first\n2,second\n",
    )
        .into_response())
}

/// `/overlay`: a form whose submit button an overlay (`#banner`) covers `after` ms after load,
/// until its `Accept cookies` button removes it.
pub(super) async fn overlay(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("label", html(&p.text("label", "Send"))), ("after", p.ms("after", 0)?.to_string())];
    Ok(Html(render(template::OVERLAY, &slots)).into_response())
}

/// `/fetch-then-go`: a button that fetches `/data?delay=MS` (or, with `gate`, the gate of that
/// name, held until the scenario releases it) and, once answered, navigates.
pub(super) async fn fetch_then_go(Query(q): Query_) -> Page {
    let p = Params(q);
    let delay = p.ms("delay", 800)?;
    let data = match p.name("gate")? {
        Some(gate) => format!("/gate?name={gate}"),
        None => format!("/data?delay={delay}"),
    };
    let slots = [("data_js", js_string(&data)), ("to_js", js_string(&p.url("to", Some("/page?title=Next"))?))];
    Ok(Html(render(template::FETCH_THEN_GO, &slots)).into_response())
}

/// `/poll`: a page that fetches `/data` every `every` ms for as long as it is open.
pub(super) async fn poll(Query(q): Query_) -> Page {
    let p = Params(q);
    let every = p.ms("every", 200)?.max(1);
    let slots = [("title", html(&p.text("title", "Polling"))), ("every", every.to_string())];
    Ok(Html(render(template::POLL, &slots)).into_response())
}

/// `/button`: one button; each press fetches `/pressed`, so the request log counts the presses.
pub(super) async fn button(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("title", html(&p.text("title", "Button"))), ("label", html(&p.text("label", "Press me")))];
    Ok(Html(render(template::BUTTON, &slots)).into_response())
}

/// `/rerender`: a button the page's own script replaces with a new one of the same id and
/// label (after each press, and on `Refresh`), or removes (on `Remove`); given a delay, those two
/// change the list only once `/data?delay=MS` has answered.
pub(super) async fn rerender(Query(q): Query_) -> Page {
    let p = Params(q);
    let label = p.text("label", "Press me");
    let slots = [
        ("title", html(&p.text("title", "Rerender"))),
        ("label", html(&label)),
        ("label_js", js_string(&label)),
        ("delay", p.ms("delay", 0)?.to_string()),
    ];
    Ok(Html(render(template::RERENDER, &slots)).into_response())
}

/// What `/button`'s and `/rerender`'s presses fetch: nothing to show, only a line in the
/// request log.
pub(super) async fn pressed() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// `/anchors`: a link to a form further down the same document.
pub(super) async fn anchors(Query(q): Query_) -> Page {
    let slots = [("title", html(&Params(q).text("title", "Anchors")))];
    Ok(Html(render(template::ANCHORS, &slots)).into_response())
}

/// `/upload`: a file input, which opens the browser's file chooser when clicked.
pub(super) async fn upload(Query(q): Query_) -> Page {
    let slots = [("title", html(&Params(q).text("title", "Upload")))];
    Ok(Html(render(template::UPLOAD, &slots)).into_response())
}

#[cfg(test)]
mod tests {
    use crate::routes::tests::{get, send, state};
    use axum::body::Body;
    use axum::http::{Request, StatusCode};

    #[tokio::test]
    async fn a_download_is_an_attachment_with_its_name() {
        let (_shutdown, state) = state();
        let request = Request::get("/download?name=data.csv").body(Body::empty()).unwrap();
        let response = tower::ServiceExt::oneshot(crate::routes::app(state.clone()), request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let disposition = response.headers().get("content-disposition").unwrap().to_str().unwrap();
        assert_eq!(disposition, "attachment; filename=\"data.csv\"");
        let (_, content_type, body) = send(&state, Request::get("/download").body(Body::empty()).unwrap()).await;
        assert_eq!((content_type.as_str(), body.lines().next()), ("text/csv", Some("id,name")));
    }

    #[tokio::test]
    async fn a_download_name_cannot_break_its_header() {
        let (_shutdown, state) = state();
        let request = Request::get("/download?name=a%22%0D%0AX-Evil:%201.csv").body(Body::empty()).unwrap();
        let response = tower::ServiceExt::oneshot(crate::routes::app(state), request).await.unwrap();
        let disposition = response.headers().get("content-disposition").unwrap().to_str().unwrap();
        assert_eq!(disposition, "attachment; filename=\"aX-Evil1.csv\"");
        assert!(response.headers().get("x-evil").is_none());
    }

    #[tokio::test]
    async fn a_held_download_is_released_at_shutdown() {
        let (shutdown, state) = state();
        let mut held = std::pin::pin!(get(&state, "/download?delay=600000"));
        assert!(futures::poll!(held.as_mut()).is_pending(), "a delayed download answered at once");
        shutdown.send(true).unwrap();
        assert_eq!(held.await.0, StatusCode::SERVICE_UNAVAILABLE);
    }

    #[tokio::test]
    async fn the_hazard_pages_carry_their_elements() {
        let (_shutdown, state) = state();
        for (uri, wanted) in [
            (
                "/overlay?label=Go&after=300",
                &["<title>Overlay</title>", ">Go</button>", "}, 300));", "Accept cookies"][..],
            ),
            (
                "/fetch-then-go?delay=50&to=/page%3Ftitle%3DAfter",
                &["\"/data?delay=50\"", "\"/page?title=After\"", ">Continue<"],
            ),
            ("/fetch-then-go?gate=save-1", &["\"/gate?name=save-1\"", "\"/page?title=Next\""]),
            ("/poll?every=100&title=Busy", &["<title>Busy</title>", "Polls: 0", "}), 100);", ">Press<"]),
            ("/button?label=Push", &["<title>Button</title>", ">Push</button>", "Pressed 0", "/pressed?n="]),
            ("/anchors", &["<title>Anchors</title>", "href=\"#f\">to the form</a>", "id=\"f\""]),
            ("/upload", &["<title>Upload</title>", "type=\"file\"", "Attach", ">Send</button>"]),
            (
                "/rerender?label=%3CBuy%3E&delay=50&title=Cart",
                &[
                    "<title>Cart</title>",
                    "<button id=\"b\" type=\"button\">&lt;Buy&gt;</button>",
                    "const label = \"<Buy>\";",
                    "const delay = 50;",
                    "/pressed?n=",
                    "Rendered 1",
                    ">Refresh</button>",
                    ">Remove</button>",
                ],
            ),
            ("/rerender", &["<title>Rerender</title>", ">Press me</button>", "const delay = 0;"]),
        ] {
            let (status, body) = get(&state, uri).await;
            assert_eq!(status, StatusCode::OK, "{uri}");
            for w in wanted {
                assert!(body.contains(w), "{uri} lacks {w}: {body}");
            }
        }
        assert_eq!(get(&state, "/pressed?n=1").await.0, StatusCode::NO_CONTENT);
    }

    #[tokio::test]
    async fn bad_hazard_parameters_are_named() {
        let (_shutdown, state) = state();
        for (uri, param) in [
            ("/download?delay=soon", "delay"),
            ("/overlay?after=x", "after"),
            ("/fetch-then-go?to=javascript:go()", "to"),
            ("/fetch-then-go?gate=a%26b", "gate"),
            ("/poll?every=-5", "every"),
            ("/rerender?delay=later", "delay"),
        ] {
            let (status, body) = get(&state, uri).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {body}");
            assert!(body.starts_with(&format!("bad parameter `{param}`")), "{uri}: {body}");
        }
    }
}
