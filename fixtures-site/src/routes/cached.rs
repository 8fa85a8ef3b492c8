//! A page the browser may keep in its back/forward cache: every other route forbids it
//! (`Cache-Control: no-store`), so that a page gone back to is always fetched again.

use super::{Page, Query_};
use crate::params::Params;
use crate::template::{self, html, render};
use axum::extract::Query;
use axum::http::header;
use axum::response::{Html, IntoResponse};

/// What `/cached` says of caching instead of `no-store`: `no-cache` lets the browser keep the
/// page in its back/forward cache, and still sends a plain load back to the server (the HTTP
/// cache must ask first), so a page shown again without a request is one the browser restored.
pub(crate) const CACHEABLE: &str = "no-cache";

/// `/cached`: a page titled T with a link `#go`; `#shown` reads `Shown: loaded`, and
/// `Shown: restored N` once the browser has restored the page from its back/forward cache N
/// times (its `pageshow` event's `persisted`).
pub(super) async fn cached(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("title", html(&p.text("title", "Cached"))), ("go", html(&p.url("go", Some("/page?title=Next"))?))];
    Ok(([(header::CACHE_CONTROL, CACHEABLE)], Html(render(template::CACHED, &slots))).into_response())
}

#[cfg(test)]
mod tests {
    use crate::routes::app;
    use crate::routes::tests::{get, state};
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn a_cached_page_says_no_cache_and_tells_a_restore_apart() {
        let (_shutdown, state) = state();
        let request = Request::get("/cached?title=%3COne%3E&go=/page%3Ftitle%3DTwo").body(Body::empty()).unwrap();
        let response = app(state.clone()).oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-cache");
        let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let body = String::from_utf8_lossy(&body);
        for needle in [
            "<title>&lt;One&gt;</title>",
            "<a id=\"go\" href=\"/page?title=Two\">go</a>",
            "<p id=\"shown\">Shown: loaded</p>",
            "if (event.persisted) {",
            "\"Shown: restored \" + restores",
        ] {
            assert!(body.contains(needle), "no {needle:?} in\n{body}");
        }
        for blocker in ["\"unload\"", "onunload", "beforeunload"] {
            assert!(!body.contains(blocker), "{blocker} would keep the page out of the cache");
        }
        let (_, body) = get(&state, "/cached").await;
        assert!(body.contains("<title>Cached</title>") && body.contains("href=\"/page?title=Next\""), "{body}");
    }

    #[tokio::test]
    async fn a_cached_page_refuses_a_bad_link_naming_it() {
        let (_shutdown, state) = state();
        let (status, body) = get(&state, "/cached?go=javascript:alert(1)").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.starts_with("bad parameter `go`"), "{body}");
    }
}
