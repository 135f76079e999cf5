//! `ferrite_http_options`: the core's [`HttpConfig`] behind an opaque handle.
//!
//! The options are plain data owned by the core: every setter writes one key and has the core
//! check the whole configuration ([`HttpConfig::from_value`], then [`HttpConfig::apply`]), so a
//! bad value gets the core's message (`invalid HTTP option max_body_bytes: must be at least 1
//! byte, not 0`) in `ferrite_last_error`, the same text Python and Go users see, and leaves the
//! options as they were. `ferrite_http_options_set_json` takes any number of keys at once, so an
//! option the core adds later reaches C without a new setter. Nothing here parses hosts, paths
//! or modes.

use std::ffi::c_char;

use ferrite_core::transport::http::config::snake_case;
use ferrite_core::transport::http::{HttpConfig, HttpConfigError, HttpOptions};
use serde_json::{Map, Value};

use crate::buffer::{give_string, opt_str_arg, parse_json, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};

/// How a POST carrying requests is answered (`ferrite_http_options_set_response_mode`); the
/// core's `response_mode` names `auto`, `json` and `sse`.
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

/// Options of the Streamable HTTP transport: the core's `HttpConfig`. Opaque; create with
/// `ferrite_http_options_new` (every option at its default), change with the setters or
/// `ferrite_http_options_set_json`, free with `ferrite_http_options_free`. Serving copies them,
/// so they can be freed or reused right after `ferrite_server_serve_http` /
/// `ferrite_server_http_bind`. Not synchronised: do not change one options object from two
/// threads at once.
#[allow(non_camel_case_types)]
pub struct ferrite_http_options {
    config: HttpConfig,
}

impl ferrite_http_options {
    /// The configuration, for binding.
    pub(crate) fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// Overlay `keys`, a JSON object (snake_case or camelCase keys; `null` puts a key back to
    /// its default), on the configuration, have the core check the result, and keep it only if
    /// it passes.
    fn merge(&mut self, keys: Value) -> Result<(), Error> {
        // The keys alone first, so an unknown or mistyped key (or a non-object) is reported as
        // given, before anything set earlier is looked at.
        HttpConfig::from_value(keys.clone()).map_err(invalid)?;
        let Value::Object(keys) = keys else {
            return Err(Error::invalid("invalid HTTP option options: expected an object of options"));
        };
        let mut merged = match serde_json::to_value(&self.config) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        for (key, value) in keys {
            let key = snake_case(&key);
            if value.is_null() {
                merged.remove(&key);
            } else {
                merged.insert(key, value);
            }
        }
        let config = HttpConfig::from_value(Value::Object(merged)).map_err(invalid)?;
        config.apply(&mut HttpOptions::default()).map_err(invalid)?;
        self.config = config;
        Ok(())
    }
}

/// The core's refusal, as is (keys are snake_case, C's idiom too).
pub(crate) fn invalid(e: HttpConfigError) -> Error {
    Error::invalid(e.to_string())
}

/// Apply one change to live options.
///
/// # Safety
/// `options` must be NULL or a live options handle not used by another thread meanwhile.
unsafe fn set(options: *mut ferrite_http_options, f: impl FnOnce() -> Result<Value, Error>) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: NULL or live and unshared, per the caller's contract.
        let o = unsafe { options.as_mut() }.ok_or_else(|| Error::null("options"))?;
        o.merge(f()?)
    })
}

/// One key.
fn key(name: &str, value: impl Into<Value>) -> Value {
    Value::Object(Map::from_iter([(name.to_owned(), value.into())]))
}

/// Create options with every default (the core's `HttpConfig` defaults): path `/mcp`, response
/// mode auto, 4 MiB body limit, sessions end after 30 minutes idle, at most 10000 sessions,
/// 30 s to read a request's head and 30 s its body, loopback hosts and origins only
/// (DNS-rebinding protection), resumable SSE streams (the last 1024 events of each of at most
/// 4096 streams kept in memory), `retry` hint 1 s, an SSE keep-alive comment every 15 s, legacy
/// HTTP+SSE off. Free with `ferrite_http_options_free`.
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_new(out: *mut *mut ferrite_http_options) -> ferrite_result {
    ffi_boundary!({
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let options = Box::new(ferrite_http_options { config: HttpConfig::default() });
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

/// Set any options at once from `json`, a JSON object of the core's `HttpConfig` keys
/// (snake_case; camelCase is read too): `host`, `port`, `path`, `response_mode` (`"auto"`,
/// `"json"`, `"sse"`), `max_body_bytes`, `session_idle_timeout_ms` (0: never),
/// `max_sessions` (default 10000; 0: unbounded; a new session past it evicts the longest idle
/// one, and when every session is busy the `initialize` gets 503 with `Retry-After`),
/// `header_read_timeout_ms` (default 30000; 0: never: a connection whose request head has not
/// arrived this long after it opened or went idle is closed), `body_read_timeout_ms` (default
/// 30000; 0: never: a request whose body has not arrived this long after its head gets 408),
/// `allowed_hosts`, `allowed_origins`, `allow_any_host`, `resumable`, `max_events_per_stream`
/// (default 1024: events the in-memory event store keeps per stream for resumption, oldest
/// dropped first), `max_event_streams` (default 4096: streams it keeps events of, least recent
/// dropped first), `sse_retry_ms`, `sse_keep_alive_ms` (0: never), `stream_buffer`,
/// `legacy_sse`, `legacy_sse_path`, `legacy_messages_path`, and whatever the core adds later. Keys not given keep their
/// current value; `null` puts a key back to its default. The setters below are shorthands
/// for one key each.
///
/// The core checks the result: an unknown key, a value of the wrong type or a bad value is
/// `FERRITE_RESULT_INVALID_ARGUMENT` with the core's message (`invalid HTTP option
/// max_body_bytes: must be at least 1 byte, not 0`) in `ferrite_last_error`, and the options
/// are left unchanged; text that is not JSON is `FERRITE_RESULT_INVALID_JSON`.
///
/// # Safety
/// `options` is a live options handle; `json` points to `json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_json(
    options: *mut ferrite_http_options,
    json: *const c_char,
    json_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe { set(options, || parse_json::<Value>(str_arg(json, json_len, "json")?, "json")) }
}

/// The options as JSON (the keys set so far, snake_case; `{}` when every option is at its
/// default), in a new buffer at `*out` (free it with `ferrite_string_free`); `*out_len` (if not
/// NULL) is its length.
///
/// # Safety
/// `options` is a live options handle; `out` is valid for a write; `out_len` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_get_json(
    options: *const ferrite_http_options,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: NULL or live, per this function's contract.
        let o = unsafe { options.as_ref() }.ok_or_else(|| Error::null("options"))?;
        let text = serde_json::to_string(&o.config).map_err(|e| Error::invalid(e.to_string()))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(text.as_bytes(), out, out_len) }
    })
}

