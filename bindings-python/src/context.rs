//! The per-request context handed to a handler that asks for one: a thin wrapper over the
//! core's `RequestContext`.
//!
//! Everything that only records or sends (logging, progress, notifications) is a plain method:
//! it never waits. Server-to-client requests (sampling, elicitation, roots, any request) run
//! on the server's tokio runtime and report back through a `resolve(error, value)` callable;
//! the Python `Context` class turns that into an awaitable on the caller's event loop.
//! Reading one of the server's resources from a handler (`ctx.read_resource`) goes through
//! the core's own `resources/read`, on a connection of its own.

use std::future::Future;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use ferrite_core::protocol::Request;
use ferrite_core::server::{ConnectionState, NullPeer, Peer, PeerError};
use ferrite_core::sync::{read, write};
use ferrite_core::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitResult, ErrorObject, ListRootsResult,
    LoggingLevel, Message, ProtocolVersion, RequestContext, RequestId, Server,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use crate::sessions::SessionStates;
use crate::{convert, errors};

/// What the request contexts of one server share: the runtime their server-to-client
/// requests run on, the server (for `read_resource`; released at close, so no cycle outlives
/// it) and the per-session state.
pub struct Shared {
    pub runtime: Handle,
    server: RwLock<Option<Server>>,
    pub sessions: SessionStates,
}

impl Shared {
    pub fn new(runtime: Handle, server: Server) -> Self {
        Shared { runtime, server: RwLock::new(Some(server)), sessions: SessionStates::default() }
    }

    fn server(&self) -> Option<Server> {
        read(&self.server).clone()
    }

    /// Drop the server and the session states (the server is closing).
    pub fn release(&self) {
        write(&self.server).take();
        self.sessions.clear();
    }
}

/// `resources/read` of `uri`, answered by the core as for a client, on a connection of its
/// own (no channel back: the reader's notifications are dropped); the result's JSON.
pub async fn read_resource(server: Server, connection_id: String, uri: String) -> Result<Value, ErrorObject> {
    let state = Arc::new(ConnectionState::transient(
        connection_id,
        ProtocolVersion::LATEST_HANDSHAKE,
        ClientCapabilities::default(),
    ));
    let peer: Arc<dyn Peer> = Arc::new(NullPeer);
    let request = Request::new(
        RequestId::String("ferrite-read-resource".to_owned()),
        "resources/read".to_owned(),
        Some(json!({ "uri": uri })),
    );
    match server.handle(Message::Request(request), &state, &peer).await {
        Some(response) => match response.outcome {
            Ok(raw) => serde_json::from_str(raw.get()).map_err(|e| ErrorObject::internal(e.to_string())),
            Err(e) => Err(e),
        },
        None => Err(ErrorObject::internal("the read was cancelled")),
    }
}

/// A wait for a request's cancellation (`RequestContext.on_cancelled`); stopping or dropping
/// it ends the wait.
#[pyclass(module = "ferrite_mcp._ferrite", frozen)]
pub struct CancelWatch {
    stop: CancellationToken,
}

#[pymethods]
impl CancelWatch {
    /// Stop waiting (idempotent).
    fn stop(&self) {
        self.stop.cancel();
    }
}

impl Drop for CancelWatch {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A server-to-client request being asked (`send_request`, `sample`, `elicit`, ...):
/// cancelling it stops the wait, and the core withdraws the request from the client
/// (`notifications/cancelled`) when it was still unanswered. Dropping it does not cancel.
#[pyclass(module = "ferrite_mcp._ferrite", frozen)]
pub struct Asking {
    stop: CancellationToken,
}

#[pymethods]
impl Asking {
    /// Stop waiting for the answer (idempotent); `resolve` is then never called.
    fn cancel(&self) {
        self.stop.cancel();
    }
}

/// The context of one request.
#[pyclass(name = "RequestContext", module = "ferrite_mcp._ferrite", frozen)]
pub struct PyRequestContext {
    ctx: RequestContext,
    shared: Arc<Shared>,
}

impl PyRequestContext {
    pub fn new(ctx: RequestContext, shared: Arc<Shared>) -> Self {
        PyRequestContext { ctx, shared }
    }

