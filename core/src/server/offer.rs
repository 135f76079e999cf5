//! What a server offers, computed once per request from what is registered, what is
//! enabled, the server's mode and the request's era: the one source for both the
//! capabilities a server advertises (`initialize`, `server/discover`) and the gates dispatch
//! applies, so the two cannot disagree.
//!
//! | feature | handshake, stateful | handshake, stateless | 2026-07-28 (any mode) |
//! |---|---|---|---|
//! | `logging` | if enabled (`logging/setLevel` per session) | no (no session to hold a level) | if enabled (per-request level) |
//! | `resources.subscribe` | if enabled | no | if enabled (listen `resourceSubscriptions`) |
//! | `*.listChanged` | if enabled (GET stream, stdio) | no (no stream to carry them) | if enabled (listen stream) |
//! | `extensions` | no | no | as registered |
//! | `tasks` (2025-11-25) / the tasks extension (2026-07-28) | if a tool may run as a task | same | same |

use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use super::connection::Era;
use super::{read, Server};
use crate::protocol::model::{
    ForVersion as _, ListChangedCapability, ResourcesCapability, ServerCapabilities, SubscriptionFilter,
};
use crate::protocol::{ErrorObject, ProtocolVersion};

/// What a server offers to one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Offer {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) completions: bool,
    pub(crate) logging: bool,
    pub(crate) subscribe: bool,
    pub(crate) tools_list_changed: bool,
    pub(crate) resources_list_changed: bool,
    pub(crate) prompts_list_changed: bool,
    /// Some tool may run as a task.
    pub(crate) tasks: bool,
}

impl Offer {
    /// The capabilities to advertise at `version`, with `extensions` (2026-07-28 only).
    pub(crate) fn capabilities(&self, version: ProtocolVersion, extensions: &Map<String, Value>) -> ServerCapabilities {
        let list_changed = |on: bool| ListChangedCapability { list_changed: on.then_some(true) };
        let mut caps = ServerCapabilities::default();
        if self.tools {
            caps.tools = Some(list_changed(self.tools_list_changed));
        }
        if self.resources {
            caps.resources = Some(ResourcesCapability {
                subscribe: self.subscribe.then_some(true),
                list_changed: self.resources_list_changed.then_some(true),
            });
        }
        if self.prompts {
            caps.prompts = Some(list_changed(self.prompts_list_changed));
        }
        if self.logging {
            caps.logging = Some(Map::new());
        }
        if self.completions {
            caps.completions = Some(Map::new());
        }
        if self.tasks {
            // 2025-11-25 (stripped at every other revision).
            caps.tasks = Some(serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}));
        }
        let mut extensions = extensions.clone();
        if self.tasks && version == ProtocolVersion::V2026_07_28 {
            extensions.insert(crate::protocol::model::TASKS_EXTENSION.to_owned(), Value::Object(Map::new()));
        }
        if !extensions.is_empty() {
            caps.extensions = Some(extensions);
        }
        caps.for_version(version)
    }

    /// Whether `method` is served, or the `-32601` to answer. Methods a server always
    /// serves, and custom methods, are not gated here.
    pub(crate) fn gate(&self, method: &str) -> Result<(), ErrorObject> {
        let served = match method {
            "tools/list" | "tools/call" => self.tools,
            "resources/list" | "resources/templates/list" | "resources/read" => self.resources,
            "resources/subscribe" | "resources/unsubscribe" => self.subscribe,
            "prompts/list" | "prompts/get" => self.prompts,
            "completion/complete" => self.completions,
            "logging/setLevel" => self.logging,
            _ => true,
        };
        if served {
            Ok(())
        } else {
            Err(ErrorObject::method_not_found(method))
        }
    }

    /// The part of a listen filter this offer honours.
    pub(crate) fn honour(&self, asked: &SubscriptionFilter) -> SubscriptionFilter {
        let yes = |want: bool, can: bool| (want && can).then_some(true);
        SubscriptionFilter {
            tools_list_changed: yes(asked.tools(), self.tools && self.tools_list_changed),
            prompts_list_changed: yes(asked.prompts(), self.prompts && self.prompts_list_changed),
            resources_list_changed: yes(asked.resources(), self.resources && self.resources_list_changed),
            resource_subscriptions: match &asked.resource_subscriptions {
                Some(uris) if self.resources && self.subscribe && !uris.is_empty() => Some(uris.clone()),
                _ => None,
            },
            // Task ids are honoured per caller (only its own tasks): `Server::listen` decides.
            task_ids: None,
        }
    }
}

impl Server {
    /// What this server offers to a request of `era`.
    pub(crate) fn offer(&self, era: Era) -> Offer {
        let reg = read(&self.inner.registry);
        let f = &self.inner.flags;
        let on = |b: &std::sync::atomic::AtomicBool| b.load(Ordering::Relaxed);
        // Handshake-era requests on a stateless server have no session and no stream: no
        // per-session log level, no subscriptions, no unsolicited notifications.
        let sessions = era == Era::Modern || !self.is_stateless();
        let tools_list_changed = sessions && on(&f.tools_list_changed);
        let resources_list_changed = sessions && on(&f.resources_list_changed);
        let prompts_list_changed = sessions && on(&f.prompts_list_changed);
        let subscribe = sessions && on(&f.subscriptions);
        Offer {
            tools: !reg.tools.is_empty() || on(&f.tools_list_changed),
            resources: !reg.resources.is_empty()
                || !reg.templates.is_empty()
                || on(&f.subscriptions)
                || on(&f.resources_list_changed),
            prompts: !reg.prompts.is_empty() || on(&f.prompts_list_changed),
            completions: !reg.global_completers().is_empty() || !reg.completers.is_empty(),
            logging: sessions && on(&f.logging),
            subscribe,
            tools_list_changed,
            resources_list_changed,
            prompts_list_changed,
            tasks: reg.offers_tasks(),
        }
    }

    /// The capabilities this server advertises to handshake-era clients of its mode.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.offer(Era::Handshake).capabilities(ProtocolVersion::LATEST_HANDSHAKE, &Map::new())
    }

    /// The capabilities this server advertises on the 2026-07-28 path (`server/discover`).
    pub fn modern_capabilities(&self) -> ServerCapabilities {
        let extensions = read(&self.inner.registry).extensions.clone();
        self.offer(Era::Modern).capabilities(ProtocolVersion::V2026_07_28, &extensions)
    }
}
