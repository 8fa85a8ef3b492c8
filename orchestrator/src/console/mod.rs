//! The console (docs/orchestrator.md, "The console"): the page a person keeps open beside the
//! agent, listing the tasks, what waits for them (a high-risk action to confirm, a site to
//! allow) with why, the page it is on and its latest screenshot, and Approve / Deny.
//!
//! Who may open it: whoever has the token URL `navguard serve` prints. Opening it once sets a
//! session cookie (HttpOnly, so no script reads it; SameSite=Strict, so no other site's page
//! sends it) and redirects to `/console`; without one the console answers 401. The page's
//! buttons call the same API as any client, with the cookie instead of the bearer secret, and
//! with the session's CSRF token in `X-CSRF-Token`: a request that changes something with the
//! cookie alone is refused (403), so a page elsewhere cannot make the browser approve anything.

mod page;

use crate::audit::{Client, ClientKind};
use std::collections::VecDeque;
use std::sync::Mutex;

/// The session cookie's name.
pub const COOKIE: &str = "navguard_console";
/// The header a console request that changes something carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// Sessions kept at once: the oldest is forgotten when one more is opened.
const MAX_SESSIONS: usize = 32;

pub use page::routes;

/// Why the console could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConsoleError {
    #[error("the operating system's random generator failed: {0}")]
    Random(String),
}

/// A random token: 32 hex digits (128 bits) from the operating system's generator.
fn random_token() -> Result<String, ConsoleError> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ConsoleError::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// One browser's session: its cookie's value and the CSRF token its page holds.
#[derive(Clone, Debug)]
pub struct Session {
    id: String,
    csrf: String,
    /// Its number since the service started: the console client's id in the audit.
    number: u64,
}

impl Session {
    /// The CSRF token the session's page holds.
    pub fn csrf(&self) -> &str {
        &self.csrf
    }

    /// The client its requests are made as: the audit names them.
    pub fn client(&self, user_agent: Option<String>) -> Client {
        Client { kind: ClientKind::Console, id: format!("console-{}", self.number), browser: None, user_agent }
    }

    /// Whether `given` is this session's CSRF token (compared in constant time).
    pub fn csrf_is(&self, given: &str) -> bool {
        same_secret(given.as_bytes(), self.csrf.as_bytes())
    }
}

/// The console's token and its sessions (in memory: a restart prints a new token).
#[derive(Debug)]
pub struct Console {
    token: String,
    sessions: Mutex<(VecDeque<Session>, u64)>,
}

impl Console {
    pub fn new() -> Result<Self, ConsoleError> {
        Ok(Self { token: random_token()?, sessions: Mutex::default() })
    }

    /// The token the console URL carries.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether `given` is the token (compared in constant time).
    fn token_is(&self, given: &str) -> bool {
        same_secret(given.as_bytes(), self.token.as_bytes())
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, (VecDeque<Session>, u64)> {
        // A panic while the list was held cannot leave it half changed (a push or a pop is whole).
        self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new session, for a browser that opened the token URL.
    fn open_session(&self) -> Result<Session, ConsoleError> {
        let (id, csrf) = (random_token()?, random_token()?);
        let mut sessions = self.sessions();
        sessions.1 += 1;
        let session = Session { id, csrf, number: sessions.1 };
        if sessions.0.len() == MAX_SESSIONS {
            sessions.0.pop_front();
        }
        sessions.0.push_back(session.clone());
        Ok(session)
    }

    /// The session a request's `Cookie` header names, if it names one of ours.
    pub fn session_of(&self, headers: &axum::http::HeaderMap) -> Option<Session> {
        let given: Vec<String> = headers
            .get_all(axum::http::header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('=').map(str::to_owned))
            .collect();
        let sessions = self.sessions();
        sessions.0.iter().find(|s| given.iter().any(|g| same_secret(g.as_bytes(), s.id.as_bytes()))).cloned()
    }
}

/// Constant-time comparison: how long it takes does not say how much of the secret matched.
pub(crate) fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    let mut diff = given.len() ^ secret.len();
    for (i, s) in secret.iter().enumerate() {
        diff |= usize::from(given.get(i).copied().unwrap_or(0) ^ s);
    }
    diff == 0
}

#[cfg(test)]
mod tests;
