//! stdio served from the JavaScript thread.
//!
//! Served from the runtime, a request crosses threads twice: a tokio worker reads it and
//! queues the JS handler to the JS thread, and the JS thread hands the answer back to a worker,
//! which writes it. On a VM each of those wake-ups of a sleeping thread costs more than the
//! handler itself. Here the JS thread reads stdin (`process.stdin` `data` events), and each
//! chunk drives the core's stdio loop (`transport::stdio::serve`, the same loop every surface
//! runs) right there, in [`StdioLoop::feed`]: a JS handler that answers without waiting is
//! called directly ([`js_env`], used by `handlers.rs`) and its answer written to stdout before
//! `feed` returns. A request that has to wait (a Promise, a server-to-client request) stays on
//! the JS thread too (the core's `StdioOptions::run_waiting`): what wakes it (a promise
//! settling, a reply read from stdin) mostly happens there, and a wake from another thread
//! asks the JS thread to poll again through a thread-safe function. stdout is written
//! synchronously, as Node writes to a pipe on Linux (and so as the TypeScript SDK's transport
//! does): a client must read its responses while it writes requests.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};

use ferrite_core::sync::lock;
use ferrite_core::transport::stdio;
use ferrite_core::BoxFuture;
use napi::bindgen_prelude::{Buffer, Function, Object};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{sys, Env, Error, Result, Status};
use napi_derive::napi;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::runtime::Handle;
use tokio::sync::oneshot;

use crate::server::{NativeServer, Resolver};

thread_local! {
    /// The env of the napi call polling a stdio loop on this thread, while it polls.
    static POLLING: Cell<Option<sys::napi_env>> = const { Cell::new(None) };
    /// The loops woken during a napi call that drives them itself when it is done
    /// ([`driving_woken`]), while it runs.
    static DEFERRED: RefCell<Option<Vec<Arc<Shared>>>> = const { RefCell::new(None) };
}

/// The env to call JS with directly: set only on the JS thread, while a stdio loop is being
/// polled from one of its napi calls (so a JS function called with it runs inside that call).
pub(crate) fn js_env() -> Option<Env> {
    POLLING.get().map(Env::from_raw)
}

/// Run `f`, a napi call on the JS thread that may wake a stdio loop (a handler settling:
/// `settleCall`), then drive the loops it woke at once, rather than asking the event loop to.
/// (Collecting the handlers that settle together and answering them in one microtask was
/// tried: it delays each answer, and a pipelining client's next request with it.)
pub(crate) fn driving_woken<R>(env: &Env, f: impl FnOnce() -> R) -> R {
    let outer = DEFERRED.replace(Some(Vec::new()));
    let returned = f();
    let woken = DEFERRED.replace(outer).unwrap_or_default();
    for shared in woken {
        shared.drive(env);
    }
    returned
}

/// Asks the JS thread to poll the loop (`() => loop.poll()`): weak, so it never keeps Node alive.
type Poke = ThreadsafeFunction<(), (), (), Status, false, true>;

/// The served stdio: what was read and not yet taken, and whether stdin ended. No waker is
/// kept: `feed` and `end` drive the loop themselves.
#[derive(Default)]
struct Input {
    bytes: VecDeque<u8>,
    ended: bool,
}

/// What the loop, its reader and its wakers share.
struct Shared {
    /// The core's stdio loop, until it returns.
    serving: Mutex<Option<Pin<Box<dyn Future<Output = ()> + Send>>>>,
    input: Mutex<Input>,
    /// The requests waiting on this thread, by id.
    waiting: Mutex<HashMap<u64, Waiting>>,
    next_id: AtomicU64,
    /// The waiting requests woken since they were last polled.
    ready: Mutex<Vec<u64>>,
    /// The loop was woken since it was last polled.
    serve_woken: AtomicBool,
    /// Something was woken since the drive last looked.
    woken: AtomicBool,
    /// Whether a poke is queued to the JS thread.
    poked: AtomicBool,
    poke: Poke,
    runtime: Handle,
}

/// A request that has to wait, run on the JS thread.
struct Waiting {
    future: BoxFuture<'static, ()>,
    wake: Arc<WaitingWake>,
    done: Option<oneshot::Sender<()>>,
}

/// The waker of one waiting request.
struct WaitingWake {
    shared: Weak<Shared>,
    id: u64,
    queued: AtomicBool,
}

