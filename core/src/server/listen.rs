//! Unsolicited notifications, and who receives them.
//!
//! Two kinds of listeners:
//! - handshake-era connections that can take unsolicited messages (a stdio process, an HTTP
//!   session's GET stream), which receive list changes and the `resources/updated` of URIs
//!   they subscribed to;
//! - 2026-07-28 `subscriptions/listen` streams, each receiving only what its acknowledged
//!   filter names, every message tagged with the listen request's id. The acknowledgement
//!   is sent under the registry's lock, so no notification can overtake it.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use serde_json::{json, Map, Value};

use super::connection::Era;
use super::dispatch::{params_map, Outcome};
use super::{lock, ConnectionState, Peer, RequestContext, Server, ServerInner};
use crate::protocol::jsonrpc::notification_text;
use crate::protocol::model::{SubscriptionFilter, SUBSCRIPTION_ID_KEY};
use crate::protocol::ErrorObject;

/// A handshake-era connection that takes unsolicited notifications.
pub(crate) struct Listener {
    pub(crate) connection: Weak<ConnectionState>,
    pub(crate) peer: Weak<dyn Peer>,
}

/// An open `subscriptions/listen` stream.
pub(crate) struct ListenSlot {
    key: u64,
    /// The listen request's id, as sent (the subscription id).
    id: Value,
    /// What was acknowledged.
    filter: SubscriptionFilter,
    peer: Arc<dyn Peer>,
}

/// Removes a listen stream from the registry when its request ends.
struct ListenGuard {
    server: Weak<ServerInner>,
    key: u64,
}

impl Drop for ListenGuard {
    fn drop(&mut self) {
        if let Some(s) = self.server.upgrade() {
            lock(&s.listens).retain(|l| l.key != self.key);
        }
    }
}

/// `params` with the subscription id added to `_meta`.
fn tagged(params: Option<&Value>, id: &Value) -> Value {
    let mut p = match params {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    match p.entry("_meta").or_insert_with(|| Value::Object(Map::new())) {
        Value::Object(meta) => {
            meta.insert(SUBSCRIPTION_ID_KEY.to_owned(), id.clone());
        }
        other => *other = json!({ SUBSCRIPTION_ID_KEY: id }),
    }
    Value::Object(p)
}

impl Server {
    /// `subscriptions/listen`: acknowledge the honoured part of the filter, deliver what it
    /// names until the client closes the stream (or cancels it on stdio), and end with the
    /// graceful result when the connection closes.
    pub(crate) async fn listen(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "subscriptions/listen")?;
        let filter: SubscriptionFilter = match p.remove("notifications") {
            Some(v @ Value::Object(_)) => serde_json::from_value(v).map_err(|e| {
                ErrorObject::invalid_params(format!("subscriptions/listen: invalid notifications: {e}"))
            })?,
            None => return Err(ErrorObject::invalid_params("subscriptions/listen: notifications is required")),
            Some(_) => {
                return Err(ErrorObject::invalid_params("subscriptions/listen: notifications must be an object"))
            }
        };
        let honoured = self.offer(Era::Modern).honour(&filter);
        let id = ctx.request_id().to_value();
        let key = self.inner.next_listen.fetch_add(1, Ordering::Relaxed);
        let ack = notification_text(
            "notifications/subscriptions/acknowledged",
            Some(&json!({ "notifications": honoured, "_meta": { SUBSCRIPTION_ID_KEY: id } })),
        );
        {
            let mut listens = lock(&self.inner.listens);
            ctx.inner.peer.send(ack);
            listens.push(ListenSlot { key, id: id.clone(), filter: honoured, peer: ctx.inner.peer.clone() });
        }
        let guard = ListenGuard { server: Arc::downgrade(&self.inner), key };
        tokio::select! {
            _ = ctx.cancelled() => {}
            _ = ctx.closing() => {}
        }
        drop(guard);
        self.empty_modern_result(Map::from_iter([(SUBSCRIPTION_ID_KEY.to_owned(), id)]))
    }

    /// Deliver a notification: to handshake-era listeners that `legacy` accepts, and to
    /// listen streams whose filter `modern` accepts (tagged with their subscription id).
    pub(crate) fn broadcast(
        &self,
        method: &str,
        params: Option<Value>,
        legacy: impl Fn(&ConnectionState) -> bool,
        modern: impl Fn(&SubscriptionFilter) -> bool,
    ) -> usize {
        let targets: Vec<Arc<dyn Peer>> = {
            let mut ls = lock(&self.inner.listeners);
            ls.retain(|l| l.connection.strong_count() > 0 && l.peer.strong_count() > 0);
            ls.iter()
                .filter_map(|l| Some((l.connection.upgrade()?, l.peer.upgrade()?)))
                // A connection speaking 2026-07-28 gets notifications on its listen streams
                // only.
                .filter(|(c, _)| c.pinned_era() != Some(Era::Modern) && legacy(c))
                .map(|(_, p)| p)
                .collect()
        };
        if !targets.is_empty() {
            let frame = notification_text(method, params.as_ref());
            for p in &targets {
                p.send(frame.clone());
            }
        }
        let mut reached = targets.len();
        let listens = lock(&self.inner.listens);
        for l in listens.iter().filter(|l| modern(&l.filter)) {
            l.peer.send(notification_text(method, Some(&tagged(params.as_ref(), &l.id))));
            reached += 1;
        }
        reached
    }
}
