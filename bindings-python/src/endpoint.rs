//! The core's Streamable HTTP endpoint driven by a Python HTTP server (uvicorn, hypercorn)
//! through the package's ASGI app (`ferrite_mcp.asgi`): the core's [`HttpService`] and one
//! exchange per HTTP request.
//!
//! This module only moves bytes: the ASGI app hands over the request head as plain values,
//! pushes the body chunk by chunk, and pulls the response body chunk by chunk as fast as its
//! client takes it. Every protocol decision (sessions, SSE, the body limit, DNS-rebinding
//! checks, the Protected Resource Metadata) is the core's. Each wait runs on the server's
//! tokio runtime and reports back through a `resolve(error, value)` callable, which the
//! Python half turns into an awaitable on the ASGI server's event loop: nothing here blocks
//! a thread or holds the GIL while waiting.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use ferrite_core::sync::lock;
use ferrite_core::transport::http::{HostBodyWriter, HostHead, HostResponse, HostResponseBody, HttpService};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString};
use serde_json::Map;
use tokio::runtime::Handle;
use tokio::task::{AbortHandle, JoinHandle};
use tokio_util::sync::CancellationToken;

use crate::server::Core;
use crate::{convert, http};

/// The endpoint of one server, made from `HttpConfig` options (the address keys are ignored:
/// the host server listens).
#[pyclass(name = "HttpEndpoint", module = "ferrite_mcp._ferrite", frozen)]
pub struct HttpEndpoint {
    service: HttpService,
    runtime: Handle,
}

#[pymethods]
impl HttpEndpoint {
    /// The endpoint of `core`'s server; `config` is a dict of the core's `HttpConfig` keys, a
    /// bad one raising `ConfigError` with the core's message.
    #[new]
    fn new(py: Python<'_>, core: &Bound<'_, Core>, config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let core = core.get();
        core.check_open(py)?;
        let (options, _addr) = http::options(py, config)?;
        let runtime = core.runtime().clone();
        // The service sweeps idle sessions on a task of the runtime it is made in.
        let service = {
            let _entered = runtime.enter();
            HttpService::new(core.server(), options)
        };
        Ok(HttpEndpoint { service, runtime })
    }

    /// The endpoint path of the options (the ASGI app's route).
    #[getter]
    fn path(&self) -> &str {
        self.service.path()
    }

    /// The URL of the Protected Resource Metadata of a server with `auth` (the endpoint
    /// answers a GET of its path itself), None otherwise.
    #[getter]
    fn metadata_url(&self) -> Option<&str> {
        self.service.protected_resource_metadata().map(|(url, _)| url)
    }

    /// The ids of the live sessions.
    fn session_ids(&self) -> Vec<String> {
        self.service.session_ids()
    }

    /// End every session and its streams (the host app shuts down).
    fn close(&self) {
        self.service.close();
    }

    /// Start serving one request: `headers` as ASGI gives them (`[(name, value)]`, bytes),
    /// `client` the peer `(host, port)` if known, `host_values` a dict whose JSON entries
    /// handlers read (`ctx.request.host_values`; other entries are skipped). The exchange
    /// takes the body and gives the response.
    #[pyo3(signature = (method, target, headers, client=None, host_values=None))]
    fn request(
        &self,
        method: String,
        target: String,
        headers: &Bound<'_, PyAny>,
        client: Option<(String, u16)>,
        host_values: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<HostExchange> {
        let mut head_headers = Vec::new();
        for item in headers.try_iter()? {
            let item = item?;
            // A `(name, value)` pair; ASGI allows any two-item sequence.
            let (name, value) = (item.get_item(0)?, item.get_item(1)?);
            let name = bytes_of(&name)?;
            head_headers.push((String::from_utf8_lossy(&name).into_owned(), bytes_of(&value)?));
        }
        let remote_addr = client.and_then(|(host, port)| host.parse().ok().map(|ip| SocketAddr::new(ip, port)));
        let mut values = Map::new();
        if let Some(d) = host_values {
            for (k, v) in d.iter() {
                // Values JSON cannot hold (a connection pool, a user object) stay in Python.
                if let (Ok(k), Ok(v)) = (k.cast::<PyString>(), convert::from_py(&v)) {
                    values.insert(k.to_cow()?.into_owned(), v);
                }
            }
        }
        let head = HostHead { method, target, headers: head_headers, remote_addr, host_values: values };
        let (writer, response) = self.service.host_request(head);
        let response = self.runtime.spawn(response);
        Ok(HostExchange {
            runtime: self.runtime.clone(),
            writer: Arc::new(tokio::sync::Mutex::new(Some(writer))),
            abort: response.abort_handle(),
            response: Mutex::new(Some(response)),
            body: Arc::new(tokio::sync::Mutex::new(None)),
            gone: CancellationToken::new(),
        })
    }
}

fn bytes_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    match obj.cast::<PyBytes>() {
        Ok(b) => Ok(b.as_bytes().to_vec()),
        Err(_) => Ok(obj.extract::<String>()?.into_bytes()),
    }
}