impl Wake for WaitingWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        if let Some(shared) = self.shared.upgrade() {
            lock(&shared.ready).push(self.id);
            shared.schedule();
        }
    }
}

/// The loop's own waker.
impl Wake for Shared {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.serve_woken.store(true, Ordering::Release);
        self.schedule();
    }
}

impl Shared {
    /// Something was woken: the drive running on this thread goes round again, or the JS
    /// thread is asked to drive.
    fn schedule(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        if POLLING.get().is_some() {
            return;
        }
        let deferred = DEFERRED.with_borrow_mut(|deferred| {
            let Some(woken) = deferred else { return false };
            if !woken.iter().any(|s| Arc::ptr_eq(s, self)) {
                woken.push(self.clone());
            }
            true
        });
        if deferred {
            return;
        }
        if !self.poked.swap(true, Ordering::AcqRel) {
            self.poke.call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }

    /// Take a request that has to wait; `done` is told when it finished.
    fn run(self: &Arc<Self>, future: BoxFuture<'static, ()>, done: oneshot::Sender<()>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let wake = Arc::new(WaitingWake { shared: Arc::downgrade(self), id, queued: AtomicBool::new(true) });
        lock(&self.waiting).insert(id, Waiting { future, wake, done: Some(done) });
        lock(&self.ready).push(id);
        self.schedule();
    }

    /// Poll the loop and the woken requests on the JS thread until nothing was woken during
    /// a round.
    fn drive(self: &Arc<Self>, env: &Env) {
        self.poked.store(false, Ordering::Release);
        if POLLING.get().is_some() {
            // A JS handler called from a poll fed or poked the loop: that drive goes round again.
            self.serve_woken.store(true, Ordering::Release);
            self.woken.store(true, Ordering::Release);
            return;
        }
        let _runtime = self.runtime.enter();
        POLLING.set(Some(env.raw()));
        self.serve_woken.store(true, Ordering::Release);
        loop {
            self.woken.store(false, Ordering::Release);
            if self.serve_woken.swap(false, Ordering::AcqRel) {
                self.poll_serving();
            }
            let ready = std::mem::take(&mut *lock(&self.ready));
            for id in ready {
                self.poll_waiting(id);
            }
            if !self.woken.load(Ordering::Acquire) {
                break;
            }
        }
        POLLING.set(None);
    }

    fn poll_serving(self: &Arc<Self>) {
        let Ok(mut serving) = self.serving.try_lock() else { return };
        let Some(fut) = serving.as_mut() else { return };
        let waker = Waker::from(self.clone());
        // A panic must not unwind into Node: the loop is dropped, and `done()` rejects.
        let polled = catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut Context::from_waker(&waker))));
        if !matches!(polled, Ok(Poll::Pending)) {
            *serving = None;
        }
    }

    fn poll_waiting(&self, id: u64) {
        // Out of the table while it runs: it may start other requests.
        let Some(mut waiting) = lock(&self.waiting).remove(&id) else { return };
        waiting.wake.queued.store(false, Ordering::Release);
        let waker = Waker::from(waiting.wake.clone());
        // A panic (the core catches handlers' own) drops the request, as a panicking tokio task
        // would be: the loop is told it is done, and keeps serving.
        let polled = catch_unwind(AssertUnwindSafe(|| waiting.future.as_mut().poll(&mut Context::from_waker(&waker))));
        match polled {
            Ok(Poll::Pending) => {
                lock(&self.waiting).insert(id, waiting);
            }
            Ok(Poll::Ready(())) | Err(_) => {
                if let Some(done) = waiting.done.take() {
                    let _ = done.send(());
                }
            }
        }
    }
}

/// The loop's stdin: the chunks JS fed it.
struct FedReader(Arc<Shared>);

impl AsyncRead for FedReader {
    fn poll_read(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let mut input = lock(&self.0.input);
        if input.bytes.is_empty() {
            if input.ended {
                return Poll::Ready(Ok(()));
            }
            // The next chunk (or the end) comes with a `feed` (or `end`) that polls again.
            return Poll::Pending;
        }
        let n = buf.remaining().min(input.bytes.len());
        let (front, back) = input.bytes.as_slices();
        let from_front = n.min(front.len());
        buf.put_slice(&front[..from_front]);
        buf.put_slice(&back[..n - from_front]);
        input.bytes.drain(..n);
        Poll::Ready(Ok(()))
    }
}

