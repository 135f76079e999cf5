//! stdio served from a host's own thread: the thread where a binding's handlers run and
//! settle (Node's JavaScript thread, Python's event loop thread), instead of a runtime worker.
//!
//! Served from the runtime, a request whose handler runs on the host's thread crosses threads
//! twice: a worker reads it and wakes the host's thread, and the host's thread wakes a worker
//! back to write the answer. On a VM each wake-up of a sleeping thread costs more than a small
//! handler. Here the host feeds what it reads from stdin ([`HostedStdio::feed`]) and the core's
//! stdio loop ([`super::stdio::serve`], the loop every surface runs) is polled right there
//! ([`HostedStdio::drive`]); a request that has to wait stays on the thread too
//! ([`StdioOptions::run_waiting`]), polled again when what it waits for settles. A wake from
//! another thread (a worker pool's answer, a timer) asks the host to drive through its `poke`;
//! a wake on the thread while it drives makes that drive go round again, and a wake inside
//! [`driving_woken`] (a host call that settles a handler) is driven when that call ends.
//! While a drive runs, [`driving_here`] is true on the thread: a binding must not block it
//! (a blocking handler belongs on a pool).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::runtime::Handle;
use tokio::sync::oneshot;

use super::stdio::{self, StdioOptions};
use crate::server::{BoxFuture, Server};
use crate::sync::lock;

thread_local! {
    /// Whether a hosted loop is being driven on this thread.
    static DRIVING: Cell<bool> = const { Cell::new(false) };
    /// The loops woken inside [`driving_woken`], driven when it returns.
    static DEFERRED: RefCell<Option<Vec<Arc<Shared>>>> = const { RefCell::new(None) };
}

/// Whether a hosted stdio loop is being driven on this thread now (a handler called from it
/// must not block).
pub fn driving_here() -> bool {
    DRIVING.get()
}

/// Run `f`, a host call that may wake a hosted loop (a handler settling), then drive the loops
/// it woke at once, rather than poking the host to.
pub fn driving_woken<R>(f: impl FnOnce() -> R) -> R {
    let outer = DEFERRED.replace(Some(Vec::new()));
    let returned = f();
    let woken = DEFERRED.replace(outer).unwrap_or_default();
    for shared in woken {
        shared.drive();
    }
    returned
}

/// Asks the host to call [`HostedStdio::drive`] on its thread soon; called from any thread.
pub type Poke = Arc<dyn Fn() + Send + Sync>;

/// What was fed and not yet read, and whether the input ended. No waker is kept: `feed` and
/// `end` drive the loop themselves.
#[derive(Default)]
struct Input {
    bytes: VecDeque<u8>,
    ended: bool,
}

/// What the loop, its reader and its wakers share.
struct Shared {
    /// The core's stdio loop, until it returns.
    serving: Mutex<Option<BoxFuture<'static, ()>>>,
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
    /// Whether a poke is asked for and not yet answered by a drive.
    poked: AtomicBool,
    poke: Poke,
    runtime: Handle,
}

/// A request that has to wait, run on the host's thread.
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
    /// Something was woken: the drive running on this thread goes round again, a
    /// [`driving_woken`] call drives it when done, or the host is poked.
    fn schedule(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        if DRIVING.get() {
            return;
        }
        let deferred = DEFERRED.with_borrow_mut(|deferred| {
            let Some(woken) = deferred else { return false };
            if !woken.iter().any(|s| Arc::ptr_eq(s, self)) {
                woken.push(self.clone());
            }
            true
        });
        if !deferred && !self.poked.swap(true, Ordering::AcqRel) {
            (self.poke)();
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

    /// Poll the loop and the woken requests until nothing was woken during a round.
    fn drive(self: &Arc<Self>) {
        self.poked.store(false, Ordering::Release);
        if DRIVING.get() {
            // Fed or poked from inside a drive (a handler called from a poll): that drive goes
            // round again.
            self.serve_woken.store(true, Ordering::Release);
            self.woken.store(true, Ordering::Release);
            return;
        }
        let _runtime = self.runtime.enter();
        DRIVING.set(true);
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
        DRIVING.set(false);
    }

    fn poll_serving(self: &Arc<Self>) {
        let Ok(mut serving) = self.serving.try_lock() else { return };
        let Some(fut) = serving.as_mut() else { return };
        let waker = Waker::from(self.clone());
        // A panic must not unwind into the host: the loop is dropped, and its outcome is an
        // error.
        let polled = catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut Context::from_waker(&waker))));
        if let Err(p) = &polled {
            let message = crate::server::panic_message(&**p);
            tracing::error!(target: crate::diagnostics::target::HANDLER, "the stdio loop panicked and stopped: {message}");
        }
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
                if let Err(p) = &polled {
                    let message = crate::server::panic_message(&**p);
                    tracing::error!(target: crate::diagnostics::target::HANDLER, "a request panicked and was dropped: {message}");
                }
                if let Some(done) = waiting.done.take() {
                    let _ = done.send(());
                }
            }
        }
    }
}

