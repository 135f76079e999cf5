//! Ferrite's Python package, `ferrite_mcp`: the compiled half (`ferrite_mcp._ferrite`).
//!
//! This crate is a thin adapter over `ferrite-core`: it converts JSON values, turns Python
//! callables into the core's handler traits, and owns the tokio runtime each server runs on.
//! Everything a user sees (decorators, schema derivation from type hints, result mapping,
//! the awaitable `Context`) is the Python half in `python/ferrite_mcp/`; everything
//! protocol-level (dispatch, validation, pagination, errors, stdio) stays in the core.
//!
//! - [`server`]: the `Core` class (registration, options, notifications, serving).
//! - [`adapters`]: Python callables as the core's handler traits.
//! - [`auth`]: the `auth` configuration and a Python token verifier as the core's.
//! - [`modern`]: the 2026-07-28 settings (request-state keys, cache hints, skills).
//! - [`tasks`]: a tool's task support and the server's task options.
//! - [`mrtr`]: the core's `InputRequest` / `InputRequired` as Python objects.
//! - [`middleware`]: Python middleware in the core's chain, and `call_next`.
//! - [`context`]: the per-request `RequestContext`.
//! - [`bridge`]: how handlers run (blocking pool for `def`, an asyncio loop for `async def`).
//! - [`in_place`]: a `def` call run on the runtime thread that reached it.
//! - [`stdio_loop`]: stdio served from the event loop's thread (servers with `async def` handlers).
//! - [`connection`]: a connection Python holds (the in-memory client, `handle_raw_on`).
//! - [`sessions`]: the per-session state dicts.
//! - [`http`]: the HTTP options, handed to the core's `HttpConfig`.
//! - [`endpoint`]: the core's Streamable HTTP endpoint driven by the ASGI app.
//! - [`convert`]: JSON values between Rust and Python.
//! - [`diagnostics`]: the core's log records into a Python callable (`logging`).
//! - [`errors`]: exceptions to handler errors and core errors to exceptions.

mod adapters;
mod auth;
mod bridge;
mod connection;
mod context;
mod convert;
mod diagnostics;
mod endpoint;
mod errors;
mod http;
mod in_place;
mod middleware;
mod modern;
mod mrtr;
mod server;
mod sessions;
mod stdio_loop;
mod tasks;

use pyo3::prelude::*;

/// Export the pending spans and metrics now (the core's `telemetry::flush`), without the GIL.
#[pyfunction]
fn telemetry_flush(py: Python<'_>) {
    py.detach(ferrite_core::telemetry::flush);
}

/// Export what is pending and stop the exporters (the core's `telemetry::shutdown`).
#[pyfunction]
fn telemetry_shutdown(py: Python<'_>) {
    py.detach(ferrite_core::telemetry::shutdown);
}

/// The compiled module.
#[pymodule]
fn _ferrite(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<server::Core>()?;
    m.add_class::<context::PyRequestContext>()?;
    m.add_class::<context::CancelWatch>()?;
    m.add_class::<context::Asking>()?;
    m.add_class::<bridge::Completion>()?;
    m.add_class::<stdio_loop::StdioLoop>()?;
    m.add_class::<middleware::CallNext>()?;
    m.add_class::<connection::PyConnection>()?;
    m.add_class::<connection::PeerReply>()?;
    m.add_class::<mrtr::PyInputRequest>()?;
    m.add_class::<endpoint::HttpEndpoint>()?;
    m.add_class::<endpoint::HostExchange>()?;
    m.add_class::<mrtr::PyInputRequired>()?;
    m.add_function(wrap_pyfunction!(mrtr::state_json, m)?)?;
    m.add_function(wrap_pyfunction!(diagnostics::set_diagnostics, m)?)?;
    m.add_function(wrap_pyfunction!(telemetry_flush, m)?)?;
    m.add_function(wrap_pyfunction!(telemetry_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(bridge::interpreter_exiting, m)?)?;
    m.add_function(wrap_pyfunction!(errors::url_elicitation_required, m)?)?;
    m.add("CORE_VERSION", env!("CARGO_PKG_VERSION"))?;
    // The headers every surface hides when it shows a request (`RequestInfo`'s repr).
    m.add("SENSITIVE_HEADERS", ferrite_core::server::SENSITIVE_HEADERS.to_vec())?;
    // The sampling default of every surface (`ctx.sample`, `InputRequest.sample`).
    m.add("DEFAULT_MAX_TOKENS", ferrite_core::CreateMessageParams::DEFAULT_MAX_TOKENS)?;
    Ok(())
}