/// The loop's stdout: file descriptor 1, written from the JS thread as Node writes to a pipe
/// (synchronously), waiting for room when the descriptor is non-blocking and full.
struct Stdout;

impl AsyncWrite for Stdout {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            // SAFETY: `buf` is a valid slice for its length; fd 1 is the process's stdout.
            let n = unsafe { libc::write(1, buf.as_ptr().cast(), buf.len()) };
            if n >= 0 {
                return Poll::Ready(Ok(n as usize));
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => wait_writable(),
                _ => return Poll::Ready(Err(e)),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Block until fd 1 takes more bytes.
fn wait_writable() {
    let mut fd = libc::pollfd { fd: 1, events: libc::POLLOUT, revents: 0 };
    // SAFETY: one valid `pollfd`, for the length given.
    unsafe { libc::poll(&mut fd, 1, -1) };
}

/// The stdio loop of one server, served from the JS thread (see the module docs).
#[napi]
pub struct StdioLoop {
    shared: Arc<Shared>,
    done: Mutex<Option<oneshot::Receiver<std::result::Result<(), String>>>>,
}

#[napi]
impl StdioLoop {
    /// Hand the loop a chunk read from stdin, and answer what it completes.
    #[napi]
    pub fn feed(&self, env: Env, chunk: Buffer) {
        lock(&self.shared.input).bytes.extend(chunk.iter());
        self.shared.drive(&env);
    }

    /// stdin ended.
    #[napi]
    pub fn end(&self, env: Env) {
        lock(&self.shared.input).ended = true;
        self.shared.drive(&env);
    }

    /// Poll the loop (what the poke calls).
    #[napi]
    pub fn poll(&self, env: Env) {
        self.shared.drive(&env);
    }

    /// Resolves when serving ended (stdin ended, or the server closed), once in-flight
    /// requests finished.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn done<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let rx = lock(&self.done).take().ok_or_else(|| Error::from_reason("done() was already called"))?;
        let (deferred, promise) = env.create_deferred::<(), Resolver<()>>()?;
        self.shared.runtime.spawn(async move {
            match rx.await {
                Ok(Ok(())) => deferred.resolve(Box::new(|_| Ok(()))),
                Ok(Err(e)) => deferred.reject(Error::from_reason(format!("stdio transport failed: {e}"))),
                Err(_) => deferred.reject(Error::from_reason("stdio transport failed: the loop panicked")),
            }
        });
        Ok(promise)
    }
}

#[napi]
impl NativeServer {
    /// Serve stdio from the JS thread: JS feeds the returned loop what it reads from stdin
    /// (`feed`, `end`) and has `poke` call `loop.poll()`; `loop.done()` resolves when serving
    /// ended.
    #[napi]
    pub fn stdio_loop(&self, poke: Function<'_, (), ()>, max_line_bytes: Option<u32>) -> Result<StdioLoop> {
        let mut claimed = lock(&self.serving);
        if claimed.is_some() {
            return Err(Error::from_reason("the server is already serving stdio"));
        }
        let runtime = self.handle()?;
        let mut options = self.stdio_options(max_line_bytes);
        let poke = poke.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        let shared = Arc::new(Shared {
            serving: Mutex::new(None),
            input: Mutex::new(Input::default()),
            waiting: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            ready: Mutex::new(Vec::new()),
            serve_woken: AtomicBool::new(false),
            woken: AtomicBool::new(false),
            poked: AtomicBool::new(false),
            poke,
            runtime: runtime.clone(),
        });
        let on_this_thread = Arc::downgrade(&shared);
        options.run_waiting = Some(Arc::new(move |future| {
            let (done, finished) = oneshot::channel();
            if let Some(shared) = on_this_thread.upgrade() {
                shared.run(future, done);
            }
            Box::pin(async move {
                let _ = finished.await;
            })
        }));
        let (tx, rx) = oneshot::channel();
        let (finished_tx, finished_rx) = oneshot::channel::<()>();
        // `close()` waits for this as for any serving task.
        *claimed = Some(runtime.spawn(async move {
            let _ = finished_rx.await;
        }));
        let server = self.server.clone();
        let reader = FedReader(shared.clone());
        *lock(&shared.serving) = Some(Box::pin(async move {
            let served = stdio::serve(&server, reader, Stdout, options).await;
            let _ = tx.send(served.map_err(|e| e.to_string()));
            let _ = finished_tx.send(());
        }));
        Ok(StdioLoop { shared, done: Mutex::new(Some(rx)) })
    }
}
