//! The transport-agnostic server: registrations, declared capabilities and dispatch.
//!
//! A [`Server`] owns what the author registered (tools, resources, templates, prompts,
//! completers, observers), its identity and its [mode](ServerMode). It holds no per-peer
//! state: every call to [`Server::handle`] names the [`ConnectionState`] it runs against and
//! the [`Peer`] that carries traffic back. Registration works at any time, also while
//! serving (list-changed notifications tell clients).
//!
//! Where things are: `registration` (what is served) and `options` (how) are the author's
//! API; `dispatch` routes each request to its era, `modern` serves the 2026-07-28 envelope,
//! `lifecycle` answers `initialize` and `server/discover`, `methods` the rest, `reply` runs
//! multi round-trip handlers, `tasks` runs calls as tasks, `offer` says what is served per mode and era, and `listen`
//! delivers unsolicited notifications.

mod compose;
mod connection;
mod context;
mod dispatch;
pub mod fanout;
mod handler;
mod lifecycle;
pub mod limits;
mod listen;
mod methods;
pub mod middleware;
mod modern;
mod offer;
mod options;
pub mod outbound;
pub mod pagination;
mod registration;
mod registry;
mod reply;
mod request_info;
mod stats;
mod tasks;
pub mod typed;
pub mod uri_template;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex, RwLock};

pub use connection::{ConnectionState, Era};
pub use context::{NullPeer, Peer, PeerError, RequestContext};
pub(crate) use dispatch::{missing_capability, panic_message};
pub use handler::{
    BoxFuture, CompletionHandler, HandlerError, HandlerResult, MethodHandler, NotificationObserver, PromptHandler,
    ResourceHandler, TemplateVariables, ToolHandler,
};
pub use lifecycle::SUPPORTED_VERSIONS;
pub use limits::{Limits, LimitsError};
use listen::{ListenSlot, Listener};
pub(crate) use middleware::SessionTransport;
pub use modern::MODERN_VERSIONS;
pub use registry::CacheHints;
use registry::Registry;
pub(crate) use reply::ask_in_place;
pub use reply::MAX_INPUT_ROUNDS;
pub use request_info::{HostValues, RemoteAddr, RequestInfo, SENSITIVE_HEADERS};
pub use stats::ServerStats;
use tasks::TaskEngine;
pub use tasks::TaskOptions;

use crate::auth::ResourceServer;
use crate::protocol::model::{ForVersion as _, Implementation, ResultType};
use crate::protocol::ProtocolVersion;
use crate::request_state::{RequestStateSealer, SealingKey};
pub(crate) use crate::sync::{lock, read, write};

/// Where per-peer state lives (see `shared/design/modes.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerMode {
    /// No sessions: state is built per request and dropped.
    Stateless,
    /// One [`ConnectionState`] per session (per stdio process), created at `initialize`.
    /// The default.
    #[default]
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
    /// A built-in middleware that does not exist, or whose configuration does not parse.
    #[error("middleware {name:?}: {reason}")]
    InvalidMiddleware {
        /// The built-in's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A custom method may not take the name of a method the core serves.
    #[error("method {0:?} is served by the core and cannot be replaced")]
    ReservedMethod(String),
    /// `execution` is not an object, or its `taskSupport` is not one of the three words.
    #[error(
        "tool {tool:?}: execution.taskSupport must be one of \"forbidden\", \"optional\", \"required\", not {value}"
    )]
    InvalidTaskSupport {
        /// The tool name.
        tool: String,
        /// What was given (JSON).
        value: String,
    },
    /// A shared store could not be set up (a bad Redis URL).
    #[error("{0}")]
    Store(String),
    /// Task options cannot change once a task was created (its store holds it).
    #[error("the task options cannot change after the first task was created")]
    TasksStarted,
    /// A mount prefix may hold ASCII letters, digits, `-`, `_` and `.` only.
    #[error("mount prefix {0:?} may hold ASCII letters, digits, '-', '_' and '.' only")]
    InvalidMountPrefix(String),
    /// A server cannot be mounted in itself or in a server mounted in it.
    #[error("a server cannot be mounted in itself or in a server mounted in it")]
    MountCycle,
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
    /// Whether any middleware is registered (the chain is skipped otherwise).
    has_middleware: AtomicBool,
}

pub(crate) struct ServerInner {
    info: Implementation,
    instructions: Option<String>,
    mode: ServerMode,
    registry: RwLock<Registry>,
    flags: Flags,
    limits: limits::LiveLimits,
    observer: RwLock<Option<Arc<dyn NotificationObserver>>>,
    /// The middleware chain, first added first.
    middleware: RwLock<Arc<[Arc<dyn middleware::Middleware>]>>,
    /// Spans and metrics of each request, when telemetry is on.
    telemetry: std::sync::OnceLock<crate::telemetry::RequestTelemetry>,
    roots_observer: RwLock<Option<Arc<dyn Fn() + Send + Sync>>>,
    listeners: Mutex<Vec<Listener>>,
    listens: Mutex<Vec<ListenSlot>>,
    next_listen: AtomicU64,
    in_process: Arc<ConnectionState>,
    /// Seals and opens MRTR request states.
    sealer: RwLock<Arc<RequestStateSealer>>,
    /// The server info carried in `_meta` of 2026-07-28 results, serialized once.
    modern_server_info: String,
    /// The opening of a complete 2026-07-28 result without a cache hint, up to and with the
    /// server info (`modern::result_head`), written once.
    modern_complete_head: Box<[u8]>,
    /// The resource-server configuration, when requests must carry a bearer token.
    auth: Option<Arc<ResourceServer>>,
    /// Tasks: their store and what runs in this process.
    tasks: TaskEngine,
    /// Where fleet-wide notifications also go (other instances), when set.
    fanout: RwLock<Option<Arc<dyn fanout::Fanout>>>,
    /// Where the HTTP transport keeps handshake-era sessions and their events, when shared.
    shared: RwLock<Option<crate::stores::SharedStores>>,
    /// The servers this one is mounted in (see [`Server::mount`]).
    parents: Mutex<Vec<compose::ParentLink>>,
    /// SSE streams, tasks and store round trips, counted (see [`Server::stats`]).
    counters: stats::Counters,
    /// Bumped by every list change and resource update delivered here (this instance's or
    /// another's): what a cached answer was made under (see the `cache` middleware).
    changes: AtomicU64,
}

