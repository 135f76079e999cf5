//! Multi round-trip requests (MRTR, 2026-07-28): the core's `InputRequest` and
//! `InputRequired` as Python objects.
//!
//! The Python classes `ferrite_mcp.InputRequest` / `ferrite_mcp.InputRequired` wrap these:
//! every input request is built here from Python values into the core's type (serde), so
//! its wire shape is the core's, never spelled out in Python. A handler that returns an
//! `InputRequired` hands the core value itself back across the bridge (see
//! `bridge::Returned`): the core decides how it reaches the client (an `input_required`
//! result on 2026-07-28, real server-to-client requests on a handshake-era session).

use ferrite_core::{CreateMessageParams, InputRequest, InputRequired};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

use crate::convert;

/// One request the handler needs the client to answer (elicitation, sampling, roots).
#[pyclass(name = "InputRequest", module = "ferrite_mcp._ferrite", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyInputRequest {
    pub inner: InputRequest,
}

#[pymethods]
impl PyInputRequest {
    /// A form elicitation (`elicitation/create`, form mode) with a JSON Schema.
    #[staticmethod]
    fn elicit(message: String, requested_schema: &Bound<'_, PyAny>) -> PyResult<Self> {
        let schema = convert::from_py(requested_schema)?;
        if !schema.is_object() {
            return Err(PyValueError::new_err("an elicitation's schema must be a JSON object"));
        }
        Ok(PyInputRequest { inner: InputRequest::elicit(message, schema) })
    }

    /// A URL elicitation (`elicitation/create`, URL mode).
    #[staticmethod]
    fn elicit_url(message: String, url: String) -> Self {
        PyInputRequest { inner: InputRequest::elicit_url(message, url) }
    }

    /// A sampling request (`sampling/createMessage`) from its params (camelCase, as on the
    /// wire; checked against the core's `CreateMessageParams`).
    #[staticmethod]
    fn sample(params: &Bound<'_, PyAny>) -> PyResult<Self> {
        let params: CreateMessageParams = serde_json::from_value(convert::from_py(params)?)
            .map_err(|e| PyValueError::new_err(format!("invalid sampling parameters: {e}")))?;
        Ok(PyInputRequest { inner: InputRequest::sample(params) })
    }

    /// A roots request (`roots/list`).
    #[staticmethod]
    fn list_roots() -> Self {
        PyInputRequest { inner: InputRequest::list_roots() }
    }

    /// The JSON-RPC method the client answers.
    #[getter]
    fn method(&self) -> &'static str {
        self.inner.method()
    }

    /// The client capability it needs, as a `ClientCapabilities` object
    /// (e.g. `{"elicitation": {"url": {}}}`).
    #[getter]
    fn required_capability<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.required_capability().0)
    }

    /// The wire shape (`{"method": ..., "params": ...}`), serialized by the core's type.
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(&self.inner).map_err(|e| PyValueError::new_err(e.to_string()))?;
        convert::to_py(py, &v)
    }

    fn __repr__(&self) -> String {
        let v = serde_json::to_value(&self.inner).unwrap_or(Value::Null);
        format!("InputRequest({v})")
    }
}

/// "Input required": the core value a handler's `InputRequired` becomes when it returns.
#[pyclass(name = "InputRequired", module = "ferrite_mcp._ferrite", frozen)]
pub struct PyInputRequired {
    pub inner: InputRequired,
}

#[pymethods]
impl PyInputRequired {
    /// `requests` maps keys to `InputRequest`s (in order); `state` is the text to carry to
    /// the retry, if any.
    #[new]
    #[pyo3(signature = (requests, state=None))]
    fn new(requests: &Bound<'_, PyDict>, state: Option<String>) -> PyResult<Self> {
        let mut ir = InputRequired::new();
        for (key, request) in requests.iter() {
            let key: String = key.extract()?;
            let request = request
                .cast::<PyInputRequest>()
                .map_err(|_| PyValueError::new_err(format!("input request {key:?} is not an InputRequest")))?;
            ir = ir.ask(key, request.get().inner.clone());
        }
        if let Some(state) = state {
            ir = ir.with_state(state);
        }
        Ok(PyInputRequired { inner: ir })
    }

    /// The keys of the input requests, in order.
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.inner.input_requests.keys().cloned().collect()
    }

    /// The state carried to the retry, if any.
    #[getter]
    fn state(&self) -> Option<String> {
        self.inner.request_state.clone()
    }
}

/// The JSON text of a value, as the core's `InputRequired::with_state_json` writes it.
#[pyfunction]
pub fn state_json(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let v = convert::from_py(value)?;
    let ir = InputRequired::new().with_state_json(&v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(ir.request_state.unwrap_or_default())
}
