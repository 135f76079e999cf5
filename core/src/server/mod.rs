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
pub mod pagination;
mod registry;
pub mod typed;
pub mod uri_template;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

use serde_json::{json, Value};

pub use connection::ConnectionState;
pub use context::{NullPeer, Peer, PeerError, RequestContext};
pub use handler::{
    BoxFuture, CompletionHandler, HandlerError, HandlerResult, NotificationObserver, PromptHandler, ResourceHandler,
    TemplateVariables, ToolHandler,
};
use registry::{PromptEntry, Registry, ResourceEntry, TemplateEntry, ToolEntry};

use crate::protocol::jsonrpc::notification_text;
use crate::protocol::model::{
    ClientCapabilities, CompleteRequest, CompleteResult, CompletionReference, Implementation, ListChangedCapability,
    Prompt, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, ResourcesCapability, ServerCapabilities,
    Tool,
};

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

/// A connection that can receive unsolicited notifications (a stdio process, an HTTP
/// session's GET stream).
struct Listener {
    connection: Weak<ConnectionState>,
    peer: Weak<dyn Peer>,
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
    in_process: Arc<ConnectionState>,
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
    /// Build the server.
    pub fn build(self) -> Server {
        Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                instructions: self.instructions,
                mode: self.mode,
                registry: RwLock::new(Registry::default()),
                flags: Flags::default(),
                observer: RwLock::new(None),
                roots_observer: RwLock::new(None),
                listeners: Mutex::new(Vec::new()),
                in_process: Arc::new(ConnectionState::new("in-process")),
            }),
        }
    }
}

fn read<T>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|p| p.into_inner())
}
fn write<T>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|p| p.into_inner())
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
        let entry = Arc::new(ResourceEntry { resource, handler: Arc::new(reader) });
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
        let entry = Arc::new(TemplateEntry { template, parsed, handler: Arc::new(reader) });
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

    /// Advertise `resources.subscribe` and accept `resources/subscribe`. Needs a stateful
    /// server.
    pub fn enable_resource_subscriptions(&self) -> Result<(), ConfigError> {
        if self.is_stateless() {
            return Err(ConfigError::NeedsStateful("resource subscriptions"));
        }
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

    /// The capabilities this server declares, derived from what is registered and enabled.
    pub fn capabilities(&self) -> ServerCapabilities {
        let reg = read(&self.inner.registry);
        let f = &self.inner.flags;
        let flag = |b: &AtomicBool| b.load(Ordering::Relaxed).then_some(true);
        let mut caps = ServerCapabilities::default();
        if !reg.tools.is_empty() || f.tools_list_changed.load(Ordering::Relaxed) {
            caps.tools = Some(ListChangedCapability { list_changed: flag(&f.tools_list_changed) });
        }
        let subscribe = flag(&f.subscriptions);
        if !reg.resources.is_empty()
            || !reg.templates.is_empty()
            || subscribe.is_some()
            || f.resources_list_changed.load(Ordering::Relaxed)
        {
            caps.resources = Some(ResourcesCapability { subscribe, list_changed: flag(&f.resources_list_changed) });
        }
        if !reg.prompts.is_empty() || f.prompts_list_changed.load(Ordering::Relaxed) {
            caps.prompts = Some(ListChangedCapability { list_changed: flag(&f.prompts_list_changed) });
        }
        if f.logging.load(Ordering::Relaxed) {
            caps.logging = Some(Default::default());
        }
        if reg.completion_handler.is_some() || !reg.completers.is_empty() {
            caps.completions = Some(Default::default());
        }
        caps
    }

    // ----- unsolicited notifications -----

    /// Register a connection that can receive unsolicited notifications until the returned
    /// guard is dropped (transports call this for a stdio process or a GET stream).
    pub fn attach_listener(&self, connection: &Arc<ConnectionState>, peer: &Arc<dyn Peer>) -> ListenerGuard {
        let mut ls = self.inner.listeners.lock().unwrap_or_else(|p| p.into_inner());
        ls.retain(|l| l.connection.strong_count() > 0 && l.peer.strong_count() > 0);
        ls.push(Listener { connection: Arc::downgrade(connection), peer: Arc::downgrade(peer) });
        ListenerGuard { server: Arc::downgrade(&self.inner), peer: Arc::downgrade(peer) }
    }

    fn broadcast(&self, method: &str, params: Option<Value>, filter: impl Fn(&ConnectionState) -> bool) -> usize {
        let frame = notification_text(method, params.as_ref());
        let targets: Vec<Arc<dyn Peer>> = {
            let ls = self.inner.listeners.lock().unwrap_or_else(|p| p.into_inner());
            ls.iter()
                .filter_map(|l| Some((l.connection.upgrade()?, l.peer.upgrade()?)))
                .filter(|(c, _)| filter(c))
                .map(|(_, p)| p)
                .collect()
        };
        for p in &targets {
            p.send(frame.clone());
        }
        targets.len()
    }

    /// Send a notification to every listening connection; how many were reached.
    pub fn notify(&self, method: &str, params: Option<Value>) -> usize {
        self.broadcast(method, params, |_| true)
    }

    /// `notifications/tools/list_changed` to every listener.
    pub fn notify_tools_list_changed(&self) -> usize {
        self.notify("notifications/tools/list_changed", None)
    }

    /// `notifications/resources/list_changed` to every listener.
    pub fn notify_resources_list_changed(&self) -> usize {
        self.notify("notifications/resources/list_changed", None)
    }

    /// `notifications/prompts/list_changed` to every listener.
    pub fn notify_prompts_list_changed(&self) -> usize {
        self.notify("notifications/prompts/list_changed", None)
    }

    /// `notifications/resources/updated` to the listeners subscribed to `uri` only.
    pub fn notify_resource_updated(&self, uri: &str) -> usize {
        self.broadcast("notifications/resources/updated", Some(json!({ "uri": uri })), |c| c.is_subscribed(uri))
    }

    /// Send `ping` to the listening connection `connection_id` (an HTTP session id, or a
    /// stdio connection) and wait up to `timeout` for the client's empty result.
    pub async fn ping_client(&self, connection_id: &str, timeout: std::time::Duration) -> Result<(), PeerError> {
        let peer = {
            let ls = self.inner.listeners.lock().unwrap_or_else(|p| p.into_inner());
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
        let ls = self.inner.listeners.lock().unwrap_or_else(|p| p.into_inner());
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
            let mut ls = s.listeners.lock().unwrap_or_else(|p| p.into_inner());
            ls.retain(|l| !Weak::ptr_eq(&l.peer, &self.peer) && l.peer.strong_count() > 0);
        }
    }
}
