//! Composition: one `Core`'s registrations served by another under a prefix. The core's
//! `Server::mount` copies, renames and keeps the mount live; this converts arguments. A
//! mounted core's handlers still run on its own executor, so closing it unmounts it first
//! (see `Core::shutdown`).

use pyo3::prelude::*;

use super::Core;
use crate::errors;

#[pymethods]
impl Core {
    /// Serve `child`'s tools, prompts, resources, templates and completions under `prefix`
    /// (`{prefix}_{name}`, `scheme://{prefix}/rest`; `""` keeps the names). A bad prefix or a
    /// cycle raises `ConfigError` with the core's message.
    fn mount(&self, py: Python<'_>, prefix: &str, child: PyRef<'_, Core>) -> PyResult<()> {
        self.check_open(py)?;
        child.check_open(py)?;
        self.server.mount(prefix, &child.server).map_err(|e| errors::config_err(py, &e))
    }

    /// Stop serving what `child` was mounted with under `prefix`; whether it was mounted.
    fn unmount(&self, prefix: &str, child: PyRef<'_, Core>) -> bool {
        self.server.unmount(prefix, &child.server)
    }
}
