//! The Streamable HTTP endpoint driven by the host's own HTTP server (a C server, Go's
//! net/http through the Go package): `ferrite_http_service` is the core's `HttpService` on the
//! server's runtime, and `ferrite_http_exchange` one request through it.
//!
//! The core decides everything (sessions, SSE, resumability, the DNS-rebinding checks, the
//! 2026-07-28 classifier); this module only moves plain values across the boundary. A host
//! drives an exchange from its request thread: the head in (`_begin`), the body pushed in
//! chunks (`_write`, which waits while the endpoint has not taken earlier chunks), then the
//! response handed out through two callbacks on that same thread (`_respond`), the next chunk
//! pulled only once the previous callback returned. A host whose client went away says so
//! from any thread (`_cancel`) or by returning nonzero from a callback: the response is
//! dropped, which cancels the requests it carried (unless the client can resume the stream),
//! as when hyper drops it.
//!
//! The response is produced by a task on the server's runtime, started at `_begin`, so the
//! body can be read while the host is still writing it. Pumping is counted as serving, so
//! `ferrite_server_close` waits for a pump to notice the close (it stops at once) before the
//! runtime goes away.

use std::borrow::Cow;
use std::ffi::{c_char, c_void};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use ferrite_core::sync::lock;
use ferrite_core::transport::http::{HostBodyWriter, HostHead, HostResponse, HttpService};
use serde_json::{Map, Value};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::options::ferrite_http_options;
use super::transport_options;
use crate::buffer::{ferrite_str, opt_json_arg, opt_str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::server::{ferrite_server, server_ref, Serving, ServingCount};

/// The MCP endpoint for a host's own HTTP server. Opaque; create with
/// `ferrite_http_service_new`, end its sessions with `ferrite_http_service_close`, release with
/// `ferrite_http_service_free`. Every function taking a `const ferrite_http_service *` may be
/// called from any thread, concurrently.
#[allow(non_camel_case_types)]
pub struct ferrite_http_service {
    service: HttpService,
    runtime: Handle,
    /// The server's close.
    closed: CancellationToken,
    serving: Arc<ServingCount>,
}

/// One HTTP header: a name and a value, each `(pointer, length)`, not NUL-terminated. Names
/// are ASCII; a value's bytes need not be UTF-8. Ferrite's headers (`ferrite_http_head_callback`)
/// are borrowed for the callback's duration.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct ferrite_http_header {
    /// The name's first byte.
    pub name: *const c_char,
    /// The name's length in bytes.
    pub name_len: usize,
    /// The value's first byte (may be NULL when `value_len` is 0).
    pub value: *const c_char,
    /// The value's length in bytes.
    pub value_len: usize,
}

/// Receives the response head of an exchange (`ferrite_http_exchange_respond`), on the thread
/// that called `_respond`: the status, the headers (borrowed for the call; a name may repeat)
/// and whether the body is an event stream (SSE: send every chunk to the client as it comes,
/// never buffer, and send the head at once). Return 0 to go on, nonzero when the client is gone
/// (the exchange is then cancelled).
#[allow(non_camel_case_types)]
pub type ferrite_http_head_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        status: u16,
        headers: *const ferrite_http_header,
        headers_len: usize,
        event_stream: bool,
    ) -> u32,
>;

/// Receives one chunk of an exchange's response body (never empty), borrowed for the call, on
/// the thread that called `ferrite_http_exchange_respond`. The next chunk is pulled only after
/// it returns (back-pressure: write the chunk to the client before returning). Return 0 to go
/// on, nonzero when the client is gone (the exchange is then cancelled).
#[allow(non_camel_case_types)]
pub type ferrite_http_chunk_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, data: *const c_char, len: usize) -> u32>;

/// One request through a `ferrite_http_service`. Opaque; made by `ferrite_http_exchange_begin`,
/// released with `ferrite_http_exchange_free`.
///
/// `_write`, `_end_body` and `_respond` are called by one thread at a time (the host's request
/// thread), never from a Ferrite callback; `_cancel` may be called from any thread at any time
/// until `_free`.
#[allow(non_camel_case_types)]
pub struct ferrite_http_exchange {
    runtime: Handle,
    closed: CancellationToken,
    serving: Arc<ServingCount>,
    cancel: CancellationToken,
    /// The request body's sending half, until the body ends.
    writer: Mutex<Option<HostBodyWriter>>,
    /// The task producing the response, until `_respond` takes it.
    response: Mutex<Option<JoinHandle<HostResponse>>>,
}

