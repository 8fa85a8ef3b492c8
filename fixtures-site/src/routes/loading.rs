//! Pages that go on working after their load event: parallel fetches, an open event stream, a
//! single-page app's routes, a main thread kept busy.

use super::{Page, Query_};
use crate::params::Params;
use crate::template::{self, html, render};
use axum::extract::Query;
use axum::response::{Html, IntoResponse};

pub(super) async fn fetches(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [
        ("title", html(&p.text("title", "Fetches"))),
        ("count", p.count("count", 3)?.to_string()),
        ("delay", p.ms("delay", 1000)?.to_string()),
    ];
    Ok(Html(render(template::FETCHES, &slots)).into_response())
}

pub(super) async fn stream(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("title", html(&p.text("title", "Stream"))), ("delay", p.ms("delay", 1000)?.to_string())];
    Ok(Html(render(template::STREAM, &slots)).into_response())
}

pub(super) async fn spa(Query(q): Query_) -> Page {
    let p = Params(q);
    let title = p.text("title", "Single-page app");
    let delay = p.ms("delay", 1000)?;
    // The body of each route's data comes this long after its headers (`/data`'s trickle).
    let trickle = p.ms("trickle", 0)?;
    p.choice("page", &["one", "two"], "one or two")?;
    let href = |page: &str| {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("title", &title).append_pair("delay", &delay.to_string());
        if trickle > 0 {
            query.append_pair("trickle", &trickle.to_string());
        }
        html(&format!("/spa?{}", query.append_pair("page", page).finish()))
    };
    let slots = [
        ("one", href("one")),
        ("two", href("two")),
        ("title", html(&title)),
        ("delay", delay.to_string()),
        ("trickle", trickle.to_string()),
    ];
    Ok(Html(render(template::SPA, &slots)).into_response())
}

pub(super) async fn busy(Query(q): Query_) -> Page {
    let p = Params(q);
    let slots = [("title", html(&p.text("title", "Busy"))), ("ms", p.ms("ms", 1000)?.to_string())];
    Ok(Html(render(template::BUSY, &slots)).into_response())
}
