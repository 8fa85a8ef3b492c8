//! Subscribing to the navigation events the browser knows. Browsers differ in which of the
//! spec's events they implement (Firefox ESR 153 refuses `navigationAborted`), and one unknown
//! name fails the whole `session.subscribe`; the events it does know are still worth having.

use crate::bidi::modules::session::Subscribe;
use crate::bidi::{BidiClient, BidiError, ErrorCode};
use std::time::Duration;

/// Subscribes to `events`; if the browser refuses the list, subscribes to each on its own and
/// returns the names it refused.
pub(super) async fn subscribe_known(
    client: &BidiClient,
    events: &[&str],
    deadline: Duration,
) -> Result<Vec<String>, BidiError> {
    let all = Subscribe { events: events.iter().map(|e| (*e).to_owned()).collect() };
    match client.send(&all, deadline).await {
        Ok(_) => return Ok(Vec::new()),
        Err(e) if e.code() == Some(&ErrorCode::InvalidArgument) => {}
        Err(e) => return Err(e),
    }
    let mut refused = Vec::new();
    for event in events {
        match client.send(&Subscribe { events: vec![(*event).to_owned()] }, deadline).await {
            Ok(_) => {}
            Err(e) if e.code() == Some(&ErrorCode::InvalidArgument) => refused.push((*event).to_owned()),
            Err(e) => return Err(e),
        }
    }
    if !refused.is_empty() {
        tracing::info!(target: "navguard::adapter", "the browser does not send {}", refused.join(", "));
    }
    Ok(refused)
}