impl Drop for ferrite_http_exchange {
    fn drop(&mut self) {
        // Unanswered: stop producing the response (dropping it cancels its requests).
        if let Some(task) = self.response.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            task.abort();
        }
    }
}

/// Why a wait of the exchange ended early.
enum Stop {
    Cancelled,
    Closed,
}

impl Stop {
    fn error(self) -> Error {
        match self {
            Stop::Cancelled => {
                Error::new(ferrite_result::Cancelled, "the exchange was cancelled; its requests were cancelled")
            }
            Stop::Closed => Error::closed(),
        }
    }
}

impl ferrite_http_exchange {
    /// Wait for `fut` on this thread, unless the exchange is cancelled or the server closed.
    /// The future runs in the runtime's context (the endpoint's bodies use its timers); the
    /// caller is counted as serving, so the runtime outlives the wait.
    fn wait<T>(&self, fut: impl std::future::Future<Output = T>) -> Result<T, Stop> {
        let _serving = Serving::enter(&self.serving);
        if self.closed.is_cancelled() {
            return Err(Stop::Closed);
        }
        self.runtime.block_on(async {
            tokio::select! {
                biased;
                _ = self.cancel.cancelled() => Err(Stop::Cancelled),
                _ = self.closed.cancelled() => Err(Stop::Closed),
                out = fut => Ok(out),
            }
        })
    }
}

/// # Safety
/// `service` is NULL or a live service.
unsafe fn service_ref<'a>(service: *const ferrite_http_service) -> Result<&'a ferrite_http_service, Error> {
    // SAFETY: NULL or live, per the caller's contract.
    unsafe { service.as_ref() }.ok_or_else(|| Error::null("service"))
}

/// # Safety
/// `exchange` is NULL or a live exchange.
unsafe fn exchange_ref<'a>(exchange: *const ferrite_http_exchange) -> Result<&'a ferrite_http_exchange, Error> {
    // SAFETY: NULL or live, per the caller's contract.
    unsafe { exchange.as_ref() }.ok_or_else(|| Error::null("exchange"))
}

/// Bytes the host passed, as a slice (NULL is accepted only with length 0).
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes valid for `'a`.
unsafe fn bytes_arg<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a [u8], Error> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    if len > isize::MAX as usize {
        return Err(Error::invalid(format!("{what}: length {len} is too large")));
    }
    // SAFETY: non-NULL and `len` readable bytes valid for 'a, per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// Text for the head. Bytes that are not UTF-8 become U+FFFD, which no method, target or
/// header name accepts: the core then answers 400, as for any other bad head.
fn lossy(bytes: &[u8]) -> String {
    match String::from_utf8_lossy(bytes) {
        Cow::Borrowed(s) => s.to_owned(),
        Cow::Owned(s) => s,
    }
}

/// Create the MCP endpoint for `server`, to be driven by the host's own HTTP server with
/// `ferrite_http_exchange_begin`. `options` (NULL: every default) are the same options
/// `ferrite_server_http_bind` takes, checked the same way, and copied; `host` and `port` are
/// not used (the host's server listens) and `legacy_sse` is not served (it needs two routes).
/// The host's router chooses the path: the service answers whatever path it is handed
/// (`ferrite_http_service_path` is the configured one, for mounting), and on a protected
/// server it answers `GET /.well-known/oauth-protected-resource<path>` itself, so route that
/// prefix to it too. The server's mode decides stateful (sessions, `Mcp-Session-Id`) or
/// stateless serving. On success `*out` is a new service: release it with
/// `ferrite_http_service_free` before `ferrite_server_free`. `FERRITE_RESULT_CLOSED` on a
/// closed server; `FERRITE_RESULT_INVALID_ARGUMENT` with the core's message for a bad option.
///
/// # Safety
/// `server` is a live server; `options` is NULL or a live options handle; `out` is valid for
/// a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_service_new(
    server: *const ferrite_server,
    options: *const ferrite_http_options,
    out: *mut *mut ferrite_http_service,
) -> ferrite_result {
    ffi_boundary!({
        if out.is_null() {
            return Err(Error::null("out"));
        }
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: NULL or a live options handle, per this function's contract.
        let config = unsafe { options.as_ref() }.map(|o| o.config().clone()).unwrap_or_default();
        let opts = transport_options(s, &config)?;
        let core = s.core()?;
        let runtime = s.runtime_handle();
        // The service sweeps idle sessions with a task on the current runtime: the server's.
        let service = {
            let _entered = runtime.enter();
            HttpService::new(&core, opts)
        };
        let handle =
            ferrite_http_service { service, runtime, closed: s.shutdown_token().clone(), serving: s.serving().clone() };
        // SAFETY: non-NULL and valid for a write per this function's contract.
        unsafe { out.write(Box::into_raw(Box::new(handle))) };
        Ok(())
    })
}

