//! The requests whose JavaScript handler is running, keyed by a numeric slot.
//!
//! JavaScript never holds a `RequestContext`: it holds the slot number the native side gave
//! its handler, and every context function (`log`, `reportProgress`, `sample`, ...) looks the
//! slot up here. That keeps a call free of per-request native objects, and a context used
//! after its request finished fails with a clear error instead of acting on a stale request.
//!
//! Cancellation reaches JS lazily: only when a handler reads `ctx.signal` does it ask to be
//! told ([`Calls::watch`]); the native call then invokes the server's cancel callback with the
//! slot when the core cancels the request, and the JS layer aborts that request's
//! `AbortController`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ferrite_core::server::middleware::NextOnce;
use ferrite_core::sync::{lock, read, write};
use ferrite_core::RequestContext;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use tokio::sync::oneshot;

/// The JS function told which slot was cancelled: weak, so it never keeps Node alive.
pub(crate) type CancelCallback = ThreadsafeFunction<i64, (), i64, Status, false, true>;

/// One running request.
pub(crate) struct Call {
    pub(crate) ctx: RequestContext,
    /// The rest of the middleware chain, when the call is a middleware's.
    pub(crate) next: Option<Arc<NextOnce>>,
    /// Whether JS asked to hear about this request's cancellation.
    watched: AtomicBool,
    /// Where the envelope of a handler that settles later goes ([`Calls::settle`]).
    settled: Mutex<Option<oneshot::Sender<String>>>,
}

/// The running requests of one server.
#[derive(Default)]
pub(crate) struct Calls {
    next: AtomicI64,
    live: Mutex<HashMap<i64, Arc<Call>>>,
    on_cancel: RwLock<Option<Arc<CancelCallback>>>,
}

/// Removes its slot from the table when dropped (the handler finished or was dropped).
pub(crate) struct Slot {
    calls: Arc<Calls>,
    pub(crate) id: i64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.calls.live).remove(&self.id);
    }
}

impl Calls {
    /// Register a request; it stays reachable from JS until the returned slot is dropped.
    /// `next` is the rest of the chain of a middleware's call.
    /// The receiver gets the envelope JS hands to [`Calls::settle`] for this request.
    pub(crate) fn enter(
        self: &Arc<Self>,
        ctx: RequestContext,
        next: Option<Arc<NextOnce>>,
    ) -> (Slot, oneshot::Receiver<String>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        let call = Call { ctx, next, watched: AtomicBool::new(false), settled: Mutex::new(Some(tx)) };
        lock(&self.live).insert(id, Arc::new(call));
        (Slot { calls: self.clone(), id }, rx)
    }

    /// The handler of `slot`, which returned nothing, settled with `envelope`; false when the
    /// request is gone or was settled already.
    pub(crate) fn settle(&self, slot: i64, envelope: String) -> bool {
        let Some(call) = self.get(slot) else { return false };
        let tx = lock(&call.settled).take();
        tx.is_some_and(|tx| tx.send(envelope).is_ok())
    }

    /// The running request in `slot`, if it has not finished.
    pub(crate) fn get(&self, slot: i64) -> Option<Arc<Call>> {
        lock(&self.live).get(&slot).cloned()
    }

    /// JS wants to hear about `slot`'s cancellation. Returns whether it is already cancelled
    /// (then no callback follows for it), or `None` when the request finished.
    pub(crate) fn watch(&self, slot: i64) -> Option<bool> {
        let call = self.get(slot)?;
        // Set the flag before reading the token: either `cancelled` (below) sees the
        // cancellation, or the native call sees the flag after the token flipped.
        call.watched.store(true, Ordering::SeqCst);
        Some(call.ctx.is_cancelled())
    }

    /// Set the JS function told about cancelled slots.
    pub(crate) fn set_cancel_callback(&self, cb: CancelCallback) {
        *write(&self.on_cancel) = Some(Arc::new(cb));
    }

    /// The core cancelled the request in `slot`: tell JS if it is watching.
    pub(crate) fn cancelled(&self, slot: i64) {
        let Some(call) = self.get(slot) else { return };
        if !call.watched.load(Ordering::SeqCst) {
            return;
        }
        let cb = read(&self.on_cancel).clone();
        if let Some(cb) = cb {
            // Non-blocking: a full queue or a closing environment only loses the abort of a
            // request whose response is suppressed anyway.
            let _ = cb.call(slot, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}
