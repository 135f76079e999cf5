//! Running Python handlers from the core's tokio tasks, without ever waiting on Rust while
//! holding the GIL.
//!
//! - A `def` handler runs on the runtime thread that reached it when no other `def` call of the
//!   server runs ([`crate::in_place`]: no hand-off at all at one request in flight).
//! - The other `def` calls run on a pool of worker threads ([`SyncPool`]). A worker attaches to
//!   Python, then runs queued calls one after the other until the queue is empty, and
//!   detaches: under load one GIL acquisition serves many calls instead of one handoff per
//!   call. Each worker keeps its Python thread state for its whole life (attaching is then a
//!   GIL acquisition only), and `close()` waits until the workers have deleted theirs. A
//!   worker inside a call no longer counts as free, so the next call wakes (or starts)
//!   another worker: a slow handler occupies one thread and nothing else.
//! - `async def` handlers run on an asyncio event loop (the package's own loop thread, or the
//!   caller's loop when served from inside one). A tokio task pushes a [`Job`] onto a queue and
//!   wakes the loop by writing a byte to a socket the loop watches (`loop.add_reader`): the
//!   wake needs no GIL, and one wake serves every job queued before the loop drains the queue,
//!   so submissions batch under load. The loop calls back [`Completion::resolve`] or
//!   [`Completion::reject`] with the handler's outcome, which completes a oneshot the tokio
//!   task awaits.

use std::collections::VecDeque;
use std::io::Write as _;
use std::os::fd::AsRawFd as _;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use ferrite_core::sync::lock;
use ferrite_core::transport::hosted_stdio::{driving_here, driving_woken};
use ferrite_core::{CompleteRequest, HandlerError, InputRequired, RequestContext};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::context::{PyRequestContext, Shared};
use crate::in_place::{self, InPlace};
use crate::mrtr::PyInputRequired;
use crate::{convert, errors};

/// What a handler's Python wrapper returned: the result's JSON, or (tools, prompts,
/// resources) the core's `InputRequired` built from the Python `InputRequired`.
pub enum Returned {
    /// The result as JSON.
    Json(Value),
    /// The handler needs the client's input first (MRTR).
    Input(InputRequired),
}

impl Returned {
    /// What a Python value returned by a wrapper is.
    fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Returned> {
        match obj.cast::<PyInputRequired>() {
            Ok(ir) => Ok(Returned::Input(ir.get().inner.clone())),
            Err(_) => convert::from_py(obj).map(Returned::Json),
        }
    }
}

/// A handler's outcome: what its Python wrapper returned, or why it failed.
pub type Outcome = Result<Returned, HandlerError>;

/// What a handler is called with; turned into Python objects on the thread that calls it.
pub enum Input {
    /// `tools/call` arguments (an object).
    Tool(Value),
    /// `resources/read`: the URI and the template's captured variables.
    Resource(String, std::collections::BTreeMap<String, String>),
    /// `prompts/get` arguments.
    Prompt(Map<String, Value>),
    /// `completion/complete`.
    Completion(CompleteRequest),
    /// A notification from the client: its method and params.
    Notification(String, Option<Value>),
    /// A custom request method's params (without `_meta`).
    Method(Map<String, Value>),
    /// A bearer token for the server's token verifier (never logged; no `Debug` here).
    Token(String),
    /// A request passing through a middleware.
    Middleware(crate::middleware::MiddlewareCall),
}

impl Input {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Input::Tool(v) => convert::to_py(py, v),
            Input::Resource(uri, vars) => {
                let d = PyDict::new(py);
                for (k, v) in vars {
                    d.set_item(k, v)?;
                }
                Ok(PyTuple::new(py, [uri.into_pyobject(py)?.into_any(), d.into_any()])?.into_any())
            }
            Input::Prompt(m) | Input::Method(m) => Ok(convert::map_to_py(py, m)?.into_any()),
            // The request's wire shape, as the core serializes it.
            Input::Completion(req) => convert::to_py(py, &serde_json::to_value(req).unwrap_or(Value::Null)),
            Input::Token(token) => Ok(pyo3::types::PyString::new(py, token).into_any()),
            Input::Middleware(call) => call.to_py(py),
            Input::Notification(method, params) => {
                let params = match params {
                    Some(p) => convert::to_py(py, p)?,
                    None => py.None().into_bound(py),
                };
                Ok(PyTuple::new(py, [method.into_pyobject(py)?.into_any(), params])?.into_any())
            }
        }
    }
}

/// A registered Python handler: the package's wrapper around the user's function, called as
/// `wrapper(input, ctx)` where `ctx` is a `RequestContext` or `None` when the function takes
/// no context.
pub struct PyCallable {
    pub callable: Py<PyAny>,
    pub is_async: bool,
    pub wants_context: bool,
}

