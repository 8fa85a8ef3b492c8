//! Plain pages and the elements scenarios act on: links, popups, a page that closes itself, late
//! and counting elements, frames and dialogs.

use super::{Page, Query_};
use crate::params::{BadParam, Params};
use crate::template::{self, html, js_string, render};
use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

/// A plain page (`/page`, `/slow`, `/gate`), whole: its body, and with `bfcache=no` what keeps it
/// out of both browsers' back/forward cache. Going back to such a page always loads it anew.
pub(super) struct PlainPage {
    body: String,
    refuses_bfcache: bool,
}

/// What a page that refuses the back/forward cache adds: Firefox never keeps a page with an
/// `unload` listener.
const UNLOAD_LISTENER: &str = "<script>addEventListener(\"unload\", () => {});</script>";

impl PlainPage {
    pub(super) fn new(p: &Params, default_title: &str) -> Result<Self, BadParam> {
        let refuses_bfcache = p.refuses_bfcache()?;
        let title = p.text("title", default_title);
        let body = render(
            template::PAGE,
            &[
                ("title", html(&title)),
                ("go", html(&p.url("go", Some("/page?title=Next"))?)),
                ("blank", html(&p.url("blank", Some("/page?title=Blank"))?)),
                ("open_js", js_string(&p.url("open", Some("/page?title=Opened"))?)),
                ("unload", if refuses_bfcache { UNLOAD_LISTENER.to_owned() } else { String::new() }),
            ],
        );
        Ok(Self { body, refuses_bfcache })
    }

    /// Chromium keeps only pages answered 200 (its `HTTPStatusNotOK` reason; a page blocker
    /// such as a held Web Lock no longer holds on Chromium 156), so a page that refuses the
    /// cache is answered 203, which shows the same.
    pub(super) fn into_response(self) -> Response {
        let status = if self.refuses_bfcache { StatusCode::NON_AUTHORITATIVE_INFORMATION } else { StatusCode::OK };
        (status, Html(self.body)).into_response()
    }
}

pub(super) async fn page(Query(q): Query_) -> Page {
    Ok(PlainPage::new(&Params(q), "Page")?.into_response())
}

pub(super) async fn link(Query(q): Query_) -> Page {
    let p = Params(q);
    let target = p.target("target")?.map(|t| format!(" target=\"{}\"", html(&t))).unwrap_or_default();
    let slots = [("title", html(&p.text("title", "Link"))), ("to", html(&p.url("to", None)?)), ("target_attr", target)];
    Ok(Html(render(template::LINK, &slots)).into_response())
}

pub(super) async fn close_self(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("title", html(&p.text("title", "Closing"))), ("after", p.ms("after", 0)?.to_string())];
    Ok(Html(render(template::CLOSE_SELF, &slots)).into_response())
}

pub(super) async fn popup(Query(q): Query_) -> Page {
    let p = Params(q);
    let to = p.url("to", None)?;
    let after = p.ms("after", 0)?;
    // Without `after`, the tab opens in the load event itself, as it always has: scenarios on
    // which window comes to the front rely on that moment; with it, a timer opens it later.
    let (when, open) = if after == 0 {
        ("on load".to_owned(), format!("window.open({})", js_string(&to)))
    } else {
        (format!("{after} ms after it loads"), format!("setTimeout(() => window.open({}), {after})", js_string(&to)))
    };
    let slots = [("title", html(&p.text("title", "Popup"))), ("to", html(&to)), ("when", when), ("open", open)];
    Ok(Html(render(template::POPUP, &slots)).into_response())
}

pub(super) async fn late(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [
        ("title", html(&p.text("title", "Late link"))),
        ("after", p.ms("after", 1000)?.to_string()),
        ("text_js", js_string(&p.text("text", "Go on"))),
    ];
    Ok(Html(render(template::LATE, &slots)).into_response())
}

pub(super) async fn counter(Query(q): Query_) -> Page {
    let slots = [("title", html(&Params(q).text("title", "Counter")))];
    Ok(Html(render(template::COUNTER, &slots)).into_response())
}

pub(super) async fn injected(Query(q): Query_) -> Page {
    let slots = [("title", html(&Params(q).text("title", "Approvals")))];
    Ok(Html(render(template::INJECTED, &slots)).into_response())
}

