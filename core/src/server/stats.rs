//! What a server has open or has done beside its requests: SSE streams, tasks, round trips to
//! a shared store. Kept as plain atomics where the thing happens (the transport opening a
//! stream, the task engine starting a task, a store's client), so counting costs nothing when
//! nobody reads; [`Server::stats`] reads them, and telemetry exports them as observable
//! instruments at its own interval instead of recording per event.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::Server;
use crate::sync::{read, write};

/// The counters of one server.
#[derive(Default)]
pub(crate) struct Counters {
    sse_streams: Arc<AtomicU64>,
    tasks_created: AtomicU64,
    /// The round-trip counter of the shared store in use, when there is one.
    store_round_trips: std::sync::RwLock<Option<Arc<AtomicU64>>>,
}

/// A snapshot of [`Server::stats`].
/// Serialized with camelCase keys (`sseStreams`, `tasksRunning`, ...): the one JSON shape the
/// C ABI, Go, Python and Node read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStats {
    /// SSE response streams open now (POST answers as streams, GET streams,
    /// `subscriptions/listen` streams, the 2024-11-05 transport's stream).
    pub sse_streams: u64,
    /// Tasks running in this process now.
    pub tasks_running: u64,
    /// Tasks this process has created since it started (tasks born finished included).
    pub tasks_created: u64,
    /// Commands sent to the shared store (Redis) since it was set; 0 without one.
    pub store_round_trips: u64,
}

/// Counts one open SSE stream until dropped (the response body holds it).
pub(crate) struct OpenStream(Arc<AtomicU64>);

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Server {
    /// What the server has open or has done beside requests, read now.
    pub fn stats(&self) -> ServerStats {
        let c = &self.inner.counters;
        ServerStats {
            sse_streams: c.sse_streams.load(Ordering::Relaxed),
            tasks_running: self.task_engine().running() as u64,
            tasks_created: c.tasks_created.load(Ordering::Relaxed),
            store_round_trips: read(&c.store_round_trips).as_ref().map_or(0, |n| n.load(Ordering::Relaxed)),
        }
    }

    /// Count an SSE stream as open until the returned guard drops.
    pub(crate) fn sse_stream_opened(&self) -> OpenStream {
        let n = &self.inner.counters.sse_streams;
        n.fetch_add(1, Ordering::Relaxed);
        OpenStream(n.clone())
    }

    pub(crate) fn task_created(&self) {
        self.inner.counters.tasks_created.fetch_add(1, Ordering::Relaxed);
    }

    /// Read the shared store's round trips from `counter` from now on.
    pub(crate) fn count_store_round_trips(&self, counter: Arc<AtomicU64>) {
        *write(&self.inner.counters.store_round_trips) = Some(counter);
    }
}
