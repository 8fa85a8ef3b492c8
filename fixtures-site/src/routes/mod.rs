//! The routes, one file per job: pages (plain pages and the elements scenarios act on), forms
//! (forms and what answers them), navigation (redirects and failures), held (responses held
//! back, gates, the endless stream), loading (pages that go on working after their load) and
//! hazards (a download, an overlay, a fetch before a navigation, endless polling, a counted
//! button, same-document anchors, a file chooser, a button the page replaces) and cached (a page the browser may keep in its
//! back/forward cache).
//! Each handler parses its parameters first, so a malformed one is a 400 naming it before
//! anything is held or sent.

mod cached;
mod forms;
mod hazards;
mod held;
mod interaction;
mod loading;
mod navigation;
mod pages;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use cached::CACHEABLE;
pub(crate) use navigation::ResetConnection;

use crate::params::BadParam;
use crate::state::SiteState;
use axum::Router;
use axum::extract::Query;
use axum::response::Response;
use axum::routing::{get, post};
use cached::cached;
use forms::{delete, form, login, order, session, shop, submit};
use hazards::{anchors, button, download, fetch_then_go, overlay, poll, pressed, rerender, upload};
use held::{data, events, gate, never, slow};
use interaction::{
    auth, counted, drag, editor, form_full, hover_menu, infinite, nested_frames, offscreen, pdf, print, select, shadow,
    shift,
};
use loading::{busy, fetches, spa, stream};
use navigation::{js_redirect, meta_refresh, redirect, reset, status};
use pages::{close_self, counter, dialog, frame, injected, late, link, page, popup};
use std::collections::HashMap;

type Query_ = Query<HashMap<String, String>>;
type Page = Result<Response, BadParam>;

/// The routes with their parameters, as the table of `docs/gherkin-language.md` lists them (a
/// test holds the two together); `navguard-site` prints them. The router also serves what some
/// of them post to: `/session` (`/login`), `/order` and `/delete` (`/shop`).
pub const ROUTES: &[&str] = &[
    "/page?title=T&go=U&blank=U&open=U&bfcache=no",
    "/slow?delay=MS&title=T&bfcache=no",
    "/never",
    "/gate?name=N&title=T&bfcache=no",
    "/redirect?to=URL&status=302&delay=MS",
    "/meta-refresh?to=URL&after=S",
    "/js-redirect?to=URL&after=MS",
    "/link?to=URL&target=_blank",
    "/form?action=URL&method=post&label=L",
    "/submit?delay=MS&title=T",
    "/close-self?after=MS",
    "/popup?to=URL&after=MS",
    "/status?code=N",
    "/reset",
    "/late?after=MS&text=T",
    "/counter",
    "/fetches?count=N&delay=MS&title=T",
    "/stream?delay=MS",
    "/spa?title=T&delay=MS&trickle=MS&page=P",
    "/busy?ms=MS",
    "/login?next=URL",
    "/shop",
    "/injected",
    "/frame?src=URL&title=T",
    "/dialog?kind=K&after=MS&title=T&message=M",
    "/data?delay=MS&trickle=MS",
    "/events",
    "/download?name=F&delay=MS",
    "/overlay?label=L&after=MS",
    "/fetch-then-go?delay=MS&to=URL&gate=N",
    "/poll?every=MS&title=T",
    "/button?label=L&title=T",
    "/anchors?title=T",
    "/upload?title=T",
    "/cached?title=T&go=U",
    "/rerender?label=L&delay=MS&title=T",
    "/offscreen?at=A",
    "/select?kind=K&revert=MS&late=MS",
    "/shadow?depth=N&mode=M",
    "/drag?kind=K",
    "/hover-menu?close=MS",
    "/infinite?batch=N&delay=MS",
    "/editor?kind=K",
    "/form-full",
    "/shift?after=MS&on=pointer",
    "/print",
    "/nested-frames?depth=N&cross=yes",
    "/pdf?inline=yes",
    "/auth?user=U&pass=P",
];

/// The router of one origin.
pub fn app(state: SiteState) -> Router {
    Router::new()
        .route("/page", get(page))
        .route("/slow", get(slow))
        .route("/never", get(never))
        .route("/gate", get(gate).post(gate))
        .route("/redirect", get(redirect))
        .route("/meta-refresh", get(meta_refresh))
        .route("/js-redirect", get(js_redirect))
        .route("/link", get(link))
        .route("/form", get(form))
        .route("/submit", get(submit).post(submit))
        .route("/close-self", get(close_self))
        .route("/popup", get(popup))
        .route("/status", get(status))
        .route("/reset", get(reset))
        .route("/late", get(late))
        .route("/counter", get(counter))
        .route("/fetches", get(fetches))
        .route("/stream", get(stream))
        .route("/events", get(events))
        .route("/data", get(data))
        .route("/spa", get(spa))
        .route("/busy", get(busy))
        .route("/login", get(login))
        .route("/session", post(session))
        .route("/shop", get(shop))
        .route("/order", get(order).post(order))
        .route("/delete", get(delete).post(delete))
        .route("/injected", get(injected))
        .route("/frame", get(frame))
        .route("/dialog", get(dialog))
        .route("/download", get(download))
        .route("/overlay", get(overlay))
        .route("/fetch-then-go", get(fetch_then_go))
        .route("/poll", get(poll))
        .route("/button", get(button))
        .route("/pressed", get(pressed))
        .route("/anchors", get(anchors))
        .route("/upload", get(upload))
        .route("/cached", get(cached))
        .route("/rerender", get(rerender))
        .route("/offscreen", get(offscreen))
        .route("/select", get(select))
        .route("/shadow", get(shadow))
        .route("/drag", get(drag))
        .route("/hover-menu", get(hover_menu))
        .route("/infinite", get(infinite))
        .route("/editor", get(editor))
        .route("/form-full", get(form_full))
        .route("/shift", get(shift))
        .route("/print", get(print))
        .route("/nested-frames", get(nested_frames))
        .route("/pdf", get(pdf))
        .route("/auth", get(auth))
        .route("/bought", get(counted))
        .route("/ad", get(counted))
        .with_state(state)
}
