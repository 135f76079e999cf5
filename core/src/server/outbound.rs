//! Server-to-client requests awaiting the client's answer: one table, used by every transport
//! that can carry them (stdio, an HTTP session), so ids, correlation and what happens when the
//! connection ends are the same everywhere.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::protocol::jsonrpc::request_text;
use crate::protocol::{ErrorObject, RequestId};
use crate::server::{BoxFuture, PeerError};
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

    /// Send request `method` to the client through `send` and wait for its answer: the one way
    /// every peer asks its client. Fails with [`PeerError::Closed`] once the table is closed
    /// (or closes before the answer). Dropped before the answer, the request is withdrawn:
    /// the client is told with `notifications/cancelled` (see [`Withdraw`]).
    pub fn ask<S>(
        self: &Arc<Self>,
        method: &str,
        params: Option<&Value>,
        send: S,
    ) -> BoxFuture<'static, Result<Value, PeerError>>
    where
        S: Fn(String) + Send + Sync + 'static,
    {
        let Some((id, rx)) = self.register() else {
            return Box::pin(async { Err(PeerError::Closed) });
        };
        send(request_text(&id, method, params));
        let pending = self.clone();
        let withdraw = Withdraw { id, forget: move |id: &RequestId| pending.forget(id), send };
        Box::pin(async move {
            let _withdraw = withdraw;
            match rx.await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) => Err(PeerError::Rpc(e)),
                Err(_) => Err(PeerError::Closed),
            }
        })
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

    /// Stop waiting for `id` (its waiter went away); whether it was still awaited.
    pub fn forget(&self, id: &RequestId) -> bool {
        lock(&self.table).as_mut().is_some_and(|t| t.remove(id).is_some())
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

/// Held by the future waiting for a server-to-client request's answer. Dropped before the
/// answer came (the handler that asked was cancelled, timed out or stopped caring), it takes
/// the request out of its table with `forget` and, when it was still awaited, tells the client
/// with `notifications/cancelled` through `send`, so the client stops asking its user or model.
/// After the answer, or once the connection ended, there is nothing to withdraw.
pub struct Withdraw<F: Fn(&RequestId) -> bool, S: Fn(String)> {
    /// The request's id.
    pub id: RequestId,
    /// Takes `id` out of its table; whether it was still awaited.
    pub forget: F,
    /// Sends a frame to the client.
    pub send: S,
}

impl<F: Fn(&RequestId) -> bool, S: Fn(String)> Drop for Withdraw<F, S> {
    fn drop(&mut self) {
        if (self.forget)(&self.id) {
            (self.send)(cancelled_text(&self.id));
        }
    }
}

/// `notifications/cancelled` for the server's own request `id`.
fn cancelled_text(id: &RequestId) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "the server no longer needs the answer"},
    })
    .to_string()
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
        assert!(t.forget(&a));
        assert!(!t.forget(&a), "forgotten once");
        assert_eq!(t.len(), 1);
        assert_eq!(PendingRequests::origin_of(&a), None, "a lone instance names none");
    }

    #[tokio::test]
    async fn a_request_withdrawn_before_its_answer_is_cancelled_to_the_client_and_only_then() {
        let t = Arc::new(PendingRequests::new());
        let sent = Arc::new(Mutex::new(Vec::<String>::new()));
        let withdraw = |id: RequestId| Withdraw {
            id,
            forget: {
                let t = t.clone();
                move |id: &RequestId| t.forget(id)
            },
            send: {
                let sent = sent.clone();
                move |f: String| lock(&sent).push(f)
            },
        };
        let (waited, _rx) = t.register().unwrap();
        drop(withdraw(waited.clone()));
        let frames = std::mem::take(&mut *lock(&sent));
        assert_eq!(frames.len(), 1);
        let frame: Value = serde_json::from_str(&frames[0]).unwrap();
        assert_eq!(frame["method"], "notifications/cancelled");
        assert_eq!(frame["params"]["requestId"], serde_json::to_value(&waited).unwrap());
        assert!(t.is_empty());
        let (answered, _rx) = t.register().unwrap();
        assert!(t.resolve(&answered, Ok(json!({}))));
        drop(withdraw(answered));
        let (orphaned, _rx) = t.register().unwrap();
        t.close();
        drop(withdraw(orphaned));
        assert!(lock(&sent).is_empty(), "nothing to withdraw after the answer or the connection's end");
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
