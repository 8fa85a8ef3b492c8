//! Chromium's vendor extension of BiDi (`goog:cdp.*`): a DevTools command sent to a browsing
//! context's own DevTools session, for what BiDi has no command for yet. Firefox answers
//! `unknown command`.

use crate::bidi::command::Command;
use crate::bidi::modules::browsing_context::ContextId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `goog:cdp.getSession`: the DevTools session of a context.
#[derive(Debug, Serialize)]
pub struct GetSession {
    pub context: ContextId,
}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct Session {
    pub session: Option<String>,
}

impl Command for GetSession {
    const METHOD: &'static str = "goog:cdp.getSession";
    type Output = Session;
}

/// `goog:cdp.sendCommand`: a DevTools command in a session.
#[derive(Debug, Serialize)]
pub struct SendCommand {
    pub method: &'static str,
    pub params: Value,
    pub session: String,
}

impl Command for SendCommand {
    const METHOD: &'static str = "goog:cdp.sendCommand";
    type Output = Value;
}
