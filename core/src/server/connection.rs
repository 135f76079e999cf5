//! Per-peer mutable state.
//!
//! A [`Server`](super::Server) holds only registrations; everything that belongs to one peer
//! lives here, so concurrent peers sharing a server never see each other's negotiated
//! version, capabilities, log level, subscriptions or in-flight requests. Whoever owns the
//! peer owns its `ConnectionState`: the stdio loop (one for the process), the HTTP session
//! manager (one per session), or the request itself (stateless).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tokio_util::sync::CancellationToken;

use crate::protocol::classifier::{parse_client_info, RequestEnvelope};
use crate::protocol::model::{ClientCapabilities, Implementation, LoggingLevel};
use crate::protocol::{CompactJson, ProtocolVersion, RequestId};
use crate::sync::lock;

/// Which generation of the protocol a request (or a connection) speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: `initialize` handshake, per-connection state.
    Handshake,
    /// 2026-07-28: a per-request `_meta` envelope, nothing kept between requests.
    Modern,
}

/// What the handshake established, and the lifecycle flags.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Negotiated {
    version: Option<ProtocolVersion>,
    client_capabilities: ClientCapabilities,
    client_info: Option<Implementation>,
    log_level: LoggingLevel,
    initialize_processed: bool,
    initialized: bool,
}

/// The mutable state of one MCP peer (a stdio process, an HTTP session, or one stateless
/// request).
#[derive(Debug)]
pub struct ConnectionState {
    id: Arc<str>,
    negotiated: Mutex<Negotiated>,
    subscriptions: Mutex<HashSet<String>>,
    /// Bumped by every change of what [`ConnectionState::snapshot`] holds.
    changes: AtomicU64,
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// The era fixed by the first request, for connections that pin one (stdio).
    era: Option<OnceLock<Era>>,
    /// Cancelled when the connection is closing (EOF, shutdown, session end): long-lived
    /// requests such as `subscriptions/listen` end then. Made on first use: the transient
    /// state of a 2026-07-28 request never needs one.
    closing: OnceLock<CancellationToken>,
    /// The `clientInfo` of a modern request, parsed only if someone asks for it.
    modern_client_info: Option<CompactJson>,
}

static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

