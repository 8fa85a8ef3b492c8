//! The pages of the interaction tools (scroll, select, drag, hover, editors, forms) and their
//! hazards: a button outside the viewport, a select whose value the page puts back or whose
//! options come late, shadow roots, a drag by HTML5 or by pointer events, a menu that closes at
//! the next frame, a feed that loads more when scrolled to its end, a button that moves under
//! the pointer, a print dialog.

use super::{Page, Query_};
use crate::params::{BadParam, Params};
use crate::template::{self, js_string, render};
use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

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

/// `/shift`: a button `#b` labelled `Buy` that a banner pushes down `after` ms after load, an
/// ad `#ad` taking its old place.
pub(super) async fn shift(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("after", p.ms("after", 300)?.to_string())];
    Ok(Html(render(template::SHIFT, &slots)).into_response())
}

/// `/print`: a button `#print` that calls `window.print()`.
pub(super) async fn print() -> Response {
    Html(template::PRINT).into_response()
}

/// `/bought` and `/ad`: what `/shift`'s buttons fetch, so the site's log counts each press.
pub(super) async fn counted() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

#[cfg(test)]
mod tests {
    use crate::routes::tests::{get, state};
    use axum::http::StatusCode;

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
