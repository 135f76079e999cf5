//! Server settings of the 2026-07-28 revision: the keys and lifetime of sealed request state
//! (multi round-trip requests), and cache hints. The protocol itself (envelopes, sealing,
//! where hints go) is the core's; these only convert the host's values into the core's types.

use std::ffi::c_char;
use std::time::Duration;

use ferrite_core::request_state::SealingKey;
use ferrite_core::server::CacheHints;
use ferrite_core::{CacheHint, CacheScope};

use crate::buffer::{json_arg, opt_json_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::config;
use crate::server::{ferrite_server, server_ref};

/// A key from text; the error never repeats the text (it is a secret).
fn sealing_key(text: &str, what: &str) -> Result<SealingKey, Error> {
    SealingKey::parse(text).map_err(|e| Error::invalid(format!("{what}: {e}")))
}

/// Seal the `requestState` of "input required" replies with the key `current` and also
/// accept states sealed with the keys in `previous_json` (a JSON array of key strings, or
/// NULL for none): key rotation. A key is 32 bytes written as 64 hex characters or base64.
/// Every instance of a fleet behind one URL must use the same keys; without this call a
/// server seals with a random key of its own (states do not survive a restart).
/// `FERRITE_RESULT_INVALID_ARGUMENT` for a malformed key (the detail names which, never its
/// text). Any thread.
///
/// # Safety
/// `server` is a live server; `current` points to `current_len` readable bytes;
/// `previous_json` is NULL or points to `previous_json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_request_state_keys(
    server: *const ferrite_server,
    current: *const c_char,
    current_len: usize,
    previous_json: *const c_char,
    previous_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let current = sealing_key(unsafe { str_arg(current, current_len, "current") }?, "current")?;
        // SAFETY: forwarded from this function's contract.
        let previous: Option<Vec<String>> = unsafe { opt_json_arg(previous_json, previous_json_len, "previous_json") }?;
        let previous = previous
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, k)| sealing_key(k, &format!("previous_json[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        s.core()?.set_request_state_keys(current, previous);
        Ok(())
    })
}

/// How long a sealed request state stays valid after it was issued, in milliseconds (at
/// least 1; the default is 15 minutes). A client retrying later gets -32602. Any thread.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_request_state_ttl_ms(
    server: *const ferrite_server,
    ttl_ms: u64,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        if ttl_ms == 0 {
            return Err(Error::invalid("ttl_ms must be at least 1"));
        }
        s.core()?.set_request_state_ttl(Duration::from_millis(ttl_ms));
        Ok(())
    })
}

/// Set the cache hints 2026-07-28 results carry (`ttlMs`, `cacheScope`): `json` is the
/// core's `CacheHints` shape, `{"discover": {"ttlMs": 0, "cacheScope": "private"},
/// "toolsList": ..., "promptsList": ..., "resourcesList": ..., "templatesList": ...,
/// "resourceRead": ...}`; every member is optional and one left out takes the default
/// (`ttlMs` 0, `cacheScope` `"private"`). An unknown member or scope is
/// `FERRITE_RESULT_INVALID_ARGUMENT`. Per-resource hints
/// (`ferrite_server_set_resource_cache_hint`) override `resourceRead`. Any thread.
///
/// # Safety
/// `server` is a live server; `json` points to `json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_cache_hints(
    server: *const ferrite_server,
    json: *const c_char,
    json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let hints: CacheHints = unsafe { json_arg(json, json_len, "json") }?;
        s.core()?.set_cache_hints(hints);
        Ok(())
    })
}

/// Set the cache hint of reads of one registered resource or resource template, by its URI
/// or URI template: fresh for `ttl_ms` milliseconds, shareable by any cache when `public`
/// (otherwise per user). `FERRITE_RESULT_NOT_FOUND` if nothing is registered under `uri`;
/// re-registering the resource drops its hint. Any thread.
///
/// # Safety
/// `server` is a live server; `uri` points to `uri_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_resource_cache_hint(
    server: *const ferrite_server,
    uri: *const c_char,
    uri_len: usize,
    ttl_ms: u64,
    public: bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let uri = unsafe { str_arg(uri, uri_len, "uri") }?;
        let scope = if public { CacheScope::Public } else { CacheScope::Private };
        s.core()?.set_resource_cache_hint(uri, CacheHint::new(ttl_ms, scope)).map_err(config)
    })
}
