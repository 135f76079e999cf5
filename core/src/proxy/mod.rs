//! Proxying: a Ferrite server in front of another MCP server (a child process on stdio, or a
//! Streamable HTTP URL, speaking either the handshake revisions or 2026-07-28), re-exposed
//! through Ferrite's transports to clients of either era.
//!
//! The upstream's tools, resources, templates and prompts are mirrored into the local server
//! as registrations whose handlers forward the call (so the local core does what it does for
//! any server: both eras, sessions, validation, middleware, telemetry), and kept in step with
//! its list-changed notifications (from a 2026-07-28 upstream, on a `subscriptions/listen`
//! stream the proxy holds open). While a forwarded request runs, the upstream's progress,
//! log messages and server-to-client requests go to the client that made it; cancelling it
//! cancels the upstream request, as a timeout does (see [`UpstreamOptions`]). A 2026-07-28 client answers the upstream's questions by
//! retrying (input required), as it would any Ferrite server's. Completions, resource
//! subscriptions and the upstream's custom methods are forwarded too. Tools keep their
//! `execution.taskSupport`: the proxy's own engine serves its clients' tasks, and a tool the
//! upstream runs only as a task is run as one upstream and waited out (see [`tasks`]).

mod forward;
mod http;
mod link;
mod stdio;
mod target;
mod tasks;

use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use forward::{CompleteForward, Methods, PromptForward, ReadForward, ToolForward};
pub use link::UpstreamEra;
use link::{Events, Failure, Link};
pub use target::{parse_upstream, ProxyError, UpstreamOptions, UpstreamTarget, DEFAULT_UPSTREAM_TIMEOUT};

use crate::protocol::headers::param_headers;
use crate::protocol::model::{Implementation, Prompt, Resource, ResourceTemplate, TaskSupport, Tool, TASKS_EXTENSION};
use crate::server::{RequestContext, Server, WeakServer};
use crate::sync::lock;

/// A connected, initialized upstream server.
pub struct Upstream {
    link: Arc<Link>,
    /// A second connection for 2026-07-28 clients, when the first cannot carry both eras (a
    /// stdio child pins its era at the first request).
    modern: Option<Arc<Link>>,
    info: Implementation,
    instructions: Option<String>,
    capabilities: Value,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream").field("info", &self.info).field("era", &self.link.era).finish_non_exhaustive()
    }
}

async fn call(link: &Arc<Link>, method: &str, params: Value) -> Result<Value, ProxyError> {
    match link.request(method, Some(params), None).await {
        Ok(v) => Ok(v),
        Err(Failure::Rpc(error)) => Err(ProxyError::Upstream { method: method.to_owned(), error }),
        Err(Failure::NeedsInput(_)) => {
            Err(ProxyError::Malformed { method: method.to_owned(), detail: "asks for input".into() })
        }
    }
}

impl Upstream {
    /// Start or reach the upstream and initialize it: `initialize` (handshake era), or
    /// `server/discover` (2026-07-28), with the default options in `era`. Must run inside a
    /// Tokio runtime.
    pub async fn connect(target: &UpstreamTarget, era: UpstreamEra) -> Result<Upstream, ProxyError> {
        Self::connect_with(target, UpstreamOptions::era(era)).await
    }