/// The core methods a custom method may not replace.
const CORE_METHODS: [&str; 20] = [
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
    "tasks/update",
];

/// Whether the core serves `method` itself (a custom method cannot take its name).
pub(crate) fn is_core_method(method: &str) -> bool {
    CORE_METHODS.contains(&method)
}

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
    auth: Option<Arc<ResourceServer>>,
    tasks: TaskOptions,
}

impl ServerBuilder {
    /// Set the instructions sent in the `initialize` result.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }
    /// Use stateful mode (the default): one connection state per session, server-to-client
    /// requests, subscriptions and `logging/setLevel` available.
    pub fn stateful(mut self) -> Self {
        self.mode = ServerMode::Stateful;
        self
    }
    /// Use stateless mode: every request gets a transient connection state; no
    /// server-to-client requests, subscriptions or per-session log level on the handshake
    /// path (the 2026-07-28 path is stateless in either mode).
    pub fn stateless(mut self) -> Self {
        self.mode = ServerMode::Stateless;
        self
    }
    /// Set the mode.
    pub fn mode(mut self, mode: ServerMode) -> Self {
        self.mode = mode;
        self
    }
    /// Protect the server as an OAuth resource server: over HTTP every request needs a bearer
    /// token the configuration's verifier accepts, the metadata is served, and tools,
    /// prompts and resources need their configured scopes.
    pub fn auth(mut self, auth: impl Into<Arc<ResourceServer>>) -> Self {
        self.auth = Some(auth.into());
        self
    }
    /// How tasks run and where they are kept (tools registered with a task support other
    /// than `forbidden` run as tasks; see [`TaskOptions`] for the defaults).
    pub fn tasks(mut self, options: TaskOptions) -> Self {
        self.tasks = options;
        self
    }
    /// Build the server. Request states are sealed with a key generated now; a fleet of
    /// instances shares one with [`Server::set_request_state_keys`].
    pub fn build(self) -> Server {
        let modern_info = self.info.for_version(ProtocolVersion::V2026_07_28);
        let modern_server_info = serde_json::to_string(&modern_info).unwrap_or_else(|_| "{}".to_owned());
        let mut modern_complete_head = Vec::new();
        modern::result_head(&mut modern_complete_head, ResultType::Complete, None, &modern_server_info);
        Server {
            inner: Arc::new(ServerInner {
                modern_complete_head: modern_complete_head.into_boxed_slice(),
                modern_server_info,
                info: self.info,
                instructions: self.instructions,
                mode: self.mode,
                registry: RwLock::new(Registry::default()),
                flags: Flags { logging: AtomicBool::new(true), ..Flags::default() },
                limits: limits::LiveLimits::default(),
                observer: RwLock::new(None),
                middleware: RwLock::new(Arc::from(Vec::new())),
                telemetry: std::sync::OnceLock::new(),
                roots_observer: RwLock::new(None),
                listeners: Mutex::new(Vec::new()),
                listens: Mutex::new(Vec::new()),
                next_listen: AtomicU64::new(0),
                in_process: Arc::new(ConnectionState::new("in-process")),
                sealer: RwLock::new(Arc::new(RequestStateSealer::new(fresh_key()))),
                auth: self.auth,
                tasks: TaskEngine::new(self.tasks),
                fanout: RwLock::new(None),
                shared: RwLock::new(None),
                parents: Mutex::new(Vec::new()),
                counters: Default::default(),
                changes: AtomicU64::new(0),
            }),
        }
    }
}

impl Server {
    /// Start building a server with this identity. The defaults, the same on every surface:
    /// stateful, the `logging` capability on, tool arguments validated against their input
    /// schema.
    pub fn builder(info: Implementation) -> ServerBuilder {
        ServerBuilder {
            info,
            instructions: None,
            mode: ServerMode::Stateful,
            auth: None,
            tasks: TaskOptions::default(),
        }
    }

    /// A server named `name` at `version`, with the defaults of [`Server::builder`].
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

    /// The resource-server configuration, when the server is protected.
    pub fn auth(&self) -> Option<&Arc<ResourceServer>> {
        self.inner.auth.as_ref()
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

    /// A handle that does not keep the server alive: what a handler the server holds (a tool
    /// that changes the server's own registrations, an extension's method) must capture, or
    /// the server and its handlers are never dropped.
    pub fn downgrade(&self) -> WeakServer {
        WeakServer(Arc::downgrade(&self.inner))
    }
}

/// A [`Server`] handle that does not keep it alive (see [`Server::downgrade`]).
#[derive(Clone, Debug)]
pub struct WeakServer(std::sync::Weak<ServerInner>);

impl WeakServer {
    /// The server, while it lives.
    pub fn upgrade(&self) -> Option<Server> {
        self.0.upgrade().map(|inner| Server { inner })
    }
}
