//! The transport-agnostic server: registrations, declared capabilities and dispatch.
//!
//! A [`Server`] owns what the author registered (tools, resources, templates, prompts,
//! completers, observers), its identity and its [mode](ServerMode). It holds no per-peer
//! state: every call to [`Server::handle`] names the [`ConnectionState`] it runs against and
//! the [`Peer`] that carries traffic back. Registration works at any time, also while
//! serving (list-changed notifications tell clients).

mod connection;
mod context;
mod dispatch;
mod handler;
mod lifecycle;
mod listen;
mod methods;
mod modern;
mod offer;
pub mod pagination;
mod registry;
mod reply;
pub mod typed;
pub mod uri_template;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use serde_json::{json, Value};

pub use connection::{ConnectionState, Era};
pub use context::{NullPeer, Peer, PeerError, RequestContext, RequestInfo};
pub use handler::{
    BoxFuture, CompletionHandler, HandlerError, HandlerResult, MethodHandler, NotificationObserver, PromptHandler,
    ResourceHandler, TemplateVariables, ToolHandler,
};
pub use lifecycle::SUPPORTED_VERSIONS;
use listen::{ListenSlot, Listener};
pub use modern::MODERN_VERSIONS;
pub use registry::CacheHints;
use registry::{PromptEntry, Registry, ResourceEntry, TemplateEntry, ToolEntry};
pub use reply::MAX_INPUT_ROUNDS;

use crate::protocol::model::{
    CacheHint, ClientCapabilities, CompleteRequest, CompleteResult, CompletionReference, ForVersion as _,
    Implementation, Prompt, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Tool,
};
use crate::protocol::ProtocolVersion;
use crate::request_state::{RequestStateSealer, SealingKey};
pub(crate) use crate::sync::{lock, read, write};

/// Where per-peer state lives (see `shared/design/modes.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerMode {
    /// No sessions: state is built per request and dropped. The default.
    #[default]
    Stateless,
    /// One [`ConnectionState`] per session (per stdio process), created at `initialize`.
    Stateful,
}

/// A mistake in how a server is configured or what is registered.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The tool's input or output schema is not a valid JSON Schema.
    #[error("tool {tool:?}: invalid {which} schema: {reason}")]
    InvalidSchema {
        /// The tool name.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// What the validator said.
        reason: String,
    },
    /// The tool's input schema is not an object schema.
    #[error("tool {0:?}: inputSchema must be a JSON object with \"type\": \"object\"")]
    InputSchemaNotObject(String),
    /// The resource template does not parse.
    #[error(transparent)]
    InvalidTemplate(#[from] uri_template::TemplateError),
    /// A feature that needs sessions was enabled on a stateless server.
    #[error("{0} needs a stateful server: build it with ServerBuilder::stateful()")]
    NeedsStateful(&'static str),
    /// No tool with this name is registered.
    #[error("no tool named {0:?} is registered")]
    UnknownTool(String),
    /// No resource or template with this URI is registered.
    #[error("no resource or resource template {0:?} is registered")]
    UnknownResource(String),
    /// The tool's `x-mcp-header` annotations break the spec's rules (a client would drop
    /// the tool).
    #[error("tool {tool:?}: invalid x-mcp-header: {reason}")]
    InvalidParamHeader {
        /// The tool name.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A custom method may not take the name of a method the core serves.
    #[error("method {0:?} is served by the core and cannot be replaced")]
    ReservedMethod(String),
    /// An extension id needs a reverse-DNS prefix (`io.example/name`).
    #[error("extension id {0:?} needs a prefix, like \"com.example/name\"")]
    InvalidExtensionId(String),
}

#[derive(Default)]
struct Flags {
    logging: AtomicBool,
    subscriptions: AtomicBool,
    tools_list_changed: AtomicBool,
    resources_list_changed: AtomicBool,
    prompts_list_changed: AtomicBool,
    require_initialized: AtomicBool,
    skip_input_validation: AtomicBool,
    validate_output: AtomicBool,
    page_size: AtomicUsize,
}

pub(crate) struct ServerInner {
    info: Implementation,
    instructions: Option<String>,
    mode: ServerMode,
    registry: RwLock<Registry>,
    flags: Flags,
    observer: RwLock<Option<Arc<dyn NotificationObserver>>>,
    roots_observer: RwLock<Option<Arc<dyn Fn() + Send + Sync>>>,
    listeners: Mutex<Vec<Listener>>,
    listens: Mutex<Vec<ListenSlot>>,
    next_listen: AtomicU64,
    in_process: Arc<ConnectionState>,
    /// Seals and opens MRTR request states.
    sealer: RwLock<Arc<RequestStateSealer>>,
    /// The server info carried in `_meta` of 2026-07-28 results, serialized once.
    modern_server_info: String,
}

/// The core methods a custom method may not replace.
const CORE_METHODS: [&str; 19] = [
    "initialize",
    "ping",
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
];

/// A sealing key from the OS CSPRNG, or (if the OS has no randomness to give, which leaves
/// nothing else secure either) one derived from the clock, the process and an address.
fn fresh_key() -> SealingKey {
    SealingKey::generate().unwrap_or_else(|_| {
        use sha2::Digest as _;
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let marker = 0u8;
        let mut h = sha2::Sha256::new();
        h.update(t.as_nanos().to_le_bytes());
        h.update(std::process::id().to_le_bytes());
        h.update((&marker as *const u8 as usize).to_le_bytes());
        SealingKey::from_bytes(h.finalize().into())
    })
}

/// An MCP server: registrations and dispatch, no I/O. Cheap to clone (shared).
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("info", &self.inner.info).field("mode", &self.inner.mode).finish_non_exhaustive()
    }
}

