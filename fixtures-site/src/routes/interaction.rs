//! The pages of the interaction tools (scroll, select, drag, hover, editors, forms) and their
//! hazards: a button outside the viewport, a select whose value the page puts back or whose
//! options come late, shadow roots, a drag by HTML5 or by pointer events, a menu that closes at
//! the next frame, a feed that loads more when scrolled to its end, a button that moves under
//! the pointer, a print dialog.

use super::{Page, Query_};
use crate::params::{BadParam, Params};
use crate::state::SiteState;
use crate::template::{self, html, js_string, render};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use base64::Engine as _;

/// Where `/offscreen` puts its button.
const OFFSCREEN_AT: [&str; 4] = ["below", "right", "straddle", "clipped"];
/// The controls of `/select`.
const SELECT_KINDS: [&str; 2] = ["native", "combobox"];
/// How `/drag`'s items are dragged.
const DRAG_KINDS: [&str; 2] = ["html5", "pointer"];
/// The editors of `/editor`.
const EDITOR_KINDS: [&str; 2] = ["contenteditable", "controlled"];
/// Shadow roots' modes.
const SHADOW_MODES: [&str; 2] = ["open", "closed"];

/// A number of milliseconds for a page's script, or `null` when the parameter is absent.
fn ms_or_null(p: &Params, name: &'static str) -> Result<String, BadParam> {
    Ok(match p.0.contains_key(name) {
        true => p.ms(name, 0)?.to_string(),
        false => "null".to_owned(),
    })
}

/// `/offscreen`: a button `#far` labelled `Far` below the fold, to the right, straddling the
/// viewport's bottom edge, or clipped by a container nothing can scroll.
pub(super) async fn offscreen(Query(q): Query_) -> Page {
    let p = Params(q);
    let at = p.choice("at", &OFFSCREEN_AT, "below, right, straddle or clipped")?.unwrap_or("below");
    let button = r#"<button id="far" type="button">Far</button>"#;
    let far = match at {
        "clipped" => format!(r#"<div id="clip">{button}</div>"#),
        _ => button.to_owned(),
    };
    let slots = [("at", at.to_owned()), ("far", far)];
    Ok(Html(render(template::OFFSCREEN, &slots)).into_response())
}

/// `/select`: a control `#pick` labelled `Pick` (a native select or an ARIA combobox with its
/// listbox); `revert` puts the old value back that many ms after a change, `late` brings the
/// options that many ms after the control is opened or focused.
pub(super) async fn select(Query(q): Query_) -> Page {
    let p = Params(q);
    let kind = p.choice("kind", &SELECT_KINDS, "native or combobox")?.unwrap_or("native");
    let control = match kind {
        "native" => r#"<label for="pick">Pick</label> <select id="pick"></select>"#,
        _ => concat!(
            r#"<label for="pick">Pick</label> "#,
            r#"<input id="pick" role="combobox" aria-expanded="false" aria-controls="list" readonly> "#,
            r#"<ul id="list" role="listbox" aria-label="Pick options" hidden></ul>"#,
        ),
    };
    let slots = [
        ("control", control.to_owned()),
        ("kind_js", js_string(kind)),
        ("revert", ms_or_null(&p, "revert")?),
        ("late", ms_or_null(&p, "late")?),
    ];
    Ok(Html(render(template::SELECT, &slots)).into_response())
}

/// `/shadow`: a button `#deep` labelled `Deep` inside `depth` nested shadow roots.
pub(super) async fn shadow(Query(q): Query_) -> Page {
    let p = Params(q);
    let mode = p.choice("mode", &SHADOW_MODES, "open or closed")?.unwrap_or("open");
    let depth = p.count("depth", 2)?.max(1);
    let slots = [("depth", depth.to_string()), ("mode_js", js_string(mode))];
    Ok(Html(render(template::SHADOW, &slots)).into_response())
}

/// `/drag`: items `A`, `B`, `C` and a drop zone `#zone`, by HTML5 drag-and-drop or by pointer
/// events.
pub(super) async fn drag(Query(q): Query_) -> Page {
    let p = Params(q);
    let kind = p.choice("kind", &DRAG_KINDS, "html5 or pointer")?.unwrap_or("html5");
    let draggable = if kind == "html5" { r#"draggable="true""# } else { "" };
    let slots = [("draggable", draggable.to_owned()), ("kind_js", js_string(kind))];
    Ok(Html(render(template::DRAG, &slots)).into_response())
}

/// `/hover-menu`: a button `#menu` whose links show while the pointer is over it and close
/// `close` ms after it leaves (0: at the next frame).
pub(super) async fn hover_menu(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("close", p.ms("close", 0)?.to_string())];
    Ok(Html(render(template::HOVER_MENU, &slots)).into_response())
}

/// `/infinite`: a feed of `batch` items that fetches the next `batch` (after `delay` ms) when
/// it is scrolled to its end.
pub(super) async fn infinite(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("batch", p.count("batch", 10)?.max(1).to_string()), ("delay", p.ms("delay", 300)?.to_string())];
    Ok(Html(render(template::INFINITE, &slots)).into_response())
}