/// The loop's input: what the host fed it.
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

/// One server's stdio loop, served from the thread that drives it.
pub struct HostedStdio {
    shared: Arc<Shared>,
}

impl HostedStdio {
    /// Serve `server` writing to `writer` (written on the host's thread), with `options` (its
    /// `run_waiting` is set here); `poke` asks the host to drive. The receiver gets the loop's
    /// outcome once serving ended (stdin ended, or `options.shutdown`) and in-flight requests
    /// finished; it fails when the loop panicked.
    pub fn new<W>(
        server: Server,
        runtime: Handle,
        mut options: StdioOptions,
        writer: W,
        poke: Poke,
    ) -> (HostedStdio, oneshot::Receiver<io::Result<()>>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
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
            runtime,
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
        let reader = FedReader(shared.clone());
        // A panic in the loop drops this future unfinished: `tx` drops with it.
        *lock(&shared.serving) = Some(Box::pin(async move {
            let served = stdio::serve(&server, reader, writer, options).await;
            let _ = tx.send(served);
        }));
        (HostedStdio { shared }, rx)
    }

    /// Hand the loop bytes read from stdin, and drive it.
    pub fn feed(&self, bytes: &[u8]) {
        lock(&self.shared.input).bytes.extend(bytes);
        self.shared.drive();
    }

    /// stdin ended: drive the loop to its end.
    pub fn end(&self) {
        lock(&self.shared.input).ended = true;
        self.shared.drive();
    }

    /// Poll the loop and the requests woken since (what a poke asks for).
    pub fn drive(&self) {
        self.shared.drive();
    }

    /// Whether requests are waiting on the host's thread (some answer is still to come).
    pub fn has_waiting(&self) -> bool {
        !lock(&self.shared.waiting).is_empty() || !lock(&self.shared.ready).is_empty()
    }

    /// Whether the loop returned (or panicked).
    pub fn is_done(&self) -> bool {
        lock(&self.shared.serving).is_none()
    }

    /// The runtime the loop runs on.
    pub fn runtime(&self) -> &Handle {
        &self.shared.runtime
    }
}

/// The process's stdout (file descriptor 1), written synchronously on the thread that drives
/// the loop, as Node writes to a pipe (so a client must read its answers while it writes
/// requests); when the descriptor is non-blocking and full, it waits for room.
pub struct BlockingStdout;

impl BlockingStdout {
    /// Write all of `bytes` to fd 1 now.
    pub fn write_all(mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let n = write_stdout(bytes)?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            bytes = &bytes[n..];
        }
        Ok(())
    }
}

/// One `write(2)` to fd 1, retried when interrupted, waiting for room when full.
fn write_stdout(buf: &[u8]) -> io::Result<usize> {
    // SAFETY: fd 1 is the process's stdout, open for its whole life; `ManuallyDrop` keeps this
    // `File` from closing it.
    let mut stdout = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
    loop {
        match stdout.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => wait_writable(),
            written => return written,
        }
    }
}

impl AsyncWrite for BlockingStdout {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(write_stdout(buf))
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