    /// Run a server-to-client request; report its outcome to `resolve(error, value)`, unless
    /// the returned [`Asking`] is cancelled first.
    fn spawn_request<F>(&self, resolve: Py<PyAny>, fut: F) -> Asking
    where
        F: Future<Output = Result<Value, PeerError>> + Send + 'static,
    {
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        self.shared.runtime.spawn(async move {
            // Dropping `fut` withdraws the request from the client (the core's doing).
            let outcome = tokio::select! {
                outcome = fut => outcome,
                () = stopped.cancelled() => return,
            };
            // `try_attach` fails only while the interpreter shuts down: nobody is waiting then.
            let _ = Python::try_attach(|py| {
                let args = match &outcome {
                    Ok(v) => convert::to_py(py, v).map(|v| (py.None().into_bound(py), v)),
                    Err(e) => {
                        Ok((errors::peer_err(py, e).into_value(py).into_bound(py).into_any(), py.None().into_bound(py)))
                    }
                };
                let called = args.and_then(|a| resolve.bind(py).call1(a));
                if let Err(e) = called {
                    e.write_unraisable(py, None);
                }
            });
        });
        Asking { stop }
    }
}

/// Decode an input response through the core's result type `T` (validating its shape), and
/// hand the normalized JSON to Python; a wrong shape is `InvalidParamsError`.
fn decoded<'py, T: DeserializeOwned + Serialize>(
    py: Python<'py>,
    ctx: &RequestContext,
    key: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match ctx.input_response_as::<T>(key) {
        None => Ok(None),
        Some(Err(e)) => Err(errors::invalid_params(py, &e)),
        Some(Ok(v)) => {
            let v = serde_json::to_value(v).map_err(|e| errors::invalid_params(py, &e.to_string()))?;
            convert::to_py(py, &v).map(Some)
        }
    }
}

pub(crate) fn level_of(level: &str) -> PyResult<LoggingLevel> {
    LoggingLevel::parse(level).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown log level {level:?}: use debug, info, notice, warning, error, critical, alert or emergency"
        ))
    })
}

