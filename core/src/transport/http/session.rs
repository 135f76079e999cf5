//! Stateful Streamable HTTP sessions: one [`ConnectionState`] per `Mcp-Session-Id`.
//!
//! The [`SessionManager`] mints ids (128 bits from the OS CSPRNG, hex), finds sessions for
//! later requests, expires idle ones and ends them on DELETE. A session's live parts (pending
//! server-to-client requests, its SSE streams, the cancellation of its requests) are held by
//! the instance that made them; with a shared [`SessionStore`] its record is in the store, so
//! a fleet of instances serves it (see [`crate::stores`]).

use crate::diagnostics::target;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::sse::StreamHub;
use crate::protocol::RequestId;
use crate::server::outbound::{Answer, PendingRequests};
use crate::server::{ConnectionState, SessionTransport, WeakServer};
use crate::stores::{Recipient, SessionMessage, SessionRecord, SessionStore};
use crate::sync::lock;

/// A fresh session id: 128 random bits from the OS, as 32 lowercase hex characters.
pub fn new_session_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// One client session.
pub struct Session {
    id: String,
    pub(crate) conn: Arc<ConnectionState>,
    pending: PendingRequests,
    last_seen: Mutex<Instant>,
    streams: Mutex<HashMap<String, Weak<StreamHub>>>,
    pub(crate) get_stream: Mutex<Option<Weak<StreamHub>>>,
    pub(crate) ended: CancellationToken,
    /// The subject that created the session (protected servers); only it may use it.
    owner: Option<Arc<str>>,
    /// How this copy relates to the record in a shared store.
    record: Mutex<RecordSync>,
    /// When this instance minted the session (`None` for one made here from another's record).
    created: Option<Instant>,
}

/// The revision of the shared record this copy reflects, and the connection's change count
/// when it was saved or taken over.
#[derive(Debug, Default)]
struct RecordSync {
    rev: u64,
    changes: u64,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new(id: String, owner: Option<&str>, pending: PendingRequests) -> Self {
        Session {
            created: None,
            owner: owner.map(Arc::from),
            conn: Arc::new(ConnectionState::new(id.clone())),
            id,
            pending,
            record: Mutex::new(RecordSync::default()),
            last_seen: Mutex::new(Instant::now()),
            streams: Mutex::new(HashMap::new()),
            get_stream: Mutex::new(None),
            ended: CancellationToken::new(),
        }
    }

    /// The session id (`Mcp-Session-Id`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The session's connection state.
    pub fn connection(&self) -> &Arc<ConnectionState> {
        &self.conn
    }

    pub(crate) fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    pub(crate) fn idle_for(&self) -> Duration {
        lock(&self.last_seen).elapsed()
    }

    /// Whether a request runs or a GET stream is open here.
    pub(crate) fn is_busy(&self) -> bool {
        self.conn.in_flight_count() > 0 || self.has_open_get_stream()
    }

    /// Take over a record saved by another instance, if it is newer than this copy.
    fn take_record(&self, record: &SessionRecord) {
        let mut sync = lock(&self.record);
        if record.rev > sync.rev && self.conn.restore(&record.state).is_ok() {
            sync.rev = record.rev;
            sync.changes = self.conn.changes();
        }
    }

    /// The record to save, when the connection changed since the last save or take-over.
    fn changed_record(&self) -> Option<SessionRecord> {
        let mut sync = lock(&self.record);
        let changes = self.conn.changes();
        if changes == sync.changes {
            return None;
        }
        sync.changes = changes;
        sync.rev += 1;
        Some(SessionRecord {
            owner: self.owner.as_deref().map(str::to_owned),
            state: self.conn.snapshot(),
            rev: sync.rev,
        })
    }

    pub(crate) fn has_open_get_stream(&self) -> bool {
        lock(&self.get_stream).as_ref().and_then(Weak::upgrade).is_some_and(|h| !h.is_finished())
    }