    /// As [`Upstream::connect`], with `options`.
    pub async fn connect_with(target: &UpstreamTarget, options: UpstreamOptions) -> Result<Upstream, ProxyError> {
        let era = options.era;
        let client_info = json!({"name": "ferrite-proxy", "version": env!("CARGO_PKG_VERSION")});
        let link = Link::new(era, client_info.clone(), options.timeout);
        match target {
            UpstreamTarget::Stdio { program, args, env } => stdio::spawn(&link, program, args, env),
            UpstreamTarget::Http { url, headers } => http::connect(&link, url, headers),
        }
        .map_err(ProxyError::Connect)?;
        let malformed = |method: &str, detail: String| ProxyError::Malformed { method: method.to_owned(), detail };
        let (info, instructions, capabilities) = match era {
            UpstreamEra::Handshake | UpstreamEra::Auto => {
                let init = link
                    .initialize()
                    .await
                    .map_err(|error| ProxyError::Upstream { method: "initialize".to_owned(), error })?;
                let info = serde_json::from_value(init.get("serverInfo").cloned().unwrap_or_default())
                    .map_err(|e| malformed("initialize", e.to_string()))?;
                (
                    info,
                    init.get("instructions").and_then(Value::as_str).map(str::to_owned),
                    init.get("capabilities").cloned(),
                )
            }
            UpstreamEra::Modern => {
                let found = call(&link, "server/discover", json!({})).await?;
                let info = found
                    .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
                    .cloned()
                    .map(serde_json::from_value)
                    .transpose()
                    .map_err(|e| malformed("server/discover", e.to_string()))?
                    .unwrap_or_else(|| Implementation::new("upstream", "0"));
                (
                    info,
                    found.get("instructions").and_then(Value::as_str).map(str::to_owned),
                    found.get("capabilities").cloned(),
                )
            }
        };
        let capabilities = capabilities.unwrap_or_else(|| json!({}));
        let mut modern = None;
        if era == UpstreamEra::Auto {
            // 2026-07-28 clients' requests go upstream in their era when the upstream serves
            // it: over HTTP on the same endpoint, over stdio to a second child (a stdio
            // connection speaks the era of its first request).
            let probe = match target {
                UpstreamTarget::Http { .. } => Some(link.clone()),
                UpstreamTarget::Stdio { program, args, env } => {
                    let second = Link::new(UpstreamEra::Modern, client_info.clone(), options.timeout);
                    stdio::spawn(&second, program, args, env).ok().map(|()| second)
                }
            };
            if let Some(probe) = probe {
                let found = probe.request_in("server/discover", Some(json!({})), None, true).await;
                let serves = found.as_ref().ok().and_then(|f| f.get("supportedVersions")).and_then(Value::as_array);
                if serves.is_some_and(|v| v.iter().any(|x| x == "2026-07-28")) {
                    probe.modern_ok.store(true, std::sync::atomic::Ordering::Relaxed);
                    if !Arc::ptr_eq(&probe, &link) {
                        modern = Some(probe);
                    }
                } else if !Arc::ptr_eq(&probe, &link) {
                    probe.close();
                }
            }
        }
        Ok(Upstream { link, modern, info, instructions, capabilities })
    }

    /// The upstream's identity.
    pub fn info(&self) -> &Implementation {
        &self.info
    }

    /// The upstream's instructions.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The capabilities the upstream declared.
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }

    /// A stateful server with the upstream's identity and instructions, serving what the
    /// upstream serves (see [`Server::proxy`]).
    pub async fn into_server(self) -> Result<(Server, Proxy), ProxyError> {
        let mut builder = Server::builder(self.info.clone()).stateful();
        if let Some(i) = &self.instructions {
            builder = builder.instructions(i.clone());
        }
        let server = builder.build();
        let proxy = server.proxy(self).await?;
        Ok((server, proxy))
    }
}

/// A running proxy: the upstream connection behind a server's mirrored registrations.
/// Dropping it leaves the proxy running (the server holds it); [`Proxy::close`] stops the
/// upstream.
#[derive(Clone)]
pub struct Proxy {
    mirror: Arc<Mirror>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").finish_non_exhaustive()
    }
}

impl Proxy {
    /// Stop the upstream (kill the child process, close the HTTP streams); forwarded calls
    /// then fail with `-32603`.
    pub fn close(&self) {
        lock(&self.mirror.listening).take();
        self.mirror.link.close();
        if let Some(m) = &self.mirror.modern {
            m.close();
        }
    }
}