/// One HTTP request in flight: its body going in, its response coming out. `cancel()` (the
/// client went away) drops the response body, which cancels the requests it carried.
#[pyclass(name = "HostExchange", module = "ferrite_mcp._ferrite", frozen)]
pub struct HostExchange {
    runtime: Handle,
    writer: Arc<tokio::sync::Mutex<Option<HostBodyWriter>>>,
    /// Stops the task deciding the response (dropping what it was serving).
    abort: AbortHandle,
    response: Mutex<Option<JoinHandle<HostResponse>>>,
    body: Arc<tokio::sync::Mutex<Option<HostResponseBody>>>,
    gone: CancellationToken,
}

/// Call `resolve(error, value)` on the interpreter, reporting a failure of `resolve` itself
/// as unraisable (nobody else could see it).
fn report(resolve: &Py<PyAny>, value: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>>) {
    // `try_attach` fails only while the interpreter shuts down: nobody is waiting then.
    let _ = Python::try_attach(|py| {
        let called = value(py).and_then(|v| resolve.bind(py).call1((py.None(), v)));
        if let Err(e) = called {
            e.write_unraisable(py, None);
        }
    });
}

#[pymethods]
impl HostExchange {
    /// Push one body chunk (`more=False`: the last; an empty last chunk just ends the body);
    /// `resolve(None, taken)` once the endpoint took it, `taken` False when it stopped
    /// reading (it has answered already, e.g. 413): the host stops sending then.
    fn write(&self, chunk: &Bound<'_, PyBytes>, more: bool, resolve: Py<PyAny>) {
        let chunk = chunk.as_bytes().to_vec();
        let writer = self.writer.clone();
        let gone = self.gone.clone();
        self.runtime.spawn(async move {
            let mut slot = writer.lock().await;
            let taken = match slot.as_mut() {
                Some(_) if chunk.is_empty() => true,
                Some(w) => tokio::select! {
                    r = w.write(chunk) => r.is_ok(),
                    () = gone.cancelled() => false,
                },
                None => false,
            };
            if !more || !taken {
                slot.take();
            }
            drop(slot);
            report(&resolve, |py| Ok(PyBool::new(py, taken).to_owned().into_any()));
        });
    }

    /// The response head, once decided: `resolve(None, (status, headers, is_event_stream))`,
    /// `headers` as ASGI sends them (`[(name, value)]`, bytes), or `resolve(None, None)` when
    /// the exchange was cancelled first. Asked once.
    fn response(&self, resolve: Py<PyAny>) -> PyResult<()> {
        let join = lock(&self.response)
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the response of this exchange was asked for already"))?;
        let body = self.body.clone();
        let gone = self.gone.clone();
        self.runtime.spawn(async move {
            match join.await {
                Ok(r) => {
                    let stream = r.is_event_stream();
                    if !gone.is_cancelled() {
                        *body.lock().await = Some(r.body);
                    }
                    let headers = r.headers;
                    report(&resolve, |py| {
                        let list = PyList::empty(py);
                        for (n, v) in &headers {
                            list.append((PyBytes::new(py, n.as_bytes()), PyBytes::new(py, v)))?;
                        }
                        Ok((r.status, list, stream).into_pyobject(py)?.into_any())
                    });
                }
                // Cancelled: the client went away, nobody waits for a head.
                Err(e) if e.is_cancelled() => report(&resolve, |py| Ok(py.None().into_bound(py))),
                Err(e) => {
                    let _ = Python::try_attach(|py| {
                        let err = PyRuntimeError::new_err(format!("the MCP endpoint failed: {e}"));
                        if let Err(e) = resolve.bind(py).call1((err.into_value(py), py.None())) {
                            e.write_unraisable(py, None);
                        }
                    });
                }
            }
        });
        Ok(())
    }

    /// The next chunk of the response body: `resolve(None, bytes)`, or `resolve(None, None)`
    /// at its end (or once the exchange is cancelled). Waiting here is how an SSE stream
    /// stays open; the host asks for the next chunk only after sending this one.
    fn next_chunk(&self, resolve: Py<PyAny>) {
        let body = self.body.clone();
        let gone = self.gone.clone();
        self.runtime.spawn(async move {
            let mut slot = body.lock().await;
            let chunk = match slot.as_mut() {
                Some(b) => tokio::select! {
                    c = b.next_chunk() => c,
                    () = gone.cancelled() => None,
                },
                None => None,
            };
            if chunk.is_none() {
                // The end, or the client went away: dropping the body cancels what it carried.
                slot.take();
            }
            drop(slot);
            report(&resolve, |py| {
                Ok(match &chunk {
                    Some(c) => PyBytes::new(py, c).into_any(),
                    None => py.None().into_bound(py),
                })
            });
        });
    }

    /// The client went away: drop the response (and with it the requests it carried) and
    /// stop taking the body. Idempotent.
    fn cancel(&self) {
        self.gone.cancel();
        self.abort.abort();
        let (writer, body) = (self.writer.clone(), self.body.clone());
        self.runtime.spawn(async move {
            writer.lock().await.take();
            body.lock().await.take();
        });
    }
}

impl Drop for HostExchange {
    fn drop(&mut self) {
        self.gone.cancel();
        self.abort.abort();
    }
}
