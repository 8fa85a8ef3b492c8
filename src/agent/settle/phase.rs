//! What a waiting call waits for right now: the call sets it, the watchdog
//! (`reliability/watchdog.rs`) reads it for its progress reports. It sits with the waits, below
//! the tools and the round that set it and the watchdog that reads it.

use std::sync::{Arc, Mutex, PoisonError};

/// What a call is waiting for right now, as progress reports say it. Shared between the call
/// (which sets it) and the watchdog (which reads it).
#[derive(Clone, Debug, Default)]
pub(in crate::agent) struct Phase(Arc<Mutex<Option<String>>>);

impl Phase {
    /// The call now waits for `what` ("the navigation to commit").
    pub(in crate::agent) fn set(&self, what: impl Into<String>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(what.into());
    }

    /// What the call waits for, if it said.
    pub(in crate::agent) fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
