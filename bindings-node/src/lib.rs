//! Ferrite's Node binding (`ferrite-mcp`): napi-rs glue between JavaScript and `ferrite-core`.
//!
//! Everything the protocol does happens in the core; this crate only carries values across.
//! The shape of the crossing is chosen for speed and for a small, stable native surface:
//!
//! - [`server`]: the `NativeServer` class the JS layer (`lib/index.js`) wraps. One tokio
//!   runtime per server, created on first use and shut down by `close()`.
//! - [`handlers`]: a JS callback becomes a struct implementing the core's own handler trait
//!   (`ToolHandler`, `ResourceHandler`, ...), holding a *weak* `ThreadsafeFunction` so that a
//!   registered handler never keeps the Node process alive.
//! - [`calls`]: the table of requests whose JS handler is running. JS sees a request as a
//!   number (its slot) and reaches the core's `RequestContext` through it, which costs no
//!   per-call object allocation and makes a context unusable once its request finished.
//! - [`envelope`]: values cross as JSON text (`JSON.stringify`/`serde_json`), wrapped in an
//!   `{"ok": ...}` / `{"error": ...}` envelope so a thrown error keeps its class and code.

mod calls;
mod envelope;
mod handlers;
mod server;

pub use server::NativeServer;