/// What a server mirrors of the upstream, and the names it registered for it.
struct Mirror {
    link: Arc<Link>,
    /// The connection for 2026-07-28 clients, when it is not `link` (see [`Upstream`]).
    modern: Option<Arc<Link>>,
    server: WeakServer,
    have: Mutex<Have>,
    /// Who is subscribed to each upstream resource (connection ids, and listen streams while
    /// they are open): the upstream is told to unsubscribe only when the last one goes, since
    /// all clients share its one session (a 2026-07-28 upstream: its listen stream's filter).
    subscribers: Mutex<std::collections::HashMap<String, std::collections::HashSet<String>>>,
    /// A 2026-07-28 upstream offering the tasks extension: its tools list no task support
    /// (the server decides per call), so every tool is mirrored as one that may run as a task.
    tasks_by_policy: bool,
    /// The capabilities the upstream declared.
    capabilities: Value,
    /// A 2026-07-28 upstream's `subscriptions/listen` stream: the filter it was opened with,
    /// and the task holding it open (stopped when replaced, or with the mirror).
    listening: Mutex<Option<(Value, AbortOnDrop)>>,
    /// Signalled when the upstream acknowledges a listen stream (shared with the listen
    /// tasks, which do not keep the mirror alive).
    acknowledged: Arc<tokio::sync::Notify>,
}

/// A task stopped when its handle is dropped (a listen stream replaced, or the mirror gone).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[derive(Default)]
struct Have {
    tools: Vec<String>,
    resources: Vec<String>,
    templates: Vec<String>,
    prompts: Vec<String>,
}

impl Server {
    /// Serve what `upstream` serves: its tools, resources, templates and prompts mirrored as
    /// registrations that forward each call, its completions, subscriptions and custom
    /// methods forwarded, its capabilities (logging, subscriptions, list changes, extensions)
    /// declared here, and its list-changed notifications followed. See the module docs.
    pub async fn proxy(&self, upstream: Upstream) -> Result<Proxy, ProxyError> {
        let caps = upstream.capabilities.clone();
        let mirror = Arc::new(Mirror {
            link: upstream.link.clone(),
            modern: upstream.modern.clone(),
            server: self.downgrade(),
            have: Mutex::default(),
            subscribers: Mutex::default(),
            tasks_by_policy: upstream.link.era == UpstreamEra::Modern
                && caps.pointer("/extensions").and_then(|e| e.get(TASKS_EXTENSION)).is_some(),
            capabilities: caps.clone(),
            listening: Mutex::default(),
            acknowledged: Arc::default(),
        });
        // The sink lives as long as the mirror, which the mirrored handlers hold.
        let events: Arc<dyn Events> = mirror.clone();
        upstream.link.set_events(Arc::downgrade(&events));
        if let Some(m) = &upstream.modern {
            m.set_events(Arc::downgrade(&events));
        }
        if caps.get("tools").is_some() {
            mirror.sync_tools().await?;
            if caps.pointer("/tools/listChanged") == Some(&Value::Bool(true)) {
                self.enable_tools_list_changed();
            }
        }
        if caps.get("resources").is_some() {
            mirror.sync_resources().await?;
            if caps.pointer("/resources/listChanged") == Some(&Value::Bool(true)) {
                self.enable_resources_list_changed();
            }
            if caps.pointer("/resources/subscribe") == Some(&Value::Bool(true)) {
                let _ = self.enable_resource_subscriptions();
            }
        }
        if caps.get("prompts").is_some() {
            mirror.sync_prompts().await?;
            if caps.pointer("/prompts/listChanged") == Some(&Value::Bool(true)) {
                self.enable_prompts_list_changed();
            }
        }
        if caps.get("completions").is_some() {
            self.set_completion_handler(CompleteForward(mirror.clone()));
        }
        if caps.get("logging").is_none() {
            self.disable_logging();
        }
        if let Some(Value::Object(exts)) = caps.get("extensions") {
            for (id, settings) in exts {
                let _ = self.add_extension(id, settings.clone());
            }
        }
        self.add_middleware(Methods(mirror.clone()));
        mirror.relisten();
        Ok(Proxy { mirror })
    }
}

impl Server {
    /// Connect to the upstream `spec` describes (see [`parse_upstream`]) and serve what it
    /// serves (see [`Server::proxy`]): the one call every binding makes.
    pub async fn proxy_upstream(&self, spec: &Value) -> Result<Proxy, ProxyError> {
        let (target, options) = parse_upstream(spec)?;
        self.proxy(Upstream::connect_with(&target, options).await?).await
    }
}

