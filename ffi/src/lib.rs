//! Ferrite's stable C ABI: `libferrite.so` / `libferrite.a` and `include/ferrite.h`.
//!
//! One more binding over `ferrite-core`, not a base layer: the Python and Node bindings link
//! the core directly. Everything here is type conversion, callbacks and ownership; protocol
//! logic stays in the core. The shape follows rustls-ffi and wasmtime's C API:
//!
//! - every symbol is `ferrite_<type>_<verb>`; handles are opaque (`ferrite_server`,
//!   `ferrite_request`);
//! - every fallible export returns a [`ferrite_result`] code, stable and never reused, with a
//!   thread-local detail string (`ferrite_last_error`), and runs behind one panic boundary
//!   ([`error`]), so no panic unwinds into the host;
//! - strings and JSON cross as UTF-8 `{ptr, len}`; buffers Ferrite returns are freed with
//!   `ferrite_string_free` ([`buffer`]);
//! - every callback is `(fn, user_data, finalizer)`, and the finalizer runs exactly once
//!   ([`handler`], registered by [`register`]);
//! - a handler completes synchronously or returns PENDING and completes later from any thread
//!   ([`request`]);
//! - each server owns its runtime and worker threads ([`server`]) and serves stdio or
//!   Streamable HTTP on them ([`http`], its options the core's `HttpConfig`), or answer the
//!   requests of the host's own HTTP server one exchange at a time ([`http::host`]), or text
//!   the host carries on connections it holds ([`connection`]);
//! - handlers read what the HTTP transport knows about their request (method, path, headers,
//!   remote address, values the host attached; absent over stdio) ([`request`]);
//! - authorization: the core's resource server from its JSON configuration and an optional
//!   host token verifier ([`auth`]), the caller's identity on the request ([`request`]);
//! - the 2026-07-28 revision: multi round-trip replies and reads on the request
//!   ([`request`]), request-state keys and cache hints ([`modern`]), extensions, custom
//!   methods and skills ([`extension`]);
//! - middleware: a host callback as one middleware in the core's chain, answering with the
//!   request handle and running the rest of the chain without blocking ([`middleware`]).
//!
//! The header is generated from this crate by cbindgen (`ffi/tests/header.rs` checks it).

pub mod auth;
pub mod buffer;
pub mod compose;
pub mod connection;
pub mod diagnostics;
pub mod error;
pub mod extension;
pub mod handler;
pub mod http;
pub mod json;
pub mod middleware;
pub mod modern;
pub mod register;
pub mod request;
pub mod server;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;

use std::ffi::c_char;

pub use error::ferrite_result;

/// The ABI version this header describes. Compare it with `ferrite_abi_version()` at start-up:
/// a library with a different value is not compatible with this header.
pub const FERRITE_ABI_VERSION: u32 = 1;

/// The ABI version of the loaded library (`FERRITE_ABI_VERSION` of the header it was built
/// with).
#[no_mangle]
pub extern "C" fn ferrite_abi_version() -> u32 {
    FERRITE_ABI_VERSION
}

/// The loaded library's version, `"MAJOR.MINOR.PATCH"` (the crate version it was built from),
/// as a NUL-terminated string in static storage (never free it). The header's
/// `FERRITE_VERSION` is the version it was generated from: they agree for a matching pair.
#[no_mangle]
pub extern "C" fn ferrite_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
