//! Per-session state: one Python dict per connection (`ctx.session_state`), alive as long as
//! the core's `ConnectionState` it belongs to.
//!
//! The core owns connection states (a stdio process, an HTTP session, the transient state of
//! a stateless or 2026-07-28 request), so the dict follows the state: a weak reference finds
//! it again from the next request of the same session, and entries whose state is gone are
//! dropped when a new one is added. On a stateless request the state is the request's own,
//! so the dict lives as long as that request.

use std::sync::{Arc, Mutex, Weak};

use ferrite_core::server::ConnectionState;
use ferrite_core::sync::lock;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The dicts of the sessions of one server.
#[derive(Default)]
pub struct SessionStates {
    entries: Mutex<Vec<(Weak<ConnectionState>, Py<PyDict>)>>,
}

impl SessionStates {
    /// The dict of the session `conn` belongs to, made on first use.
    pub fn get<'py>(&self, py: Python<'py>, conn: &Arc<ConnectionState>) -> Bound<'py, PyDict> {
        let mut entries = lock(&self.entries);
        if let Some((_, d)) =
            entries.iter().find(|(w, _)| w.strong_count() > 0 && std::ptr::eq(w.as_ptr(), Arc::as_ptr(conn)))
        {
            return d.bind(py).clone();
        }
        entries.retain(|(w, _)| w.strong_count() > 0);
        let d = PyDict::new(py);
        entries.push((Arc::downgrade(conn), d.clone().unbind()));
        d
    }

    /// Forget every session's state (the server is closing).
    pub fn clear(&self) {
        lock(&self.entries).clear();
    }
}
