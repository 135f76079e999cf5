//! Streamable HTTP from C: `ferrite_http_options`, `ferrite_http_listener` and the serve calls.
//!
//! The transport is the core's (`ferrite_core::transport::http`); this module only carries its
//! options across the boundary and runs it on the server's runtime. Options are an opaque
//! handle with setters rather than a `#[repr(C)]` struct, so later options can be added
//! without an ABI version bump and a host never has to fill in a size field.
//!
//! Learning the port when binding port 0 needs a step between binding and serving, so there
//! are two ways in: `ferrite_server_serve_http` (bind and serve, one blocking call) and the
//! pair `ferrite_server_http_bind` (returns a listener whose port can be read) +
//! `ferrite_server_http_run` (blocks serving it). Serving runs on the server's worker
//! threads; the calling thread only waits, exactly as `ferrite_server_serve_stdio` does, and
//! `ferrite_server_close` from another thread ends it (gracefully: sessions and their
//! streams end, in-flight requests get the shutdown grace period).

use std::ffi::c_char;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use ferrite_core::transport::http::security::{check_host_entry, check_origin_entry, HostPolicy};
use ferrite_core::transport::http::{self, HttpOptions, HttpServer, ResponseMode};

use crate::buffer::{opt_json_arg, str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::server::{ferrite_server, server_ref};

/// How a POST carrying requests is answered (`ferrite_http_options_set_response_mode`).
#[repr(u32)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub enum ferrite_http_response_mode {
    /// JSON, unless the handler sends a message to the client (log, progress,
    /// server-to-client request) before completing; then an SSE stream. The default.
    Auto = 0,
    /// Always JSON: notifications from handlers are dropped, server-to-client requests fail.
    Json = 1,
    /// Always an SSE stream.
    Sse = 2,
}

/// Options of the Streamable HTTP transport. Opaque; create with `ferrite_http_options_new`
/// (every option at its default), change with the setters, free with
/// `ferrite_http_options_free`. Serving copies them, so they can be freed or reused right
/// after `ferrite_server_serve_http` / `ferrite_server_http_bind` is called. Not
/// synchronised: do not change one options object from two threads at once.
#[allow(non_camel_case_types)]
pub struct ferrite_http_options {
    inner: HttpOptions,
}

/// # Safety
/// `options` must be NULL or a live options handle not used by another thread meanwhile.
unsafe fn options_mut<'a>(options: *mut ferrite_http_options) -> Result<&'a mut HttpOptions, Error> {
    // SAFETY: NULL or live and unshared, per the caller's contract.
    unsafe { options.as_mut() }.map(|o| &mut o.inner).ok_or_else(|| Error::null("options"))
}

/// Create options with every default: path `/mcp`, response mode auto, 4 MiB body limit,
/// sessions end after 30 minutes idle, loopback hosts and origins only (DNS-rebinding
/// protection), resumable SSE streams (bounded in-memory event store), `retry` hint 1 s,
/// legacy HTTP+SSE off. Free with `ferrite_http_options_free`.
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_new(out: *mut *mut ferrite_http_options) -> ferrite_result {
    ffi_boundary!({
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let options = Box::new(ferrite_http_options { inner: HttpOptions::default() });
        // SAFETY: non-NULL and valid for a write per this function's contract.
        unsafe { out.write(Box::into_raw(options)) };
        Ok(())
    })
}

/// Free options. NULL is a no-op.
///
/// # Safety
/// `options` is NULL or a live options handle that nothing else uses any more.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_free(options: *mut ferrite_http_options) {
    if options.is_null() {
        return;
    }
    let _ = ffi_boundary!({
        // SAFETY: a live handle from `ferrite_http_options_new`, now owned by this call.
        drop(unsafe { Box::from_raw(options) });
        Ok(())
    });
}

/// Apply one change to live options.
///
/// # Safety
/// As [`options_mut`].
unsafe fn set(
    options: *mut ferrite_http_options,
    f: impl FnOnce(&mut HttpOptions) -> Result<(), Error>,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from the caller's contract.
        f(unsafe { options_mut(options) }?)
    })
}

/// The endpoint path (default `/mcp`). It must start with `/` and be a literal path (no
/// `{`, `}`, `*` or `?`); anything else is `FERRITE_RESULT_INVALID_ARGUMENT`.
///
/// # Safety
/// `options` is a live options handle; `path` points to `path_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_path(
    options: *mut ferrite_http_options,
    path: *const c_char,
    path_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            let path = str_arg(path, path_len, "path")?;
            if !path.starts_with('/') || path.contains(['{', '}', '*', '?', '#']) {
                return Err(Error::invalid(format!("{path:?} is not a literal path starting with '/'")));
            }
            o.path = path.to_owned();
            Ok(())
        })
    }
}

