//! The skill library over HTTP: `GET /api/skills/search?q=S&limit=N` (JSON) and `GET /skills`
//! (a small search page). Any query is answered: it is read from the raw query string, bytes
//! that are not UTF-8 taken as replacement characters, and searched as words.

use super::{Answer, ApiError, AppState};
use crate::skills::{MAX_HITS, SkillHit};
use crate::wire::SearchAnswer;
use axum::extract::{RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, html};
use std::sync::Arc;

/// Hits a search answers when it does not say how many.
const DEFAULT_HITS: usize = 5;

/// `q` and `limit` of a raw query string.
fn read_query(raw: Option<&str>) -> Result<(String, usize), ApiError> {
    let (mut q, mut limit) = (String::new(), DEFAULT_HITS);
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        match key.as_ref() {
            "q" => q = value.into_owned(),
            "limit" => {
                limit = value.trim().parse::<usize>().ok().filter(|n| (1..=MAX_HITS).contains(n)).ok_or_else(|| {
                    ApiError::bad(format!("limit: a whole number from 1 to {MAX_HITS}, got {value:?}"))
                })?;
            }
            _ => {}
        }
    }
    Ok((q, limit))
}

fn hits(state: &AppState, q: &str, limit: usize) -> Result<Vec<SkillHit>, ApiError> {
    state.service.search_skills(q, limit).map_err(|e| {
        tracing::error!(target: "navguard::serve", "skills: {e}");
        ApiError::new(
            super::status_of(crate::model::ErrorCode::Internal),
            crate::model::ErrorCode::Internal,
            crate::state::INTERNAL,
        )
    })
}

pub(super) async fn search(
    State(state): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
) -> Result<Answer<SearchAnswer>, ApiError> {
    let (q, limit) = read_query(raw.as_deref())?;
    Ok(Answer::ok(SearchAnswer { hits: hits(&state, &q, limit)? }))
}

pub(super) async fn page(State(state): State<Arc<AppState>>, RawQuery(raw): RawQuery) -> Response {
    let (q, limit) = match read_query(raw.as_deref()) {
        Ok(read) => read,
        Err(e) => return e.into_response(),
    };
    let found = match hits(&state, &q, limit.max(10)) {
        Ok(found) => found,
        Err(e) => return e.into_response(),
    };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { "navguard skills" }
                style { "body{font:15px system-ui,sans-serif;margin:1.5em auto;max-width:60em;padding:0 1em} .hit{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;margin:.6em 0} .meta{color:#555} input[type=search]{width:30em;font:inherit}" } }
            body {
                h1 { "Skills" }
                form method="get" action="/skills" {
                    input type="search" name="q" value=(q) placeholder="what to do, in any language";
                    " " button type="submit" { "Search" }
                }
                @if !q.trim().is_empty() && found.is_empty() { p { "No skill matches." } }
                @for hit in &found {
                    section.hit {
                        h2 { (hit.name) }
                        p { (hit.description) }
                        p.meta { code { (hit.path) } " · score " (format!("{:.2}", hit.score)) }
                        p { "… " (hit.snippet) " …" }
                    }
                }
                p.meta { a href="/console" { "Back to the console" } }
            }
        }
    };
    Html(page.into_string()).into_response()
}
