//! Diagnostics: what the core tells an operator, as [`tracing`] events.
//!
//! The core emits events under the `ferrite::*` targets of [`target`]: sessions created,
//! evicted, expired and ended; handler panics, failures and invalid results; HTTP requests
//! refused, with their status and reason; shared-store errors. No event carries a bearer token,
//! a session id, a request state, arguments or results: what could grant access or identify a
//! user stays out, so any event can go to any log.
//!
//! A Rust program installs whichever `tracing` subscriber it likes. The language bindings
//! cannot, so the core offers one of its own, the [`sink`]: a subscriber that formats each
//! enabled event once (`message key=value ...`) and hands it to a host callback (Python's
//! `logging`, a Node function, a C function pointer, Go's `slog`). Nothing is emitted before a
//! subscriber is installed, and a disabled event costs one relaxed atomic load, so the events
//! stay in the hot paths.

pub mod sink;

pub use sink::{install, level, set_level, uninstall, Callback, InstallError, Level, Record};

/// The targets the core's events use, one per concern, so a filter can pick them.
pub mod target {
    /// Sessions of the Streamable HTTP transport: created, evicted, expired, ended.
    pub const SESSION: &str = "ferrite::session";
    /// Handlers: panics (error), invalid results (error), failures (debug).
    pub const HANDLER: &str = "ferrite::handler";
    /// HTTP requests refused before or instead of dispatch, with status and reason (4xx at
    /// info, 5xx at warn).
    pub const HTTP: &str = "ferrite::http";
    /// Shared stores (Redis): errors (warn).
    pub const STORE: &str = "ferrite::store";
    /// One event per request from the `timing` (debug) and `logging` (info) built-in
    /// middleware, and rate-limited requests (info): method, name, outcome, microseconds.
    pub const REQUEST: &str = "ferrite::request";
}
