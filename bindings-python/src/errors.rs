//! Errors across the boundary, both ways.
//!
//! The exception classes live in Python (`ferrite_mcp/errors.py`) so users can subclass and
//! document them like any Python exception; this module looks them up once and maps:
//! - a handler's exception to the core's [`HandlerError`]: an `McpError` (code, message,
//!   data) becomes the JSON-RPC error it describes, anything else becomes `Failed` with the
//!   exception's message (an `isError` result for tools, `-32603` for the rest);
//! - the core's [`PeerError`] (server-to-client requests) and [`ConfigError`] to instances of
//!   the package's classes.

use ferrite_core::server::PeerError;
use ferrite_core::{ConfigError, ErrorObject, HandlerError};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

use crate::convert;

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The package's exception class `name` (from `ferrite_mcp.errors`).
pub fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let module = ERRORS.get_or_try_init(py, || py.import("ferrite_mcp.errors").map(Bound::unbind))?;
    module.bind(py).getattr(name)
}

/// An exception of the package's class `name`, or a `RuntimeError` when the class cannot be
/// found (the Python half of the package is missing).
fn new_err(py: Python<'_>, name: &str, args: impl for<'a> FnOnce(Python<'a>) -> PyResult<Bound<'a, PyAny>>) -> PyErr {
    let made = class(py, name).and_then(|cls| {
        let a = args(py)?;
        cls.call1((a,))
    });
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => PyRuntimeError::new_err(format!("ferrite_mcp.errors.{name} is unavailable: {e}")),
    }
}

/// A message exception of class `name`.
pub fn message_err(py: Python<'_>, name: &str, message: &str) -> PyErr {
    let message = message.to_owned();
    new_err(py, name, move |py| Ok(pyo3::types::PyString::new(py, &message).into_any()))
}

/// The core's configuration error as `ferrite_mcp.ConfigError` (every variant: invalid
/// schemas and templates, unknown tools and resources, invalid `x-mcp-header` annotations,
/// reserved method names, invalid extension ids, features a mode forbids).
pub fn config_err(py: Python<'_>, e: &ConfigError) -> PyErr {
    config_msg(py, &e.to_string())
}

/// A configuration mistake found by the binding, as `ferrite_mcp.ConfigError`.
pub fn config_msg(py: Python<'_>, message: &str) -> PyErr {
    message_err(py, "ConfigError", message)
}

/// `ferrite_mcp.InvalidParamsError` (sent as `-32602` when a handler lets it propagate).
pub fn invalid_params(py: Python<'_>, message: &str) -> PyErr {
    message_err(py, "InvalidParamsError", message)
}

/// A server-to-client request failure as the matching `ferrite_mcp.PeerError` subclass.
pub fn peer_err(py: Python<'_>, e: &PeerError) -> PyErr {
    match e {
        PeerError::Rpc(obj) => rpc_err(py, "ClientError", obj),
        PeerError::NoChannel => message_err(py, "NoChannelError", &e.to_string()),
        PeerError::Stateless => message_err(py, "StatelessError", &e.to_string()),
        PeerError::MissingCapability(_) => message_err(py, "MissingCapabilityError", &e.to_string()),
        PeerError::Closed => message_err(py, "ConnectionClosedError", &e.to_string()),
        PeerError::Malformed(_) | PeerError::InvalidAnswer(_) => {
            message_err(py, "MalformedResponseError", &e.to_string())
        }
        PeerError::UseInputRequired => message_err(py, "UseInputRequiredError", &e.to_string()),
        PeerError::Timeout => message_err(py, "RequestTimeoutError", &e.to_string()),
        PeerError::Cancelled => message_err(py, "RequestCancelledError", &e.to_string()),
        PeerError::InvalidElicitation(_) => message_err(py, "InvalidElicitationError", &e.to_string()),
        _ => message_err(py, "PeerError", &e.to_string()),
    }
}

/// The core's `-32042` error object for these URL elicitations (each a dict with `message`,
/// `url` and `elicitation_id`), as `(code, message, data)` for `UrlElicitationRequiredError`:
/// its wire shape is the core's `ErrorObject::url_elicitation_required`.
#[pyfunction]
pub fn url_elicitation_required<'py>(
    py: Python<'py>,
    elicitations: Vec<Bound<'py, PyAny>>,
) -> PyResult<(i32, String, Bound<'py, PyAny>)> {
    let mut params = Vec::with_capacity(elicitations.len());
    for e in &elicitations {
        let text = |key: &str| -> PyResult<Option<String>> {
            match e.get_item(key) {
                Ok(v) if v.is_none() => Ok(None),
                Ok(v) => v.extract().map(Some),
                Err(_) => Ok(None),
            }
        };
        let (Some(message), Some(url)) = (text("message")?, text("url")?) else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "a URL elicitation needs a message and a url (and an elicitation_id)",
            ));
        };
        let elicitation_id = text("elicitation_id")?;
        params.push(ferrite_core::ElicitRequestParams::Url { message, url, elicitation_id }.to_params(true));
    }
    let obj = ErrorObject::url_elicitation_required(params);
    let data = match &obj.data {
        Some(d) => convert::to_py(py, d)?,
        None => py.None().into_bound(py),
    };
    Ok((obj.code, obj.message, data))
}

/// A JSON-RPC error object as an instance of `name` (`McpError` or `ClientError`), whose
/// constructor takes `(code, message, data)`.
pub fn rpc_err(py: Python<'_>, name: &str, obj: &ErrorObject) -> PyErr {
    let made = class(py, name).and_then(|cls| {
        let data = match &obj.data {
            Some(d) => convert::to_py(py, d)?,
            None => py.None().into_bound(py),
        };
        cls.call1((obj.code, obj.message.as_str(), data))
    });
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => PyRuntimeError::new_err(format!("ferrite_mcp.errors.{name} is unavailable: {e}")),
    }
}

/// A handler's exception as the core's error.
pub fn to_handler_error(py: Python<'_>, err: &PyErr) -> HandlerError {
    if let Ok(cls) = class(py, "_InvalidResult") {
        if err.is_instance(py, &cls) {
            return invalid_result(py, err);
        }
    }
    if let Ok(cls) = class(py, "McpError") {
        if err.is_instance(py, &cls) {
            if let Some(obj) = rpc_object(py, err) {
                return HandlerError::Rpc(obj);
            }
        }
    }
    HandlerError::Failed(message_of(py, err))
}

/// A handler's return value that cannot become its result (the package's conversion raised
/// `_InvalidResult`, or the value is not JSON): the core's invalid result, `-32603`.
pub fn invalid_result(py: Python<'_>, err: &PyErr) -> HandlerError {
    HandlerError::invalid_result(message_of(py, err))
}

/// The `(code, message, data)` an `McpError` carries.
fn rpc_object(py: Python<'_>, err: &PyErr) -> Option<ErrorObject> {
    let value = err.value(py);
    let code: i32 = value.getattr("code").ok()?.extract().ok()?;
    let message: String = value.getattr("message").ok()?.extract().ok()?;
    let mut obj = ErrorObject::new(code, message);
    if let Ok(data) = value.getattr("data") {
        if !data.is_none() {
            obj.data = convert::from_py(&data).ok();
        }
    }
    Some(obj)
}

/// The text of an exception: `str(exc)`, or the class name when that is empty.
pub fn message_of(py: Python<'_>, err: &PyErr) -> String {
    let value = err.value(py);
    let text = value.str().map(|s| s.to_string()).unwrap_or_default();
    if text.is_empty() {
        convert::type_name(value.as_any())
    } else {
        text
    }
}
