//! Server-to-client requests awaiting the client's answer: one table, used by every transport
//! that can carry them (stdio, an HTTP session), so ids, correlation and what happens when the
//! connection ends are the same everywhere.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::protocol::{ErrorObject, RequestId};
use crate::sync::lock;

/// What the client answered: a result, or the JSON-RPC error it sent.
pub type Answer = Result<Value, ErrorObject>;

/// The outstanding server-to-client requests of one connection.
#[derive(Debug, Default)]
pub struct PendingRequests {
    /// `None` once closed: no new request is accepted.
    table: Mutex<Option<HashMap<RequestId, oneshot::Sender<Answer>>>>,
    next_id: AtomicI64,
    /// The instance of a fleet that sends these requests, named in their ids so that an
    /// answer reaching another instance can be routed back.
    origin: Option<String>,
}

impl PendingRequests {
    /// An open, empty table.
    pub fn new() -> Self {
        PendingRequests { table: Mutex::new(Some(HashMap::new())), next_id: AtomicI64::new(0), origin: None }
    }

    /// An open, empty table of instance `origin` of a fleet: ids are `ferrite-<origin>-N`.
    pub fn with_origin(origin: &str) -> Self {
        PendingRequests { origin: Some(origin.to_owned()), ..Self::new() }
    }

    /// The instance that sent request `id`, when it is one of a fleet's.
    pub fn origin_of(id: &RequestId) -> Option<&str> {
        let RequestId::String(s) = id else { return None };
        let (origin, n) = s.strip_prefix("ferrite-")?.rsplit_once('-')?;
        (!origin.is_empty() && n.parse::<u64>().is_ok()).then_some(origin)
    }

    /// A fresh id (`ferrite-N`, never a number, so it cannot collide with a client's ids in
    /// logs) and the receiver its answer will arrive on; `None` when the table is closed.
    pub fn register(&self) -> Option<(RequestId, oneshot::Receiver<Answer>)> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(match &self.origin {
            Some(o) => format!("ferrite-{o}-{n}"),
            None => format!("ferrite-{n}"),
        });
        let (tx, rx) = oneshot::channel();
        lock(&self.table).as_mut()?.insert(id.clone(), tx);
        Some((id, rx))
    }

    /// Hand the client's answer to the waiter; whether one was waiting for `id`.
    pub fn resolve(&self, id: &RequestId, answer: Answer) -> bool {
        let waiter = lock(&self.table).as_mut().and_then(|t| t.remove(id));
        match waiter {
            Some(tx) => {
                let _ = tx.send(answer);
                true
            }
            None => false,
        }
    }

    /// Stop waiting for `id` (its waiter went away).
    pub fn forget(&self, id: &RequestId) {
        if let Some(t) = lock(&self.table).as_mut() {
            t.remove(id);
        }
    }

    /// The connection ended: every waiter fails (its receiver sees the sender dropped) and
    /// no new request is accepted.
    pub fn close(&self) {
        lock(&self.table).take();
    }

    /// Whether the table still accepts requests.
    pub fn is_open(&self) -> bool {
        lock(&self.table).is_some()
    }

    /// How many answers are awaited.
    pub fn len(&self) -> usize {
        lock(&self.table).as_ref().map_or(0, HashMap::len)
    }

    /// Whether no answer is awaited.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn answers_reach_their_waiter_once() {
        let t = PendingRequests::new();
        let (id, rx) = t.register().unwrap();
        assert_eq!(t.len(), 1);
        assert!(t.resolve(&id, Ok(json!(1))));
        assert!(!t.resolve(&id, Ok(json!(2))), "a second answer has no waiter");
        assert_eq!(rx.await.unwrap().unwrap(), json!(1));
        assert!(t.is_empty());
    }

    #[tokio::test]
    async fn closing_fails_waiters_and_refuses_new_requests() {
        let t = PendingRequests::new();
        let (_, rx) = t.register().unwrap();
        t.close();
        assert!(rx.await.is_err());
        assert!(t.register().is_none());
        assert!(!t.is_open());
    }

    #[test]
    fn ids_are_distinct_strings() {
        let t = PendingRequests::new();
        let (a, _ra) = t.register().unwrap();
        let (b, _rb) = t.register().unwrap();
        assert_ne!(a, b);
        assert!(matches!(a, RequestId::String(_)));
        t.forget(&a);
        assert_eq!(t.len(), 1);
        assert_eq!(PendingRequests::origin_of(&a), None, "a lone instance names none");
    }

    #[test]
    fn fleet_ids_name_their_instance() {
        let t = PendingRequests::with_origin("ab12");
        let (a, _ra) = t.register().unwrap();
        assert_eq!(a, RequestId::String("ferrite-ab12-0".to_owned()));
        assert_eq!(PendingRequests::origin_of(&a), Some("ab12"));
        assert_eq!(PendingRequests::origin_of(&RequestId::Number(3)), None);
        assert_eq!(PendingRequests::origin_of(&RequestId::String("ferrite--1".to_owned())), None);
    }
}
