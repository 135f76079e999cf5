//! The server object Python's `ferrite_mcp.Server` is built on: the core's `Server` and the
//! tokio runtime it runs on (the adapters from Python callables to the core's handlers are in
//! `adapters.rs`, the 2026-07-28 settings' conversions in `modern.rs`, how a transport is
//! served in `server/serving.rs`, the shared state of a fleet in `server/fleet.rs`, the dispatch
//! limits in `server/limits.rs`).
//!
//! One runtime per server object, shut down by `close()` (or when the object is collected).
//! Every entry point that waits on the runtime releases the GIL first (`py.detach`), so a
//! handler called meanwhile on another thread can take it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use ferrite_core::server::uri_template::UriTemplate;
use ferrite_core::server::NotificationObserver as _;
use ferrite_core::server::PeerError;
use ferrite_core::stores::redis::RedisStore;
use ferrite_core::sync::lock;
use ferrite_core::{
    ClientCapabilities, CompletionReference, Implementation, Prompt, Resource, ResourceTemplate, Server, Tool,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tokio::runtime::{Handle, Runtime};
use tokio_util::sync::CancellationToken;

use crate::adapters::{describe, Adapter, Observer};
use crate::bridge::{self, AsyncQueue, Executor, PyCallable, SyncPool};
use crate::connection::PyConnection;
use crate::context::Shared;
use crate::{errors, tasks};

mod compose;
mod fleet;
mod limits;
mod serving;
mod settings;

/// At most this many `def` handlers run at once (like a thread pool's size); more calls queue.
const MAX_SYNC_WORKERS: usize = 64;

/// The core server with its runtime.
#[pyclass(name = "Core", module = "ferrite_mcp._ferrite", frozen)]
pub struct Core {
    server: Server,
    runtime: Mutex<Option<Runtime>>,
    handle: Handle,
    exec: Arc<Executor>,
    /// What request contexts share (runtime, server, per-session state).
    shared: Arc<Shared>,
    /// The shutdown token of the transport being served (stdio or HTTP), if any.
    serving: Mutex<Option<CancellationToken>>,
    /// The Redis store of `use_redis`, for its round-trip count.
    redis: Mutex<Option<RedisStore>>,
    closed: AtomicBool,
    /// Whether any request handler registered is an `async def`, and any a `def` (with only
    /// `async def` ones, stdio is served from the event loop's thread: `stdio_loop.rs`).
    any_async: AtomicBool,
    any_sync: AtomicBool,
}

impl Core {
    /// The core server.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The runtime the server runs on.
    pub fn runtime(&self) -> &Handle {
        &self.handle
    }

    /// `ServerClosedError` once `close()` was called.
    pub fn check_open(&self, py: Python<'_>) -> PyResult<()> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(errors::message_err(py, "ServerClosedError", "the server is closed"));
        }
        Ok(())
    }

    fn adapter(&self, handler: Py<PyAny>, is_async: bool, wants_context: bool) -> Adapter {
        let kind = if is_async { &self.any_async } else { &self.any_sync };
        kind.store(true, Ordering::Relaxed);
        Adapter {
            handler: Arc::new(PyCallable { callable: handler, is_async, wants_context }),
            exec: self.exec.clone(),
        }
    }

    /// Stop everything. With `py` (an explicit `close()`), wait briefly without the GIL for
    /// the runtime's threads to leave Python: a runtime thread still inside a Python call
    /// when the interpreter finalizes would crash it. Never wait long: a thread blocked
    /// reading stdin only ends with the process.
    fn shutdown(&self, py: Option<Python<'_>>) {
        self.closed.store(true, Ordering::SeqCst);
        // Mounted in other servers, its handlers would outlive the executor they run on.
        self.server.unmount_everywhere();
        if let Some(token) = lock(&self.serving).take() {
            token.cancel();
        }
        self.exec.queue.close();
        match py {
            // `close()`: its `def` workers are gone from the interpreter when it returns.
            Some(py) => self.exec.pool.close_and_wait(py, SHUTDOWN_GRACE),
            None => self.exec.pool.close(),
        }
        self.shared.release();
        let runtime = lock(&self.runtime).take();
        if let Some(rt) = runtime {
            match py {
                Some(py) => py.detach(|| rt.shutdown_timeout(SHUTDOWN_GRACE)),
                None => rt.shutdown_background(),
            }
        }
    }
}

/// A positive, finite number of seconds as a `Duration`.
fn timeout_of(seconds: f64) -> PyResult<Duration> {
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(PyValueError::new_err(format!("timeout must be a positive number of seconds, not {seconds}"))),
    }
}

