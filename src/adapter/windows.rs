//! Firefox's windows, lent from one user context to the next. Each user context's tabs open in
//! a window of their own, so that they are never behind another context's tab (a tab behind
//! another draws no frames). Opening a Firefox window loads the browser's whole window UI in
//! its parent process, which cost about half of that process's time over a run of scenarios
//! (docs/running.md, "Where the time goes"). So a window, once made, is kept: it holds a blank
//! tab of the browser's default user context (the **stand-in**), and a user context that needs
//! a window opens its first tab beside a free stand-in, in front of it. When the user context
//! is removed its tabs close, and the window, with its stand-in, is free for the next one.
//!
//! Chromium cannot do this (a window belongs to one user context) and does not need it (a new
//! window costs it no more than a tab), so only Firefox's ports get a pool.

use crate::bidi::modules::browsing_context::Create;
use crate::bidi::{BidiClient, BidiError};
use crate::browser::TabId;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The stand-ins of the windows no user context holds now.
#[derive(Debug, Default)]
pub(super) struct WindowPool {
    free: Mutex<Vec<TabId>>,
}

impl WindowPool {
    /// A free window's stand-in, or a new window's.
    async fn take(&self, client: &BidiClient, deadline: Duration) -> Result<TabId, BidiError> {
        if let Some(stand_in) = self.free.lock().unwrap_or_else(PoisonError::into_inner).pop() {
            return Ok(stand_in);
        }
        let window = Create { kind: "window", reference_context: None, background: true, user_context: None };
        Ok(TabId(client.send(&window, deadline).await?.context.0))
    }

    fn give_back(&self, stand_in: TabId) {
        self.free.lock().unwrap_or_else(PoisonError::into_inner).push(stand_in);
    }
}

/// One user context's hold on a window of the pool: taken when its first tab is made, given
/// back when the user context is gone.
#[derive(Clone, Debug)]
pub(super) struct WindowLease {
    pool: Arc<WindowPool>,
    held: Arc<Mutex<Option<TabId>>>,
}

impl WindowLease {
    pub(super) fn from(pool: &Arc<WindowPool>) -> Self {
        Self { pool: Arc::clone(pool), held: Arc::default() }
    }

    /// The tab a user context's first tab opens beside: its window's stand-in, taken from the
    /// pool the first time (a user context whose tabs all closed opens its next one in the
    /// same window).
    pub(super) async fn beside(&self, client: &BidiClient, deadline: Duration) -> Result<TabId, BidiError> {
        if let Some(stand_in) = self.held.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            return Ok(stand_in);
        }
        let stand_in = self.pool.take(client, deadline).await?;
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        // Two first tabs made at once: one window is enough; the other goes back.
        match held.as_ref() {
            Some(first) => {
                self.pool.give_back(stand_in);
                Ok(first.clone())
            }
            None => {
                *held = Some(stand_in.clone());
                Ok(stand_in)
            }
        }
    }

    /// The user context is gone, its tabs with it: its window is free again.
    pub(super) fn end(&self) {
        if let Some(stand_in) = self.held.lock().unwrap_or_else(PoisonError::into_inner).take() {
            self.pool.give_back(stand_in);
        }
    }
}
