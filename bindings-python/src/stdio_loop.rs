//! stdio served from the asyncio event loop's thread, where `async def` handlers run.
//!
//! Served from the runtime, an `async def` call crosses threads twice: a tokio worker reads the
//! request and wakes the loop thread, and the loop thread wakes a worker back to write the
//! answer. Here the loop watches stdin (`add_reader`) and each read drives the core's stdio
//! loop on the loop thread (`ferrite_core::transport::hosted_stdio`): the calls it reaches are
//! queued for the loop as before, but turned into tasks right after the drive (no wake byte,
//! no wait for the selector), and a handler's `Completion` drives the loop again when it
//! settles, so the answer is ready before `resolve` returns. `def` calls go to the pool (a
//! blocking call must not stop the loop), and a wake from another thread (the pool, a timer)
//! reaches the loop through a socket it watches.
//!
//! Answers are written to stdout at the end of each drive the loop starts (a read, a poke),
//! and after a handler's completion when no other request waits; while others do, at the end
//! of the loop's pass (`call_soon`), so that the answers of handlers settling together go out
//! in one `write(2)` instead of one each.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{self, Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::task::{Context, Poll};

use ferrite_core::sync::lock;
use ferrite_core::transport::hosted_stdio::{BlockingStdout, HostedStdio};
use ferrite_core::transport::stdio::StdioOptions;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use tokio::io::AsyncWrite;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::bridge::AsyncQueue;

thread_local! {
    /// The queue whose `async def` calls are turned into tasks after the drive running on this
    /// thread (so pushing one needs no wake byte).
    static DRAINING: Cell<*const AsyncQueue> = const { Cell::new(std::ptr::null()) };
    /// The loops whose answers wait in their output since the last drive on this thread ended.
    static UNWRITTEN: RefCell<Vec<Arc<Output>>> = const { RefCell::new(Vec::new()) };
}

/// A loop's answers not yet written to stdout, and how to have them written later.
struct Output {
    bytes: Mutex<Vec<u8>>,
    /// Whether a write is scheduled on the event loop (`call_soon`).
    scheduled: AtomicBool,
    /// Schedules `StdioLoop.flush` on the event loop (set when the loop watches stdin).
    schedule: OnceLock<Py<PyAny>>,
    /// Whether requests still wait (an answer is still to come), from the hosted loop.
    hosted: OnceLock<Weak<HostedStdio>>,
    /// Stops serving when stdout fails (the client is gone), as the runtime's loop does.
    shutdown: CancellationToken,
}

impl Output {
    /// Write what waits, now.
    fn write(&self) {
        let bytes = std::mem::take(&mut *lock(&self.bytes));
        if !bytes.is_empty() && BlockingStdout::write_all(&bytes).is_err() {
            self.shutdown.cancel();
        }
    }

    /// After a handler's completion: write now when no other request waits, else once this
    /// pass of the event loop is over.
    fn write_or_schedule(&self, py: Python<'_>) {
        let others = self.hosted.get().and_then(Weak::upgrade).is_some_and(|h| h.has_waiting());
        match self.schedule.get() {
            Some(schedule) if others => {
                if !self.scheduled.swap(true, Ordering::AcqRel) {
                    if let Err(e) = schedule.call0(py) {
                        e.write_unraisable(py, None);
                        self.scheduled.store(false, Ordering::Release);
                        self.write();
                    }
                }
            }
            _ => self.write(),
        }
    }
}

/// The loop's stdout: kept in its [`Output`] until the drive ends.
struct Buffered(Arc<Output>);

