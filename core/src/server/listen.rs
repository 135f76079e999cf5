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
use super::{lock, ConnectionState, Peer, PeerError, RequestContext, Server, ServerInner};
use crate::protocol::jsonrpc::notification_text;
use crate::protocol::model::{SubscriptionFilter, SUBSCRIPTION_ID_KEY};
use crate::protocol::{ErrorObject, ProtocolVersion};

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
        let mut honoured = self.offer(Era::Modern).honour(&filter);
        if let Some(ids) = filter.task_ids.as_ref().filter(|ids| !ids.is_empty()) {
            honoured.task_ids = self.honour_task_ids(&ctx, ids).await?;
        }
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

impl Server {
    /// Register a connection that can receive unsolicited notifications until the returned
    /// guard is dropped (transports call this for a stdio process or a GET stream).
    pub fn attach_listener(&self, connection: &Arc<ConnectionState>, peer: &Arc<dyn Peer>) -> ListenerGuard {
        let mut ls = lock(&self.inner.listeners);
        ls.retain(|l| l.connection.strong_count() > 0 && l.peer.strong_count() > 0);
        ls.push(Listener { connection: Arc::downgrade(connection), peer: Arc::downgrade(peer) });
        ListenerGuard { server: Arc::downgrade(&self.inner), peer: Arc::downgrade(peer) }
    }

    /// Send a notification to every handshake-era listening connection; how many were
    /// reached here. (Listen streams receive only the notification types they asked for.)
    /// With a fan-out set, the listeners of the other instances get it too.
    pub fn notify(&self, method: &str, params: Option<Value>) -> usize {
        self.deliver_everywhere(super::fanout::FanoutEvent::Notification { method: method.to_owned(), params })
    }

    /// `notifications/message` to every connected handshake-era client whose minimum log level
    /// (`logging/setLevel`) `level` reaches, or with `session` to that session only (the
    /// official SDKs' server-wide `sendLoggingMessage`). Nothing when the server has no
    /// logging capability. With a fan-out set, on every instance; how many were reached here.
    /// Inside a handler, `RequestContext::log` reaches the requesting client in either era.
    pub fn send_log_message(
        &self,
        level: crate::LoggingLevel,
        data: Value,
        logger: Option<&str>,
        session: Option<&str>,
    ) -> usize {
        self.deliver_everywhere(super::fanout::FanoutEvent::Log {
            level,
            logger: logger.map(str::to_owned),
            data,
            session: session.map(str::to_owned),
        })
    }

    /// `notifications/tools/list_changed` to every listener, and to listen streams that
    /// asked for tool changes. With a fan-out set, on every instance; how many here.
    pub fn notify_tools_list_changed(&self) -> usize {
        self.deliver_everywhere(super::fanout::FanoutEvent::ToolsListChanged)
    }

    /// `notifications/resources/list_changed` to every listener, and to listen streams that
    /// asked for resource list changes. With a fan-out set, on every instance; how many here.
    pub fn notify_resources_list_changed(&self) -> usize {
        self.deliver_everywhere(super::fanout::FanoutEvent::ResourcesListChanged)
    }

    /// `notifications/prompts/list_changed` to every listener, and to listen streams that
    /// asked for prompt changes. With a fan-out set, on every instance; how many here.
    pub fn notify_prompts_list_changed(&self) -> usize {
        self.deliver_everywhere(super::fanout::FanoutEvent::PromptsListChanged)
    }

    /// `notifications/resources/updated` to the connections subscribed to `uri`, and to
    /// listen streams watching it (on every instance, with a fan-out set); how many here.
    pub fn notify_resource_updated(&self, uri: &str) -> usize {
        self.deliver_everywhere(super::fanout::FanoutEvent::ResourceUpdated { uri: uri.to_owned() })
    }

    /// How many `subscriptions/listen` streams are open.
    pub fn listen_stream_count(&self) -> usize {
        lock(&self.inner.listens).len()
    }

    /// Send `ping` to the listening connection `connection_id` (an HTTP session id, or a
    /// stdio connection) and wait up to `timeout` for the client's empty result.
    pub async fn ping_client(&self, connection_id: &str, timeout: std::time::Duration) -> Result<(), PeerError> {
        let peer = {
            let ls = lock(&self.inner.listeners);
            ls.iter()
                .filter_map(|l| Some((l.connection.upgrade()?, l.peer.upgrade()?)))
                .find(|(c, p)| c.id() == connection_id && p.can_request())
                .map(|(_, p)| p)
        };
        let peer = peer.ok_or(PeerError::NoChannel)?;
        match tokio::time::timeout(timeout, peer.request("ping", None)).await {
            Ok(r) => r.map(|_| ()),
            Err(_) => Err(PeerError::Timeout),
        }
    }

    /// Tell the listening connection `connection_id` (an HTTP session with its GET stream open,
    /// or a stdio connection) that the URL elicitation `elicitation_id` has completed
    /// (`notifications/elicitation/complete`, 2025-11-25 on): the out-of-band end of a URL
    /// elicitation, for the web page or callback that learns of it after the request that asked
    /// (or that answered -32042) has ended. Whether the notification went out: false when the
    /// connection is not listening or negotiated a revision without URL elicitation.
    pub fn notify_elicitation_complete(&self, connection_id: &str, elicitation_id: &str) -> bool {
        let peer = {
            let ls = lock(&self.inner.listeners);
            ls.iter()
                .filter_map(|l| Some((l.connection.upgrade()?, l.peer.upgrade()?)))
                .find(|(c, _)| {
                    c.id() == connection_id
                        && c.pinned_era() != Some(Era::Modern)
                        && c.negotiated_version().is_some_and(|v| v.at_least(ProtocolVersion::V2025_11_25))
                })
                .map(|(_, p)| p)
        };
        let Some(peer) = peer else { return false };
        let params = json!({ "elicitationId": elicitation_id });
        peer.send(notification_text("notifications/elicitation/complete", Some(&params)));
        true
    }

    /// Ids of the connections currently listening.
    pub fn connected_sessions(&self) -> Vec<String> {
        let ls = lock(&self.inner.listeners);
        ls.iter().filter_map(|l| Some(l.connection.upgrade()?.id().to_owned())).collect()
    }
}

/// Keeps a listener registered; dropping it unregisters.
#[must_use = "the listener is removed when the guard is dropped"]
pub struct ListenerGuard {
    server: Weak<ServerInner>,
    peer: Weak<dyn Peer>,
}

impl Drop for ListenerGuard {
    fn drop(&mut self) {
        if let Some(s) = self.server.upgrade() {
            let mut ls = lock(&s.listeners);
            ls.retain(|l| !Weak::ptr_eq(&l.peer, &self.peer) && l.peer.strong_count() > 0);
        }
    }
}