/// Builds a [`Server`].
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    mode: ServerMode,
}

impl ServerBuilder {
    /// Set the instructions sent in the `initialize` result.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }
    /// Use stateful mode: one connection state per session, server-to-client requests,
    /// subscriptions and `logging/setLevel` available.
    pub fn stateful(mut self) -> Self {
        self.mode = ServerMode::Stateful;
        self
    }
    /// Use stateless mode (the default).
    pub fn stateless(mut self) -> Self {
        self.mode = ServerMode::Stateless;
        self
    }
    /// Set the mode.
    pub fn mode(mut self, mode: ServerMode) -> Self {
        self.mode = mode;
        self
    }
    /// Build the server. Request states are sealed with a key generated now; a fleet of
    /// instances shares one with [`Server::set_request_state_keys`].
    pub fn build(self) -> Server {
        let modern_info = self.info.for_version(ProtocolVersion::V2026_07_28);
        Server {
            inner: Arc::new(ServerInner {
                modern_server_info: serde_json::to_string(&modern_info).unwrap_or_else(|_| "{}".to_owned()),
                info: self.info,
                instructions: self.instructions,
                mode: self.mode,
                registry: RwLock::new(Registry::default()),
                flags: Flags::default(),
                observer: RwLock::new(None),
                roots_observer: RwLock::new(None),
                listeners: Mutex::new(Vec::new()),
                listens: Mutex::new(Vec::new()),
                next_listen: AtomicU64::new(0),
                in_process: Arc::new(ConnectionState::new("in-process")),
                sealer: RwLock::new(Arc::new(RequestStateSealer::new(fresh_key()))),
            }),
        }
    }
}

impl Server {
    /// Start building a server with this identity.
    pub fn builder(info: Implementation) -> ServerBuilder {
        ServerBuilder { info, instructions: None, mode: ServerMode::Stateless }
    }