/// The endpoint path of the service's options (default `/mcp`), borrowed: valid while the
/// service is. Informational: the service serves whatever path the host routes to it.
///
/// # Safety
/// `service` is a live service; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_service_path(
    service: *const ferrite_http_service,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let svc = unsafe { service_ref(service) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(svc.service.path()), "out") }
    })
}

/// End every session of the service and their streams (open responses end; later requests
/// with their ids get 404), as when the host's app shuts down. The service keeps answering
/// new requests. Any thread.
///
/// # Safety
/// `service` is a live service.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_service_close(service: *const ferrite_http_service) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let svc = unsafe { service_ref(service) }?;
        let _entered = svc.runtime.enter();
        svc.service.close();
        Ok(())
    })
}

/// Close the service (`ferrite_http_service_close`) and free it. NULL is a no-op. Exchanges
/// begun on it stay valid (free each one still); no other call on the service may run
/// concurrently or follow.
///
/// # Safety
/// `service` is NULL or a live service that nothing else uses any more.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_service_free(service: *mut ferrite_http_service) {
    if service.is_null() {
        return;
    }
    let _ = ffi_boundary!({
        // SAFETY: a live handle from `ferrite_http_service_new`, now owned by this call.
        let svc = unsafe { Box::from_raw(service) };
        let _entered = svc.runtime.enter();
        svc.service.close();
        Ok(())
    });
}

/// Begin one exchange: the request head the host's server received. `method` (`"POST"`) and
/// `target` (the path and query as the host's router hands them to the endpoint, `/mcp?x=1`)
/// are required; `headers` is an array of `headers_len` headers in the order received (a name
/// may repeat; NULL when `headers_len` is 0), including `Host` (DNS-rebinding protection reads
/// it) and, when known, `Content-Length` (leave out `Transfer-Encoding`: the host has already
/// decoded the body); `remote_addr` (NULL: unknown) is the client's `IP:port`
/// (`127.0.0.1:5000`, `[::1]:5000`; text that is not one, such as a Unix socket peer, counts as
/// unknown); `host_values_json` (NULL: none) is a JSON object of values for handlers to read
/// (`ferrite_request_host_value`: a tenant, the user an auth middleware found). Everything is
/// copied.
///
/// A head that is not valid HTTP (a method or header name with forbidden bytes, a target that
/// is not a path) is not an error here: the exchange answers it 400. The response is produced
/// from now on, on the server's threads: push the body with `ferrite_http_exchange_write`, end
/// it (`ferrite_http_exchange_end_body`, or let `_respond` end it), then hand the response to
/// the client with `ferrite_http_exchange_respond`, and release the exchange with
/// `ferrite_http_exchange_free`. Does not block; any thread. `FERRITE_RESULT_CLOSED` on a closed
/// server; `FERRITE_RESULT_INVALID_JSON` / `_INVALID_ARGUMENT` for `host_values_json` that is
/// not a JSON object.
///
/// # Safety
/// `service` is a live service; `method` and `target` point to their lengths in readable
/// bytes; `headers` points to `headers_len` headers whose pointers each point to their lengths
/// in readable bytes (or is NULL with 0); `remote_addr` and `host_values_json` are NULL or point
/// to their lengths in readable bytes; `out` is valid for a write.
// The head as plain (pointer, length) pairs is the ABI: one argument per part, as C and cgo
// pass them without building a struct.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_exchange_begin(
    service: *const ferrite_http_service,
    method: *const c_char,
    method_len: usize,
    target: *const c_char,
    target_len: usize,
    headers: *const ferrite_http_header,
    headers_len: usize,
    remote_addr: *const c_char,
    remote_addr_len: usize,
    host_values_json: *const c_char,
    host_values_json_len: usize,
    out: *mut *mut ferrite_http_exchange,
) -> ferrite_result {
    ffi_boundary!({
        if out.is_null() {
            return Err(Error::null("out"));
        }
        // SAFETY: forwarded from this function's contract.
        let svc = unsafe { service_ref(service) }?;
        if svc.closed.is_cancelled() {
            return Err(Error::closed());
        }
        if method.is_null() {
            return Err(Error::null("method"));
        }
        if target.is_null() {
            return Err(Error::null("target"));
        }
        // SAFETY: forwarded from this function's contract.
        let method = lossy(unsafe { bytes_arg(method, method_len, "method") }?);
        // SAFETY: forwarded from this function's contract.
        let target = lossy(unsafe { bytes_arg(target, target_len, "target") }?);
        let list: &[ferrite_http_header] = if headers_len == 0 {
            &[]
        } else if headers.is_null() {
            return Err(Error::null("headers"));
        } else {
            // SAFETY: `headers` points to `headers_len` headers, per this function's contract.
            unsafe { std::slice::from_raw_parts(headers, headers_len) }
        };
        let mut head_headers = Vec::with_capacity(list.len());
        for h in list {
            // SAFETY: each header's pointers point to their lengths, per this function's contract.
            let name = lossy(unsafe { bytes_arg(h.name, h.name_len, "a header name") }?);
            // SAFETY: as above.
            let value = unsafe { bytes_arg(h.value, h.value_len, "a header value") }?.to_vec();
            head_headers.push((name, value));
        }
        // SAFETY: forwarded from this function's contract.
        let remote_addr = unsafe { opt_str_arg(remote_addr, remote_addr_len, "remote_addr") }?
            .and_then(|a| a.parse::<SocketAddr>().ok());
        // SAFETY: forwarded from this function's contract.
        let host_values: Map<String, Value> =
            unsafe { opt_json_arg(host_values_json, host_values_json_len, "host_values_json") }?.unwrap_or_default();
        let head = HostHead { method, target, headers: head_headers, remote_addr, host_values };
        let (writer, response) = svc.service.host_request(head);
        let task = svc.runtime.spawn(response);
        let exchange = ferrite_http_exchange {
            runtime: svc.runtime.clone(),
            closed: svc.closed.clone(),
            serving: svc.serving.clone(),
            cancel: CancellationToken::new(),
            writer: Mutex::new(Some(writer)),
            response: Mutex::new(Some(task)),
        };
        // SAFETY: non-NULL and valid for a write per this function's contract.
        unsafe { out.write(Box::into_raw(Box::new(exchange))) };
        Ok(())
    })
}

