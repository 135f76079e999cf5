//! Ferrite's Node binding (`ferrite-mcp`): napi-rs glue between JavaScript and `ferrite-core`.
//!
//! Everything the protocol does happens in the core; this crate only carries values across.
//! The shape of the crossing is chosen for speed and for a small, stable native surface:
//!
//! - [`server`]: the `NativeServer` class the JS layer (`src-ts/server.ts`) wraps: registration,
//!   options, stdio and in-process serving. One tokio runtime per server, created on first
//!   use and shut down by `close()`. More of its methods live beside it: [`listeners`]
//!   (notifications, `ping`, the out-of-band end of a URL elicitation, the listening
//!   connections), [`listen`] (Streamable HTTP), [`context`] (the request context, by slot)
//!   [`modern`] (2026-07-28 settings: sealing keys, extensions, cache hints, custom methods, skills)
//!   [`fleet`] (the shared state of a fleet in Redis) and [`limits`] (the dispatch limits).
//!   `listen` hands the options object to the core's `HttpConfig` unchanged.
//! - [`mount`]: the Streamable HTTP endpoint driven by a JS HTTP server (`fetch`,
//!   `nodeHandler`): an exchange over the core's `HttpService::host_request`, body pushed and
//!   pulled chunk by chunk, the response dropped (cancelling its requests) when the client goes.
//! - [`handlers`]: a JS callback becomes a struct implementing the core's own handler trait
//!   (`ToolHandler`, `ResourceHandler`, `MethodHandler`, ...), holding a *weak*
//!   `ThreadsafeFunction` so that a registered handler never keeps the Node process alive.
//! - [`calls`]: the table of requests whose JS handler is running. JS sees a request as a
//!   number (its slot) and reaches the core's `RequestContext` through it, which costs no
//!   per-call object allocation and makes a context unusable once its request finished.
//! - [`envelope`]: values cross as JSON text (`JSON.stringify`/`serde_json`), wrapped in an
//!   `{"ok": ...}` / `{"error": ...}` / `{"inputRequired": ...}` envelope so a thrown error
//!   keeps its class and code and an MRTR reply becomes the core's `InputRequired`.
//! - [`middleware`]: JS middleware in the core's chain, and `next` by slot.
//! - [`mrtr`]: the core's `InputRequest` built from JS values (MRTR, 2026-07-28).
//! - [`connection`]: a connection the JS user holds (`handle_raw_on` against its own state,
//!   with a peer that hands server messages to a JS function).
//! - [`auth`]: the `auth` option (the core's `AuthConfig`) and a JS token verifier as the
//!   core's `TokenVerifier`.
//! - [`errors`]: configuration mistakes as the JS error classes the package throws.

mod auth;
mod calls;
mod compose;
mod connection;
mod context;
mod diagnostics;
mod envelope;
mod errors;
mod fleet;
mod handlers;
mod limits;
mod listen;
mod listeners;
mod middleware;
mod modern;
mod mount;
mod mrtr;
mod server;
mod stdio_loop;

pub use connection::NativeConnection;
pub use context::{default_max_tokens, sensitive_headers, url_elicitation_required};
pub use diagnostics::set_diagnostics;
pub use modern::match_uri_template;
pub use mount::NativeExchange;
pub use mrtr::mrtr_input_request;
pub use server::NativeServer;