    /// Register a server-to-client request; the id to send and the receiver of the answer
    /// (`None` once the session ended).
    pub(crate) fn register_request(&self) -> Option<(RequestId, oneshot::Receiver<Answer>)> {
        self.pending.register()
    }

    /// Stop waiting for `id`; whether it was still awaited.
    pub(crate) fn forget_request(&self, id: &RequestId) -> bool {
        self.pending.forget(id)
    }

    /// Deliver a client's answer; whether a request was waiting for it.
    pub(crate) fn resolve(&self, id: &RequestId, outcome: Answer) -> bool {
        self.pending.resolve(id, outcome)
    }

    pub(crate) fn track_stream(&self, hub: &Arc<StreamHub>) {
        let mut streams = lock(&self.streams);
        streams.retain(|_, w| w.strong_count() > 0);
        streams.insert(hub.id().to_owned(), Arc::downgrade(hub));
    }

    pub(crate) fn find_stream(&self, id: &str) -> Option<Arc<StreamHub>> {
        lock(&self.streams).get(id).and_then(Weak::upgrade)
    }

    /// End the session: cancel in-flight requests, fail pending server-to-client requests,
    /// close its streams.
    pub(crate) fn end(&self) {
        self.ended.cancel();
        self.conn.cancel_all();
        self.pending.close();
        for hub in lock(&self.streams).values().filter_map(Weak::upgrade) {
            hub.close();
        }
        if let Some(h) = lock(&self.get_stream).take().and_then(|w| w.upgrade()) {
            h.close();
        }
    }
}

/// Why a session could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    Missing,
    Unknown,
    /// The shared store could not be reached.
    Unavailable(String),
    /// Holding the session here would need a slot and every one is busy.
    Full(usize),
}

/// Mints, finds, expires and ends sessions. The live parts of the sessions this instance
/// holds are in a table here; with a shared [`SessionStore`], each session's record is there
/// too, so any instance serves any session (it loads the record and makes the live parts it
/// needs), and [`SessionMessage`]s reach the live parts held elsewhere.
pub struct SessionManager {
    live: Mutex<HashMap<String, Arc<Session>>>,
    shared: Option<Arc<dyn SessionStore>>,
    idle_timeout: Option<Duration>,
    max_sessions: Option<usize>,
    /// The server told of each session that ends ([`crate::Server`]'s session telemetry).
    ends: OnceLock<WeakServer>,
}

/// Why a session's live parts here ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// Its client ended it (DELETE here, or the legacy transport's stream closed).
    Closed,
    /// Its client ended it at another instance of the fleet.
    ClosedElsewhere,
    /// It idled past the idle timeout.
    Expired,
    /// Evicted for a new session, at `max_sessions`.
    Evicted,
    /// Its `initialize` failed: it never was a session.
    Failed,
    /// Not found in the shared store any more.
    Gone,
    /// The server shuts down.
    Shutdown,
}

/// Why no session could be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CreateError {
    /// The OS random source failed (no id).
    #[error("no randomness for a session id: {0}")]
    Random(#[from] getrandom::Error),
    /// Every one of the `max_sessions` sessions held here is busy (a request running or a GET
    /// stream open), so none could be evicted.
    #[error("the server holds its maximum of {0} sessions and all are busy; retry later")]
    Full(usize),
}

impl SessionManager {
    /// A manager whose sessions idle longer than `idle_timeout` expire, kept in this process
    /// only (`shared` is `None`) or also in a shared store.
    pub fn new(shared: Option<Arc<dyn SessionStore>>, idle_timeout: Option<Duration>) -> Arc<Self> {
        Self::with_max_sessions(shared, idle_timeout, None)
    }

