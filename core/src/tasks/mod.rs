//! Tasks: long-running tool calls that outlive their request, for both generations of the
//! protocol (2025-11-25 experimental tasks, the 2026-07-28 tasks extension) on one engine.
//!
//! The split, so that a shared store (Redis, a later issue) can replace the in-memory one
//! without touching handlers: a task's *data* ([`TaskRecord`]: status, ttl, outcome, pending
//! input and answers) lives in a [`TaskStore`] and changes only through [`TaskChange`]s whose
//! rules are one pure function ([`TaskRecord::apply`]); what cannot leave the process (the
//! running handler, its cancellation token, the wake-up of a handler waiting for an answer)
//! stays in the server's engine (`server::tasks`), which re-reads the store after every
//! wake-up and, as a fallback for changes made by another instance, at the poll interval.
//!
//! Tasks belong to their owner: the verified subject when the request was authenticated, else
//! the handshake session that created them, else (a stateless 2026-07-28 server without
//! authentication) everyone who holds the unguessable id. Another owner gets "not found".

mod memory;
mod record;

use futures::future::BoxFuture;

pub use memory::InMemoryTaskStore;
pub use record::{now_ms, rfc3339, Generation, TaskChange, TaskOutcome, TaskRecord};

/// A store failed (unreachable, full, corrupt data). Requests get a JSON-RPC error naming it;
/// the server keeps serving.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The store holds as many tasks as it may.
    #[error("the task store is full ({0} tasks)")]
    Full(usize),
    /// The store could not be reached or failed.
    #[error("the task store failed: {0}")]
    Unavailable(String),
}

/// Where tasks are kept. Every method is one atomic step; `apply` applies
/// [`TaskRecord::apply`] to the stored record (a networked store does so atomically on its
/// side, or under optimistic concurrency).
pub trait TaskStore: Send + Sync + 'static {
    /// Store a new task (before its create result is sent: the client may read it at once).
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The task `id` of `owner`, if it exists and has not expired.
    fn get<'a>(&'a self, owner: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Apply `change` at `now_ms` to the task `id` of `owner`; the record after the change
    /// (`None`: no such task).
    fn apply<'a>(
        &'a self,
        owner: &'a str,
        id: &'a str,
        change: TaskChange,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Up to `limit` tasks of `owner` in creation order, after the task `cursor` (exclusive);
    /// with the cursor of the next page when there is one. An unknown cursor is `None` in
    /// the outer option.
    #[allow(clippy::type_complexity)]
    fn list<'a>(
        &'a self,
        owner: &'a str,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Option<(Vec<TaskRecord>, Option<String>)>, StoreError>>;

    /// Whether other instances share this store (then a task's state may change without this
    /// process noticing: a running task re-reads its record at the poll interval to see a
    /// `tasks/cancel` made elsewhere). False for a store in this process's memory.
    fn is_shared(&self) -> bool {
        false
    }
}
