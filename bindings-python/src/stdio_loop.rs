//! stdio served from the asyncio event loop's thread, where `async def` handlers run.
//!
//! Served from the runtime, an `async def` call crosses threads twice: a tokio worker reads the
//! request and wakes the loop thread, and the loop thread wakes a worker back to write the
//! answer. Here the loop watches stdin (`add_reader`) and each read drives the core's stdio
//! loop on the loop thread (`ferrite_core::transport::hosted_stdio`): the calls it reaches are
//! queued for the loop as before, but turned into tasks right after the drive (no wake byte,
//! no wait for the selector), and a handler's `Completion` drives the loop again when it
//! settles, so the answer is written before `resolve` returns. `def` calls go to the pool (a
//! blocking call must not stop the loop), and a wake from another thread (the pool, a timer)
//! reaches the loop through a socket it watches.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};

use ferrite_core::transport::hosted_stdio::{BlockingStdout, HostedStdio};
use ferrite_core::transport::stdio::StdioOptions;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::bridge::AsyncQueue;

thread_local! {
    /// The queue whose `async def` calls are turned into tasks after the drive running on this
    /// thread (so pushing one needs no wake byte).
    static DRAINING: Cell<*const AsyncQueue> = const { Cell::new(std::ptr::null()) };
}

/// Whether `queue`'s calls are turned into tasks when the drive running on this thread ends.
pub fn drains_here(queue: &AsyncQueue) -> bool {
    std::ptr::eq(DRAINING.get(), queue)
}

/// One server's stdio, served from the event loop's thread (see the module docs).
#[pyclass(module = "ferrite_mcp._ferrite", frozen)]
pub struct StdioLoop {
    hosted: HostedStdio,
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
        let (hosted, ended) = HostedStdio::new(server, runtime, options, BlockingStdout, poke);
        Ok(StdioLoop { hosted, pokes, queue, drain, ending: Mutex::new(Some((token, ended))) })
    }

    /// Drive the loop with `step`, then turn the `async def` calls it reached into tasks.
    fn drive_with(&self, py: Python<'_>, step: impl FnOnce(&HostedStdio)) {
        let outer = DRAINING.replace(Arc::as_ptr(&self.queue));
        step(&self.hosted);
        DRAINING.set(outer);
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

    /// Whether serving ended.
    #[getter]
    fn done(&self) -> bool {
        self.hosted.is_done()
    }
}

/// A read error on stdin ends serving as EOF does; say why on stderr (never stdout).
fn report_stdin_error(py: Python<'_>, e: &io::Error) {
    PyOSError::new_err(format!("reading stdin failed: {e}")).write_unraisable(py, None);
}
