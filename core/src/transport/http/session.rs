//! Stateful Streamable HTTP sessions: one [`ConnectionState`] per `Mcp-Session-Id`.
//!
//! The [`SessionManager`] mints ids (128 bits from the OS CSPRNG, hex), finds sessions for
//! later requests, expires idle ones and ends them on DELETE. Where sessions are kept is a
//! [`SessionStore`], in memory by default, so a shared store can be plugged in later.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::sse::StreamHub;
use crate::protocol::RequestId;
use crate::server::outbound::{Answer, PendingRequests};
use crate::server::ConnectionState;
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
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new(id: String, owner: Option<&str>) -> Self {
        Session {
            owner: owner.map(Arc::from),
            conn: Arc::new(ConnectionState::new(id.clone())),
            id,
            pending: PendingRequests::new(),
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

    pub(crate) fn has_open_get_stream(&self) -> bool {
        lock(&self.get_stream).as_ref().and_then(Weak::upgrade).is_some_and(|h| !h.is_finished())
    }

    /// Register a server-to-client request; the id to send and the receiver of the answer
    /// (`None` once the session ended).
    pub(crate) fn register_request(&self) -> Option<(RequestId, oneshot::Receiver<Answer>)> {
        self.pending.register()
    }

    pub(crate) fn forget_request(&self, id: &RequestId) {
        self.pending.forget(id);
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

/// Where sessions are kept.
pub trait SessionStore: Send + Sync + 'static {
    /// Keep a new session.
    fn insert(&self, session: Arc<Session>);
    /// Find a session.
    fn get(&self, id: &str) -> Option<Arc<Session>>;
    /// Forget a session, returning it.
    fn remove(&self, id: &str) -> Option<Arc<Session>>;
    /// Every session.
    fn all(&self) -> Vec<Arc<Session>>;
}

/// The default [`SessionStore`]: a map in memory.
#[derive(Default)]
pub struct InMemorySessionStore {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

impl SessionStore for InMemorySessionStore {
    fn insert(&self, session: Arc<Session>) {
        lock(&self.sessions).insert(session.id().to_owned(), session);
    }
    fn get(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.sessions).get(id).cloned()
    }
    fn remove(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.sessions).remove(id)
    }
    fn all(&self) -> Vec<Arc<Session>> {
        lock(&self.sessions).values().cloned().collect()
    }
}

/// Why a session could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    Missing,
    Unknown,
}

/// Mints, finds, expires and ends sessions.
pub struct SessionManager {
    store: Arc<dyn SessionStore>,
    idle_timeout: Option<Duration>,
}

impl SessionManager {
    /// A manager over `store`; sessions idle longer than `idle_timeout` expire.
    pub fn new(store: Arc<dyn SessionStore>, idle_timeout: Option<Duration>) -> Self {
        SessionManager { store, idle_timeout }
    }

    /// A new session, owned by `owner` (the creating request's subject) when there is one.
    pub(crate) fn create(&self, owner: Option<&str>) -> Result<Arc<Session>, getrandom::Error> {
        let s = Arc::new(Session::new(new_session_id()?, owner));
        self.store.insert(s.clone());
        Ok(s)
    }

    pub(crate) fn discard(&self, id: &str) {
        if let Some(s) = self.store.remove(id) {
            s.end();
        }
    }

    /// Find the session named by a header value, for a request by `subject`; expired sessions
    /// are ended on sight, and another subject's session is not found.
    pub(crate) fn lookup(&self, header: Option<&str>, subject: Option<&str>) -> Result<Arc<Session>, Lookup> {
        let id = header.ok_or(Lookup::Missing)?;
        let s = self.store.get(id).ok_or(Lookup::Unknown)?;
        if s.owner.as_deref() != subject {
            return Err(Lookup::Unknown);
        }
        if self.is_expired(&s) {
            self.discard(id);
            return Err(Lookup::Unknown);
        }
        s.touch();
        Ok(s)
    }

    fn is_expired(&self, s: &Session) -> bool {
        match self.idle_timeout {
            Some(t) => s.idle_for() > t && s.conn.in_flight_count() == 0 && !s.has_open_get_stream(),
            None => false,
        }
    }

    /// End every idle session; how many ended.
    pub fn expire_idle(&self) -> usize {
        let expired: Vec<Arc<Session>> = self.store.all().into_iter().filter(|s| self.is_expired(s)).collect();
        for s in &expired {
            self.discard(s.id());
        }
        expired.len()
    }

    /// End a session (DELETE); whether it existed.
    pub fn terminate(&self, id: &str) -> bool {
        match self.store.remove(id) {
            Some(s) => {
                s.end();
                true
            }
            None => false,
        }
    }

    /// End every session (shutdown).
    pub fn terminate_all(&self) {
        for s in self.store.all() {
            self.terminate(s.id());
        }
    }

    /// The ids of every live session.
    pub fn session_ids(&self) -> Vec<String> {
        self.store.all().iter().map(|s| s.id().to_owned()).collect()
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

    #[test]
    fn lookup_distinguishes_missing_and_unknown_and_expires() {
        let m = SessionManager::new(Arc::new(InMemorySessionStore::default()), Some(Duration::from_millis(0)));
        assert_eq!(m.lookup(None, None).unwrap_err(), Lookup::Missing);
        assert_eq!(m.lookup(Some("nope"), None).unwrap_err(), Lookup::Unknown);
        let s = m.create(None).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(m.lookup(Some(s.id()), None).unwrap_err(), Lookup::Unknown, "expired");
        assert!(s.ended.is_cancelled());
    }

    #[test]
    fn terminate_ends_the_session() {
        let m = SessionManager::new(Arc::new(InMemorySessionStore::default()), None);
        let s = m.create(None).unwrap();
        assert!(m.lookup(Some(s.id()), None).is_ok());
        assert!(m.terminate(s.id()));
        assert!(!m.terminate(s.id()));
        assert_eq!(m.lookup(Some(s.id()), None).unwrap_err(), Lookup::Unknown);
    }
}