impl Mirror {
    /// `holder` (a connection, or a listen stream) subscribed to the upstream resource `uri`.
    fn subscribed(&self, uri: &str, holder: &str) {
        lock(&self.subscribers).entry(uri.to_owned()).or_default().insert(holder.to_owned());
    }

    /// `holder` unsubscribed from `uri`; whether nobody here is subscribed to it any more.
    fn unsubscribed(&self, uri: &str, holder: &str) -> bool {
        let mut subscribers = lock(&self.subscribers);
        let Some(holders) = subscribers.get_mut(uri) else { return true };
        holders.remove(holder);
        if holders.is_empty() {
            subscribers.remove(uri);
            return true;
        }
        false
    }

    /// What a 2026-07-28 upstream's listen stream asks for: the list changes it announces,
    /// and updates of the resources the proxy's clients are subscribed to; `None` for nothing.
    fn listen_filter(&self) -> Option<Value> {
        let caps = &self.capabilities;
        let mut filter = serde_json::Map::new();
        for (kind, key) in
            [("tools", "toolsListChanged"), ("prompts", "promptsListChanged"), ("resources", "resourcesListChanged")]
        {
            if caps.pointer(&format!("/{kind}/listChanged")) == Some(&Value::Bool(true)) {
                filter.insert(key.to_owned(), Value::Bool(true));
            }
        }
        if caps.pointer("/resources/subscribe") == Some(&Value::Bool(true)) {
            let mut uris: Vec<String> = lock(&self.subscribers).keys().cloned().collect();
            if !uris.is_empty() {
                uris.sort();
                filter.insert("resourceSubscriptions".to_owned(), json!(uris));
            }
        }
        (!filter.is_empty()).then_some(Value::Object(filter))
    }

    /// A 2026-07-28 upstream sends list changes and resource updates only on a
    /// `subscriptions/listen` stream, whose filter cannot change: open one for what the
    /// proxy needs now, unless the open one already asks for exactly that; the one it
    /// replaces is closed once the new one is acknowledged (or after 2 s).
    fn relisten(&self) {
        if self.link.era != UpstreamEra::Modern {
            return; // the session carries them
        }
        // Decided under the lock, so two changes at once cannot install the older filter last.
        let mut listening = lock(&self.listening);
        let filter = self.listen_filter();
        if listening.as_ref().map(|(f, _)| f) == filter.as_ref() {
            return;
        }
        let replaced = listening.take().map(|(_, task)| task);
        let Some(filter) = filter else { return }; // `replaced` stops as it drops
        let task =
            tokio::spawn(listen_upstream(self.link.clone(), self.acknowledged.clone(), filter.clone(), replaced));
        *listening = Some((filter, AbortOnDrop(task)));
    }

    /// The connection a request of `ctx`'s client goes on.
    fn link_for(&self, ctx: &RequestContext) -> &Arc<Link> {
        match &self.modern {
            Some(m) if ctx.is_modern() => m,
            _ => &self.link,
        }
    }

    /// Every page of a list method's `key` items.
    async fn list(&self, method: &str, key: &str) -> Result<Vec<Value>, ProxyError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..1000 {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = call(&self.link, method, params).await?;
            match page.get(key) {
                Some(Value::Array(a)) => items.extend(a.iter().cloned()),
                _ => return Err(ProxyError::Malformed { method: method.into(), detail: format!("no {key} array") }),
            }
            cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        Ok(items)
    }

    fn parse<T: DeserializeOwned>(method: &str, v: Value) -> Option<T> {
        serde_json::from_value(v)
            .map_err(|e| tracing::warn!(target: crate::diagnostics::target::HANDLER, "proxy: skipping a malformed {method} entry: {e}"))
            .ok()
    }