/// The largest accepted POST body in bytes (default 4 MiB); larger ones are answered 413.
/// 0 is `FERRITE_RESULT_INVALID_ARGUMENT`.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_max_body_bytes(
    options: *mut ferrite_http_options,
    max_body_bytes: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            if max_body_bytes == 0 {
                return Err(Error::invalid("max_body_bytes must be at least 1"));
            }
            o.max_body_bytes = max_body_bytes;
            Ok(())
        })
    }
}

/// End sessions idle for longer than `timeout_ms` milliseconds (default 30 minutes); later
/// requests with their id get 404. 0 means sessions never expire (only DELETE or close end
/// them).
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_session_idle_timeout_ms(
    options: *mut ferrite_http_options,
    timeout_ms: u64,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.session_idle_timeout = (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms));
            Ok(())
        })
    }
}

/// How POSTs carrying requests are answered: a `ferrite_http_response_mode`. Unknown values
/// are `FERRITE_RESULT_INVALID_ARGUMENT`. A client whose `Accept` allows only one of JSON and
/// SSE gets that one whatever the mode.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_response_mode(
    options: *mut ferrite_http_options,
    mode: u32,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.response_mode = match mode {
                0 => ResponseMode::Auto,
                1 => ResponseMode::Json,
                2 => ResponseMode::Sse,
                other => return Err(Error::invalid(format!("{other} is not a ferrite_http_response_mode"))),
            };
            Ok(())
        })
    }
}

/// Read a JSON array of strings, or NULL for "no check".
///
/// # Safety
/// `json` is NULL or points to `json_len` readable bytes.
unsafe fn name_list(
    json: *const c_char,
    json_len: usize,
    what: &str,
    check: fn(&str) -> Result<(), &'static str>,
) -> Result<Option<Vec<String>>, Error> {
    // SAFETY: forwarded from the caller's contract.
    let list = unsafe { opt_json_arg::<Vec<String>>(json, json_len, what) }?;
    if let Some(list) = &list {
        if list.is_empty() {
            return Err(Error::invalid(format!("{what} is empty, which would refuse every request")));
        }
        for entry in list {
            check(entry).map_err(|why| Error::invalid(format!("invalid {what} entry {entry:?}: {why}")))?;
        }
    }
    Ok(list)
}

/// DNS-rebinding protection, hosts: `hosts_json` is a JSON array of accepted `Host` names
/// without port (`["localhost", "127.0.0.1", "[::1]"]` is the default; IPv6 in brackets),
/// compared case-insensitively; other hosts get 403. NULL disables the check (for a server
/// behind a proxy that checks hosts itself). An empty list, or an entry with a port, scheme
/// or path (which would never match), is `FERRITE_RESULT_INVALID_ARGUMENT`.
///
/// # Safety
/// `options` is a live options handle; `hosts_json` is NULL or points to `hosts_json_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_allowed_hosts(
    options: *mut ferrite_http_options,
    hosts_json: *const c_char,
    hosts_json_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.host_policy.allowed_hosts = name_list(hosts_json, hosts_json_len, "hosts_json", check_host_entry)?;
            Ok(())
        })
    }
}

/// DNS-rebinding protection, origins: `origins_json` is a JSON array of accepted
/// `scheme://host` origins, any port (the default: `http` and `https` on the loopback
/// names); a request with another `Origin` gets 403, one without `Origin` is accepted. NULL
/// disables the check.
///
/// # Safety
/// `options` is a live options handle; `origins_json` is NULL or points to
/// `origins_json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_allowed_origins(
    options: *mut ferrite_http_options,
    origins_json: *const c_char,
    origins_json_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.host_policy.allowed_origins =
                name_list(origins_json, origins_json_len, "origins_json", check_origin_entry)?;
            Ok(())
        })
    }
}

/// Accept every `Host` and `Origin` (both checks off): the same as passing NULL to both
/// setters above.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_allow_any_host(options: *mut ferrite_http_options) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.host_policy = HostPolicy::permissive();
            Ok(())
        })
    }
}

/// Whether SSE streams keep their events for `Last-Event-ID` resumption (stateful servers;
/// default true, in a bounded in-memory store). Without it, a dropped stream's messages are
/// lost and `ferrite_request_close_sse_stream` has nothing to resume.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_resumable(
    options: *mut ferrite_http_options,
    resumable: bool,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.event_store = if resumable { HttpOptions::default().event_store } else { None };
            Ok(())
        })
    }
}

