//! Every tab of a port is a focused page to itself (Chromium). A person's new tab puts the
//! agent's tab in the background, and Chromium then holds a pointer input to that tab about
//! 5 s before it delivers it (measured: `input.performActions` 5,061 ms against 52 ms). BiDi
//! has no command for that; Chromium's DevTools has focus emulation, which Chrome DevTools MCP
//! turns on for every page for the same reason, and which changes nothing a person sees: the
//! user's tab stays in front. Firefox delivers input to a background tab at once and has no
//! such command: the first `unknown command` turns the emulation off for the port.

use crate::bidi::modules::browsing_context::ContextId;
use crate::bidi::modules::goog_cdp::{GetSession, SendCommand};
use crate::bidi::{BidiClient, BidiError, ErrorCode, RemoteError};
use crate::browser::TabId;
use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The tabs whose page emulates focus, and whether the browser can.
#[derive(Debug, Default)]
pub(super) struct FocusEmulation {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    unsupported: bool,
    done: HashSet<TabId>,
}

impl State {
    /// Whether nothing is to be sent for `tab`: its emulation is on, or the browser has none.
    fn is_known(&self, tab: &TabId) -> bool {
        self.unsupported || self.done.contains(tab)
    }
}

impl FocusEmulation {
    /// Turns focus emulation on for `tab` unless it is on already (or the browser cannot). A
    /// failure only costs the wait it would have saved: the input goes on either way.
    pub(super) async fn ensure(&self, client: &BidiClient, tab: &TabId, deadline: Duration) {
        if self.state().is_known(tab) {
            return;
        }
        match emulate_focus(client, tab, deadline).await {
            Ok(()) => {
                self.state().done.insert(tab.clone());
            }
            Err(BidiError::Remote { error: RemoteError { code: ErrorCode::UnknownCommand, .. }, .. }) => {
                self.state().unsupported = true;
            }
            Err(e) => tracing::debug!(target: "navguard::adapter", %tab, error = %e, "no focus emulation"),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

async fn emulate_focus(client: &BidiClient, tab: &TabId, deadline: Duration) -> Result<(), BidiError> {
    let found = client.send(&GetSession { context: ContextId(tab.0.clone()) }, deadline).await?;
    let Some(session) = found.session else { return Ok(()) };
    let command = SendCommand {
        method: "Emulation.setFocusEmulationEnabled",
        params: serde_json::json!({ "enabled": true }),
        session,
    };
    client.send(&command, deadline).await.map(|_| ())
}