    /// As [`SessionManager::new`], holding at most `max_sessions` sessions here: a new one
    /// evicts the longest idle one that is not busy (its client gets 404 and initializes
    /// again; with a shared store only the live parts here go, the record stays).
    pub fn with_max_sessions(
        shared: Option<Arc<dyn SessionStore>>,
        idle_timeout: Option<Duration>,
        max_sessions: Option<usize>,
    ) -> Arc<Self> {
        let m = Arc::new(SessionManager {
            live: Mutex::new(HashMap::new()),
            shared,
            idle_timeout,
            max_sessions,
            ends: OnceLock::new(),
        });
        if let Some(store) = &m.shared {
            let weak = Arc::downgrade(&m);
            store.receive(Arc::new(move |msg| {
                if let Some(m) = weak.upgrade() {
                    m.deliver(msg);
                }
            }));
        }
        m
    }

    /// Whether sessions are kept in a shared store.
    pub(crate) fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    fn make(&self, id: String, owner: Option<&str>) -> Session {
        let pending = match &self.shared {
            Some(store) => PendingRequests::with_origin(store.instance()),
            None => PendingRequests::new(),
        };
        Session::new(id, owner, pending)
    }

    /// Tell `server` of each session that ends, for its telemetry (`mcp.server.session.duration`).
    pub(crate) fn report_ends_to(&self, server: WeakServer) {
        let _ = self.ends.set(server);
    }

    /// A session's live parts here ended. Its duration is known where it was minted; in a
    /// fleet its life ends only when its client ends it (an idle instance's copy expiring, or
    /// being evicted, says nothing of the session, which the store keeps), so only that is told.
    fn ended(&self, s: &Session, why: End) {
        let Some(created) = s.created else { return };
        let ends_session = match why {
            End::Failed | End::Gone => false,
            End::Closed | End::ClosedElsewhere => true,
            End::Expired | End::Evicted | End::Shutdown => self.shared.is_none(),
        };
        if let (true, Some(server)) = (ends_session, self.ends.get().and_then(WeakServer::upgrade)) {
            server.session_ended(&s.conn, created.elapsed(), SessionTransport::Http, None);
        }
    }

    /// A new session, owned by `owner` (the creating request's subject) when there is one.
    /// With a shared store, [`SessionManager::save`] after its `initialize` keeps its record.
    pub(crate) fn create(&self, owner: Option<&str>) -> Result<Arc<Session>, CreateError> {
        let s = Arc::new(Session { created: Some(Instant::now()), ..self.make(new_session_id()?, owner) });
        self.make_room()?;
        let live = {
            let mut live = lock(&self.live);
            live.insert(s.id().to_owned(), s.clone());
            live.len()
        };
        tracing::info!(target: target::SESSION, live, "session created");
        Ok(s)
    }

    /// Below `max_sessions`, or evict the longest idle session that is not busy.
    fn make_room(&self) -> Result<(), CreateError> {
        let Some(max) = self.max_sessions else { return Ok(()) };
        let victim = {
            let live = lock(&self.live);
            if live.len() < max {
                return Ok(());
            }
            live.values().filter(|s| !s.is_busy()).max_by_key(|s| s.idle_for()).cloned()
        };
        match victim {
            Some(s) => {
                self.discard(s.id(), End::Evicted);
                tracing::info!(target: target::SESSION, max_sessions = max, "session evicted, the longest idle, for a new one");
                Ok(())
            }
            None => {
                tracing::warn!(target: target::SESSION, max_sessions = max, "no room for a session: every one is busy");
                Err(CreateError::Full(max))
            }
        }
    }

    /// End the live parts here of the session `id`, for `why`.
    pub(crate) fn discard(&self, id: &str, why: End) {
        let removed = lock(&self.live).remove(id);
        if let Some(s) = removed {
            s.end();
            self.ended(&s, why);
        }
    }

