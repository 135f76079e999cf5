//! A connection the Python side holds (`Server.connect()`): the core's `ConnectionState`
//! with a peer whose traffic goes to Python callables, so that Python can serve the server
//! over a channel of its own (the in-memory `Client`, or any transport written in Python),
//! as Rust code does with `Server::handle_raw_on`.
//!
//! - `on_message(frame)` receives what the server sends without being asked (notifications:
//!   log messages, progress, list changes) as JSON text, from the thread that sends it.
//! - `on_request(method, params, reply)` receives the server's requests (sampling,
//!   elicitation, roots, ping); the callable answers later with `reply.resolve(result)` or
//!   `reply.reject(code, message, data)`. The params of `elicitation/create` and
//!   `sampling/createMessage` are read by the core's types first, so Python gets them in one
//!   shape (see [`request_params`]).
//!
//! The connection is registered as a listener, so `server.notify(...)` and
//! `server.ping_client(connection.id)` reach it, until `close()`.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use ferrite_core::protocol::{Notification, Request};
use ferrite_core::server::{ConnectionState, Peer, PeerError};
use ferrite_core::sync::lock;
use ferrite_core::{BoxFuture, CreateMessageParams, ElicitRequestParams, ErrorObject, Message, RequestId};
use pyo3::prelude::*;
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::server::Core;
use crate::{convert, errors};

/// The peer of a Python-held connection.
struct PyPeer {
    on_message: Option<Arc<Py<PyAny>>>,
    on_request: Option<Arc<Py<PyAny>>>,
}

/// The params of a server-to-client request as Python receives them: elicitation and
/// sampling read by the core's types (`mode` spelled out for elicitation), the rest as sent.
fn request_params(method: &str, params: Option<Value>) -> Result<Value, PeerError> {
    let params = params.unwrap_or(Value::Null);
    let bad = |e: serde_json::Error| PeerError::Malformed(format!("{method} params: {e}"));
    match method {
        "elicitation/create" => Ok(match serde_json::from_value::<ElicitRequestParams>(params).map_err(bad)? {
            ElicitRequestParams::Form { message, requested_schema } => {
                json!({"mode": "form", "message": message, "requested_schema": requested_schema})
            }
            ElicitRequestParams::Url { message, url, elicitation_id } => {
                json!({"mode": "url", "message": message, "url": url, "elicitation_id": elicitation_id})
            }
        }),
        "sampling/createMessage" => {
            let p: CreateMessageParams = serde_json::from_value(params).map_err(bad)?;
            serde_json::to_value(p).map_err(bad)
        }
        _ => Ok(params),
    }
}

impl Peer for PyPeer {
    fn send(&self, frame: String) {
        if let Some(cb) = &self.on_message {
            let _ = Python::try_attach(|py| {
                if let Err(e) = cb.call1(py, (frame,)) {
                    e.write_unraisable(py, None);
                }
            });
        }
    }

    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        let cb = self.on_request.clone();
        let method = method.to_owned();
        Box::pin(async move {
            let cb = cb.ok_or(PeerError::NoChannel)?;
            let params = request_params(&method, params)?;
            let (tx, rx) = oneshot::channel();
            let called = Python::try_attach(|py| -> PyResult<()> {
                let reply = Bound::new(py, PeerReply { tx: Mutex::new(Some(tx)) })?;
                cb.call1(py, (method.as_str(), convert::to_py(py, &params)?, reply))?;
                Ok(())
            });
            match called {
                None => return Err(PeerError::Closed),
                Some(Err(e)) => {
                    let message = Python::try_attach(|py| errors::message_of(py, &e)).unwrap_or_default();
                    return Err(PeerError::Rpc(ErrorObject::internal(message)));
                }
                Some(Ok(())) => {}
            }
            rx.await.unwrap_or(Err(PeerError::Closed))
        })
    }

    fn can_request(&self) -> bool {
        self.on_request.is_some()
    }
}

/// The answer to one server-to-client request, given by Python.
#[pyclass(module = "ferrite_mcp._ferrite", frozen)]
pub struct PeerReply {
    tx: Mutex<Option<oneshot::Sender<Result<Value, PeerError>>>>,
}

impl PeerReply {
    fn send(&self, outcome: Result<Value, PeerError>) {
        if let Some(tx) = lock(&self.tx).take() {
            // The server stopped waiting (the request was cancelled): nothing to do.
            let _ = tx.send(outcome);
        }
    }
}

#[pymethods]
impl PeerReply {
    /// Answer with a result (a JSON object).
    fn resolve(&self, result: &Bound<'_, PyAny>) -> PyResult<()> {
        self.send(Ok(convert::from_py(result)?));
        Ok(())
    }

    /// Answer with a JSON-RPC error.
    #[pyo3(signature = (code, message, data=None))]
    fn reject(&self, code: i32, message: String, data: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let mut e = ErrorObject::new(code, message);
        e.data = data.map(convert::from_py).transpose()?;
        self.send(Err(PeerError::Rpc(e)));
        Ok(())
    }
}

