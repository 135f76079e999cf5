//! Streamable HTTP from C: the listener and the serve calls; the options are in [`options`],
//! the endpoint driven by the host's own HTTP server in [`host`].
//!
//! The transport is the core's (`ferrite_core::transport::http`); this module only carries
//! its configuration across the boundary and runs it on the server's runtime.
//!
//! Learning the port when binding port 0 needs a step between binding and serving, so there
//! are two ways in: `ferrite_server_serve_http` (bind and serve, one blocking call) and the
//! pair `ferrite_server_http_bind` (returns a listener whose port can be read) +
//! `ferrite_server_http_run` (blocks serving it). Serving runs on the server's worker
//! threads; the calling thread only waits, exactly as `ferrite_server_serve_stdio` does, and
//! `ferrite_server_close` from another thread ends it (gracefully: sessions and their
//! streams end, in-flight requests get the shutdown grace period).

pub mod host;
pub mod options;

use std::ffi::c_char;

use ferrite_core::transport::http::{self, HttpConfig, HttpOptions, HttpServer};

use self::options::invalid;
pub use self::options::{ferrite_http_options, ferrite_http_response_mode};
use crate::buffer::{opt_str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::server::{ferrite_server, server_ref};

/// A bound socket, not serving yet. Opaque; made by `ferrite_server_http_bind`, consumed by
/// `ferrite_server_http_run` or released with `ferrite_http_listener_free`. It holds a
/// reference to the server's handlers: run or free it before `ferrite_server_close`, or the
/// handlers (and their finalizers) live until it is freed.
#[allow(non_camel_case_types)]
pub struct ferrite_http_listener {
    bound: HttpServer,
    port: u16,
    /// The address of the `ferrite_server` that bound it: running it on another server would
    /// serve the first one's handlers under the second one's close.
    owner: usize,
}

/// Bind the socket on the server's runtime. `host` (when given) and `port` (when not 0)
/// override the options' `host` and `port`; the core checks the address and the options.
///
/// # Safety
/// As the exports calling it.
unsafe fn bind(
    s: &ferrite_server,
    host: *const c_char,
    host_len: usize,
    port: u16,
    options: *const ferrite_http_options,
) -> Result<ferrite_http_listener, Error> {
    // SAFETY: NULL or a live options handle, per the caller's contract.
    let mut config = unsafe { options.as_ref() }.map(|o| o.config().clone()).unwrap_or_default();
    // SAFETY: forwarded from the caller's contract.
    if let Some(host) = unsafe { opt_str_arg(host, host_len, "host") }? {
        config.host = Some(host.to_owned());
    }
    if port != 0 {
        config.port = Some(port);
    }
    let addr = config.socket_addr().map_err(invalid)?;
    let opts = transport_options(s, &config)?;
    let core = s.core()?;
    let bound = s
        .run("ferrite_server_http_bind", async move { http::bind(&core, addr, opts).await })?
        .map_err(|e| Error::new(ferrite_result::Io, format!("cannot listen on {addr}: {e}")))?;
    let port = bound.local_addr().map_err(|e| Error::new(ferrite_result::Io, e.to_string()))?.port();
    Ok(ferrite_http_listener { bound, port, owner: s as *const ferrite_server as usize })
}

/// The transport's options from `config` (checked by the core), ended by the server's close.
pub(crate) fn transport_options(s: &ferrite_server, config: &HttpConfig) -> Result<HttpOptions, Error> {
    let mut opts = HttpOptions { shutdown: s.shutdown_token().child_token(), ..HttpOptions::default() };
    config.apply(&mut opts).map_err(invalid)?;
    Ok(opts)
}

/// Serve a bound listener until close; blocks.
fn run(s: &ferrite_server, listener: ferrite_http_listener) -> Result<(), Error> {
    s.serve_blocking("ferrite_server_http_run", listener.bound.run(), "http")
}

/// Bind `host` (an IP address such as `127.0.0.1`, `::1` or `0.0.0.0`; NULL: the options'
/// `host`, default `127.0.0.1`) and `port` (0: the options' `port`, default 0, which picks a
/// free port) without serving yet, so the host can learn the port
/// (`ferrite_http_listener_port`) before it starts `ferrite_server_http_run` on a thread of
/// its choice. `options` may be NULL (defaults); it is copied. On success `*out` is a new
/// listener: pass it to `ferrite_server_http_run` or `ferrite_http_listener_free`. Returns
/// `FERRITE_RESULT_IO` when the address cannot be bound (in use, not local),
/// `FERRITE_RESULT_INVALID_ARGUMENT` with the core's message for a host that is not an IP
/// address (`invalid HTTP option host: ...`; names are not resolved). Cannot be called from
/// a callback (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server; `host` is NULL or points to `host_len` readable bytes;
/// `options` is NULL or a live options handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_http_bind(
    server: *const ferrite_server,
    host: *const c_char,
    host_len: usize,
    port: u16,
    options: *const ferrite_http_options,
    out: *mut *mut ferrite_http_listener,
) -> ferrite_result {
    ffi_boundary!({
        if out.is_null() {
            return Err(Error::null("out"));
        }
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let listener = unsafe { bind(s, host, host_len, port, options) }?;
        // SAFETY: non-NULL and valid for a write per this function's contract.
        unsafe { out.write(Box::into_raw(Box::new(listener))) };
        Ok(())
    })
}