    /// Find the session named by a header value, for a request by `subject`; expired sessions
    /// are ended on sight, and another subject's session is not found. With a shared store,
    /// the record is loaded (its expiry renewed) and taken over if another instance changed
    /// it.
    pub(crate) async fn lookup(&self, header: Option<&str>, subject: Option<&str>) -> Result<Arc<Session>, Lookup> {
        let Some(store) = &self.shared else { return self.lookup_here(header, subject) };
        let id = header.ok_or(Lookup::Missing)?;
        let local = lock(&self.live).get(id).cloned();
        let record = match store.load(id, self.idle_timeout).await {
            Ok(Some(r)) => r,
            Ok(None) => {
                // Expired or ended elsewhere: so are its live parts here.
                self.discard(id, End::Gone);
                return Err(Lookup::Unknown);
            }
            Err(e) => return Err(Lookup::Unavailable(e.to_string())),
        };
        if record.owner.as_deref() != subject {
            return Err(Lookup::Unknown);
        }
        let s = match local {
            Some(s) => s,
            None => {
                self.make_room().map_err(|e| match e {
                    CreateError::Full(max) => Lookup::Full(max),
                    CreateError::Random(e) => Lookup::Unavailable(e.to_string()),
                })?;
                let s = Arc::new(self.make(id.to_owned(), record.owner.as_deref()));
                lock(&self.live).entry(id.to_owned()).or_insert(s).clone()
            }
        };
        s.take_record(&record);
        s.touch();
        Ok(s)
    }

    /// Find a session among those whose live parts are here (the only ones without a shared
    /// store).
    pub(crate) fn lookup_here(&self, header: Option<&str>, subject: Option<&str>) -> Result<Arc<Session>, Lookup> {
        let id = header.ok_or(Lookup::Missing)?;
        let s = lock(&self.live).get(id).cloned().ok_or(Lookup::Unknown)?;
        if s.owner.as_deref() != subject {
            return Err(Lookup::Unknown);
        }
        if self.is_expired(&s) {
            self.discard(id, End::Expired);
            return Err(Lookup::Unknown);
        }
        s.touch();
        Ok(s)
    }

    /// This instance's id in the fleet, when sessions are shared.
    pub(crate) fn instance(&self) -> Option<&str> {
        self.shared.as_ref().map(|s| s.instance())
    }

    /// Keep what a request changed in the session's record (shared store only), and tell the
    /// instances holding its live parts.
    pub(crate) async fn save(&self, s: &Session) -> Result<(), crate::stores::StoreError> {
        let Some(store) = &self.shared else { return Ok(()) };
        let Some(record) = s.changed_record() else { return Ok(()) };
        store.save(s.id(), &record, self.idle_timeout).await?;
        let changed = SessionMessage::Changed { session: s.id().to_owned(), record };
        // Best effort: an instance that misses it loads the record on the session's next
        // request there.
        let _ = store.send(Recipient::Others, &changed).await;
        Ok(())
    }

    /// Route a client's answer to the instance whose request it answers; `Ok(false)` when
    /// that instance is gone (or the id is not one of a fleet's).
    pub(crate) async fn route_answer(
        &self,
        session: &str,
        id: &RequestId,
        outcome: Answer,
    ) -> Result<bool, crate::stores::StoreError> {
        let (Some(store), Some(origin)) = (&self.shared, PendingRequests::origin_of(id)) else { return Ok(false) };
        if origin == store.instance() {
            return Ok(false);
        }
        let msg = SessionMessage::Answer { session: session.to_owned(), id: id.clone(), outcome };
        Ok(store.send(Recipient::Instance(origin), &msg).await? > 0)
    }

    /// Tell every instance that the client cancelled `request` (it runs on one of them).
    pub(crate) async fn route_cancel(&self, session: &str, request: &RequestId) {
        if let Some(store) = &self.shared {
            let msg = SessionMessage::Cancel { session: session.to_owned(), request: request.clone() };
            let _ = store.send(Recipient::Others, &msg).await;
        }
    }

    /// A message from another instance for the live parts held here.
    fn deliver(&self, msg: SessionMessage) {
        let find = |id: &str| lock(&self.live).get(id).cloned();
        match msg {
            SessionMessage::Answer { session, id, outcome } => {
                if let Some(s) = find(&session) {
                    s.resolve(&id, outcome);
                }
            }
            SessionMessage::Cancel { session, request } => {
                if let Some(s) = find(&session) {
                    s.conn.cancel_request(&request);
                }
            }
            SessionMessage::Changed { session, record } => {
                if let Some(s) = find(&session) {
                    s.take_record(&record);
                }
            }
            SessionMessage::Ended { session } => self.discard(&session, End::ClosedElsewhere),
        }
    }

