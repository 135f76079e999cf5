//! The 2026-07-28 per-request envelope: the reserved `_meta` keys a modern request carries
//! in place of the `initialize` handshake, `resultType` on every modern result, and the
//! `server/discover` result.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{CacheScope, Implementation, ServerCapabilities};

/// `params._meta` key: the revision of this request (required).
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `params._meta` key: the client's capabilities for this request (required).
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `params._meta` key: who the client is (optional, display only).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `params._meta` key: the minimum log level for this request (optional; absent means no
/// `notifications/message` at all).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key: who the server is.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// Notification and result `_meta` key: the `subscriptions/listen` request a message
/// belongs to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// Whether `params` carries a modern envelope (a `_meta` object with the protocol-version
/// key): such a request is served on the 2026-07-28 path, whatever else it holds.
pub fn carries_envelope(params: Option<&Value>) -> bool {
    params.and_then(|p| p.get("_meta")).and_then(Value::as_object).is_some_and(|m| m.contains_key(PROTOCOL_VERSION_KEY))
}

/// What a modern result is (`resultType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// A final result.
    Complete,
    /// The server needs input from the client before it can finish (MRTR).
    InputRequired,
    /// A task was created (tasks extension).
    Task,
}

impl ResultType {
    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
        }
    }
}

/// The result of `server/discover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The revisions this server serves, newest first.
    pub supported_versions: Vec<String>,
    /// What the server offers on the modern path.
    pub capabilities: ServerCapabilities,
    /// How to use the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Cache freshness hint, in milliseconds.
    pub ttl_ms: u64,
    /// Who may share a cached copy.
    pub cache_scope: CacheScope,
    /// `{"io.modelcontextprotocol/serverInfo": ...}`.
    #[serde(rename = "_meta")]
    pub meta: Map<String, Value>,
}

impl DiscoverResult {
    /// The server info carried in `_meta`.
    pub fn server_info(&self) -> Option<Implementation> {
        self.meta.get(SERVER_INFO_KEY).and_then(|v| serde_json::from_value(v.clone()).ok())
    }
}
