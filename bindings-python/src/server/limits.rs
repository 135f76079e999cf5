//! The dispatch limits of a live server (the core's `Limits`) from Python: a dict of the
//! core's keys in, the limits in force out as a dict. A third `#[pymethods]` block (pyo3's
//! `multiple-pymethods`). The core checks every value and words every refusal; this raises it
//! as `ConfigError`.

use pyo3::prelude::*;

use super::Core;
use crate::{convert, errors};

#[pymethods]
impl Core {
    /// Change the limits named in `limits` (a dict of the core's keys, snake_case or camelCase;
    /// `None` values keep theirs); the limits now in force. A bad one raises `ConfigError`
    /// with the core's message, changing nothing.
    fn set_limits<'py>(&self, py: Python<'py>, limits: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let value = convert::from_py(limits)?;
        let now = self.server.set_limits_json(value).map_err(|e| errors::config_msg(py, &e.to_string()))?;
        convert::to_py(py, &now.to_json())
    }

    /// The limits in force, every key (snake_case).
    #[getter]
    fn limits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.server.limits().to_json())
    }

    /// Requests running now in the whole server (what `max_in_flight` bounds).
    #[getter]
    fn in_flight(&self) -> usize {
        self.server.in_flight()
    }
}