/// A connection held by Python.
#[pyclass(name = "Connection", module = "ferrite_mcp._ferrite", frozen)]
pub struct PyConnection {
    core: Py<Core>,
    state: Arc<ConnectionState>,
    peer: Arc<dyn Peer>,
    /// The core's listener guard (a type the core does not name publicly, kept as `Any`).
    listener: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    next_id: AtomicI64,
}

impl PyConnection {
    pub fn new(core: &Bound<'_, Core>, on_message: Option<Py<PyAny>>, on_request: Option<Py<PyAny>>) -> Self {
        let state = Arc::new(ConnectionState::with_generated_id().pinning_era());
        let peer: Arc<dyn Peer> =
            Arc::new(PyPeer { on_message: on_message.map(Arc::new), on_request: on_request.map(Arc::new) });
        let listener = core.get().server().attach_listener(&state, &peer);
        PyConnection {
            core: core.clone().unbind(),
            state,
            peer,
            listener: Mutex::new(Some(Box::new(listener))),
            next_id: AtomicI64::new(1),
        }
    }

    /// Handle `message` on this connection in the background; `done(outcome)` runs on a
    /// runtime thread with the response, if any.
    fn spawn<F>(&self, py: Python<'_>, message: Message, done: F) -> PyResult<()>
    where
        F: FnOnce(Option<ferrite_core::protocol::OutboundResponse>) + Send + 'static,
    {
        let core = self.core.get();
        core.check_open(py)?;
        let (server, state, peer) = (core.server().clone(), self.state.clone(), self.peer.clone());
        core.runtime().spawn(async move { done(server.handle(message, &state, &peer).await) });
        Ok(())
    }
}

/// Call `resolve(error, value)` from a runtime thread.
fn settle(resolve: &Py<PyAny>, outcome: Result<Value, ErrorObject>) {
    let _ = Python::try_attach(|py| {
        let args = match &outcome {
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
}

#[pymethods]
impl PyConnection {
    /// The connection's id (what `ctx.connection_id` shows its requests).
    #[getter]
    fn id(&self) -> &str {
        self.state.id()
    }

    /// Handle raw JSON-RPC text on this connection; the response text (None for
    /// notifications). Blocks the calling thread without the GIL.
    fn handle_raw(&self, py: Python<'_>, text: String) -> PyResult<Option<String>> {
        let core = self.core.get();
        core.check_open(py)?;
        let (server, state, peer) = (core.server().clone(), self.state.clone(), self.peer.clone());
        let runtime = core.runtime().clone();
        let join = runtime.spawn(async move { server.handle_raw_on(&text, &state, &peer).await });
        py.detach(|| runtime.block_on(join))
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("the request was dropped: {e}")))
    }

    /// `handle_raw` without blocking: `resolve(error, response_text_or_None)` is called from a
    /// runtime thread.
    fn handle_raw_async(&self, py: Python<'_>, text: String, resolve: Py<PyAny>) -> PyResult<()> {
        let core = self.core.get();
        core.check_open(py)?;
        let (server, state, peer) = (core.server().clone(), self.state.clone(), self.peer.clone());
        core.runtime().spawn(async move {
            let out = server.handle_raw_on(&text, &state, &peer).await;
            let _ = Python::try_attach(|py| {
                if let Err(e) = resolve.bind(py).call1((py.None(), out)) {
                    e.write_unraisable(py, None);
                }
            });
        });
        Ok(())
    }

    /// Send the server a request (`method`, `params`) from this connection's client;
    /// `resolve(error, result)` is called from a runtime thread (`error` an `McpError` for a
    /// JSON-RPC error). Returns the request's id (for `notifications/cancelled`).
    #[pyo3(signature = (method, params, resolve))]
    fn request(
        &self,
        py: Python<'_>,
        method: String,
        params: Option<&Bound<'_, PyAny>>,
        resolve: Py<PyAny>,
    ) -> PyResult<i64> {
        let params = params.map(convert::from_py).transpose()?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = Message::Request(Request::new(RequestId::Number(id), method, params));
        self.spawn(py, message, move |response| {
            let outcome = match response {
                Some(r) => match r.outcome {
                    Ok(raw) => serde_json::from_str(raw.get()).map_err(|e| ErrorObject::internal(e.to_string())),
                    Err(e) => Err(e),
                },
                None => Err(ErrorObject::internal("the request was cancelled")),
            };
            settle(&resolve, outcome);
        })?;
        Ok(id)
    }

    /// Send the server a notification from this connection's client; `resolve(None, None)`
    /// is called once the server processed it.
    #[pyo3(signature = (method, params, resolve))]
    fn notify(
        &self,
        py: Python<'_>,
        method: String,
        params: Option<&Bound<'_, PyAny>>,
        resolve: Py<PyAny>,
    ) -> PyResult<()> {
        let params = params.map(convert::from_py).transpose()?;
        let message = Message::Notification(Notification { method, params });
        self.spawn(py, message, move |_| settle(&resolve, Ok(Value::Null)))
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.state.is_closing()
    }

    /// End the connection: stop receiving notifications, end its long-lived requests and
    /// cancel those in flight. Idempotent.
    fn close(&self) {
        lock(&self.listener).take();
        self.state.close();
        self.state.cancel_all();
    }

    fn __repr__(&self) -> String {
        format!("Connection(id={:?})", self.state.id())
    }
}