    /// A stateless server named `name` at `version`.
    pub fn new(name: &str, version: &str) -> Server {
        Self::builder(Implementation::new(name, version)).build()
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// The mode the server was built with.
    pub fn mode(&self) -> ServerMode {
        self.inner.mode
    }

    /// Whether the server is stateless.
    pub fn is_stateless(&self) -> bool {
        self.inner.mode == ServerMode::Stateless
    }

    /// A new connection state for a peer of this server.
    pub fn new_connection(&self) -> Arc<ConnectionState> {
        Arc::new(ConnectionState::with_generated_id())
    }

    /// The connection `handle_raw` uses for in-process calls.
    pub fn in_process_connection(&self) -> &Arc<ConnectionState> {
        &self.inner.in_process
    }

    // ----- tools -----

    /// Register (or replace) a tool with a context-aware async handler. Fails when a schema
    /// is not a valid JSON Schema.
    pub fn add_tool(&self, tool: Tool, handler: impl ToolHandler) -> Result<(), ConfigError> {
        self.add_tool_arc(tool, Arc::new(handler))
    }

    /// As [`Server::add_tool`], with a shared handler.
    pub fn add_tool_arc(&self, tool: Tool, handler: Arc<dyn ToolHandler>) -> Result<(), ConfigError> {
        let entry = ToolEntry::new(tool, handler)?;
        // A replaced handler is dropped after the lock is released (its finalizer may call
        // back into the server).
        let _replaced = write(&self.inner.registry).tools.insert(entry.tool.name.clone(), Arc::new(entry));
        Ok(())
    }

    /// Register a tool with a plain synchronous handler that ignores the request context.
    pub fn add_tool_fn<F>(&self, tool: Tool, f: F) -> Result<(), ConfigError>
    where
        F: Fn(Value) -> HandlerResult<crate::protocol::model::CallToolResult> + Send + Sync + 'static,
    {
        let f = Arc::new(f);
        self.add_tool(tool, move |args: Value, _ctx: RequestContext| {
            let f = f.clone();
            async move { f(args) }
        })
    }

    /// Remove a tool; whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        // Dropped after the lock is released: a host finalizer may call back into the server.
        let removed = write(&self.inner.registry).tools.shift_remove(name);
        removed.is_some()
    }

    /// The registered tools, in registration order.
    pub fn tools(&self) -> Vec<Tool> {
        read(&self.inner.registry).tools.values().map(|e| e.tool.clone()).collect()
    }

    /// Declare the client capabilities a tool needs; calls from clients that did not declare
    /// them are refused with a clear error.
    pub fn set_tool_required_client_capabilities(
        &self,
        name: &str,
        caps: ClientCapabilities,
    ) -> Result<(), ConfigError> {
        let mut reg = write(&self.inner.registry);
        let entry = reg.tools.get_mut(name).ok_or_else(|| ConfigError::UnknownTool(name.to_owned()))?;
        let mut updated = (**entry).clone();
        updated.required_caps = Some(caps);
        *entry = Arc::new(updated);
        Ok(())
    }

    /// The effective input schema of a tool, if registered.
    pub fn tool_input_schema(&self, name: &str) -> Option<Value> {
        read(&self.inner.registry).tools.get(name).map(|e| e.tool.input_schema.clone())
    }

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

    // ----- resources -----

    /// Register (or replace) a direct resource with its reader.
    pub fn add_resource(&self, resource: Resource, reader: impl ResourceHandler) {
        let uri = resource.uri.clone();
        let entry = Arc::new(ResourceEntry { resource, handler: Arc::new(reader), cache: None });
        let _replaced = write(&self.inner.registry).resources.insert(uri, entry);
    }

    /// Register a direct resource whose contents are fixed text.
    pub fn add_text_resource(&self, resource: Resource, text: impl Into<String>) {
        let text: String = text.into();
        let mime = resource.mime_type.clone();
        self.add_resource(resource, move |uri: String, _vars: TemplateVariables, _ctx: RequestContext| {
            let contents = ResourceContents::text(uri, mime.as_deref(), text.clone());
            async move { Ok(ReadResourceResult { contents: vec![contents], meta: None }) }
        });
    }