impl ConnectionState {
    /// A fresh state with the given stable connection id (for HTTP, the session id).
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        Self::with(id.into(), None, ClientCapabilities::default())
    }

    #[inline]
    fn with(id: Arc<str>, version: Option<ProtocolVersion>, client_capabilities: ClientCapabilities) -> Self {
        ConnectionState {
            id,
            negotiated: Mutex::new(Negotiated {
                version,
                client_capabilities,
                client_info: None,
                log_level: LoggingLevel::Info,
                initialize_processed: false,
                initialized: false,
            }),
            subscriptions: Mutex::new(HashSet::new()),
            changes: AtomicU64::new(0),
            in_flight: Mutex::new(HashMap::new()),
            era: None,
            closing: OnceLock::new(),
            modern_client_info: None,
        }
    }

    /// A connection whose first request fixes its era for good (stdio: the process speaks
    /// one generation; a later request of the other is refused).
    pub fn pinning_era(mut self) -> Self {
        self.era = Some(OnceLock::new());
        self
    }

    /// End long-lived requests of this connection with `closing` (a child of the
    /// transport's shutdown token, for example).
    pub fn with_closing(self, closing: CancellationToken) -> Self {
        let _ = self.closing.set(closing);
        self
    }

    /// The transient state of one 2026-07-28 request, built from its envelope and dropped
    /// after it (it shares the id of the transport connection it arrived on).
    #[inline]
    pub fn modern(id: Arc<str>, envelope: RequestEnvelope) -> Self {
        let RequestEnvelope { version, client_capabilities, client_info, log_level } = envelope;
        let mut s = Self::with(id, Some(version), client_capabilities);
        // No level means no log messages at all; `RequestContext::log` reads that from the
        // envelope.
        if let (Some(level), Ok(n)) = (log_level, s.negotiated.get_mut()) {
            n.log_level = level;
        }
        s.modern_client_info = client_info;
        s
    }

    /// The era this connection is pinned to, if it pins one and a request fixed it.
    pub fn pinned_era(&self) -> Option<Era> {
        self.era.as_ref().and_then(|e| e.get().copied())
    }

    /// Fix the era to `era` if this connection pins one and none is fixed yet; the era in
    /// force afterwards (`None` for connections that do not pin).
    pub(crate) fn pin_era(&self, era: Era) -> Option<Era> {
        self.era.as_ref().map(|e| *e.get_or_init(|| era))
    }

    /// Whether the connection is closing.
    pub fn is_closing(&self) -> bool {
        self.closing.get().is_some_and(CancellationToken::is_cancelled)
    }

    /// The token cancelled when the connection closes.
    pub fn closing_token(&self) -> &CancellationToken {
        self.closing.get_or_init(CancellationToken::new)
    }

    /// Close the connection: long-lived requests (listen streams) end gracefully.
    pub fn close(&self) {
        self.closing_token().cancel();
    }

    /// The id, shared.
    pub(crate) fn shared_id(&self) -> Arc<str> {
        self.id.clone()
    }

    /// A fresh state with a process-unique id such as `conn-3`.
    pub fn with_generated_id() -> Self {
        Self::new(format!("conn-{}", NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed)))
    }

    /// A state for a request that arrives without a handshake (stateless), at `version` and
    /// with the given client capabilities.
    pub fn transient(id: impl Into<Arc<str>>, version: ProtocolVersion, caps: ClientCapabilities) -> Self {
        let s = Self::new(id);
        {
            let mut n = lock(&s.negotiated);
            n.version = Some(version);
            n.client_capabilities = caps;
        }
        s
    }

    /// The stable id of this connection.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The negotiated revision, if `initialize` ran.
    pub fn negotiated_version(&self) -> Option<ProtocolVersion> {
        lock(&self.negotiated).version
    }

    /// The revision in effect: the negotiated one, or the latest handshake revision for a
    /// peer that skipped `initialize`.
    pub fn effective_version(&self) -> ProtocolVersion {
        self.negotiated_version().unwrap_or(ProtocolVersion::LATEST_HANDSHAKE)
    }

    /// The capabilities the client declared (empty when unknown).
    pub fn client_capabilities(&self) -> ClientCapabilities {
        lock(&self.negotiated).client_capabilities.clone()
    }

    /// Whether the client declared a capability (dotted path, see
    /// [`ClientCapabilities::supports`]).
    pub fn client_supports(&self, capability: &str) -> bool {
        lock(&self.negotiated).client_capabilities.supports(capability)
    }

    /// The client's `clientInfo`, if it sent one.
    pub fn client_info(&self) -> Option<Implementation> {
        let negotiated = lock(&self.negotiated).client_info.clone();
        negotiated.or_else(|| parse_client_info(self.modern_client_info.as_ref()))
    }

    /// The minimum log level the client asked for (default `info`).
    pub fn log_level(&self) -> LoggingLevel {
        lock(&self.negotiated).log_level
    }

    /// Set the minimum log level.
    pub fn set_log_level(&self, level: LoggingLevel) {
        lock(&self.negotiated).log_level = level;
        self.changed();
    }

    /// Whether an `initialize` was processed.
    pub fn initialize_processed(&self) -> bool {
        lock(&self.negotiated).initialize_processed
    }

    /// Whether the client sent `notifications/initialized`.
    pub fn is_initialized(&self) -> bool {
        lock(&self.negotiated).initialized
    }

    /// Record a processed `initialize`. Returns false (and changes nothing) when one was
    /// already processed.
    pub(crate) fn record_initialize(
        &self,
        version: ProtocolVersion,
        caps: ClientCapabilities,
        info: Option<Implementation>,
    ) -> bool {
        let mut n = lock(&self.negotiated);
        if n.initialize_processed {
            return false;
        }
        n.initialize_processed = true;
        n.version = Some(version);
        n.client_capabilities = caps;
        n.client_info = info;
        drop(n);
        self.changed();
        true
    }

    /// Record `notifications/initialized`.
    pub(crate) fn mark_initialized(&self) {
        lock(&self.negotiated).initialized = true;
        self.changed();
    }

    /// Subscribe to updates of `uri`.
    pub fn subscribe(&self, uri: &str) {
        lock(&self.subscriptions).insert(uri.to_owned());
        self.changed();
    }

    /// Unsubscribe from `uri`; whether it was subscribed.
    pub fn unsubscribe(&self, uri: &str) -> bool {
        let was = lock(&self.subscriptions).remove(uri);
        self.changed();
        was
    }

    /// Whether this connection is subscribed to `uri`.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    fn changed(&self) {
        self.changes.fetch_add(1, Ordering::Relaxed);
    }

    /// How many changes [`ConnectionState::snapshot`] would show so far: a transport that
    /// keeps the state elsewhere saves it when this moved.
    pub fn changes(&self) -> u64 {
        self.changes.load(Ordering::Relaxed)
    }

    /// What survives the process: the negotiated version, the client's capabilities and
    /// info, the log level, the lifecycle flags and the subscriptions, as JSON. In-flight
    /// requests and the closing token are live and stay behind.
    pub fn snapshot(&self) -> serde_json::Value {
        let n = lock(&self.negotiated).clone();
        let mut subscriptions: Vec<String> = lock(&self.subscriptions).iter().cloned().collect();
        subscriptions.sort();
        serde_json::json!({ "negotiated": n, "subscriptions": subscriptions })
    }

    /// Take over a [`ConnectionState::snapshot`] (made by this process or another); a
    /// snapshot that does not parse changes nothing and is an error.
    pub fn restore(&self, snapshot: &serde_json::Value) -> Result<(), serde_json::Error> {
        let n: Negotiated = serde_json::from_value(snapshot.get("negotiated").cloned().unwrap_or_default())?;
        let subs: HashSet<String> =
            serde_json::from_value(snapshot.get("subscriptions").cloned().unwrap_or_else(|| serde_json::json!([])))?;
        *lock(&self.negotiated) = n;
        *lock(&self.subscriptions) = subs;
        Ok(())
    }

    /// Register an in-flight request unless `max` already run here (then `None`), under the
    /// one lock that registration takes anyway.
    pub(crate) fn begin_request_within(&self, id: &RequestId, max: usize) -> Option<CancellationToken> {
        let mut in_flight = lock(&self.in_flight);
        if in_flight.len() >= max {
            return None;
        }
        let token = CancellationToken::new();
        in_flight.insert(id.clone(), token.clone());
        Some(token)
    }

    /// Forget an in-flight request.
    pub(crate) fn end_request(&self, id: &RequestId) {
        lock(&self.in_flight).remove(id);
    }

    /// Cancel the in-flight request `id`; whether one was found.
    pub fn cancel_request(&self, id: &RequestId) -> bool {
        match lock(&self.in_flight).get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Cancel every in-flight request (the peer went away).
    pub fn cancel_all(&self) {
        for token in lock(&self.in_flight).values() {
            token.cancel();
        }
    }

    /// How many requests are in flight.
    pub fn in_flight_count(&self) -> usize {
        lock(&self.in_flight).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_initialize_is_refused() {
        let c = ConnectionState::new("c");
        assert!(c.record_initialize(ProtocolVersion::V2025_06_18, ClientCapabilities::default(), None));
        assert!(!c.record_initialize(ProtocolVersion::V2024_11_05, ClientCapabilities::default(), None));
        assert_eq!(c.negotiated_version(), Some(ProtocolVersion::V2025_06_18));
    }

    #[test]
    fn a_snapshot_restores_elsewhere_and_changes_are_counted() {
        let a = ConnectionState::new("a");
        let caps: ClientCapabilities = serde_json::from_value(serde_json::json!({"elicitation": {}})).unwrap();
        a.record_initialize(ProtocolVersion::V2025_06_18, caps, Some(Implementation::new("c", "1")));
        a.mark_initialized();
        a.set_log_level(LoggingLevel::Error);
        a.subscribe("file:///x");
        assert_eq!(a.changes(), 4);
        let b = ConnectionState::new("a");
        b.restore(&a.snapshot()).unwrap();
        assert_eq!(b.negotiated_version(), Some(ProtocolVersion::V2025_06_18));
        assert!(b.client_supports("elicitation") && b.is_initialized() && b.initialize_processed());
        assert_eq!(b.log_level(), LoggingLevel::Error);
        assert!(b.is_subscribed("file:///x"));
        assert_eq!(b.client_info().map(|i| i.name), Some("c".to_owned()));
        assert!(b.restore(&serde_json::json!({"negotiated": 3})).is_err());
        assert!(b.is_subscribed("file:///x"), "a bad snapshot changes nothing");
    }

    #[test]
    fn cancellation_is_scoped_to_the_connection() {
        let a = ConnectionState::new("a");
        let b = ConnectionState::new("b");
        let id = RequestId::Number(1);
        let ta = a.begin_request_within(&id, usize::MAX).unwrap();
        let tb = b.begin_request_within(&id, usize::MAX).unwrap();
        assert!(a.cancel_request(&id));
        assert!(ta.is_cancelled());
        assert!(!tb.is_cancelled());
    }
}