/// `path`: the endpoint path (default `/mcp`), a literal path starting with `/`.
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
    unsafe { set(options, || Ok(key("path", str_arg(path, path_len, "path")?))) }
}

/// `max_body_bytes`: the largest accepted POST body (default 4 MiB); larger ones are answered
/// 413. At least 1.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_max_body_bytes(
    options: *mut ferrite_http_options,
    max_body_bytes: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe { set(options, || Ok(key("max_body_bytes", max_body_bytes as u64))) }
}

/// `session_idle_timeout_ms`: sessions idle this long end (default 30 minutes); later requests
/// with their id get 404. 0 means sessions never expire (only DELETE or close end them).
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_session_idle_timeout_ms(
    options: *mut ferrite_http_options,
    timeout_ms: u64,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe { set(options, || Ok(key("session_idle_timeout_ms", timeout_ms))) }
}

/// `response_mode`: how POSTs carrying requests are answered, a `ferrite_http_response_mode`.
/// A client whose `Accept` allows only one of JSON and SSE gets that one whatever the mode.
/// Another number is handed to the core as is, which refuses it
/// (`FERRITE_RESULT_INVALID_ARGUMENT`).
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_response_mode(
    options: *mut ferrite_http_options,
    mode: u32,
) -> ferrite_result {
    let name: Value = match mode {
        0 => "auto".into(),
        1 => "json".into(),
        2 => "sse".into(),
        other => other.into(),
    };
    // SAFETY: forwarded from this function's contract.
    unsafe { set(options, || Ok(key("response_mode", name))) }
}

/// A JSON array of names, or NULL for "back to the default".
///
/// # Safety
/// `json` is NULL or points to `json_len` readable bytes.
unsafe fn name_list(json: *const c_char, json_len: usize, what: &str) -> Result<Value, Error> {
    // SAFETY: forwarded from the caller's contract.
    match unsafe { opt_str_arg(json, json_len, what) }? {
        Some(text) => parse_json(text, what),
        None => Ok(Value::Null),
    }
}

/// `allowed_hosts`, DNS-rebinding protection: `hosts_json` is a JSON array of accepted `Host`
/// names without port (default `["localhost", "127.0.0.1", "[::1]"]`; IPv6 in brackets),
/// compared case-insensitively; other hosts get 403. NULL puts the default back; to turn the
/// check off (behind a proxy that checks hosts itself) use `ferrite_http_options_allow_any_host`.
/// An empty list, or an entry with a port, scheme or path, is refused by the core.
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
    unsafe { set(options, || Ok(key("allowed_hosts", name_list(hosts_json, hosts_json_len, "hosts_json")?))) }
}

/// `allowed_origins`, DNS-rebinding protection: `origins_json` is a JSON array of accepted
/// `scheme://host` origins, any port (default: `http` and `https` on the loopback names); a
/// request with another `Origin` gets 403, one without `Origin` is accepted. NULL puts the
/// default back.
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
    unsafe { set(options, || Ok(key("allowed_origins", name_list(origins_json, origins_json_len, "origins_json")?))) }
}

/// `allow_any_host`: accept every `Host` and `Origin` (both checks off). The core refuses it
/// together with `allowed_hosts` or `allowed_origins` (set those back with NULL first).
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_allow_any_host(options: *mut ferrite_http_options) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe { set(options, || Ok(key("allow_any_host", true))) }
}

/// `resumable`: whether SSE streams keep their events for `Last-Event-ID` resumption (stateful
/// servers; default true, in a bounded in-memory store). Without it, a dropped stream's
/// messages are lost and `ferrite_request_close_sse_stream` has nothing to resume.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_resumable(
    options: *mut ferrite_http_options,
    resumable: bool,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe { set(options, || Ok(key("resumable", resumable))) }
}

/// `sse_retry_ms`: the reconnection delay advertised to clients in SSE `retry` fields
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
    unsafe { set(options, || Ok(key("sse_retry_ms", retry_ms))) }
}

/// `legacy_sse`: also serve the deprecated 2024-11-05 HTTP+SSE transport for old clients
/// (`GET /sse`, `POST /messages?sessionId=...`; stateful servers). Default off.
///
/// # Safety
/// `options` is a live options handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_options_set_legacy_sse(
    options: *mut ferrite_http_options,
    enabled: bool,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    unsafe { set(options, || Ok(key("legacy_sse", enabled))) }
}
