//! Running a `def` handler on the runtime thread that reached it, instead of handing it to the
//! worker pool and waiting to be handed its answer back.
//!
//! At one request in flight those two hand-offs (wake a pool worker, then wake the runtime
//! thread that writes the answer) were most of what a Python `def` handler cost over a Rust
//! one: two context switches and two wake-ups per call. So a `def` call that is alone runs in
//! place:
//!
//! - it first lets the poll that reached it end ([`step_aside`]): the stdio loop, which polls
//!   each request once and spawns the ones that wait, goes on reading, and the call runs in the
//!   task of its own that the loop spawned, next on the same thread;
//! - it then blocks inside `tokio::task::block_in_place`, which hands the thread's scheduler to
//!   another thread first, so nothing else waits for a slow handler, and a handler that blocks
//!   on the server (`ctx.read_resource` from a `def`) is answered by threads still running it;
//! - the thread keeps one Python thread state for its life ([`attach`]): creating and deleting
//!   one per call costs about 20 µs.
//!
//! A call runs in place only when no other `def` call of the server runs, in place or on the
//! pool, and none has found another running for 10 ms ([`InPlace::claim`]); the others go to
//! the pool, whose workers drain many calls under one GIL acquisition, which is better under
//! load. A task's handler never does: the core races it against the task's cancellation and expiry
//! in one poll, which a blocked thread would stall (`Executor::claim_in_place` decides).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use pyo3::ffi;
use pyo3::prelude::*;
use tokio::runtime::{Handle, RuntimeFlavor};

use crate::bridge::interpreter_is_exiting;

/// Which `def` calls of a server are running (whether one runs in place, how many run or
/// wait on the pool), and when a call last found another running.
#[derive(Default)]
pub struct InPlace {
    busy: AtomicBool,
    pooled: AtomicUsize,
    /// When a call last found another one running, in [`now_us`] (0: never).
    contended_at: AtomicU64,
}

/// How long after a call found another running every call goes to the pool: under load a
/// call almost always has company, and the pool's batching wins; at one request in flight
/// none ever has, and every call runs in place.
const CONTENDED_FOR: Duration = Duration::from_millis(10);

/// Microseconds since the first time this process asked, never 0.
fn now_us() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let since = EPOCH.get_or_init(Instant::now).elapsed();
    u64::try_from(since.as_micros()).unwrap_or(u64::MAX).max(1)
}

/// The claim of an [`InPlace`]: released when dropped, however the call ends.
pub struct Claim<'a>(&'a AtomicBool);

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// A call counted on the pool until dropped (answered, failed or abandoned).
pub struct Pooled<'a>(&'a AtomicUsize);

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

impl InPlace {
    /// The right to run one call in place: `None` when another call of this server runs in
    /// place or any runs or waits on the pool, or one did less than [`CONTENDED_FOR`] ago
    /// (under load, the pool's one GIL acquisition for many calls beats a thread hand-over per
    /// call), or when the current thread cannot block (no runtime, or a current-thread one,
    /// where `block_in_place` would panic).
    pub fn claim(&self) -> Option<Claim<'_>> {
        let now = now_us();
        let last = self.contended_at.load(Ordering::Relaxed);
        if last != 0 && now.saturating_sub(last) < CONTENDED_FOR.as_micros() as u64 {
            return None;
        }
        if !Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread) {
            return None;
        }
        if self.pooled.load(Ordering::Acquire) > 0 || self.busy.swap(true, Ordering::Acquire) {
            self.contended_at.store(now, Ordering::Relaxed);
            return None;
        }
        Some(Claim(&self.busy))
    }

    /// Count a call that goes to the pool, until the returned guard drops.
    pub fn pooled(&self) -> Pooled<'_> {
        self.pooled.fetch_add(1, Ordering::AcqRel);
        Pooled(&self.pooled)
    }
}

/// Pending once (waking its task at once), then ready: the poll that reached the call ends
/// first. Polled once with a no-op waker and then spawned, as the stdio loop does, the future
/// continues in its own task; polled by a task, that task yields once.
pub fn step_aside() -> impl Future<Output = ()> {
    struct StepAside(bool);
    impl Future for StepAside {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 {
                return Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
    StepAside(false)
}

/// Run `f` with the GIL on this thread, inside `block_in_place` (the caller checked the
/// runtime through [`InPlace::claim`]). A thread without a Python thread state of its own
/// gets one kept until it exits.
pub fn attach<R>(f: impl FnOnce(Python<'_>) -> R) -> R {
    tokio::task::block_in_place(|| {
        keep_thread_state();
        Python::attach(f)
    })
}

/// A Python thread state created for this thread and kept for its life, the GIL released:
/// every later attach on the thread only takes the GIL. Deleted when the thread exits (the
/// runtime shut down by `close()`, or an idle blocking thread retired), unless the interpreter
/// is exiting: then it is left, as the thread cannot enter Python any more.
struct Kept {
    gil: ffi::PyGILState_STATE,
    state: *mut ffi::PyThreadState,
}

impl Drop for Kept {
    fn drop(&mut self) {
        // SAFETY: `state` is this thread's own thread state, saved by `PyEval_SaveThread` in
        // `keep_thread_state` and never restored since (every attach since was balanced);
        // restoring it and releasing the `PyGILState_Ensure` that made it deletes it. Skipped
        // once the interpreter is exiting or finalized, where taking the GIL would end the
        // thread inside CPython.
        unsafe {
            if interpreter_is_exiting() || ffi::Py_IsInitialized() == 0 {
                return;
            }
            ffi::PyEval_RestoreThread(self.state);
            ffi::PyGILState_Release(self.gil);
        }
    }
}

thread_local! {
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

fn keep_thread_state() {
    let _ = KEPT.try_with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.is_some() || interpreter_is_exiting() {
            return;
        }
        // SAFETY: a thread that already has a thread state (the main thread, a Python thread
        // calling in) keeps using its own, untouched. One without cannot hold the GIL, so
        // `PyGILState_Ensure` creates a state for it and takes the GIL, and `PyEval_SaveThread`
        // releases the GIL and keeps the state, which `Kept` deletes when the thread exits.
        unsafe {
            if ffi::Py_IsInitialized() == 0 || !ffi::PyGILState_GetThisThreadState().is_null() {
                return;
            }
            let gil = ffi::PyGILState_Ensure();
            let state = ffi::PyEval_SaveThread();
            *kept = Some(Kept { gil, state });
        }
    });
}
