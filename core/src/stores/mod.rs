//! Shared stores: where the state a fleet of instances must share lives when one process's
//! memory is not enough. Each kind of state has its interface beside the code that uses it
//! (tasks: [`crate::tasks::TaskStore`]) or, for the handshake-era sessions of the HTTP
//! transport, here ([`SessionStore`], [`EventLog`]): the server carries them
//! ([`crate::Server::set_shared_stores`]) so that every HTTP endpoint of every surface picks
//! them up, and the transport is their only user. The in-memory implementations are the
//! embedded default (no store at all for sessions: one process holds them), and [`redis`]
//! holds the networked ones. A store failure is an error the request sees (never a panic), and
//! the server keeps serving and recovers when the store returns.
//!
//! A session is split in two. Its *record* ([`SessionRecord`]: the negotiated version, the
//! client's capabilities, the log level, the subscriptions, the owner) is data any instance can
//! load to serve the session's next request. Its *live parts* (the handler waiting for an
//! elicitation answer, an open SSE stream, the cancellation token of a running request) stay
//! on the instance that holds them; [`SessionMessage`]s reach them there: an answer goes to the
//! instance named in the server-to-client request's id, a cancellation or the end of a session
//! to every instance.

pub mod redis;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::{ErrorObject, RequestId};
pub use crate::tasks::StoreError;

/// A session as the shared store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The subject that created the session (protected servers); only it may use it.
    pub owner: Option<String>,
    /// The connection state (`ConnectionState::snapshot`), opaque to the store.
    pub state: Value,
    /// Bumped by every save, so an instance knows whether its copy is current.
    pub rev: u64,
}

/// A message to the live parts of a session on another instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionMessage {
    /// The client's answer to a server-to-client request (to the instance that sent it).
    Answer {
        /// The session.
        session: String,
        /// The request's id.
        id: RequestId,
        /// The result, or the error the client sent.
        outcome: Result<Value, ErrorObject>,
    },
    /// `notifications/cancelled` for a request running somewhere.
    Cancel {
        /// The session.
        session: String,
        /// The cancelled request.
        request: RequestId,
    },
    /// The record changed (a subscription, the log level): instances holding the session
    /// update their copy.
    Changed {
        /// The session.
        session: String,
        /// The new record.
        record: SessionRecord,
    },
    /// The session ended (DELETE): its streams close and its requests are cancelled.
    Ended {
        /// The session.
        session: String,
    },
}

/// Where a message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipient<'a> {
    /// The instance with this id.
    Instance(&'a str),
    /// Every instance but this one.
    Others,
}

/// Receives the messages sent to this instance.
pub type MessageSink = Arc<dyn Fn(SessionMessage) + Send + Sync>;

/// The records of the handshake-era sessions of a fleet, with expiry, and the bus between
/// their live parts.
pub trait SessionStore: Send + Sync + 'static {
    /// This instance's id (random, unique in the fleet).
    fn instance(&self) -> &str;
    /// Keep `record` under `id`; it expires after `ttl` without a load or a touch.
    fn save(
        &self,
        id: &str,
        record: &SessionRecord,
        ttl: Option<Duration>,
    ) -> BoxFuture<'static, Result<(), StoreError>>;
    /// The record of `id` (`None`: never created, expired or ended), its expiry renewed.
    fn load(&self, id: &str, ttl: Option<Duration>) -> BoxFuture<'static, Result<Option<SessionRecord>, StoreError>>;
    /// Renew the expiry of sessions that are busy here (an open stream, a running request).
    fn touch(&self, ids: Vec<String>, ttl: Duration) -> BoxFuture<'static, Result<(), StoreError>>;
    /// Forget `id`; whether it existed.
    fn remove(&self, id: &str) -> BoxFuture<'static, Result<bool, StoreError>>;
    /// Send `message`; how many instances received it (0: the recipient is gone).
    fn send(&self, to: Recipient<'_>, message: &SessionMessage) -> BoxFuture<'static, Result<usize, StoreError>>;
    /// Hand the messages sent to this instance to `sink` from now on.
    fn receive(&self, sink: MessageSink);
}

/// Numbered events of a stream, in order.
pub type Events = Vec<(u64, String)>;

/// The SSE events of the session streams of a fleet, for resumption with `Last-Event-ID` on
/// any instance. The instance writing a stream numbers its events; an event reaches the
/// client only after the log accepted it, so whatever a client saw can be resumed elsewhere.
pub trait EventLog: Send + Sync + 'static {
    /// Keep event `seq` of `stream`.
    fn append(&self, stream: &str, seq: u64, data: &str) -> BoxFuture<'static, Result<(), StoreError>>;
    /// The events of `stream` after `seq`, in order (`None`: the stream is unknown or expired).
    fn replay_after(&self, stream: &str, seq: u64) -> BoxFuture<'static, Result<Option<Events>, StoreError>>;
}

/// The stores of a fleet's sessions, as a server carries them.
#[derive(Clone)]
pub struct SharedStores {
    /// Session records and the bus.
    pub sessions: Arc<dyn SessionStore>,
    /// SSE events.
    pub events: Arc<dyn EventLog>,
}

impl std::fmt::Debug for SharedStores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStores").field("instance", &self.sessions.instance()).finish_non_exhaustive()
    }
}
