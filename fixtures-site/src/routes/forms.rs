//! Forms and what answers them: a generic form and its submission, a login and its session, a
//! shop's order and deletion.

use super::held::{hold, released};
use super::navigation::see_other;
use super::{Page, Query_};
use crate::params::Params;
use crate::state::SiteState;
use crate::template::{self, html, render};
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

/// Where `/login` sends the user by default.
const WELCOME: &str = "/page?title=Welcome";

pub(super) async fn form(Query(q): Query_) -> Page {
    let p = Params(q);
    // `label` names the field (aria-label) with no text of its own on the page: a field a model
    // finds by its name alone, as it would a search box.
    let label = p.0.get("label").map(|l| format!(" aria-label=\"{}\"", html(l))).unwrap_or_default();
    let slots = [
        ("title", html(&p.text("title", "Form"))),
        ("action", html(&p.url("action", Some("/submit"))?)),
        ("method", p.method("method", "post")?),
        ("label_attr", label),
    ];
    Ok(Html(render(template::FORM, &slots)).into_response())
}

pub(super) async fn submit(
    State(state): State<SiteState>,
    method: Method,
    headers: HeaderMap,
    Query(q): Query_,
    body: Bytes,
) -> Page {
    let p = Params(q);
    let delay = p.ms("delay", 0)?;
    let title = p.text("title", "Submitted");
    let posted = match multipart_boundary(&headers) {
        Some(boundary) => multipart_fields(&body, &boundary),
        None => url::form_urlencoded::parse(&body).into_owned().collect(),
    };
    let fields: String = posted
        .into_iter()
        .chain(p.0.iter().map(|(k, v)| (k.clone(), v.clone())))
        .map(|(k, v)| format!("<dt>{}</dt><dd>{}</dd>", html(&k), html(&v)))
        .collect();
    if !hold(&state, delay).await {
        return Ok(released());
    }
    let slots = [("title", html(&title)), ("method", method.to_string()), ("fields", fields)];
    Ok(Html(render(template::SUBMIT, &slots)).into_response())
}

/// The boundary of a `multipart/form-data` body (a form with a file input posts one).
fn multipart_boundary(headers: &HeaderMap) -> Option<String> {
    let kind = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let (mime, rest) = kind.split_once(';')?;
    if !mime.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    let boundary = rest.split(';').find_map(|p| p.trim().strip_prefix("boundary="))?;
    Some(boundary.trim_matches('"').to_owned())
}

/// Each part of a multipart body as `(name, value)`: a file's value is its file name (its bytes
/// are not shown), a field's its text.
fn multipart_fields(body: &[u8], boundary: &str) -> Vec<(String, String)> {
    let body = String::from_utf8_lossy(body);
    let delimiter = format!("--{boundary}");
    body.split(delimiter.as_str())
        .filter_map(|part| {
            let (head, value) = part.strip_prefix("\r\n")?.split_once("\r\n\r\n")?;
            let disposition = head.lines().find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))?;
            let param = |key: &str| {
                disposition.split(';').find_map(|p| {
                    Some(p.trim().strip_prefix(key)?.strip_prefix("=\"")?.trim_end_matches('"').to_owned())
                })
            };
            let name = param("name")?;
            let value = param("filename").unwrap_or_else(|| value.trim_end_matches("\r\n").to_owned());
            Some((name, value))
        })
        .collect()
}

pub(super) async fn login(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("title", html(&p.text("title", "Log in"))), ("next", html(&p.url("next", Some(WELCOME))?))];
    Ok(Html(render(template::LOGIN, &slots)).into_response())
}

/// `/login`'s form: a 303 to its `next` field (or the query's).
pub(super) async fn session(Query(q): Query_, body: String) -> Page {
    let mut fields = q;
    fields.extend(url::form_urlencoded::parse(body.as_bytes()).into_owned());
    let next = Params(fields).url("next", Some(WELCOME))?;
    see_other(StatusCode::SEE_OTHER, &next, "next")
}

pub(super) async fn shop(Query(q): Query_) -> Page {
    let slots = [("title", html(&Params(q).text("title", "Shop")))];
    Ok(Html(render(template::SHOP, &slots)).into_response())
}

pub(super) async fn order() -> Response {
    Html(render(template::DONE, &[("message", "Your order has been placed.".to_owned())])).into_response()
}

pub(super) async fn delete() -> Response {
    Html(render(template::DONE, &[("message", "Your account has been deleted.".to_owned())])).into_response()
}

#[cfg(test)]
mod tests {
    use crate::routes::app;
    use crate::routes::tests::{post, send, state};
    use axum::http::{StatusCode, header};
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn a_session_answers_303_to_its_next_field() {
        let (_shutdown, state) = state();
        for (form, location) in [
            ("user=ann&password=secret&next=%2Fpage%3Ftitle%3DIn", "/page?title=In"),
            ("user=ann&password=secret", "/page?title=Welcome"),
        ] {
            let response = app(state.clone()).oneshot(post("/session", form)).await.unwrap();
            assert_eq!(response.status(), StatusCode::SEE_OTHER, "{form}");
            assert_eq!(response.headers()[header::LOCATION], location, "{form}");
        }
    }

    #[tokio::test]
    async fn a_form_field_takes_its_name_from_label_alone() {
        let (_shutdown, state) = state();
        let (_, _, body) = send(&state, get("/form?label=Card%20%22no%22")).await;
        assert!(
            body.contains("<input id=\"q\" name=\"q\" type=\"text\" aria-label=\"Card &quot;no&quot;\">"),
            "{body}"
        );
        let (_, _, body) = send(&state, get("/form")).await;
        assert!(body.contains("<input id=\"q\" name=\"q\" type=\"text\">"), "{body}");
    }

    #[tokio::test]
    async fn a_multipart_post_lists_its_fields_and_its_files_by_name() {
        let (_shutdown, state) = state();
        let body: &[u8] = b"--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi there\r\n--XyZ\r\n\
            Content-Disposition: form-data; name=\"file\"; filename=\"photo.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\xff\x00\r\n--XyZ--\r\n";
        let request = axum::http::Request::post("/submit")
            .header(header::CONTENT_TYPE, "multipart/form-data; boundary=XyZ")
            .body(axum::body::Body::from(body))
            .unwrap();
        let (status, _, page) = send(&state, request).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        assert!(page.contains("<dt>note</dt><dd>hi there</dd>"), "{page}");
        assert!(page.contains("<dt>file</dt><dd>photo.png</dd>"), "{page}");
    }

    fn get(uri: &str) -> axum::http::Request<axum::body::Body> {
        axum::http::Request::get(uri).body(axum::body::Body::empty()).unwrap()
    }

    #[tokio::test]
    async fn an_order_and_a_deletion_answer_a_page_titled_done() {
        let (_shutdown, state) = state();
        for (path, message) in [("/order", "order has been placed"), ("/delete", "account has been deleted")] {
            let (status, content_type, body) = send(&state, post(path, "item=book")).await;
            assert_eq!((status, content_type.as_str()), (StatusCode::OK, "text/html; charset=utf-8"), "{path}");
            assert!(body.contains("<title>Done</title>") && body.contains(message), "{path}: {body}");
        }
    }
}
