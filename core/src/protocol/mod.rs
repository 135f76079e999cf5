//! The wire: protocol revisions, JSON-RPC framing, the MCP message types, and the
//! 2026-07-28 inbound classifier with its mirrored-header codec. Pure: no I/O.

pub mod classifier;
pub mod headers;
pub mod jsonrpc;
mod message_reader;
pub mod model;
pub mod rpc_error;
pub mod version;

pub use jsonrpc::{
    code, CompactJson, ErrorObject, Message, Notification, OutboundResponse, RawJson, Request, RequestId, Response,
};
pub use version::ProtocolVersion;
