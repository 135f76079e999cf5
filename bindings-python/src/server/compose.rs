//! Composition and proxying: one `Core`'s registrations served by another under a prefix,
//! and a `Core` in front of another MCP server. The core's `Server::mount` copies, renames and
//! keeps the mount live, and `ferrite_core::proxy` does all a proxy does; this converts
//! arguments. A mounted core's handlers still run on its own executor, so closing it unmounts
//! it first (see `Core::shutdown`).

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

    /// Serve what the upstream `spec` describes serves (`{"command", "args", "env"}` or
    /// `{"url", "headers"}`, with `"era"`), connecting now with the GIL released. A
    /// description of no upstream raises `ConfigError`; an upstream that cannot be started,
    /// reached or initialized raises `UpstreamError`.
    fn proxy(&self, py: Python<'_>, spec: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open(py)?;
        let spec = crate::convert::from_py(spec)?;
        let server = self.server.clone();
        let join = self.handle.spawn(async move { server.proxy_upstream(&spec).await.map(drop) });
        let out = py
            .detach(|| self.handle.block_on(join))
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("the proxy set-up was dropped: {e}")))?;
        out.map_err(|e| match e {
            ferrite_core::proxy::ProxyError::Target(_) => errors::config_msg(py, &e.to_string()),
            _ => errors::message_err(py, "UpstreamError", &e.to_string()),
        })
    }
}