/// The TCP port `listener` is bound to (the one picked when binding port 0).
///
/// # Safety
/// `listener` is a live listener; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_listener_port(
    listener: *const ferrite_http_listener,
    out: *mut u16,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: NULL or live, per this function's contract.
        let l = unsafe { listener.as_ref() }.ok_or_else(|| Error::null("listener"))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, l.port, "out") }
    })
}

/// Free a listener that was never run, closing its socket. NULL is a no-op.
///
/// # Safety
/// `listener` is NULL or a live listener that nothing else uses any more.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_listener_free(listener: *mut ferrite_http_listener) {
    if listener.is_null() {
        return;
    }
    let _ = ffi_boundary!({
        // SAFETY: a live handle from `ferrite_server_http_bind`, now owned by this call.
        drop(unsafe { Box::from_raw(listener) });
        Ok(())
    });
}

/// Serve Streamable HTTP on `listener` (which must come from `ferrite_server_http_bind` on
/// this same server) until `ferrite_server_close` is called from another thread; blocks the
/// calling thread meanwhile (requests are handled on the server's worker threads). Consumes
/// the listener whatever the outcome: do not use or free it afterwards. Returns
/// `FERRITE_RESULT_CLOSED` once closed (the normal end), `FERRITE_RESULT_IO` on a socket
/// error, `FERRITE_RESULT_INVALID_ARGUMENT` for a listener bound by another server. Cannot be
/// called from a callback (`FERRITE_RESULT_WRONG_THREAD`; the listener is freed).
///
/// # Safety
/// `server` is a live server; `listener` is a live listener bound by it.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_http_run(
    server: *const ferrite_server,
    listener: *mut ferrite_http_listener,
) -> ferrite_result {
    ffi_boundary!({
        if listener.is_null() {
            return Err(Error::null("listener"));
        }
        // SAFETY: a live handle from `ferrite_server_http_bind`, now owned by this call.
        let listener = *unsafe { Box::from_raw(listener) };
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        if listener.owner != s as *const ferrite_server as usize {
            return Err(Error::invalid("the listener was bound by another server"));
        }
        run(s, listener)
    })
}

/// Bind `host`:`port` (as for `ferrite_server_http_bind`) and serve Streamable HTTP there
/// until `ferrite_server_close` is called from another thread: `ferrite_server_http_bind` and
/// `ferrite_server_http_run` in one call (use the pair to learn the port when passing 0).
/// `options` may be NULL (defaults: path `/mcp`, loopback hosts only, ...); it is copied, so
/// it may be freed once serving started.
/// The server's mode decides stateful (sessions, `Mcp-Session-Id`) or stateless serving.
/// Blocks; returns `FERRITE_RESULT_CLOSED` once closed, `FERRITE_RESULT_IO` when the address
/// cannot be bound or on a socket error. Cannot be called from a callback
/// (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server; `host` is NULL or points to `host_len` readable bytes;
/// `options` is NULL or a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_serve_http(
    server: *const ferrite_server,
    host: *const c_char,
    host_len: usize,
    port: u16,
    options: *const ferrite_http_options,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let listener = unsafe { bind(s, host, host_len, port, options) }?;
        run(s, listener)
    })
}