/// `src` is required, as `/link`'s `to` is: a frame on a default page would hide a forgotten one.
pub(super) async fn frame(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("title", html(&p.text("title", "Framed"))), ("src", html(&p.url("src", None)?))];
    Ok(Html(render(template::FRAME, &slots)).into_response())
}

/// The kinds of `/dialog`; the page's script tells them apart, so only these may reach it.
const DIALOG_KINDS: [&str; 3] = ["alert", "confirm", "beforeunload"];

pub(super) async fn dialog(Query(q): Query_) -> Page {
    let p = Params(q);
    let kind = p.choice("kind", &DIALOG_KINDS, "alert, confirm or beforeunload")?.unwrap_or("alert");
    let slots = [
        ("title", html(&p.text("title", "Dialog"))),
        ("kind_js", js_string(kind)),
        ("after", p.ms("after", 200)?.to_string()),
        ("message_js", js_string(&p.text("message", &format!("Dialog: {kind}")))),
    ];
    Ok(Html(render(template::DIALOG, &slots)).into_response())
}

#[cfg(test)]
mod tests {
    use crate::routes::tests::{get, send, state};
    use axum::body::Body;
    use axum::http::{Request, StatusCode};

    #[tokio::test]
    async fn a_page_renders_its_escaped_title_and_links() {
        let (_shutdown, state) = state();
        let (status, body) = get(&state, "/page?title=%3CHi%3E&go=/page%3Ftitle%3DThere").await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.contains("<title>&lt;Hi&gt;</title>"), "{body}");
        assert!(body.contains("/page?title=There"), "{body}");
    }

    #[tokio::test]
    async fn a_frame_and_a_dialog_carry_their_titles_and_elements() {
        let (_shutdown, state) = state();
        for (uri, needles) in [
            (
                "/frame?src=/page?title=In%26x=%3Cb%3E%22",
                &[
                    "<title>Framed</title>",
                    "<h1>Framed</h1>",
                    "<a id=\"go\" href=\"/page?title=Next\">go</a>",
                    "<iframe id=\"frame\" src=\"/page?title=In&amp;x=&lt;b&gt;&quot;\"",
                ][..],
            ),
            ("/frame?src=http://127.0.0.1:1/x&title=Outer", &["<title>Outer</title>", "src=\"http://127.0.0.1:1/x\""]),
            (
                "/dialog",
                &[
                    "<title>Dialog</title>",
                    "<h1>Dialog</h1>",
                    "<a id=\"go\" href=\"/page?title=Next\">go</a>",
                    "<p id=\"answer\">waiting</p>",
                    "const kind = \"alert\";",
                    "alert(\"Dialog: alert\");",
                    "answer.textContent = \"closed\";",
                    "}, 200));",
                ],
            ),
            (
                "/dialog?kind=confirm&after=50&title=%3CAsk%3E",
                &[
                    "<title>&lt;Ask&gt;</title>",
                    "const kind = \"confirm\";",
                    "confirm(\"Dialog: confirm\") ? \"accepted\" : \"dismissed\"",
                    "}, 50));",
                ],
            ),
            (
                "/dialog?kind=beforeunload",
                &[
                    "const kind = \"beforeunload\";",
                    "window.addEventListener(\"beforeunload\", (event) => {",
                    "event.preventDefault();",
                    "event.returnValue = \"\";",
                ],
            ),
        ] {
            let (status, content_type, body) = send(&state, Request::get(uri).body(Body::empty()).unwrap()).await;
            assert_eq!((status, content_type.as_str()), (StatusCode::OK, "text/html; charset=utf-8"), "{uri}");
            for needle in needles {
                assert!(body.contains(needle), "{uri}: no {needle:?} in\n{body}");
            }
        }
    }

    #[tokio::test]
    async fn a_frame_and_a_dialog_refuse_a_bad_parameter_naming_it() {
        let (_shutdown, state) = state();
        for (uri, param) in [
            ("/frame", "src"),
            ("/frame?src=javascript:alert(1)", "src"),
            ("/dialog?kind=prompt", "kind"),
            ("/dialog?kind=", "kind"),
            ("/dialog?after=soon", "after"),
        ] {
            let (status, body) = get(&state, uri).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {body}");
            assert!(body.starts_with(&format!("bad parameter `{param}`")), "{uri}: {body}");
        }
        let (_, body) = get(&state, "/dialog?kind=prompt").await;
        assert!(body.contains("alert, confirm or beforeunload"), "{body}");
    }
}