#[pymethods]
impl PyRequestContext {
    /// The JSON-RPC id of the request (int or str).
    #[getter]
    fn request_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.ctx.request_id().to_value())
    }

    /// The protocol revision in effect for this request, e.g. `"2025-11-25"`.
    #[getter]
    fn protocol_version(&self) -> String {
        self.ctx.protocol_version().to_string()
    }

    /// A stable identifier of the connection (stdio process, HTTP session).
    #[getter]
    fn connection_id(&self) -> &str {
        self.ctx.connection_id()
    }

    /// The request's `_meta.progressToken`, if any.
    #[getter]
    fn progress_token<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.ctx.progress_token() {
            Some(v) => convert::to_py(py, v),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The caller's verified identity (`{subject, clientId, scopes, expiresAt, issuer,
    /// claims}`, the core's `RequestInfo::to_json()["identity"]`), or None when the request
    /// was not authenticated. Never the token.
    #[getter]
    fn identity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.ctx.identity() {
            Some(id) => convert::to_py(py, &id.to_json()),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The caller's verified subject, or None when the request was not authenticated.
    #[getter]
    fn subject(&self) -> Option<&str> {
        self.ctx.subject()
    }

    /// The request's `_meta`, if any.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.ctx.meta() {
            Some(m) => Ok(convert::map_to_py(py, m)?.into_any()),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// Whether the server is stateless (no server-to-client requests).
    #[getter]
    fn is_stateless(&self) -> bool {
        self.ctx.is_stateless()
    }

    /// Whether the request uses the 2026-07-28 revision (per-request envelope, MRTR).
    #[getter]
    fn is_modern(&self) -> bool {
        self.ctx.is_modern()
    }

    /// Whether the handler runs as a task's body (its cancellation is the task's, its input
    /// requests wait in the task, its notifications are dropped).
    #[getter]
    fn is_task(&self) -> bool {
        self.ctx.is_task()
    }

    /// The client's answers to the input requests, by key (empty on a first call).
    #[getter]
    fn input_responses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        convert::map_to_py(py, self.ctx.input_responses())
    }

    /// The client's answer to input request `key` (the bare result JSON), if any.
    fn input_response<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.ctx.input_responses().get(key).map(|v| convert::to_py(py, v)).transpose()
    }

    /// Whether the client answered input request `key`.
    fn has_input_response(&self, key: &str) -> bool {
        self.ctx.has_input_response(key)
    }

    /// The answer to `key` decoded by the core as `kind` (`"elicit"`: `ElicitResult`,
    /// `"sample"`: `CreateMessageResult`, `"roots"`: `ListRootsResult`), as normalized JSON;
    /// None when not answered; `InvalidParamsError` when it has another shape.
    fn decode_input_response<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        kind: &str,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        match kind {
            "elicit" => decoded::<ElicitResult>(py, &self.ctx, key),
            "sample" => decoded::<CreateMessageResult>(py, &self.ctx, key),
            "roots" => decoded::<ListRootsResult>(py, &self.ctx, key),
            other => Err(PyValueError::new_err(format!("unknown input response kind {other:?}"))),
        }
    }

    /// Whether this call is a retry carrying the client's answers or request state.
    #[getter]
    fn is_resubmission(&self) -> bool {
        self.ctx.is_resubmission()
    }

    /// The request state the handler returned with `InputRequired`, as it wrote it.
    #[getter]
    fn request_state(&self) -> Option<&str> {
        self.ctx.request_state()
    }

    /// The request state parsed as JSON by the core; None when there is none;
    /// `InvalidParamsError` when it is not JSON.
    fn request_state_json<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.ctx.request_state_as::<Value>() {
            None => Ok(None),
            Some(Err(e)) => Err(errors::invalid_params(py, &e)),
            Some(Ok(v)) => convert::to_py(py, &v).map(Some),
        }
    }

    /// The settings of extension `id` the client declared for this request, if it did.
    fn client_extension<'py>(&self, py: Python<'py>, id: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.ctx.client_extension(id).map(|v| convert::to_py(py, &v)).transpose()
    }

    /// What the transport knows about the request (the core's `RequestInfo::to_json()`:
    /// `{method, path, headers, remoteAddr, hostValues, identity}`), or None on stdio and
    /// in-process.
    #[getter]
    fn request_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.ctx.request_info().to_json())
    }

    /// A request header (HTTP only), by case-insensitive name.
    fn header(&self, name: &str) -> Option<String> {
        self.ctx.header(name).map(str::to_owned)
    }

    /// Whether the client cancelled this request.
    fn is_cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Call `resolve(None, None)` from a runtime thread when the client cancels this request
    /// (at once if it already did). The returned watch stops waiting when stopped or dropped,
    /// so a request that completes leaves no task behind.
    fn on_cancelled(&self, resolve: Py<PyAny>) -> CancelWatch {
        let (cancel, stop) = (self.ctx.cancellation_token().clone(), CancellationToken::new());
        let stopped = stop.clone();
        self.shared.runtime.spawn(async move {
            tokio::select! {
                () = cancel.cancelled() => {
                    let _ = Python::try_attach(|py| {
                        if let Err(e) = resolve.bind(py).call1((py.None(), py.None())) {
                            e.write_unraisable(py, None);
                        }
                    });
                }
                () = stopped.cancelled() => {}
            }
        });
        CancelWatch { stop }
    }

    /// Close the transport stream this request's messages ride on (Streamable HTTP: the
    /// POST's SSE stream) while the request keeps running; the client reconnects after
    /// `retry` seconds and receives the rest. False on transports that cannot (stdio).
    #[pyo3(signature = (retry=None))]
    fn close_sse_stream(&self, retry: Option<f64>) -> PyResult<bool> {
        let retry = retry
            .map(|s| {
                Duration::try_from_secs_f64(s).map_err(|e| PyValueError::new_err(format!("invalid retry {s}: {e}")))
            })
            .transpose()?;
        Ok(self.ctx.close_sse_stream(retry))
    }

    /// Whether the client declared a capability, by dotted path (`"sampling"`,
    /// `"elicitation.url"`, `"roots.listChanged"`).
    fn client_supports(&self, capability: &str) -> bool {
        self.ctx.client_supports(capability)
    }

    /// The client's declared capabilities.
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(self.ctx.client_capabilities()).unwrap_or(Value::Null);
        convert::to_py(py, &v)
    }

    /// The client's name and version from `initialize`, if known.
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.ctx.connection().client_info() {
            Some(info) => convert::to_py(py, &serde_json::to_value(info).unwrap_or(Value::Null)),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// Send `notifications/message` at `level` with JSON `data`; whether it was sent (it is
    /// not when logging is off or the level is below the client's minimum).
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, level: &str, data: &Bound<'_, PyAny>, logger: Option<&str>) -> PyResult<bool> {
        Ok(self.ctx.log(level_of(level)?, convert::from_py(data)?, logger))
    }

    /// Log a text message at debug level.
    fn debug(&self, message: &str) -> bool {
        self.ctx.debug(message)
    }
    /// Log a text message at info level.
    fn info(&self, message: &str) -> bool {
        self.ctx.info(message)
    }
    /// Log a text message at warning level.
    fn warning(&self, message: &str) -> bool {
        self.ctx.warning(message)
    }
    /// Log a text message at error level.
    fn error(&self, message: &str) -> bool {
        self.ctx.error(message)
    }

    /// Send `notifications/progress`; false when the request carried no progress token.
    #[pyo3(signature = (progress, total=None, message=None))]
    fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        self.ctx.report_progress(progress, total, message)
    }

    /// Send a notification related to this request (before its response).
    #[pyo3(signature = (method, params=None))]
    fn notify(&self, method: &str, params: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let params = params.map(convert::from_py).transpose()?;
        self.ctx.notify(method, params);
        Ok(())
    }

    /// Send any request to the client; `resolve(error, result)` is called with the outcome.
    #[pyo3(signature = (method, params, resolve))]
    fn send_request(&self, method: String, params: Option<&Bound<'_, PyAny>>, resolve: Py<PyAny>) -> PyResult<Asking> {
        let params = params.map(convert::from_py).transpose()?;
        let ctx = self.ctx.clone();
        Ok(self.spawn_request(resolve, async move { ctx.send_request(&method, params).await }))
    }

    /// `sampling/createMessage` with the given params (camelCase JSON, as on the wire).
    fn sample(&self, params: &Bound<'_, PyAny>, resolve: Py<PyAny>) -> PyResult<Asking> {
        let params: CreateMessageParams = serde_json::from_value(convert::from_py(params)?)
            .map_err(|e| PyValueError::new_err(format!("invalid sampling parameters: {e}")))?;
        let ctx = self.ctx.clone();
        Ok(self.spawn_request(resolve, async move {
            let r = ctx.sample(params).await?;
            serde_json::to_value(r).map_err(|e| PeerError::Malformed(e.to_string()))
        }))
    }

    /// `elicitation/create` in form mode.
    fn elicit(&self, message: String, requested_schema: &Bound<'_, PyAny>, resolve: Py<PyAny>) -> PyResult<Asking> {
        let schema = convert::from_py(requested_schema)?;
        let ctx = self.ctx.clone();
        Ok(self.spawn_request(resolve, async move {
            let r = ctx.elicit(&message, schema).await?;
            serde_json::to_value(r).map_err(|e| PeerError::Malformed(e.to_string()))
        }))
    }

    /// `elicitation/create` in URL mode.
    fn elicit_url(&self, message: String, url: String, elicitation_id: String, resolve: Py<PyAny>) -> Asking {
        let ctx = self.ctx.clone();
        self.spawn_request(resolve, async move {
            let r = ctx.elicit_url(&message, &url, &elicitation_id).await?;
            serde_json::to_value(r).map_err(|e| PeerError::Malformed(e.to_string()))
        })
    }

    /// `notifications/elicitation/complete`: the URL elicitation `elicitation_id` is done.
    fn notify_elicitation_complete(&self, elicitation_id: &str) {
        self.ctx.notify_elicitation_complete(elicitation_id);
    }

    /// `roots/list`.
    fn list_roots(&self, resolve: Py<PyAny>) -> Asking {
        let ctx = self.ctx.clone();
        self.spawn_request(resolve, async move {
            let r = ctx.list_roots().await?;
            serde_json::to_value(r).map_err(|e| PeerError::Malformed(e.to_string()))
        })
    }

    /// The dict of this request's session (the stdio process, the HTTP session; a stateless
    /// or 2026-07-28 request's own), the same object for every request of the session.
    fn session_state<'py>(&self, py: Python<'py>) -> Bound<'py, PyDict> {
        self.shared.sessions.get(py, self.ctx.connection())
    }

    /// Read one of the server's resources as a client would; the `ReadResourceResult` JSON.
    /// Blocks the calling thread without the GIL (call it from a `def` handler).
    fn read_resource<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let server =
            self.shared.server().ok_or_else(|| errors::message_err(py, "ServerClosedError", "the server is closed"))?;
        let id = self.ctx.connection_id().to_owned();
        let runtime = self.shared.runtime.clone();
        let join = runtime.spawn(read_resource(server, id, uri));
        let out = py
            .detach(|| runtime.block_on(join))
            .map_err(|e| PyRuntimeError::new_err(format!("the read was dropped: {e}")))?;
        match out {
            Ok(v) => convert::to_py(py, &v),
            Err(e) => Err(errors::rpc_err(py, "McpError", &e)),
        }
    }

    /// `read_resource` without blocking: `resolve(error, result)` is called from a runtime
    /// thread.
    fn read_resource_async(&self, py: Python<'_>, uri: String, resolve: Py<PyAny>) -> PyResult<()> {
        let server =
            self.shared.server().ok_or_else(|| errors::message_err(py, "ServerClosedError", "the server is closed"))?;
        let id = self.ctx.connection_id().to_owned();
        self.shared.runtime.spawn(async move {
            let out = read_resource(server, id, uri).await;
            let _ = Python::try_attach(|py| {
                let args = match &out {
                    Ok(v) => convert::to_py(py, v).map(|v| (py.None().into_bound(py), v)),
                    Err(e) => Ok((
                        errors::rpc_err(py, "McpError", e).into_value(py).into_bound(py).into_any(),
                        py.None().into_bound(py),
                    )),
                };
                if let Err(e) = args.and_then(|a| resolve.bind(py).call1(a)) {
                    e.write_unraisable(py, None);
                }
            });
        });
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "RequestContext(request_id={}, protocol_version={:?}, connection_id={:?})",
            self.ctx.request_id(),
            self.ctx.protocol_version().to_string(),
            self.ctx.connection_id()
        )
    }
}
