//! Notifications that must reach listeners on every instance of a fleet, not only this one's.
//! A resource changed, a task changed, a custom notification: the instance where it happened
//! delivers it to its own listeners and hands it to the [`Fanout`] (a shared bus: Redis
//! pub/sub, `crate::stores::redis`), whose other instances deliver it to theirs with
//! [`Server::deliver`]. List changes go fleet-wide too: an application that changes what it
//! serves (a feature flag, tools read from a shared database) announces it on the instance where
//! the change was made, and every listener must hear it; each instance serves its own
//! registrations, so the application makes the change on every instance (a fleet runs the same
//! code), and a client that re-lists may meet any of them.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{read, write, Server};
use crate::LoggingLevel;

/// A notification for the listeners of every instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FanoutEvent {
    /// `Server::notify`: to every handshake-era listener.
    Notification {
        /// The method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/updated` for the subscribers of `uri`.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// `Server::send_log_message`: `notifications/message` to the handshake-era listeners whose
    /// minimum level it reaches (all of them, or the one session named).
    Log {
        /// Its level.
        level: LoggingLevel,
        /// The logger's name.
        logger: Option<String>,
        /// The message.
        data: Value,
        /// Only the connection with this id (a session id); `None`: every one.
        session: Option<String>,
    },
    /// `notifications/tasks` for the listen streams watching task `id`.
    Task {
        /// The task id.
        id: String,
        /// What `tasks/get` answers for it.
        params: Value,
    },
}

/// Where this instance's fleet-wide notifications go (see the module doc). `publish` must not
/// block: it queues.
pub trait Fanout: Send + Sync + 'static {
    /// Hand `event` to the other instances.
    fn publish(&self, event: &FanoutEvent);
}

impl Server {
    /// Send fleet-wide notifications to other instances through `fanout` too.
    pub fn set_fanout(&self, fanout: Arc<dyn Fanout>) {
        *write(&self.inner.fanout) = Some(fanout);
    }

    /// Keep the handshake-era HTTP sessions and their SSE events in shared stores, so that
    /// any instance of a fleet can serve any session. Endpoints created afterwards use them.
    pub fn set_shared_stores(&self, stores: crate::stores::SharedStores) {
        *write(&self.inner.shared) = Some(stores);
    }

    /// The shared session stores, when set.
    pub fn shared_stores(&self) -> Option<crate::stores::SharedStores> {
        read(&self.inner.shared).clone()
    }

    /// Deliver `event` (from another instance) to this instance's listeners; how many were
    /// reached.
    pub fn deliver(&self, event: &FanoutEvent) -> usize {
        if matches!(
            event,
            FanoutEvent::ToolsListChanged
                | FanoutEvent::ResourcesListChanged
                | FanoutEvent::PromptsListChanged
                | FanoutEvent::ResourceUpdated { .. }
        ) {
            self.inner.changes.fetch_add(1, std::sync::atomic::Ordering::Release);
        }
        match event {
            FanoutEvent::Notification { method, params } => self.broadcast(method, params.clone(), |_| true, |_| false),
            FanoutEvent::ToolsListChanged => {
                self.broadcast("notifications/tools/list_changed", None, |_| true, |f| f.tools())
            }
            FanoutEvent::ResourcesListChanged => {
                self.broadcast("notifications/resources/list_changed", None, |_| true, |f| f.resources())
            }
            FanoutEvent::PromptsListChanged => {
                self.broadcast("notifications/prompts/list_changed", None, |_| true, |f| f.prompts())
            }
            FanoutEvent::ResourceUpdated { uri } => self.broadcast(
                "notifications/resources/updated",
                Some(json!({ "uri": uri })),
                |c| c.is_subscribed(uri),
                |f| f.watches(uri),
            ),
            FanoutEvent::Log { level, logger, data, session } => {
                if !self.inner.flags.logging.load(std::sync::atomic::Ordering::Relaxed) {
                    return 0;
                }
                let mut params = json!({ "level": level.as_str(), "data": data });
                if let Some(l) = logger {
                    params["logger"] = Value::from(l.as_str());
                }
                let to = |c: &super::ConnectionState| {
                    *level >= c.log_level() && session.as_deref().is_none_or(|s| c.id() == s)
                };
                // 2026-07-28 clients ask for logs per request (the envelope's log level); a
                // listen stream carries none.
                self.broadcast("notifications/message", Some(params), to, |_| false)
            }
            FanoutEvent::Task { id, params } => {
                self.broadcast("notifications/tasks", Some(params.clone()), |_| false, |f| f.watches_task(id))
            }
        }
    }

    /// Deliver `event` here and hand it to the fleet; how many listeners here were reached.
    /// How many list changes and resource updates were delivered here so far.
    pub(crate) fn changes(&self) -> u64 {
        self.inner.changes.load(std::sync::atomic::Ordering::Acquire)
    }

    pub(crate) fn deliver_everywhere(&self, event: FanoutEvent) -> usize {
        let reached = self.deliver(&event) + self.deliver_to_parents(&event);
        if let Some(f) = read(&self.inner.fanout).clone() {
            f.publish(&event);
        }
        reached
    }
}