/// `/editor`: a `contenteditable` editor `#editor`, or a controlled input `#name`; `#echo` says
/// what the page's own state holds.
pub(super) async fn editor(Query(q): Query_) -> Page {
    let p = Params(q);
    let kind = p.choice("kind", &EDITOR_KINDS, "contenteditable or controlled")?.unwrap_or("contenteditable");
    let control = match kind {
        "contenteditable" => r#"<div id="editor" contenteditable="true" role="textbox" aria-label="Editor"></div>"#,
        _ => r#"<label for="name">Name</label> <input id="name" type="text">"#,
    };
    let slots = [("control", control.to_owned()), ("kind_js", js_string(kind))];
    Ok(Html(render(template::EDITOR, &slots)).into_response())
}

/// `/form-full`: one field of each kind, posting to `/submit`.
pub(super) async fn form_full() -> Response {
    Html(template::FORM_FULL).into_response()
}

/// `/shift`: a button `#b` labelled `Buy` that a banner pushes down `after` ms after load (or,
/// with `on=pointer`, the moment the pointer first comes onto it), an ad `#ad` taking its old
/// place.
pub(super) async fn shift(Query(q): Query_) -> Page {
    let p = Params(q);
    let on = p.choice("on", &["timer", "pointer"], "timer or pointer")?.unwrap_or("timer");
    let slots = [("after", p.ms("after", 300)?.to_string()), ("on_js", js_string(on))];
    Ok(Html(render(template::SHIFT, &slots)).into_response())
}

/// `/print`: a button `#print` that calls `window.print()`.
pub(super) async fn print() -> Response {
    Html(template::PRINT).into_response()
}

/// The deepest `/nested-frames` goes.
const MAX_NESTING: u64 = 8;

/// `/nested-frames`: a page titled `Nested` framing the next level, `depth` levels deep (at most
/// 8), each level on the other origin with `cross=yes`; the innermost frames `/button`.
pub(super) async fn nested_frames(State(state): State<SiteState>, headers: HeaderMap, Query(q): Query_) -> Page {
    let p = Params(q);
    let depth = p.count("depth", 2)?.clamp(1, MAX_NESTING);
    let cross = p.choice("cross", &["yes", "no"], "yes or no")?.unwrap_or("no");
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let origin = match cross {
        "yes" => state.other_origin(host).unwrap_or_default().to_owned(),
        _ => String::new(),
    };
    let src = match depth {
        1 => format!("{origin}/button?label=Press&title=Innermost"),
        _ => format!("{origin}/nested-frames?depth={}&cross={cross}", depth - 1),
    };
    let slots = [("depth", depth.to_string()), ("src", html(&src)), ("height", (120 + 90 * depth).to_string())];
    Ok(Html(render(template::NESTED_FRAMES, &slots)).into_response())
}

/// A one-page PDF reading "navguard PDF".
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n\
2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n\
3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n\
4 0 obj<</Length 42>>stream\nBT /F1 18 Tf 20 70 Td (navguard PDF) Tj ET\nendstream endobj\n\
5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

/// `/pdf`: a small PDF, shown in the browser (`inline=yes`) or sent as an attachment.
pub(super) async fn pdf(Query(q): Query_) -> Page {
    let p = Params(q);
    let disposition = match p.choice("inline", &["yes", "no"], "yes or no")?.unwrap_or("no") {
        "yes" => "inline; filename=\"navguard.pdf\"",
        _ => "attachment; filename=\"navguard.pdf\"",
    };
    let headers = [(header::CONTENT_TYPE, "application/pdf"), (header::CONTENT_DISPOSITION, disposition)];
    Ok((headers, PDF).into_response())
}

/// `/auth`: a page titled `Private`, answered 401 with a basic-auth challenge until the
/// credentials `user` and `pass` (default `ada` and `lovelace`) come.
pub(super) async fn auth(headers: HeaderMap, Query(q): Query_) -> Page {
    let p = Params(q);
    let (user, pass) = (p.text("user", "ada"), p.text("pass", "lovelace"));
    let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}")));
    if headers.get(header::AUTHORIZATION).and_then(|h| h.to_str().ok()) == Some(expected.as_str()) {
        let page = format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Private</title></head>\
             <body><h1>Private</h1><p id=\"who\">Signed in as {}</p></body></html>",
            html(&user)
        );
        return Ok(Html(page).into_response());
    }
    let challenge = HeaderValue::from_static("Basic realm=\"navguard\", charset=\"UTF-8\"");
    let page = "<!doctype html><html><head><title>Sign in</title></head><body>Sign in first</body></html>";
    Ok((StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)], Html(page)).into_response())
}

/// `/bought` and `/ad`: what `/shift`'s buttons fetch, so the site's log counts each press.
pub(super) async fn counted() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