/// Push the next `len` bytes of the request body (copied). Blocks while the endpoint has not
/// taken the earlier chunks (a few may wait), so a host reads from its client only as fast as
/// the endpoint consumes. `FERRITE_RESULT_BODY_CLOSED` when the endpoint no longer reads the
/// body: it has answered already (413 past `max_body_bytes`, a refusal decided from the
/// head) or the body was ended; stop sending and call `ferrite_http_exchange_respond`, which
/// gives that answer. `FERRITE_RESULT_CANCELLED` after `ferrite_http_exchange_cancel`,
/// `FERRITE_RESULT_CLOSED` once the server is closed. An empty chunk is a no-op. Cannot be
/// called from a Ferrite callback (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `exchange` is a live exchange; `data` points to `len` readable bytes (or is NULL with 0).
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_exchange_write(
    exchange: *const ferrite_http_exchange,
    data: *const c_char,
    len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let ex = unsafe { exchange_ref(exchange) }?;
        // SAFETY: forwarded from this function's contract.
        let chunk = unsafe { bytes_arg(data, len, "data") }?;
        ferrite_server::ensure_blocking_allowed("ferrite_http_exchange_write")?;
        if chunk.is_empty() {
            return Ok(());
        }
        let mut writer = lock(&ex.writer);
        let w = writer
            .as_mut()
            .ok_or_else(|| Error::new(ferrite_result::BodyClosed, "the request body was already ended"))?;
        match ex.wait(w.write(chunk.to_vec())) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(closed)) => {
                *writer = None;
                Err(Error::new(ferrite_result::BodyClosed, closed.to_string()))
            }
            Err(stop) => Err(stop.error()),
        }
    })
}

/// End the request body (a body with no chunks is empty: a GET or DELETE). Later writes get
/// `FERRITE_RESULT_BODY_CLOSED`; ending twice is a no-op. Does not block.
///
/// # Safety
/// `exchange` is a live exchange.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_exchange_end_body(exchange: *const ferrite_http_exchange) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let ex = unsafe { exchange_ref(exchange) }?;
        drop(lock(&ex.writer).take());
        Ok(())
    })
}