    fn is_expired(&self, s: &Session) -> bool {
        match self.idle_timeout {
            Some(t) => s.idle_for() > t && !s.is_busy(),
            None => false,
        }
    }

    /// End every idle session; how many ended. With a shared store only the live parts here
    /// end (the store expires the record), and the records of sessions busy here are renewed.
    pub fn expire_idle(&self) -> usize {
        let all: Vec<Arc<Session>> = lock(&self.live).values().cloned().collect();
        let expired: Vec<&Arc<Session>> = all.iter().filter(|s| self.is_expired(s)).collect();
        for s in &expired {
            self.discard(s.id(), End::Expired);
        }
        if !expired.is_empty() {
            tracing::info!(target: target::SESSION, count = expired.len(), "sessions expired after idling");
        }
        if let (Some(store), Some(ttl)) = (&self.shared, self.idle_timeout) {
            let busy: Vec<String> = all.iter().filter(|s| s.is_busy()).map(|s| s.id().to_owned()).collect();
            // Renewed by a task on the sweeper's runtime (none outside one: nothing to renew).
            if let (false, Ok(rt)) = (busy.is_empty(), tokio::runtime::Handle::try_current()) {
                let touch = store.touch(busy, ttl);
                rt.spawn(async move {
                    let _ = touch.await;
                });
            }
        }
        expired.len()
    }

    /// End a session (DELETE); whether it existed. With a shared store its record goes and
    /// every instance ends its live parts.
    pub(crate) async fn terminate(&self, id: &str) -> Result<bool, crate::stores::StoreError> {
        let here = lock(&self.live).remove(id);
        if let Some(s) = &here {
            s.end();
            self.ended(s, End::Closed);
            tracing::info!(target: target::SESSION, "session ended by its client (DELETE)");
        }
        let Some(store) = &self.shared else { return Ok(here.is_some()) };
        let existed = store.remove(id).await?;
        let _ = store.send(Recipient::Others, &SessionMessage::Ended { session: id.to_owned() }).await;
        Ok(existed || here.is_some())
    }

    /// End the live parts of every session held here (shutdown). Records in a shared store
    /// stay: other instances serve those sessions on.
    pub fn terminate_all(&self) {
        let all: Vec<Arc<Session>> = lock(&self.live).drain().map(|(_, s)| s).collect();
        for s in all {
            s.end();
            self.ended(&s, End::Shutdown);
        }
    }

    /// The ids of the sessions whose live parts are here.
    pub fn session_ids(&self) -> Vec<String> {
        lock(&self.live).keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_128_bit_hex_and_distinct() {
        let a = new_session_id().unwrap();
        let b = new_session_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[tokio::test]
    async fn lookup_distinguishes_missing_and_unknown_and_expires() {
        let m = SessionManager::new(None, Some(Duration::from_millis(0)));
        assert_eq!(m.lookup(None, None).await.unwrap_err(), Lookup::Missing);
        assert_eq!(m.lookup(Some("nope"), None).await.unwrap_err(), Lookup::Unknown);
        let s = m.create(None).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(m.lookup(Some(s.id()), None).await.unwrap_err(), Lookup::Unknown, "expired");
        assert!(s.ended.is_cancelled());
    }

    #[tokio::test]
    async fn terminate_ends_the_session() {
        let m = SessionManager::new(None, None);
        let s = m.create(None).unwrap();
        assert!(m.lookup(Some(s.id()), None).await.is_ok());
        assert_eq!(m.terminate(s.id()).await, Ok(true));
        assert_eq!(m.terminate(s.id()).await, Ok(false));
        assert_eq!(m.lookup(Some(s.id()), None).await.unwrap_err(), Lookup::Unknown);
    }
}
