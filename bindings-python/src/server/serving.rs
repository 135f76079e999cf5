//! How a `Core` serves one transport at a time (stdio, or Streamable HTTP on an address it
//! binds), in the foreground (`serve_*`: the calling thread waits without the GIL, watching
//! for Ctrl-C) or the background (`start_*`: a callback reports the end). The `#[pymethods]`
//! in `server.rs` are the entry points; this is what they share, so the two ways of serving
//! cannot drift apart.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use ferrite_core::sync::lock;
use ferrite_core::transport::http as core_http;
use ferrite_core::transport::stdio::{self, StdioOptions};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Core;
use crate::http;
use crate::stdio_loop::StdioLoop;

/// A transport being served; its outcome when it stops.
pub(super) type Serving = JoinHandle<std::io::Result<()>>;

/// The exception a transport's I/O failure is raised as.
pub(super) type Failure = fn(String) -> PyErr;

/// stdio failing is a `RuntimeError`, as it always was.
pub(super) fn runtime_error(message: String) -> PyErr {
    PyRuntimeError::new_err(message)
}

/// HTTP failing is an `OSError`.
pub(super) fn os_error(message: String) -> PyErr {
    PyOSError::new_err(message)
}

impl Core {
    /// Claim the server for one transport: its shutdown token, or `RuntimeError` when it is
    /// already serving (`ServerClosedError` once closed).
    pub(super) fn start_serving(&self, py: Python<'_>) -> PyResult<CancellationToken> {
        self.check_open(py)?;
        let mut serving = lock(&self.serving);
        if serving.is_some() {
            return Err(PyRuntimeError::new_err("this server is already serving"));
        }
        let token = CancellationToken::new();
        *serving = Some(token.clone());
        Ok(token)
    }

    /// Serve the process's stdin/stdout until `token` is cancelled or stdin ends (pipes read and
    /// written on the reactor, as the core's own `serve_stdio` does: no thread hand-off).
    pub(super) fn spawn_stdio(&self, token: CancellationToken) -> Serving {
        let server = self.server.clone();
        let options = StdioOptions { shutdown: token, ..StdioOptions::default() };
        self.handle.spawn(async move { stdio::serve_stdio_with(&server, options).await })
    }

    /// Check `config` (a dict of `HttpConfig` keys: `ConfigError` with the core's message),
    /// claim the server, bind (`OSError` when the address cannot be had) and start serving;
    /// the shutdown token, the serving task and the bound address.
    pub(super) fn bind_http(
        &self,
        py: Python<'_>,
        config: &Bound<'_, PyAny>,
    ) -> PyResult<(CancellationToken, Serving, SocketAddr)> {
        self.check_open(py)?;
        let (options, addr) = http::options(py, config)?;
        let token = self.start_serving(py)?;
        let options = core_http::HttpOptions { shutdown: token.clone(), ..options };
        let server = self.server.clone();
        let bound = py.detach(|| self.handle.block_on(core_http::bind(&server, addr, options)));
        match bound.and_then(|b| b.local_addr().map(|a| (b, a))) {
            Ok((bound, local)) => Ok((token, self.handle.spawn(bound.run()), local)),
            Err(e) => {
                lock(&self.serving).take();
                Err(PyOSError::new_err(format!("cannot listen on {addr}: {e}")))
            }
        }
    }

    /// Wait for a serving task without the GIL, checking Python signals every 50 ms; a signal
    /// (Ctrl-C) stops serving cleanly (in-flight requests get up to 5 s) and propagates.
    pub(super) fn wait_serving(
        &self,
        py: Python<'_>,
        token: CancellationToken,
        mut join: Serving,
        what: &str,
    ) -> PyResult<()> {
        let outcome = loop {
            let step = py.detach(|| {
                self.handle.block_on(async { tokio::time::timeout(Duration::from_millis(50), &mut join).await })
            });
            if let Ok(done) = step {
                break done;
            }
            if let Err(signal) = py.check_signals() {
                token.cancel();
                // A thread blocked reading stdin is left to the runtime's shutdown.
                let _ = py.detach(|| {
                    self.handle.block_on(async { tokio::time::timeout(Duration::from_secs(5), &mut join).await })
                });
                lock(&self.serving).take();
                return Err(signal);
            }
        };
        lock(&self.serving).take();
        match outcome {
            Ok(Ok(())) => Ok(()),
            // `close()` from another thread: the runtime went down before the task ended.
            Err(e) if e.is_cancelled() && self.closed() => Ok(()),
            Ok(Err(e)) => Err(PyOSError::new_err(format!("{what} failed: {e}"))),
            Err(e) => Err(PyRuntimeError::new_err(format!("the {what} loop stopped: {e}"))),
        }
    }