    /// Remove a direct resource; whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = write(&self.inner.registry).resources.shift_remove(uri);
        removed.is_some()
    }

    /// Register a resource template; its reader receives the captured variables.
    pub fn add_resource_template(
        &self,
        template: ResourceTemplate,
        reader: impl ResourceHandler,
    ) -> Result<(), ConfigError> {
        let parsed = uri_template::UriTemplate::parse(&template.uri_template)?;
        let entry = Arc::new(TemplateEntry { template, parsed, handler: Arc::new(reader), cache: None });
        let _replaced = self.remove_resource_template(&entry.template.uri_template);
        write(&self.inner.registry).templates.push(entry);
        Ok(())
    }

    /// Remove a resource template by its URI template; whether it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed: Vec<_> = {
            let mut reg = write(&self.inner.registry);
            let (gone, kept) =
                std::mem::take(&mut reg.templates).into_iter().partition(|t| t.template.uri_template == uri_template);
            reg.templates = kept;
            gone
        };
        !removed.is_empty()
    }

    // ----- prompts -----

    /// Register (or replace) a prompt with its handler. Required arguments are checked before
    /// the handler runs.
    pub fn add_prompt(&self, prompt: Prompt, handler: impl PromptHandler) {
        let name = prompt.name.clone();
        let _replaced = write(&self.inner.registry)
            .prompts
            .insert(name, Arc::new(PromptEntry { prompt, handler: Arc::new(handler) }));
    }

    /// Remove a prompt; whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = write(&self.inner.registry).prompts.shift_remove(name);
        removed.is_some()
    }

    // ----- completion -----

    /// Set the global completion handler, tried before per-argument completers.
    pub fn set_completion_handler(&self, handler: impl CompletionHandler) {
        let _replaced = write(&self.inner.registry).completion_handler.replace(Arc::new(handler));
    }

    /// Register a completer for one (reference, argument) pair.
    pub fn set_argument_completer(
        &self,
        reference: CompletionReference,
        argument: &str,
        handler: impl CompletionHandler,
    ) {
        let _replaced =
            write(&self.inner.registry).completers.insert((reference, argument.to_owned()), Arc::new(handler));
    }

    /// Register a completer that offers the `candidates` starting with the typed prefix.
    pub fn set_argument_candidates(&self, reference: CompletionReference, argument: &str, candidates: Vec<String>) {
        let candidates = Arc::new(candidates);
        self.set_argument_completer(reference, argument, move |req: CompleteRequest, _ctx: RequestContext| {
            let r = CompleteResult::prefix_match(&candidates, &req.argument_value);
            async move { Ok(r) }
        });
    }

    // ----- options -----

    /// Advertise `logging` and accept `logging/setLevel` (stateful).
    pub fn enable_logging(&self) {
        self.inner.flags.logging.store(true, Ordering::Relaxed);
    }

    /// Advertise `resources.subscribe`: `resources/subscribe` on handshake-era sessions of a
    /// stateful server, and per-URI updates on 2026-07-28 listen streams (any mode).
    pub fn enable_resource_subscriptions(&self) -> Result<(), ConfigError> {
        self.inner.flags.subscriptions.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Advertise `tools.listChanged`.
    pub fn enable_tools_list_changed(&self) {
        self.inner.flags.tools_list_changed.store(true, Ordering::Relaxed);
    }

    /// Advertise `resources.listChanged`.
    pub fn enable_resources_list_changed(&self) {
        self.inner.flags.resources_list_changed.store(true, Ordering::Relaxed);
    }

    /// Advertise `prompts.listChanged`.
    pub fn enable_prompts_list_changed(&self) {
        self.inner.flags.prompts_list_changed.store(true, Ordering::Relaxed);
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

    /// Observe every notification from clients.
    pub fn set_notification_observer(&self, observer: impl NotificationObserver) {
        *write(&self.inner.observer) = Some(Arc::new(observer));
    }

    /// Observe `notifications/roots/list_changed`.
    pub fn set_roots_list_changed_observer(&self, observer: impl Fn() + Send + Sync + 'static) {
        *write(&self.inner.roots_observer) = Some(Arc::new(observer));
    }

    // ----- unsolicited notifications -----

    /// Register a connection that can receive unsolicited notifications until the returned
    /// guard is dropped (transports call this for a stdio process or a GET stream).
    pub fn attach_listener(&self, connection: &Arc<ConnectionState>, peer: &Arc<dyn Peer>) -> ListenerGuard {
        let mut ls = lock(&self.inner.listeners);
        ls.retain(|l| l.connection.strong_count() > 0 && l.peer.strong_count() > 0);
        ls.push(Listener { connection: Arc::downgrade(connection), peer: Arc::downgrade(peer) });
        ListenerGuard { server: Arc::downgrade(&self.inner), peer: Arc::downgrade(peer) }
    }

    /// Send a notification to every handshake-era listening connection; how many were
    /// reached. (Listen streams receive only the notification types they asked for.)
    pub fn notify(&self, method: &str, params: Option<Value>) -> usize {
        self.broadcast(method, params, |_| true, |_| false)
    }

    /// `notifications/tools/list_changed` to every listener, and to listen streams that
    /// asked for tool changes.
    pub fn notify_tools_list_changed(&self) -> usize {
        self.broadcast("notifications/tools/list_changed", None, |_| true, |f| f.tools())
    }

    /// `notifications/resources/list_changed` to every listener, and to listen streams that
    /// asked for resource list changes.
    pub fn notify_resources_list_changed(&self) -> usize {
        self.broadcast("notifications/resources/list_changed", None, |_| true, |f| f.resources())
    }

    /// `notifications/prompts/list_changed` to every listener, and to listen streams that
    /// asked for prompt changes.
    pub fn notify_prompts_list_changed(&self) -> usize {
        self.broadcast("notifications/prompts/list_changed", None, |_| true, |f| f.prompts())
    }

    /// `notifications/resources/updated` to the connections subscribed to `uri`, and to
    /// listen streams watching it.
    pub fn notify_resource_updated(&self, uri: &str) -> usize {
        self.broadcast(
            "notifications/resources/updated",
            Some(json!({ "uri": uri })),
            |c| c.is_subscribed(uri),
            |f| f.watches(uri),
        )
    }

    /// How many `subscriptions/listen` streams are open.
    pub fn listen_stream_count(&self) -> usize {
        lock(&self.inner.listens).len()
    }

    // ----- 2026-07-28: request state, extensions, caching, custom methods -----

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

    pub(crate) fn skills(&self) -> Option<Arc<crate::skills::SkillSet>> {
        read(&self.inner.registry).skills.clone()
    }

    pub(crate) fn set_skills(&self, set: Arc<crate::skills::SkillSet>) {
        write(&self.inner.registry).skills = Some(set);
    }

    pub(crate) fn sealer(&self) -> Arc<RequestStateSealer> {
        read(&self.inner.sealer).clone()
    }

    /// Advertise extension `id` (a prefixed name such as `io.modelcontextprotocol/skills`)
    /// with `settings` (a JSON object; `{}` means no settings) to 2026-07-28 clients.
    pub fn add_extension(&self, id: &str, settings: Value) -> Result<(), ConfigError> {
        let valid_prefix = id.split_once('/').is_some_and(|(prefix, name)| {
            !prefix.is_empty() && !name.is_empty() && prefix.contains('.') && !prefix.starts_with('.')
        });
        if !valid_prefix {
            return Err(ConfigError::InvalidExtensionId(id.to_owned()));
        }
        let settings = if settings.is_null() { Value::Object(Default::default()) } else { settings };
        write(&self.inner.registry).extensions.insert(id.to_owned(), settings);
        Ok(())
    }

    /// Stop advertising extension `id`; whether it was advertised.
    pub fn remove_extension(&self, id: &str) -> bool {
        write(&self.inner.registry).extensions.remove(id).is_some()
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

    /// Serve a request method the core does not (an extension's methods, custom methods),
    /// in both eras. The core's own methods cannot be replaced.
    pub fn add_method(&self, method: &str, handler: impl MethodHandler) -> Result<(), ConfigError> {
        self.add_method_arc(method, Arc::new(handler))
    }

    /// As [`Server::add_method`], with a shared handler.
    pub fn add_method_arc(&self, method: &str, handler: Arc<dyn MethodHandler>) -> Result<(), ConfigError> {
        if CORE_METHODS.contains(&method) {
            return Err(ConfigError::ReservedMethod(method.to_owned()));
        }
        let _replaced = write(&self.inner.registry).methods.insert(method.to_owned(), handler);
        Ok(())
    }

    /// Stop serving a custom method; whether it was served.
    pub fn remove_method(&self, method: &str) -> bool {
        let removed = write(&self.inner.registry).methods.remove(method);
        removed.is_some()
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
