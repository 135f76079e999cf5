//! The core's diagnostics (`ferrite_core::diagnostics`) into a Python callable: the package
//! hands each record to Python's `logging` (`ferrite_mcp/diagnostics.py`).

use std::sync::Arc;

use ferrite_core::diagnostics::{self, Level, Record};
use pyo3::prelude::*;

use crate::errors;

/// Send the core's records at `level` (`error`, `warn`/`warning`, `info`, `debug`, `trace`) or
/// more severe to `callback(level, target, message)`; `level=None` or `callback=None` turns
/// them off.
#[pyfunction]
#[pyo3(signature = (level, callback))]
pub fn set_diagnostics(py: Python<'_>, level: Option<&str>, callback: Option<Py<PyAny>>) -> PyResult<()> {
    let (Some(name), Some(callback)) = (level, callback) else {
        diagnostics::uninstall();
        return Ok(());
    };
    let level = Level::parse(name).ok_or_else(|| {
        errors::config_msg(py, &format!("invalid diagnostics level {name:?}: error, warning, info, debug or trace"))
    })?;
    let callback = Arc::new(callback);
    let sink = move |r: &Record<'_>| {
        Python::attach(|py| {
            // A callback that raises loses its record; the thread that emitted it goes on.
            if let Err(e) = callback.call1(py, (r.level.as_str(), r.target, r.message)) {
                e.write_unraisable(py, None);
            }
        })
    };
    diagnostics::install(level, Arc::new(sink)).map_err(|e| errors::config_msg(py, &e.to_string()))
}
