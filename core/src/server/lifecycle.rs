//! How a client learns what the server is: `initialize` (handshake revisions, negotiating a
//! revision and recording the client on the connection) and `server/discover` (2026-07-28,
//! nothing recorded).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::connection::Era;
use super::dispatch::{params_map, required_str, to_raw, Outcome};
use super::{read, ConnectionState, Server};
use crate::protocol::model::{
    ClientCapabilities, DiscoverResult, ForVersion as _, Implementation, InitializeResult, ResultType, SERVER_INFO_KEY,
};
use crate::protocol::{ErrorObject, ProtocolVersion};

/// The revisions `server/discover` lists: the modern one first, then the handshake
/// revisions this dual-era server also serves (through `initialize`).
pub const SUPPORTED_VERSIONS: [ProtocolVersion; 5] = [
    ProtocolVersion::V2026_07_28,
    ProtocolVersion::V2025_11_25,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2024_11_05,
];

impl Server {
    pub(crate) fn initialize(&self, params: Option<Value>, conn: &Arc<ConnectionState>) -> Outcome {
        let mut p = params_map(params, "initialize")?;
        let requested = required_str(&mut p, "protocolVersion", "initialize")?;
        // Required by every revision's schema (an empty object when the client has none).
        let caps: ClientCapabilities = match p.remove("capabilities") {
            None | Some(Value::Null) => {
                return Err(ErrorObject::invalid_params(
                    "initialize: params.capabilities is required (an object; {} when the client has none)",
                ))
            }
            Some(v) => serde_json::from_value(v)
                .map_err(|e| ErrorObject::invalid_params(format!("initialize: invalid capabilities: {e}")))?,
        };
        let info: Option<Implementation> = match p.remove("clientInfo") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                serde_json::from_value(v)
                    .map_err(|e| ErrorObject::invalid_params(format!("initialize: invalid clientInfo: {e}")))?,
            ),
        };
        let version = ProtocolVersion::negotiate(&requested);
        if !conn.record_initialize(version, caps, info) {
            return Err(ErrorObject::invalid_request(
                "Invalid Request: initialize was already processed for this connection",
            ));
        }
        self.initialize_result(version).and_then(|r| to_raw(&r))
    }

    /// The `initialize` result this server sends at `version` (nothing newer than `version`
    /// on the wire).
    pub fn initialize_result(&self, version: ProtocolVersion) -> Result<InitializeResult, ErrorObject> {
        Ok(InitializeResult {
            protocol_version: version,
            capabilities: self.offer(Era::Handshake).capabilities(version, &Map::new()),
            server_info: self.inner.info.for_version(version),
            instructions: self.inner.instructions.clone(),
        })
    }

    /// The `server/discover` result.
    pub fn discover_result(&self) -> DiscoverResult {
        let hint = read(&self.inner.registry).cache.discover;
        let mut meta = Map::new();
        let info = serde_json::to_value(self.inner.info.for_version(ProtocolVersion::V2026_07_28)).unwrap_or_default();
        meta.insert(SERVER_INFO_KEY.to_owned(), info);
        DiscoverResult {
            result_type: ResultType::Complete,
            supported_versions: SUPPORTED_VERSIONS.iter().map(|v| v.as_str().to_owned()).collect(),
            capabilities: self.modern_capabilities(),
            instructions: self.inner.instructions.clone(),
            ttl_ms: hint.ttl_ms,
            cache_scope: hint.cache_scope,
            meta,
        }
    }
}