/// One call of an `async def` handler, waiting on the queue for the event loop.
struct Job {
    handler: Arc<PyCallable>,
    input: Input,
    ctx: Option<RequestContext>,
    done: oneshot::Sender<Outcome>,
}

/// The queue between tokio tasks and the asyncio loop that runs `async def` handlers.
pub struct AsyncQueue {
    jobs: Mutex<Vec<Job>>,
    /// Whether a wake byte is written and not yet answered by a drain.
    armed: AtomicBool,
    /// The write end of the wake socket; the loop watches the read end.
    wake_tx: UnixStream,
    wake_rx: UnixStream,
    closed: AtomicBool,
}

impl AsyncQueue {
    pub fn new() -> std::io::Result<Self> {
        let (wake_tx, wake_rx) = UnixStream::pair()?;
        wake_tx.set_nonblocking(true)?;
        wake_rx.set_nonblocking(true)?;
        Ok(AsyncQueue {
            jobs: Mutex::new(Vec::new()),
            armed: AtomicBool::new(false),
            wake_tx,
            wake_rx,
            closed: AtomicBool::new(false),
        })
    }

    /// The file descriptor the event loop watches for readability.
    pub fn wake_fd(&self) -> i32 {
        self.wake_rx.as_raw_fd()
    }

    /// Queue a job; false (the job dropped) when the queue is closed.
    fn push(&self, job: Job) -> bool {
        let mut jobs = lock(&self.jobs);
        if self.closed.load(Ordering::SeqCst) {
            return false;
        }
        jobs.push(job);
        // The loop serving stdio on this thread takes them right after its drive.
        if !self.armed.swap(true, Ordering::SeqCst) && !crate::stdio_loop::drains_here(self) {
            self.wake();
        }
        true
    }

    /// Wake the loop to take the queued jobs.
    pub fn wake(&self) {
        // A full socket buffer means a wake is already pending; nothing is lost.
        let _ = (&self.wake_tx).write(&[1]);
    }

    /// Whether jobs wait to be taken.
    pub fn has_jobs(&self) -> bool {
        !lock(&self.jobs).is_empty()
    }

    /// Take every queued job (called by the loop when the wake socket is readable).
    fn take(&self) -> Vec<Job> {
        let mut buf = [0u8; 64];
        while matches!(std::io::Read::read(&mut (&self.wake_rx), &mut buf), Ok(n) if n > 0) {}
        let mut jobs = lock(&self.jobs);
        self.armed.store(false, Ordering::SeqCst);
        std::mem::take(&mut *jobs)
    }

    /// Refuse new jobs and fail the queued ones (their senders drop).
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        lock(&self.jobs).clear();
    }
}

/// Turns queued jobs into Python calls, on the event loop's thread.
pub fn take_jobs<'py>(py: Python<'py>, queue: &AsyncQueue, shared: &Arc<Shared>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let jobs = queue.take();
    let mut out = Vec::with_capacity(jobs.len());
    for job in jobs {
        let done = Completion { tx: Mutex::new(Some(job.done)) };
        let done = Bound::new(py, done)?;
        let args = job.input.to_py(py).and_then(|input| Ok((input, context_arg(py, &job.handler, job.ctx, shared)?)));
        let (input, ctx) = match args {
            Ok(a) => a,
            Err(e) => {
                // This call fails; the others still run.
                done.borrow().send(Err(errors::to_handler_error(py, &e)));
                continue;
            }
        };
        out.push(PyTuple::new(py, [job.handler.callable.bind(py).clone(), input, ctx, done.into_any()])?);
    }
    Ok(out)
}

fn context_arg<'py>(
    py: Python<'py>,
    h: &PyCallable,
    ctx: Option<RequestContext>,
    shared: &Arc<Shared>,
) -> PyResult<Bound<'py, PyAny>> {
    match ctx {
        Some(ctx) if h.wants_context => Ok(Bound::new(py, PyRequestContext::new(ctx, shared.clone()))?.into_any()),
        _ => Ok(py.None().into_bound(py)),
    }
}

/// The completion handle of one `async def` call, resolved by the event loop.
#[pyclass(module = "ferrite_mcp._ferrite", frozen)]
pub struct Completion {
    tx: Mutex<Option<oneshot::Sender<Outcome>>>,
}

impl Completion {
    fn send(&self, outcome: Outcome) {
        if let Some(tx) = lock(&self.tx).take() {
            // The receiver is gone when the request was dropped (server closing): ignore.
            let _ = tx.send(outcome);
        }
    }
}

