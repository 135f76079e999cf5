//! Transports: drivers that move bytes between a peer and [`Server::handle`](crate::Server).
//!
//! - [`stdio`]: newline-delimited JSON-RPC on stdin/stdout (or any async byte pair).
//! - [`hosted_stdio`]: the same loop, polled on a binding's own thread (where its handlers run).
//! - in-process: [`Server::handle_raw`](crate::Server::handle_raw), no transport at all.

pub mod hosted_stdio;
pub mod http;
pub mod stdio;
