//! Ferrite's protocol engine for Model Context Protocol servers.
//!
//! - [`protocol`]: revisions, JSON-RPC framing and the MCP message model.
//! - [`server`]: registration and dispatch, per-connection state and the per-request
//!   context. It performs no I/O: transports feed it messages.
//! - [`request_state`]: sealing of the 2026-07-28 MRTR `requestState`.
//! - [`skills`]: the skills extension (skills served as resources).
//! - [`tasks`] and [`stores`]: the task engine's store interface and the shared (Redis) stores.
//! - [`transport`]: stdio, Streamable HTTP (and the in-process `handle_raw` on [`Server`]).
//!
//! Every language surface (C, Python, Node) is a thin adapter over this crate.

#![warn(missing_docs)]

pub mod auth;
pub mod diagnostics;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod inline;
pub mod naming;
pub mod protocol;
pub mod proxy;
pub mod request_state;
pub mod server;
pub mod skills;
pub mod stores;
pub mod sync;
pub mod tasks;
pub mod telemetry;
pub mod transport;

pub use protocol::model::*;
pub use protocol::{code, ErrorObject, Message, ProtocolVersion, RawJson, RequestId};
pub use server::{
    BoxFuture, ConfigError, ConnectionState, Era, HandlerError, Limits, LimitsError, Peer, PeerError, RequestContext,
    RequestInfo, Server, ServerBuilder, ServerMode, ServerStats, TaskOptions, WeakServer,
};
