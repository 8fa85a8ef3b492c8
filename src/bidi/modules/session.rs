//! The `session` module: event subscriptions.
//! <https://w3c.github.io/webdriver-bidi/#module-session>

use crate::bidi::command::{Command, Empty};
use serde::Serialize;

/// `session.subscribe`: deliver these events (for every context).
#[derive(Debug, Serialize)]
pub struct Subscribe {
    /// Event names or module names.
    pub events: Vec<String>,
}

impl Command for Subscribe {
    const METHOD: &'static str = "session.subscribe";
    type Output = serde_json::Value;
}

/// `session.end`: end the session (a BiDi-only session).
#[derive(Debug, Serialize)]
pub struct End {}

impl Command for End {
    const METHOD: &'static str = "session.end";
    type Output = Empty;
}