#[cfg(test)]
mod tests {
    use crate::routes::tests::{get, send, state};
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};

    #[tokio::test]
    async fn nested_frames_alternate_origins_down_to_the_button() {
        let (_shutdown, state) = state();
        state.set_origins("http://127.0.0.1:1000", "http://127.0.0.1:2000");
        let on =
            |host: &'static str, uri: &str| Request::get(uri).header(header::HOST, host).body(Body::empty()).unwrap();
        let (_, _, top) = send(&state, on("127.0.0.1:1000", "/nested-frames?depth=3&cross=yes")).await;
        assert!(top.contains(r#"src="http://127.0.0.1:2000/nested-frames?depth=2&amp;cross=yes""#), "{top}");
        let (_, _, middle) = send(&state, on("127.0.0.1:2000", "/nested-frames?depth=2&cross=yes")).await;
        assert!(middle.contains(r#"src="http://127.0.0.1:1000/nested-frames?depth=1&amp;cross=yes""#), "{middle}");
        let (_, _, last) = send(&state, on("127.0.0.1:1000", "/nested-frames?depth=1&cross=yes")).await;
        assert!(last.contains(r#"src="http://127.0.0.1:2000/button?label=Press&amp;title=Innermost""#), "{last}");
        let (_, _, same) = send(&state, on("127.0.0.1:1000", "/nested-frames")).await;
        assert!(
            same.contains(r#"src="/nested-frames?depth=1&amp;cross=no""#) && same.contains("<title>Nested</title>")
        );
        assert_eq!(get(&state, "/nested-frames?cross=maybe").await.0, StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn a_pdf_is_shown_or_sent_as_asked() {
        let (_shutdown, state) = state();
        let response =
            |uri: &str| crate::routes::app(state.clone()).oneshot(Request::get(uri).body(Body::empty()).unwrap());
        use tower::ServiceExt as _;
        for (uri, disposition) in [("/pdf?inline=yes", "inline"), ("/pdf", "attachment")] {
            let answer = response(uri).await.unwrap();
            assert_eq!(answer.headers()[header::CONTENT_TYPE], "application/pdf");
            assert!(answer.headers()[header::CONTENT_DISPOSITION].to_str().unwrap().starts_with(disposition));
            let body = axum::body::to_bytes(answer.into_body(), 1 << 20).await.unwrap();
            assert!(body.starts_with(b"%PDF-1.4") && body.ends_with(b"%%EOF\n"));
        }
    }

    #[tokio::test]
    async fn auth_asks_until_the_credentials_come() {
        use base64::Engine as _;
        let (_shutdown, state) = state();
        let signed = |user_pass: &str| {
            let value = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(user_pass));
            Request::get("/auth?user=ada&pass=x%3Ay").header(header::AUTHORIZATION, value).body(Body::empty()).unwrap()
        };
        let (status, _, body) = send(&state, Request::get("/auth").body(Body::empty()).unwrap()).await;
        assert_eq!((status, body.contains("Sign in first")), (StatusCode::UNAUTHORIZED, true));
        assert_eq!(send(&state, signed("ada:wrong")).await.0, StatusCode::UNAUTHORIZED);
        let (status, _, body) = send(&state, signed("ada:x:y")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.contains("<title>Private</title>") && body.contains("Signed in as ada"), "{body}");
    }

    #[tokio::test]
    async fn each_page_renders_its_parameters_and_refuses_bad_ones() {
        let (_shutdown, state) = state();
        for (uri, needles) in [
            ("/offscreen", &[r#"<body class="below">"#, r#"<button id="far" type="button">Far</button>"#][..]),
            ("/offscreen?at=clipped", &[r#"<div id="clip"><button id="far""#]),
            ("/select", &[r#"<select id="pick"></select>"#, "const revert = null;", "const late = null;"]),
            (
                "/select?kind=combobox&revert=50&late=300",
                &[r#"role="combobox""#, "const revert = 50;", "const late = 300;"],
            ),
            ("/shadow?depth=3&mode=closed", &["const depth = 3;", r#"const mode = "closed";"#]),
            ("/drag?kind=pointer", &[r#"const kind = "pointer";"#]),
            ("/drag", &[r#"draggable="true""#]),
            ("/hover-menu?close=500", &["const close = 500;"]),
            ("/infinite?batch=5&delay=0", &["const batch = 5;", "const delay = 0;"]),
            ("/editor?kind=controlled", &[r#"<input id="name" type="text">"#]),
            ("/form-full", &[r#"<select id="color" name="color">"#, r#"<textarea id="note" name="note">"#]),
            ("/shift?after=0", &["const after = 0;"]),
            ("/print", &["window.print();"]),
        ] {
            let (status, body) = get(&state, uri).await;
            assert_eq!(status, StatusCode::OK, "{uri}");
            for needle in needles {
                assert!(body.contains(needle), "{uri}: {needle} not in {body}");
            }
        }
        for uri in
            ["/offscreen?at=left", "/select?kind=radio", "/select?late=soon", "/shadow?mode=half", "/drag?kind=touch"]
        {
            assert_eq!(get(&state, uri).await.0, StatusCode::BAD_REQUEST, "{uri}");
        }
    }
}
