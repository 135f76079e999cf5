//! The wire: protocol revisions, JSON-RPC framing, and the MCP message types.

pub mod jsonrpc;
pub mod model;
pub mod version;

pub use jsonrpc::{code, ErrorObject, Message, Notification, OutboundResponse, Request, RequestId, Response};
pub use version::ProtocolVersion;
