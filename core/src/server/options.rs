//! Options: how a server behaves (validation, capabilities it enables, pagination,
//! observers, cache hints, the keys that seal request state).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::limits::{Limits, LimitsError};
use super::registry::{CacheHints, ResourceEntry, TemplateEntry};
use super::{read, write, ConfigError, NotificationObserver, Server};
use crate::protocol::model::CacheHint;
use crate::request_state::{RequestStateSealer, SealingKey};

impl Server {
    /// Stop validating tool arguments against input schemas (on by default, as the spec
    /// requires servers to validate tool inputs).
    pub fn disable_input_validation(&self) {
        self.inner.flags.skip_input_validation.store(true, Ordering::Relaxed);
    }

    /// Validate tool arguments against input schemas (the default).
    pub fn enable_input_validation(&self) {
        self.inner.flags.skip_input_validation.store(false, Ordering::Relaxed);
    }

    /// Enforce output schemas: a successful result of a tool with an output schema must carry
    /// conforming `structuredContent`, or the call fails with `-32603`.
    pub fn enable_output_validation(&self) {
        self.inner.flags.validate_output.store(true, Ordering::Relaxed);
    }

    /// Advertise `logging` and accept `logging/setLevel` (stateful). On by default.
    pub fn enable_logging(&self) {
        self.inner.flags.logging.store(true, Ordering::Relaxed);
    }

    /// Stop advertising `logging`: `logging/setLevel` answers `-32601` and handlers' log
    /// messages are dropped.
    pub fn disable_logging(&self) {
        self.inner.flags.logging.store(false, Ordering::Relaxed);
    }

    /// Advertise `resources.subscribe`: `resources/subscribe` on handshake-era sessions of a
    /// stateful server, and per-URI updates on 2026-07-28 listen streams (any mode).
    pub fn enable_resource_subscriptions(&self) -> Result<(), ConfigError> {
        self.inner.flags.subscriptions.store(true, Ordering::Relaxed);
        self.capabilities_changed();
        Ok(())
    }

    /// Advertise `tools.listChanged`.
    pub fn enable_tools_list_changed(&self) {
        self.inner.flags.tools_list_changed.store(true, Ordering::Relaxed);
        self.capabilities_changed();
    }

    /// Advertise `resources.listChanged`.
    pub fn enable_resources_list_changed(&self) {
        self.inner.flags.resources_list_changed.store(true, Ordering::Relaxed);
        self.capabilities_changed();
    }

    /// Advertise `prompts.listChanged`.
    pub fn enable_prompts_list_changed(&self) {
        self.inner.flags.prompts_list_changed.store(true, Ordering::Relaxed);
        self.capabilities_changed();
    }

    /// Refuse requests other than `ping` with `-32002` until the client sent
    /// `notifications/initialized` (off by default; the rule is a SHOULD).
    pub fn require_initialized(&self) {
        self.inner.flags.require_initialized.store(true, Ordering::Relaxed);
    }

    /// Return at most `size` items per `*/list` page; 0 (the default) disables pagination.
    pub fn set_page_size(&self, size: usize) {
        self.inner.flags.page_size.store(size, Ordering::Relaxed);
    }

    /// Bound what peers can make this server run ([`Limits`]); takes effect at once.
    pub fn set_limits(&self, limits: Limits) {
        self.inner.limits.set(limits);
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.inner.limits.get()
    }

    /// Change the limits named in a JSON object (snake_case or camelCase keys, as every
    /// surface passes them); the others keep their value. Returns the limits now in force;
    /// nothing changes when one is bad.
    pub fn set_limits_json(&self, value: serde_json::Value) -> Result<Limits, LimitsError> {
        let limits = self.limits().with_json(value)?;
        self.set_limits(limits);
        Ok(limits)
    }

    /// Requests running now in this server (what `max_in_flight` bounds).
    pub fn in_flight(&self) -> usize {
        self.inner.limits.in_flight()
    }

    /// Observe every notification from clients.
    pub fn set_notification_observer(&self, observer: impl NotificationObserver) {
        *write(&self.inner.observer) = Some(Arc::new(observer));
    }

    /// Observe `notifications/roots/list_changed`.
    pub fn set_roots_list_changed_observer(&self, observer: impl Fn() + Send + Sync + 'static) {
        *write(&self.inner.roots_observer) = Some(Arc::new(observer));
    }

    /// Seal request states with `current` and also accept states sealed with `previous`
    /// (key rotation). Every instance of a fleet must use the same keys.
    pub fn set_request_state_keys(&self, current: SealingKey, previous: Vec<SealingKey>) {
        let ttl = read(&self.inner.sealer).ttl();
        *write(&self.inner.sealer) = Arc::new(RequestStateSealer::new(current).with_previous(previous).with_ttl(ttl));
    }

    /// How long a sealed request state stays valid (default 15 minutes).
    pub fn set_request_state_ttl(&self, ttl: Duration) {
        let mut s = write(&self.inner.sealer);
        *s = Arc::new((**s).clone().with_ttl(ttl));
    }

    /// The id of the key that seals request states (not secret).
    pub fn request_state_key_id(&self) -> String {
        read(&self.inner.sealer).current_key_id().to_owned()
    }

    pub(crate) fn sealer(&self) -> Arc<RequestStateSealer> {
        read(&self.inner.sealer).clone()
    }

    /// The cache hints of `server/discover`, the lists and resource reads.
    pub fn cache_hints(&self) -> CacheHints {
        read(&self.inner.registry).cache
    }

    /// Set the cache hints of `server/discover`, the lists and resource reads.
    pub fn set_cache_hints(&self, hints: CacheHints) {
        write(&self.inner.registry).cache = hints;
    }

    /// Set the cache hint of reads of one resource or resource template (by its URI or URI
    /// template), overriding [`CacheHints::resource_read`].
    pub fn set_resource_cache_hint(&self, uri_or_template: &str, hint: CacheHint) -> Result<(), ConfigError> {
        self.set_resource_cache_hint_here(uri_or_template, hint)?;
        self.registry_changed();
        Ok(())
    }

    fn set_resource_cache_hint_here(&self, uri_or_template: &str, hint: CacheHint) -> Result<(), ConfigError> {
        let mut reg = write(&self.inner.registry);
        if let Some(e) = reg.resources.get_mut(uri_or_template) {
            *e =
                Arc::new(ResourceEntry { resource: e.resource.clone(), handler: e.handler.clone(), cache: Some(hint) });
            return Ok(());
        }
        if let Some(t) = reg.templates.iter_mut().find(|t| t.template.uri_template == uri_or_template) {
            *t = Arc::new(TemplateEntry {
                template: t.template.clone(),
                parsed: t.parsed.clone(),
                handler: t.handler.clone(),
                cache: Some(hint),
            });
            return Ok(());
        }
        Err(ConfigError::UnknownResource(uri_or_template.to_owned()))
    }
}