    /// Call `resolve(error, None)` from a runtime thread when the serving task `join` ends:
    /// `error` is None, `failed("{what} failed: ...")`, or a `RuntimeError` when the task
    /// itself stopped.
    pub(super) fn report_end(&self, join: Serving, resolve: Py<PyAny>, what: &'static str, failed: Failure) {
        self.handle.spawn(async move {
            let outcome = join.await;
            let _ = Python::try_attach(|py| {
                let err = match outcome {
                    Ok(Ok(())) => None,
                    Ok(Err(e)) => Some(failed(format!("{what} failed: {e}"))),
                    Err(e) => Some(PyRuntimeError::new_err(format!("the {what} loop stopped: {e}"))),
                };
                let err = match err {
                    Some(e) => e.into_value(py).into_any(),
                    None => py.None(),
                };
                if let Err(e) = resolve.bind(py).call1((err, py.None())) {
                    e.write_unraisable(py, None);
                }
            });
        });
    }
}

/// stdio served from the event loop's thread (`stdio_loop.rs`): the Python side installs the
/// returned loop's readers on its event loop and waits here.
#[pymethods]
impl Core {
    /// Whether any registered request handler (tool, resource, prompt, completion, custom
    /// method) is an `async def`.
    #[getter]
    fn has_async_handlers(&self) -> bool {
        self.any_async.load(Ordering::Relaxed)
    }

    /// Whether any registered request handler is a `def`.
    #[getter]
    fn has_sync_handlers(&self) -> bool {
        self.any_sync.load(Ordering::Relaxed)
    }

    /// Claim the server for stdio served from the event loop's thread: the loop's `poked` and
    /// `readable` drive it there, and `drain()` turns the `async def` calls it reaches into
    /// tasks. `wait_stdio_loop` waits for it to end.
    fn stdio_loop(&self, py: Python<'_>, drain: Py<PyAny>) -> PyResult<StdioLoop> {
        let token = self.start_serving(py)?;
        let made =
            StdioLoop::new(self.server.clone(), self.handle.clone(), token.clone(), self.exec.queue.clone(), drain);
        made.map_err(|e| {
            lock(&self.serving).take();
            PyOSError::new_err(format!("cannot serve stdio: {e}"))
        })
    }

    /// Wait, without the GIL, until `stdio` stops serving (stdin ended, `stop()`, `close()`),
    /// as `serve_stdio` does: Ctrl-C stops it cleanly and propagates.
    fn wait_stdio_loop(&self, py: Python<'_>, stdio: &StdioLoop) -> PyResult<()> {
        let (token, join) = self.stdio_loop_end(stdio)?;
        self.wait_serving(py, token, join, "stdio")
    }

    /// Have `resolve(error, None)` called from a runtime thread when `stdio` stops serving, as
    /// `start_stdio` does (`run_async`, whose loop drives it).
    fn report_stdio_loop(&self, stdio: &StdioLoop, resolve: Py<PyAny>) -> PyResult<()> {
        let (_, join) = self.stdio_loop_end(stdio)?;
        self.report_end(join, resolve, "stdio", runtime_error);
        Ok(())
    }
}

impl Core {
    /// `stdio`'s shutdown token, and a task that ends with it.
    fn stdio_loop_end(&self, stdio: &StdioLoop) -> PyResult<(CancellationToken, Serving)> {
        let (token, ended) = lock(&stdio.ending)
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this stdio loop was waited for already"))?;
        let join = self.handle.spawn(async move {
            ended.await.unwrap_or_else(|_| Err(std::io::Error::other("the stdio loop panicked")))
        });
        Ok((token, join))
    }
}
