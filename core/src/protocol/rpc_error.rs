//! JSON-RPC errors: the codes MCP uses and the error object, with one constructor per error
//! the spec names, so that every surface reports the same code, message and data.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// JSON-RPC error codes used by MCP.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist, or sits behind a capability the server did not declare.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// Resource not found (handshake revisions); also used for "not initialized" by the
    /// lifecycle gate.
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// 2026-07-28: a header is missing, malformed, or disagrees with the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// 2026-07-28: the request needs a client capability the client did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// 2026-07-28: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// 2025-11-25: URL-mode elicitation required.
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
    /// A request went unanswered past its timeout (the spec names no code; this is the
    /// official TypeScript SDK's `RequestTimeout`). A proxy answers it for a silent upstream.
    pub const REQUEST_TIMEOUT: i32 = -32001;
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("JSON-RPC error {code}: {message}")]
pub struct ErrorObject {
    /// The error code (see [`code`]).
    pub code: i32,
    /// A short description.
    pub message: String,
    /// Additional information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }
    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    /// -32700.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(code::PARSE_ERROR, message)
    }
    /// -32600.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_REQUEST, message)
    }
    /// -32601.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(code::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }
    /// -32602.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }
    /// -32603.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(code::INTERNAL_ERROR, message)
    }

    /// `-32603` for a request that needed a shared store (Redis) that is unreachable: the same
    /// JSON-RPC error as any internal error, marked `data.storeUnavailable: true` so that the
    /// HTTP transport answers 503 (try again, perhaps on another instance) rather than 200.
    pub fn store_unavailable(message: impl Into<String>) -> Self {
        Self::internal(message).with_data(serde_json::json!({ "storeUnavailable": true }))
    }

    /// Whether this is [`ErrorObject::store_unavailable`]'s error.
    pub fn is_store_unavailable(&self) -> bool {
        self.code == code::INTERNAL_ERROR
            && self.data.as_ref().and_then(|d| d.get("storeUnavailable")).and_then(Value::as_bool) == Some(true)
    }

    /// `-32042`: the request cannot go on until the user completes these URL elicitations
    /// (each `{mode: "url", message, url, elicitationId}`), 2025-11-25 on.
    pub fn url_elicitation_required(elicitations: Vec<Value>) -> Self {
        ErrorObject::new(code::URL_ELICITATION_REQUIRED, "URL elicitation required")
            .with_data(serde_json::json!({ "elicitations": elicitations }))
    }
}