/// Hand the response to the host, on the calling thread, and block until it is all handed
/// over: ends the request body if it was not ended, waits for the head and calls `on_head`
/// once, then calls `on_chunk` for each body chunk as the endpoint produces it, pulling the
/// next one only after the callback returned (an SSE stream stays open, and this call with
/// it, until the stream ends: the session ends, the server or the service closes, or the
/// exchange is cancelled). `user_data` is passed to both callbacks and not kept after the
/// call (so there is no finalizer).
///
/// Returns OK once the whole body was handed over; `FERRITE_RESULT_CANCELLED` when a callback
/// returned nonzero or `ferrite_http_exchange_cancel` was called (the response is dropped,
/// which cancels the requests it carried, as when a client leaves Ferrite's own listener: a
/// handler sees `ferrite_request_is_cancelled` and its `ferrite_request_on_cancel` callbacks
/// run; a stream the client can resume, on a stateful server with `resumable` on, keeps them
/// running for the client's return); `FERRITE_RESULT_CLOSED` when the server was
/// closed (the response stops where it was; `on_head` may not have been called);
/// `FERRITE_RESULT_ALREADY_COMPLETED` when called a second time. Cannot be called from a
/// Ferrite callback (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `exchange` is a live exchange; the callbacks are valid functions that do not unwind.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_exchange_respond(
    exchange: *const ferrite_http_exchange,
    on_head: ferrite_http_head_callback,
    on_chunk: ferrite_http_chunk_callback,
    user_data: *mut c_void,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let ex = unsafe { exchange_ref(exchange) }?;
        let on_head = on_head.ok_or_else(|| Error::null("on_head"))?;
        let on_chunk = on_chunk.ok_or_else(|| Error::null("on_chunk"))?;
        ferrite_server::ensure_blocking_allowed("ferrite_http_exchange_respond")?;
        drop(lock(&ex.writer).take());
        let mut task = lock(&ex.response)
            .take()
            .ok_or_else(|| Error::new(ferrite_result::AlreadyCompleted, "the exchange was already responded to"))?;
        let response = match ex.wait(&mut task) {
            Ok(Ok(response)) => response,
            Ok(Err(e)) if e.is_panic() => {
                return Err(Error::new(ferrite_result::Panic, "Ferrite panicked while answering the request"))
            }
            Ok(Err(_)) => return Err(Error::closed()),
            Err(stop) => {
                task.abort();
                return Err(stop.error());
            }
        };
        let event_stream = response.is_event_stream();
        let HostResponse { status, headers, mut body } = response;
        let list: Vec<ferrite_http_header> = headers
            .iter()
            .map(|(n, v)| ferrite_http_header {
                name: n.as_ptr().cast(),
                name_len: n.len(),
                value: v.as_ptr().cast(),
                value_len: v.len(),
            })
            .collect();
        // SAFETY: a valid callback per this function's contract; the headers live until after
        // it returns.
        let gone = unsafe { on_head(user_data, status, list.as_ptr(), list.len(), event_stream) } != 0;
        drop(list);
        let cancelled =
            || Error::new(ferrite_result::Cancelled, "the host's client went away; its requests were cancelled");
        if gone {
            ex.cancel.cancel();
            return Err(cancelled());
        }
        loop {
            let chunk = match ex.wait(body.next_chunk()) {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return Ok(()),
                Err(stop) => return Err(stop.error()),
            };
            // SAFETY: a valid callback per this function's contract; the chunk lives until
            // after it returns.
            if unsafe { on_chunk(user_data, chunk.as_ptr().cast(), chunk.len()) } != 0 {
                ex.cancel.cancel();
                return Err(cancelled());
            }
        }
    })
}

/// Cancel the exchange: the host's client went away. A `ferrite_http_exchange_write` or
/// `ferrite_http_exchange_respond` blocked in another thread returns
/// `FERRITE_RESULT_CANCELLED` at once, and the response is dropped, which cancels the requests
/// it carried (as `_respond` says). Does not block; any thread, any number of times, until
/// `ferrite_http_exchange_free`.
///
/// # Safety
/// `exchange` is a live exchange.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_exchange_cancel(exchange: *const ferrite_http_exchange) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe { exchange_ref(exchange) }?.cancel.cancel();
        Ok(())
    })
}

/// Free the exchange. One that was not responded to to the end is cancelled (its requests are
/// cancelled). NULL is a no-op. Must not run concurrently with any other call on the exchange
/// (a `_cancel` from another thread included).
///
/// # Safety
/// `exchange` is NULL or a live exchange that nothing else uses any more.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_exchange_free(exchange: *mut ferrite_http_exchange) {
    if exchange.is_null() {
        return;
    }
    let _ = ffi_boundary!({
        // SAFETY: a live handle from `ferrite_http_exchange_begin`, now owned by this call.
        let ex = unsafe { Box::from_raw(exchange) };
        ex.cancel.cancel();
        drop(ex);
        Ok(())
    });
}
