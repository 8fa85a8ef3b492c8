//! The browser clients a conversation may use, by id.

use crate::browser::BrowserPort;
use std::sync::{Arc, Mutex};

/// The registered browser clients, in registration order.
#[derive(Default)]
pub struct Clients {
    clients: Mutex<Vec<(String, Arc<dyn BrowserPort>)>>,
}

impl std::fmt::Debug for Clients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.lock().iter().map(|(id, _)| id)).finish()
    }
}

impl Clients {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Arc<dyn BrowserPort>)>> {
        self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers (or replaces) a client.
    pub fn register(&self, id: &str, port: Arc<dyn BrowserPort>) {
        let mut clients = self.lock();
        clients.retain(|(c, _)| c != id);
        clients.push((id.to_owned(), port));
    }

    /// Removes a client (it went away); `false` if it was not registered.
    pub fn unregister(&self, id: &str) -> bool {
        let mut clients = self.lock();
        let before = clients.len();
        clients.retain(|(c, _)| c != id);
        clients.len() < before
    }

    /// The client `preferred` if registered, else the first other one.
    pub fn pick(&self, preferred: Option<&str>) -> Option<(String, Arc<dyn BrowserPort>)> {
        let clients = self.lock();
        let chosen = preferred.and_then(|p| clients.iter().find(|(c, _)| c == p)).or_else(|| clients.first());
        chosen.map(|(id, port)| (id.clone(), Arc::clone(port)))
    }
}