    async fn sync_tools(self: &Arc<Self>) -> Result<(), ProxyError> {
        let listed = self.list("tools/list", "tools").await?;
        let Some(server) = self.server.upgrade() else { return Ok(()) };
        let mut names = Vec::new();
        for v in listed {
            let Some(mut tool) = Self::parse::<Tool>("tools/list", v) else { continue };
            let name = tool.name.clone();
            let headers = param_headers(&tool.input_schema).ok().filter(|h| !h.is_empty());
            let support = tool.task_support();
            if self.tasks_by_policy && tool.execution.is_none() {
                // Run upstream as a task when it answers that it must (`-32021`).
                tool = tool.with_task_support(TaskSupport::Optional);
            }
            let handler = Arc::new(ToolForward { mirror: self.clone(), name: name.clone(), headers, support });
            match server.add_tool_arc(tool, handler) {
                Ok(()) => names.push(name),
                Err(e) => {
                    tracing::warn!(target: crate::diagnostics::target::HANDLER, "proxy: skipping tool {name:?}: {e}")
                }
            }
        }
        let gone: Vec<String> = std::mem::replace(&mut lock(&self.have).tools, names.clone());
        for n in gone.iter().filter(|n| !names.contains(n)) {
            server.remove_tool(n);
        }
        Ok(())
    }

    async fn sync_resources(self: &Arc<Self>) -> Result<(), ProxyError> {
        let listed = self.list("resources/list", "resources").await?;
        let templates = match self.list("resources/templates/list", "resourceTemplates").await {
            Ok(t) => t,
            Err(ProxyError::Upstream { .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        let Some(server) = self.server.upgrade() else { return Ok(()) };
        let mut uris = Vec::new();
        for v in listed {
            let Some(resource) = Self::parse::<Resource>("resources/list", v) else { continue };
            uris.push(resource.uri.clone());
            server.add_resource(resource, ReadForward(self.clone()));
        }
        let mut patterns = Vec::new();
        for v in templates {
            let Some(template) = Self::parse::<ResourceTemplate>("resources/templates/list", v) else { continue };
            let pattern = template.uri_template.clone();
            match server.add_resource_template(template, ReadForward(self.clone())) {
                Ok(()) => patterns.push(pattern),
                Err(e) => {
                    tracing::warn!(target: crate::diagnostics::target::HANDLER, "proxy: skipping template {pattern:?}: {e}")
                }
            }
        }
        let (gone_uris, gone_patterns) = {
            let mut have = lock(&self.have);
            (
                std::mem::replace(&mut have.resources, uris.clone()),
                std::mem::replace(&mut have.templates, patterns.clone()),
            )
        };
        for u in gone_uris.iter().filter(|u| !uris.contains(u)) {
            server.remove_resource(u);
        }
        for p in gone_patterns.iter().filter(|p| !patterns.contains(p)) {
            server.remove_resource_template(p);
        }
        Ok(())
    }

    async fn sync_prompts(self: &Arc<Self>) -> Result<(), ProxyError> {
        let listed = self.list("prompts/list", "prompts").await?;
        let Some(server) = self.server.upgrade() else { return Ok(()) };
        let mut names = Vec::new();
        for v in listed {
            let Some(prompt) = Self::parse::<Prompt>("prompts/list", v) else { continue };
            names.push(prompt.name.clone());
            server.add_prompt(prompt.clone(), PromptForward { mirror: self.clone(), name: prompt.name });
        }
        let gone: Vec<String> = std::mem::replace(&mut lock(&self.have).prompts, names.clone());
        for n in gone.iter().filter(|n| !names.contains(n)) {
            server.remove_prompt(n);
        }
        Ok(())
    }

    fn refresh(self: &Arc<Self>, method: &str) {
        let mirror = self.clone();
        let method = method.to_owned();
        tokio::spawn(async move {
            let Some(server) = mirror.server.upgrade() else { return };
            let synced = match method.as_str() {
                "notifications/tools/list_changed" => {
                    mirror.sync_tools().await.map(|()| server.notify_tools_list_changed())
                }
                "notifications/resources/list_changed" => {
                    mirror.sync_resources().await.map(|()| server.notify_resources_list_changed())
                }
                _ => mirror.sync_prompts().await.map(|()| server.notify_prompts_list_changed()),
            };
            if let Err(e) = synced {
                tracing::warn!(target: crate::diagnostics::target::HANDLER, "proxy: following {method}: {e}");
            }
        });
    }
}

/// Hold a listen stream open on a 2026-07-28 upstream with `filter`, opening it again after it
/// ends (the upstream closed it, or the connection failed: a second later, doubling to 30 s
/// while it keeps ending unacknowledged), until the link closes or the upstream refuses it.
/// `replaced` (the stream this one replaces) is stopped once this one is acknowledged (or after
/// 2 s); a replacement the upstream refuses keeps the stream it would have replaced.
async fn listen_upstream(
    link: Arc<Link>,
    acknowledged: Arc<tokio::sync::Notify>,
    filter: Value,
    mut replaced: Option<AbortOnDrop>,
) {
    let mut pause = std::time::Duration::from_secs(1);
    loop {
        // Enabled before the request goes, so an acknowledgement cannot slip past.
        let acked = acknowledged.notified();
        tokio::pin!(acked);
        acked.as_mut().enable();
        let mut listen =
            Box::pin(link.request_in("subscriptions/listen", Some(json!({"notifications": filter})), None, true));
        let mut ended = None;
        tokio::select! {
            r = &mut listen => ended = Some(r),
            () = &mut acked => pause = std::time::Duration::from_secs(1),
            () = tokio::time::sleep(std::time::Duration::from_secs(2)), if replaced.is_some() => {}
        }
        let outcome = match ended {
            Some(r) => r,
            None => {
                replaced = None; // this one is open: the one it replaces stops
                listen.await
            }
        };
        match outcome {
            Err(Failure::Rpc(e))
                if e.code == crate::code::METHOD_NOT_FOUND || e.code == crate::code::INVALID_PARAMS =>
            {
                tracing::warn!(target: crate::diagnostics::target::HANDLER, "proxy: the upstream refused subscriptions/listen: {}", e.message);
                if let Some(AbortOnDrop(kept)) = replaced.as_mut() {
                    let _ = kept.await; // the stream it would have replaced stays, until this task stops
                }
                return;
            }
            _ if link.is_closed() => return,
            _ => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(30));
            }
        }
    }
}

impl Events for Mirror {
    /// A new upstream session knows none of the old one's subscriptions: ask again for those
    /// the proxy's clients hold.
    fn new_session(self: Arc<Self>) {
        let uris: Vec<String> = lock(&self.subscribers).keys().cloned().collect();
        if uris.is_empty() {
            return;
        }
        let link = self.link.clone();
        tokio::spawn(async move {
            for uri in uris {
                let _ = link.request("resources/subscribe", Some(json!({"uri": uri})), None).await;
            }
        });
    }