#[pymethods]
impl Completion {
    /// Complete with the handler wrapper's result (JSON, or a core `InputRequired`). Served
    /// from this thread (`stdio_loop`), the answer is ready before this returns (written, or
    /// scheduled with others').
    fn resolve(&self, py: Python<'_>, result: &Bound<'_, PyAny>) {
        let outcome = Returned::from_py(result).map_err(|e| errors::invalid_result(py, &e));
        driving_woken(|| self.send(outcome));
        crate::stdio_loop::after_settle(py);
    }

    /// Complete with the handler's exception.
    fn reject(&self, py: Python<'_>, error: &Bound<'_, PyAny>) {
        let err = PyErr::from_value(error.clone());
        let outcome = Err(errors::to_handler_error(py, &err));
        driving_woken(|| self.send(outcome));
        crate::stdio_loop::after_settle(py);
    }
}

/// One call of a `def` handler, waiting for a worker.
struct SyncJob {
    handler: Arc<PyCallable>,
    input: Input,
    ctx: Option<RequestContext>,
    done: oneshot::Sender<Outcome>,
}

#[derive(Default)]
struct PoolState {
    queue: VecDeque<SyncJob>,
    /// Workers alive.
    total: usize,
    /// Workers awake and not inside a call (they will take the next queued job).
    free: usize,
    /// Wake-ups granted to sleeping workers and not yet taken.
    wakeups: usize,
    /// Workers asleep.
    sleeping: usize,
    closed: bool,
}

/// The workers that run `def` handlers.
pub struct SyncPool {
    state: Mutex<PoolState>,
    wake: Condvar,
    /// Signalled each time a worker thread is done with Python for good.
    exited: Condvar,
    shared: Arc<Shared>,
    max_workers: usize,
}

impl SyncPool {
    pub fn new(shared: Arc<Shared>, max_workers: usize) -> Self {
        SyncPool {
            state: Mutex::new(PoolState::default()),
            wake: Condvar::new(),
            exited: Condvar::new(),
            shared,
            max_workers,
        }
    }

    /// Queue a call; false (the call dropped) when the pool is closed.
    fn submit(self: &Arc<Self>, job: SyncJob) -> bool {
        let mut st = lock(&self.state);
        if st.closed {
            return false;
        }
        st.queue.push_back(job);
        // One free worker per queued job: two jobs queued before a woken worker took the first
        // must not wait behind it.
        if st.free < st.queue.len() {
            if st.sleeping > st.wakeups {
                st.wakeups += 1;
                st.free += 1;
                self.wake.notify_one();
            } else if st.total < self.max_workers {
                st.total += 1;
                st.free += 1;
                let pool = self.clone();
                let spawned = std::thread::Builder::new().name("ferrite-py-worker".into()).spawn(move || pool.work());
                if spawned.is_err() {
                    st.total -= 1;
                    st.free -= 1;
                }
            }
            // Otherwise every worker is inside a call: the first to finish takes the job.
        }
        true
    }

    /// A worker's thread: [`SyncPool::serve`] inside one Python thread state kept for the
    /// thread's whole life. Without it every attach in `serve` would create a thread state and
    /// every detach destroy it (`PyThreadState_New`, a frame stack mapped and unmapped): about
    /// 20 µs of CPU per call at one request in flight. The worker counts as gone only once
    /// that thread state is deleted, which [`SyncPool::close_and_wait`] waits for.
    fn work(self: Arc<Self>) {
        let pool = self.clone();
        if Python::try_attach(|py| py.detach(move || pool.serve())).is_none() {
            self.clone().serve();
        }
        lock(&self.state).total -= 1;
        self.exited.notify_all();
    }

    /// A worker's life: drain the queue while attached, sleep when it is empty.
    fn serve(self: Arc<Self>) {
        loop {
            let attached = Python::try_attach(|py| loop {
                let job = {
                    let mut st = lock(&self.state);
                    match st.queue.pop_front() {
                        Some(job) => {
                            st.free -= 1;
                            job
                        }
                        None => break,
                    }
                };
                let outcome = call_sync(py, &job.handler, &job.input, job.ctx, &self.shared);
                let _ = job.done.send(outcome);
                lock(&self.state).free += 1;
            });
            let mut st = lock(&self.state);
            if attached.is_none() {
                // The interpreter is shutting down: fail what is queued and stop.
                st.queue.clear();
                st.closed = true;
            }
            if !st.queue.is_empty() && !st.closed {
                continue; // a job arrived after the drain saw the queue empty
            }
            st.free -= 1;
            st.sleeping += 1;
            while st.wakeups == 0 && !st.closed {
                st = self.wake.wait(st).unwrap_or_else(|p| p.into_inner());
            }
            st.sleeping -= 1;
            if st.closed {
                if INTERPRETER_EXITING.load(Ordering::SeqCst) {
                    // Closed during finalization (a server collected after `atexit`): going
                    // back into Python would end this thread inside CPython
                    // (`PyThread_exit_thread`), so it stays parked until the process ends.
                    drop(st);
                    loop {
                        std::thread::park();
                    }
                }
                return;
            }
            st.wakeups -= 1;
        }
    }