/// The reconnection delay advertised to clients in SSE `retry` fields, in milliseconds
/// (default 1000).
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_sse_retry_ms(
    options: *mut ferrite_http_options,
    retry_ms: u64,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.sse_retry = Duration::from_millis(retry_ms);
            Ok(())
        })
    }
}

/// Also serve the deprecated 2024-11-05 HTTP+SSE transport for old clients (`GET /sse`,
/// `POST /messages?sessionId=...`; stateful servers). Default off.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_legacy_sse(
    options: *mut ferrite_http_options,
    enabled: bool,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        set(options, |o| {
            o.legacy_sse = enabled;
            Ok(())
        })
    }
}

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

/// Parse `host` (an IP literal, or `localhost`) and `port` into an address.
fn address(host: &str, port: u16) -> Result<SocketAddr, Error> {
    let ip: IpAddr = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::from([127, 0, 0, 1])
    } else {
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| Error::invalid(format!("{host:?} is not an IP address (or localhost)")))?
    };
    Ok(SocketAddr::new(ip, port))
}

/// Bind the socket on the server's runtime; the options are copied.
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
    // SAFETY: forwarded from the caller's contract.
    let host = unsafe { str_arg(host, host_len, "host") }?;
    let addr = address(host, port)?;
    // SAFETY: NULL or a live options handle, per the caller's contract.
    let mut opts = unsafe { options.as_ref() }.map(|o| o.inner.clone()).unwrap_or_default();
    opts.shutdown = s.shutdown_token().child_token();
    let core = s.core()?;
    let bound = s
        .run("ferrite_server_http_bind", async move { http::bind(&core, addr, opts).await })?
        .map_err(|e| Error::new(ferrite_result::Io, format!("cannot listen on {addr}: {e}")))?;
    let port = bound.local_addr().map_err(|e| Error::new(ferrite_result::Io, e.to_string()))?.port();
    Ok(ferrite_http_listener { bound, port, owner: s as *const ferrite_server as usize })
}

/// Serve a bound listener until close; blocks.
fn run(s: &ferrite_server, listener: ferrite_http_listener) -> Result<(), Error> {
    s.serve_blocking("ferrite_server_http_run", listener.bound.run(), "http")
}

/// Bind `host` (an IP address such as `127.0.0.1`, `::1`, `0.0.0.0`, or `localhost`) and
/// `port` (0 picks a free port) without serving yet, so the host can learn the port
/// (`ferrite_http_listener_port`) before it starts `ferrite_server_http_run` on a thread of
/// its choice. `options` may be NULL (defaults); it is copied. On success `*out` is a new
/// listener: pass it to `ferrite_server_http_run` or `ferrite_http_listener_free`. Returns
/// `FERRITE_RESULT_IO` when the address cannot be bound (in use, not local),
/// `FERRITE_RESULT_INVALID_ARGUMENT` for a host that is not an IP address. Cannot be called
/// from a callback (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server; `host` points to `host_len` readable bytes; `options` is NULL
/// or a live options handle; `out` is valid for a write.
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

/// Bind `host`:`port` and serve Streamable HTTP there until `ferrite_server_close` is called
/// from another thread: `ferrite_server_http_bind` and `ferrite_server_http_run` in one call
/// (use the pair to learn the port when passing 0). `options` may be NULL (defaults: path
/// `/mcp`, loopback hosts only, ...); it is copied, so it may be freed once serving started.
/// The server's mode decides stateful (sessions, `Mcp-Session-Id`) or stateless serving.
/// Blocks; returns `FERRITE_RESULT_CLOSED` once closed, `FERRITE_RESULT_IO` when the address
/// cannot be bound or on a socket error. Cannot be called from a callback
/// (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server; `host` points to `host_len` readable bytes; `options` is NULL
/// or a live options handle.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_parse_as_ip_literals_or_localhost() {
        assert_eq!(address("127.0.0.1", 1).map(|a| a.to_string()).ok().as_deref(), Some("127.0.0.1:1"));
        assert_eq!(address("LOCALHOST", 2).map(|a| a.to_string()).ok().as_deref(), Some("127.0.0.1:2"));
        assert_eq!(address("[::1]", 3).map(|a| a.to_string()).ok().as_deref(), Some("[::1]:3"));
        assert_eq!(address("::1", 3).map(|a| a.to_string()).ok().as_deref(), Some("[::1]:3"));
        assert!(address("example.com", 80).is_err());
        assert!(address("", 80).is_err());
    }
}