    fn notification(self: Arc<Self>, method: &str, params: Option<Value>) {
        let Some(server) = self.server.upgrade() else { return };
        match method {
            "notifications/tools/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/prompts/list_changed" => self.refresh(method),
            // The upstream's tasks are the proxy's own business: its clients see the
            // proxy's tasks, and their notifications come from the proxy's engine.
            "notifications/tasks/status" | "notifications/tasks" => {}
            // The proxy's own listen stream is open: the one it replaces may close.
            "notifications/subscriptions/acknowledged" => self.acknowledged.notify_waiters(),
            "notifications/resources/updated" => {
                if let Some(uri) = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str) {
                    server.notify_resource_updated(uri);
                }
            }
            // A log message tied to no forwarded call goes to each client whose level it
            // reaches (the upstream itself logs at `debug` to the proxy).
            "notifications/message" => {
                let p = params.unwrap_or_default();
                let level = p.get("level").cloned().and_then(|l| serde_json::from_value(l).ok());
                let logger = p.get("logger").and_then(Value::as_str);
                let data = p.get("data").cloned().unwrap_or(Value::Null);
                server.send_log_message(level.unwrap_or(crate::LoggingLevel::Info), data, logger, None);
            }
            _ => {
                // The upstream's subscription id is the proxy's business.
                let params = params.map(|mut p| {
                    if let Some(Value::Object(meta)) = p.get_mut("_meta") {
                        meta.remove(crate::protocol::model::SUBSCRIPTION_ID_KEY);
                    }
                    p
                });
                server.notify(method, params);
            }
        }
    }
}