    /// Whether the pool still takes calls (`close()` not called).
    fn is_open(&self) -> bool {
        !lock(&self.state).closed
    }

    /// Refuse new calls, fail the queued ones and let the workers exit.
    pub fn close(&self) {
        let mut st = lock(&self.state);
        st.closed = true;
        st.queue.clear();
        self.wake.notify_all();
    }

    /// [`SyncPool::close`], then wait (without the GIL, at most `limit`) until every worker
    /// has deleted its Python thread state: after `close()` returns no worker of this server
    /// touches the interpreter again (a worker inside a handler that outlives `limit` still
    /// finishes it).
    pub fn close_and_wait(&self, py: Python<'_>, limit: Duration) {
        self.close();
        py.detach(|| {
            let st = lock(&self.state);
            let _ = self.exited.wait_timeout_while(st, limit, |st| st.total > 0);
        });
    }
}

/// Set by the package's `atexit` hook once every live server is closed: a pool closed after
/// it is closed during finalization.
static INTERPRETER_EXITING: AtomicBool = AtomicBool::new(false);

/// The interpreter is exiting (called from the package's `atexit` hook, after it closed every
/// live server).
#[pyfunction]
pub fn interpreter_exiting() {
    INTERPRETER_EXITING.store(true, Ordering::SeqCst);
}

/// Whether the package's `atexit` hook has run: a thread that is not in Python by now must not
/// enter it.
pub fn interpreter_is_exiting() -> bool {
    INTERPRETER_EXITING.load(Ordering::SeqCst)
}

/// Runs handlers for one server.
pub struct Executor {
    pub queue: Arc<AsyncQueue>,
    pub pool: Arc<SyncPool>,
    /// Whether a `def` call runs on the runtime thread that reached it, and how many on the
    /// pool.
    pub in_place: InPlace,
}

impl Executor {
    /// The right to run a `def` call in place ([`crate::in_place`]): only a request's own
    /// handler, not a task's (the core races a task's handler against its cancellation and
    /// expiry, which a blocked poll would stall) nor a notification's or a token
    /// verifier's, and only while the server is open.
    fn claim_in_place(&self, ctx: Option<&RequestContext>) -> Option<in_place::Claim<'_>> {
        // Nor on the event loop's thread serving stdio, which a blocked call would stop.
        if ctx.is_none_or(RequestContext::is_task) || driving_here() {
            return None;
        }
        let claim = self.in_place.claim()?;
        self.pool.is_open().then_some(claim)
    }

    /// Call `handler` with `input`; resolves to the JSON its wrapper returned.
    pub async fn run(&self, handler: Arc<PyCallable>, input: Input, ctx: Option<RequestContext>) -> Outcome {
        if handler.is_async {
            let (tx, rx) = oneshot::channel();
            if !self.queue.push(Job { handler, input, ctx, done: tx }) {
                return Err(HandlerError::failed("the server is closed"));
            }
            rx.await.unwrap_or_else(|_| Err(HandlerError::failed("the server closed before the handler finished")))
        } else if let Some(claim) = self.claim_in_place(ctx.as_ref()) {
            in_place::step_aside().await;
            let outcome = in_place::attach(|py| call_sync(py, &handler, &input, ctx, &self.pool.shared));
            drop(claim);
            outcome
        } else {
            let _pooled = self.in_place.pooled();
            let (tx, rx) = oneshot::channel();
            if !self.pool.submit(SyncJob { handler, input, ctx, done: tx }) {
                return Err(HandlerError::failed("the server is closed"));
            }
            rx.await.unwrap_or_else(|_| Err(HandlerError::failed("the server closed before the handler finished")))
        }
    }
}

fn call_sync(
    py: Python<'_>,
    h: &PyCallable,
    input: &Input,
    ctx: Option<RequestContext>,
    shared: &Arc<Shared>,
) -> Outcome {
    let out = (|| {
        let arg = input.to_py(py)?;
        let ctx = context_arg(py, h, ctx, shared)?;
        h.callable.bind(py).call1((arg, ctx))
    })()
    .map_err(|e| errors::to_handler_error(py, &e))?;
    Returned::from_py(&out).map_err(|e| errors::invalid_result(py, &e))
}