/// How long `close()` waits for the runtime's threads.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(250);

impl Drop for Core {
    fn drop(&mut self) {
        self.shutdown(None);
    }
}

#[pymethods]
impl Core {
    #[new]
    /// `auth` (a dict of the core's `AuthConfig` keys) protects the server as an OAuth
    /// resource server; `token_verifier` (the package's wrapper, see `auth.rs`) then verifies
    /// tokens instead of the configuration's `jwt` or `introspection`. A bad option raises
    /// `ConfigError` with the core's text.
    /// `task_ttl`, `task_max_ttl` and `task_poll_interval` (seconds) replace the core's task
    /// defaults (`TaskOptions`).
    #[pyo3(signature = (name, version, *, title=None, description=None, website_url=None, instructions=None, stateless=false, worker_threads=None, icons=None, auth=None, token_verifier=None, token_verifier_is_async=false, task_ttl=None, task_max_ttl=None, task_poll_interval=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        name: &str,
        version: &str,
        title: Option<String>,
        description: Option<String>,
        website_url: Option<String>,
        instructions: Option<String>,
        stateless: bool,
        worker_threads: Option<usize>,
        icons: Option<&Bound<'_, PyAny>>,
        auth: Option<&Bound<'_, PyAny>>,
        token_verifier: Option<Py<PyAny>>,
        token_verifier_is_async: bool,
        task_ttl: Option<f64>,
        task_max_ttl: Option<f64>,
        task_poll_interval: Option<f64>,
    ) -> PyResult<Self> {
        let mut info = Implementation::new(name, version);
        info.title = title;
        info.description = description;
        info.website_url = website_url;
        info.icons = icons.map(|i| describe(i, "icons")).transpose()?;
        let task_options =
            tasks::options(task_ttl, task_max_ttl, task_poll_interval).map_err(|m| errors::config_msg(py, &m))?;
        let mut builder = Server::builder(info).tasks(task_options);
        if let Some(i) = instructions {
            builder = builder.instructions(i);
        }
        // The verifier runs on the executor, made below from the server it protects.
        let verifier_exec = Arc::new(OnceLock::new());
        match (auth, token_verifier) {
            (Some(config), verifier) => {
                let verifier = verifier.map(|v| (v, token_verifier_is_async));
                builder = builder.auth(crate::auth::resource_server(py, config, verifier, &verifier_exec)?);
            }
            (None, Some(_)) => {
                return Err(errors::config_msg(
                    py,
                    "invalid auth option token_verifier: a token_verifier needs the auth settings",
                ))
            }
            (None, None) => {}
        }
        let server = if stateless { builder.stateless() } else { builder.stateful() }.build();
        let threads = worker_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).min(4))
            .max(1);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("ferrite-worker")
            .enable_all()
            .build()
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the tokio runtime: {e}")))?;
        let handle = runtime.handle().clone();
        let queue = AsyncQueue::new()
            .map_err(|e| PyRuntimeError::new_err(format!("cannot create the event-loop wake socket: {e}")))?;
        let shared = Arc::new(Shared::new(handle.clone(), server.clone()));
        let pool = Arc::new(SyncPool::new(shared.clone(), MAX_SYNC_WORKERS));
        let exec = Arc::new(Executor { queue: Arc::new(queue), pool, in_place: Default::default() });
        let _ = verifier_exec.set(exec.clone());
        Ok(Core {
            server,
            runtime: Mutex::new(Some(runtime)),
            handle,
            exec,
            shared,
            serving: Mutex::new(None),
            redis: Mutex::new(None),
            closed: AtomicBool::new(false),
            any_async: AtomicBool::new(false),
            any_sync: AtomicBool::new(false),
        })
    }

    /// The server's name.
    #[getter]
    fn name(&self) -> &str {
        &self.server.info().name
    }

    /// The server's version.
    #[getter]
    fn version(&self) -> &str {
        &self.server.info().version
    }

    /// Whether the server is stateless.
    #[getter]
    fn stateless(&self) -> bool {
        self.server.is_stateless()
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    // ----- registration -----

    /// Register (or replace) a tool: `tool` is the descriptor as on the wire (camelCase);
    /// `task_support` (`"forbidden"`, `"optional"`, `"required"`) sets its
    /// `execution.taskSupport`. A task support the core refuses (not one of those words), or
    /// one that disagrees with the descriptor's, raises `ConfigError`.
    #[pyo3(signature = (tool, handler, is_async, wants_context, task_support=None))]
    fn add_tool(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
        is_async: bool,
        wants_context: bool,
        task_support: Option<&str>,
    ) -> PyResult<()> {
        let tool: Tool = describe(tool, "tool")?;
        let tool = tasks::apply_support(tool, task_support).map_err(|m| errors::config_msg(py, &m))?;
        self.server
            .add_tool(tool, self.adapter(handler, is_async, wants_context))
            .map_err(|e| errors::config_err(py, &e))
    }

    /// Remove a tool; whether it existed.
    fn remove_tool(&self, name: &str) -> bool {
        self.server.remove_tool(name)
    }

    /// Declare the client capabilities a tool needs (as in `initialize`, e.g.
    /// `{"sampling": {}}`); calls from clients without them are refused.
    fn set_tool_required_client_capabilities(
        &self,
        py: Python<'_>,
        name: &str,
        capabilities: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let caps: ClientCapabilities = describe(capabilities, "client capabilities")?;
        self.server.set_tool_required_client_capabilities(name, caps).map_err(|e| errors::config_err(py, &e))
    }

    /// Observe every notification from clients: `handler((method, params), None)` runs on the
    /// worker pool after the server processed the notification.
    fn set_notification_observer(&self, handler: Py<PyAny>) {
        let handler = Arc::new(PyCallable { callable: handler, is_async: false, wants_context: false });
        self.server.set_notification_observer(Observer {
            handler,
            exec: self.exec.clone(),
            runtime: self.handle.clone(),
        });
    }

    /// Observe `notifications/roots/list_changed` (the core's roots observer):
    /// `handler(("notifications/roots/list_changed", None), None)` runs on the worker pool.
    fn set_roots_list_changed_observer(&self, handler: Py<PyAny>) {
        let handler = Arc::new(PyCallable { callable: handler, is_async: false, wants_context: false });
        let observer = Observer { handler, exec: self.exec.clone(), runtime: self.handle.clone() };
        self.server.set_roots_list_changed_observer(move || {
            observer.notify("notifications/roots/list_changed", None);
        });
    }

    /// Add a middleware at the end of the chain: `wrapper((method, params, hook, call_next), ctx)`,
    /// an `async def` the package makes around the user's middleware; with `notifications`,
    /// client notifications reach it too (hook `"notification"`, `ctx` None).
    #[pyo3(signature = (wrapper, notifications = false))]
    fn add_middleware(&self, wrapper: Py<PyAny>, notifications: bool) {
        self.server.add_middleware(crate::middleware::PyMiddleware {
            handler: Arc::new(PyCallable { callable: wrapper, is_async: true, wants_context: true }),
            exec: self.exec.clone(),
            runtime: self.handle.clone(),
            notifications,
        });
    }

    /// Add the core's built-in middleware `name` configured by `config` (the core's JSON keys);
    /// an unknown name or a bad configuration raises `ConfigError`.
    fn add_builtin_middleware(&self, py: Python<'_>, name: &str, config: &Bound<'_, PyAny>) -> PyResult<()> {
        let config = crate::convert::from_py(config)?;
        self.server.add_builtin_middleware(name, config).map_err(|e| errors::config_err(py, &e))
    }

    /// Turn OpenTelemetry on (the core's `enable_telemetry`); an exporter the `OTEL_*`
    /// variables make unbuildable raises `ConfigError`.
    fn enable_telemetry(&self, py: Python<'_>) -> PyResult<()> {
        self.server.enable_telemetry().map_err(|e| errors::message_err(py, "ConfigError", &e.to_string()))
    }

    /// What the server counts now (the core's `Server::stats`):
    /// `(sse_streams, tasks_running, tasks_created, store_round_trips)`.
    fn stats(&self) -> (u64, u64, u64, u64) {
        let s = self.server.stats();
        (s.sse_streams, s.tasks_running, s.tasks_created, s.store_round_trips)
    }

    /// The ids of the connections currently served (stdio, HTTP sessions).
    fn connected_sessions(&self) -> Vec<String> {
        self.server.connected_sessions()
    }

    /// Register (or replace) a direct resource.
    fn add_resource(
        &self,
        resource: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
        is_async: bool,
        wants_context: bool,
    ) -> PyResult<()> {
        let resource: Resource = describe(resource, "resource")?;
        self.server.add_resource(resource, self.adapter(handler, is_async, wants_context));
        Ok(())
    }

    /// Remove a direct resource; whether it existed.
    fn remove_resource(&self, uri: &str) -> bool {
        self.server.remove_resource(uri)
    }

    /// Register a resource template; the reader gets the captured variables.
    fn add_resource_template(
        &self,
        py: Python<'_>,
        template: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
        is_async: bool,
        wants_context: bool,
    ) -> PyResult<()> {
        let template: ResourceTemplate = describe(template, "resource template")?;
        self.server
            .add_resource_template(template, self.adapter(handler, is_async, wants_context))
            .map_err(|e| errors::config_err(py, &e))
    }

    /// Remove a resource template; whether it existed.
    fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.server.remove_resource_template(uri_template)
    }

    /// The variable names of a URI template, in order (raises `ConfigError` when it does not
    /// parse).
    #[staticmethod]
    fn template_variables(py: Python<'_>, uri_template: &str) -> PyResult<Vec<String>> {
        let t = UriTemplate::parse(uri_template).map_err(|e| errors::config_err(py, &e.into()))?;
        Ok(t.variables().into_iter().map(str::to_owned).collect())
    }

    /// Register (or replace) a prompt.
    fn add_prompt(
        &self,
        prompt: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
        is_async: bool,
        wants_context: bool,
    ) -> PyResult<()> {
        let prompt: Prompt = describe(prompt, "prompt")?;
        self.server.add_prompt(prompt, self.adapter(handler, is_async, wants_context));
        Ok(())
    }

    /// Remove a prompt; whether it existed.
    fn remove_prompt(&self, name: &str) -> bool {
        self.server.remove_prompt(name)
    }

    /// Set the global completion handler (tried before per-argument completers).
    fn set_completion_handler(&self, handler: Py<PyAny>, is_async: bool, wants_context: bool) {
        self.server.set_completion_handler(self.adapter(handler, is_async, wants_context));
    }

    /// Register a completer for one reference (`{"type": "ref/prompt", "name": ...}` or
    /// `{"type": "ref/resource", "uri": ...}`) and argument.
    fn set_argument_completer(
        &self,
        reference: &Bound<'_, PyAny>,
        argument: &str,
        handler: Py<PyAny>,
        is_async: bool,
        wants_context: bool,
    ) -> PyResult<()> {
        let reference: CompletionReference = describe(reference, "completion reference")?;
        self.server.set_argument_completer(reference, argument, self.adapter(handler, is_async, wants_context));
        Ok(())
    }

    /// Complete one reference's argument with the candidates that start with the typed text.
    fn set_argument_candidates(
        &self,
        reference: &Bound<'_, PyAny>,
        argument: &str,
        candidates: Vec<String>,
    ) -> PyResult<()> {
        let reference: CompletionReference = describe(reference, "completion reference")?;
        self.server.set_argument_candidates(reference, argument, candidates);
        Ok(())
    }

    // ----- serving -----

    /// Handle raw JSON-RPC text in-process; the response text ("" for notifications). Blocks
    /// the calling thread (without the GIL) until the response is ready.
    fn handle_raw(&self, py: Python<'_>, text: String) -> PyResult<String> {
        self.check_open(py)?;
        let server = self.server.clone();
        let join = self.handle.spawn(async move { server.handle_raw(&text).await });
        py.detach(|| self.handle.block_on(join))
            .map_err(|e| PyRuntimeError::new_err(format!("the request was dropped: {e}")))
    }

    /// Handle raw JSON-RPC text in-process; `resolve(error, response_text)` is called with the
    /// outcome from a runtime thread.
    fn handle_raw_async(&self, py: Python<'_>, text: String, resolve: Py<PyAny>) -> PyResult<()> {
        self.check_open(py)?;
        let server = self.server.clone();
        self.handle.spawn(async move {
            let out = server.handle_raw(&text).await;
            let _ = Python::try_attach(|py| {
                if let Err(e) = resolve.bind(py).call1((py.None(), out)) {
                    e.write_unraisable(py, None);
                }
            });
        });
        Ok(())
    }

    /// Serve stdio until stdin closes or `stop()`/`close()` is called. Blocks the calling
    /// thread without the GIL; Python signals (Ctrl-C) are checked every 50 ms and stop the
    /// loop cleanly (in-flight requests finish) before the exception propagates.
    fn serve_stdio(&self, py: Python<'_>) -> PyResult<()> {
        let token = self.start_serving(py)?;
        let join = self.spawn_stdio(token.clone());
        self.wait_serving(py, token, join, "stdio")
    }

    /// Serve Streamable HTTP until `stop()`/`close()` or Ctrl-C, as `serve_stdio` does.
    /// `config` is a dict of the core's `HttpConfig` keys (snake_case; the address too: port
    /// 0 picks a free one); a bad option raises `ConfigError` with the core's message before
    /// anything is bound. `ready(port)` is called once listening.
    #[pyo3(signature = (config, ready=None))]
    fn serve_http(&self, py: Python<'_>, config: &Bound<'_, PyAny>, ready: Option<Py<PyAny>>) -> PyResult<()> {
        let (token, join, local) = self.bind_http(py, config)?;
        if let Some(ready) = ready {
            if let Err(e) = ready.call1(py, (local.port(),)) {
                token.cancel();
                lock(&self.serving).take();
                return Err(e);
            }
        }
        self.wait_serving(py, token, join, "HTTP")
    }

    /// Start serving Streamable HTTP in the background (`run_async(transport="http")`): binds
    /// at once and answers the bound port; `resolve(error, None)` is called from a runtime
    /// thread when serving ends (`stop()`, `close()`). Options as in `serve_http`.
    fn start_http(&self, py: Python<'_>, config: &Bound<'_, PyAny>, resolve: Py<PyAny>) -> PyResult<u16> {
        let (_, join, local) = self.bind_http(py, config)?;
        self.report_end(join, resolve, "HTTP", serving::os_error);
        Ok(local.port())
    }

    /// Start serving stdio in the background; `resolve(error, None)` is called when it ends.
    fn start_stdio(&self, py: Python<'_>, resolve: Py<PyAny>) -> PyResult<()> {
        let token = self.start_serving(py)?;
        let join = self.spawn_stdio(token);
        self.report_end(join, resolve, "stdio", serving::runtime_error);
        Ok(())
    }

    /// Stop the transport being served, if any (in-flight requests finish).
    fn stop(&self) {
        if let Some(token) = lock(&self.serving).take() {
            token.cancel();
        }
    }

    /// Forget whether stdio is being served (after `start_stdio` reported its end).
    fn _served(&self) {
        lock(&self.serving).take();
    }

    // ----- connections -----

    /// Send `ping` to connection `connection_id` (a stdio process, an HTTP session, a
    /// `Connection`) and wait up to `timeout` seconds for the client's answer, without the
    /// GIL. Raises the matching `PeerError` (`NoChannelError` when no such connection can
    /// take requests, `RequestTimeoutError` when it did not answer in time).
    fn ping_client(&self, py: Python<'_>, connection_id: String, timeout: f64) -> PyResult<()> {
        self.check_open(py)?;
        let timeout = timeout_of(timeout)?;
        let server = self.server.clone();
        let join = self.handle.spawn(async move { server.ping_client(&connection_id, timeout).await });
        let out = py
            .detach(|| self.handle.block_on(join))
            .map_err(|e| PyRuntimeError::new_err(format!("the ping was dropped: {e}")))?;
        out.map_err(|e| errors::peer_err(py, &e))
    }

    /// `ping_client` without blocking: `resolve(error, None)` is called from a runtime thread.
    fn ping_client_async(
        &self,
        py: Python<'_>,
        connection_id: String,
        timeout: f64,
        resolve: Py<PyAny>,
    ) -> PyResult<()> {
        self.check_open(py)?;
        let timeout = timeout_of(timeout)?;
        let server = self.server.clone();
        self.handle.spawn(async move {
            let out: Result<(), PeerError> = server.ping_client(&connection_id, timeout).await;
            let _ = Python::try_attach(|py| {
                let err = match &out {
                    Ok(()) => py.None().into_bound(py),
                    Err(e) => errors::peer_err(py, e).into_value(py).into_bound(py).into_any(),
                };
                if let Err(e) = resolve.bind(py).call1((err, py.None())) {
                    e.write_unraisable(py, None);
                }
            });
        });
        Ok(())
    }

    /// A connection held by the caller (see `connection.rs`): `on_message(frame)` receives
    /// the server's notifications, `on_request(method, params, reply)` its requests.
    #[pyo3(signature = (on_message=None, on_request=None))]
    fn connect(
        slf: &Bound<'_, Self>,
        on_message: Option<Py<PyAny>>,
        on_request: Option<Py<PyAny>>,
    ) -> PyResult<PyConnection> {
        slf.get().check_open(slf.py())?;
        Ok(PyConnection::new(slf, on_message, on_request))
    }

    // ----- the event loop side of async handlers -----

    /// The file descriptor the event loop running `async def` handlers watches.
    #[getter]
    fn async_wake_fd(&self) -> i32 {
        self.exec.queue.wake_fd()
    }

    /// The `async def` calls waiting for the event loop, each as
    /// `(wrapper, input, ctx, completion)`.
    fn take_async_jobs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        bridge::take_jobs(py, &self.exec.queue, &self.shared)
    }

    /// Stop serving, fail queued calls and shut the runtime down. Idempotent.
    fn close(&self, py: Python<'_>) {
        self.shutdown(Some(py));
    }
}