impl AsyncWrite for Buffered {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let mut bytes = lock(&self.0.bytes);
        if bytes.is_empty() {
            UNWRITTEN.with_borrow_mut(|u| u.push(self.0.clone()));
        }
        bytes.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// After a handler's completion settled (and drove what it woke): write the answers that
/// drive produced, or schedule their write while other requests wait.
pub fn after_settle(py: Python<'_>) {
    for output in UNWRITTEN.take() {
        output.write_or_schedule(py);
    }
}

/// At the end of a drive the loop started: write every answer waiting.
fn write_unwritten() {
    for output in UNWRITTEN.take() {
        output.write();
    }
}

/// Whether `queue`'s calls are turned into tasks when the drive running on this thread ends.
pub fn drains_here(queue: &AsyncQueue) -> bool {
    std::ptr::eq(DRAINING.get(), queue)
}

/// One server's stdio, served from the event loop's thread (see the module docs).
#[pyclass(module = "ferrite_mcp._ferrite", frozen)]
pub struct StdioLoop {
    hosted: Arc<HostedStdio>,
    output: Arc<Output>,
    /// The read end of the socket other threads poke (the loop watches it).
    pokes: UnixStream,
    queue: Arc<AsyncQueue>,
    /// Turns the queued `async def` calls into tasks (`LoopBridge.drain`).
    drain: Py<PyAny>,
    /// The serving claim and how serving ended, taken by `Core.wait_stdio_loop`.
    pub(crate) ending: Mutex<Option<(CancellationToken, oneshot::Receiver<io::Result<()>>)>>,
}

impl StdioLoop {
    /// Serve `server` on `runtime` until `token` is cancelled or stdin ends, once driven
    /// (`poked`, `readable`) on the loop thread; `drain` turns `queue`'s calls into tasks.
    pub fn new(
        server: ferrite_core::Server,
        runtime: tokio::runtime::Handle,
        token: CancellationToken,
        queue: Arc<AsyncQueue>,
        drain: Py<PyAny>,
    ) -> io::Result<Self> {
        let (poker, pokes) = UnixStream::pair()?;
        poker.set_nonblocking(true)?;
        pokes.set_nonblocking(true)?;
        let poke = Arc::new(move || {
            // A full socket means a poke is pending already.
            let _ = (&poker).write(&[1]);
        });
        let options = StdioOptions { shutdown: token.clone(), ..StdioOptions::default() };
        let output = Arc::new(Output {
            bytes: Mutex::new(Vec::new()),
            scheduled: AtomicBool::new(false),
            schedule: OnceLock::new(),
            hosted: OnceLock::new(),
            shutdown: token.clone(),
        });
        let (hosted, ended) = HostedStdio::new(server, runtime, options, Buffered(output.clone()), poke);
        let hosted = Arc::new(hosted);
        let _ = output.hosted.set(Arc::downgrade(&hosted));
        Ok(StdioLoop { hosted, output, pokes, queue, drain, ending: Mutex::new(Some((token, ended))) })
    }

    /// Drive the loop with `step`, then turn the `async def` calls it reached into tasks.
    fn drive_with(&self, py: Python<'_>, step: impl FnOnce(&HostedStdio)) {
        let outer = DRAINING.replace(Arc::as_ptr(&self.queue));
        step(&self.hosted);
        DRAINING.set(outer);
        write_unwritten();
        // Its answers kept for a scheduled write too: they go out with these.
        self.output.write();
        if self.queue.has_jobs() {
            if let Err(e) = self.drain.call0(py) {
                e.write_unraisable(py, None);
                // The loop still watches the queue's socket: it takes them from there.
                self.queue.wake();
            }
        }
    }
}

#[pymethods]
impl StdioLoop {
    /// The descriptor other threads poke; the loop calls `poked()` when it is readable.
    #[getter]
    fn wake_fd(&self) -> i32 {
        self.pokes.as_raw_fd()
    }

    /// stdin is readable: read what is there and serve it. False once stdin ended (stop
    /// watching it).
    fn readable(&self, py: Python<'_>) -> bool {
        let mut buf = [0u8; 64 * 1024];
        // SAFETY: fd 0 is the process's stdin, open for its whole life; `ManuallyDrop` keeps
        // this `File` from closing it.
        let mut stdin = ManuallyDrop::new(unsafe { File::from_raw_fd(0) });
        let read = loop {
            match stdin.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                read => break read,
            }
        };
        match read {
            Ok(0) => {
                self.drive_with(py, HostedStdio::end);
                false
            }
            Ok(n) => {
                self.drive_with(py, |h| h.feed(&buf[..n]));
                true
            }
            // Readable, and then not: nothing to do until it is again.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => true,
            Err(e) => {
                report_stdin_error(py, &e);
                self.drive_with(py, HostedStdio::end);
                false
            }
        }
    }

    /// Another thread woke the loop: poll it.
    fn poked(&self, py: Python<'_>) {
        let mut buf = [0u8; 64];
        while matches!((&self.pokes).read(&mut buf), Ok(n) if n > 0) {}
        self.drive_with(py, HostedStdio::drive);
    }

    /// `schedule()` has `flush()` called once the event loop's current pass is over.
    fn set_scheduler(&self, schedule: Py<PyAny>) {
        let _ = self.output.schedule.set(schedule);
    }

    /// Write the answers waiting (what `schedule` has called).
    fn flush(&self) {
        self.output.scheduled.store(false, Ordering::Release);
        self.output.write();
    }
}

/// A read error on stdin ends serving as EOF does; say why on stderr (never stdout).
fn report_stdin_error(py: Python<'_>, e: &io::Error) {
    PyOSError::new_err(format!("reading stdin failed: {e}")).write_unraisable(py, None);
}
