//! The C ABI's JSON entry points called as C calls them, on arbitrary bytes, each passed as a
//! NUL-terminated copy with its length: shared by the `ffi_json` fuzz target (libFuzzer) and
//! `tests/json_entry_points.rs` (every seed of that target as a test, also under Miri).
//!
//! Input: the first byte picks the entry point; the rest is its text, split at the first
//! `\n` where an entry point takes two (a JSON document and a pointer, an id and settings).
//! Invariant: every call returns a defined result code and never `FERRITE_RESULT_PANIC`
//! (libFuzzer's panic hook aborts on a panic even inside the panic boundary, so a caught panic
//! is a crash too); text results are valid UTF-8 and, where documented, JSON.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_void};
use std::ptr;
use std::sync::Mutex;

use ferrite::auth::{ferrite_auth_free, ferrite_auth_new};
use ferrite::buffer::{ferrite_str, ferrite_string_free};
use ferrite::connection::{ferrite_connection_free, ferrite_connection_new, ferrite_server_handle_raw_on};
use ferrite::error::ferrite_result;
use ferrite::extension::{ferrite_server_add_extension, ferrite_server_add_skill};
use ferrite::http::options::{
    ferrite_http_options_free, ferrite_http_options_get_json, ferrite_http_options_new,
    ferrite_http_options_set_allowed_hosts, ferrite_http_options_set_allowed_origins, ferrite_http_options_set_json,
};
use ferrite::json::{ferrite_json_get, ferrite_json_get_i64, ferrite_json_get_string, ferrite_json_quote};
use ferrite::modern::{ferrite_server_set_cache_hints, ferrite_server_set_request_state_keys};
use ferrite::register::{
    ferrite_server_add_prompt, ferrite_server_add_resource, ferrite_server_add_resource_template,
    ferrite_server_add_tool, ferrite_server_remove_prompt, ferrite_server_remove_resource,
    ferrite_server_remove_resource_template, ferrite_server_remove_tool, ferrite_server_set_argument_candidates,
    ferrite_server_set_tool_required_client_capabilities,
};
use ferrite::request::{
    ferrite_request, ferrite_request_complete, ferrite_request_complete_text, ferrite_request_fail_rpc,
};
use ferrite::server::{ferrite_server, ferrite_server_free, ferrite_server_handle_raw, ferrite_server_new};
use serde_json::json;
use serde_json::value::RawValue;

// Exported from modules the crate keeps private: declared here as C declares them (the
// request handle is opaque on both sides, hence the lint).
#[allow(improper_ctypes)]
extern "C" {
    fn ferrite_request_input_required(
        request: *mut ferrite_request,
        input_requests_json: *const c_char,
        input_requests_json_len: usize,
        request_state: *const c_char,
        request_state_len: usize,
    ) -> ferrite_result;
    fn ferrite_request_log(
        request: *const ferrite_request,
        level: u32,
        data_json: *const c_char,
        data_json_len: usize,
        logger: *const c_char,
        logger_len: usize,
        sent: *mut bool,
    ) -> ferrite_result;
    fn ferrite_request_notify(
        request: *const ferrite_request,
        method: *const c_char,
        method_len: usize,
        params_json: *const c_char,
        params_json_len: usize,
    ) -> ferrite_result;
}

/// A NUL-terminated copy of `bytes`, as a C caller holds it.
struct CText(Vec<u8>);

impl CText {
    fn new(bytes: &[u8]) -> Self {
        let mut v = bytes.to_vec();
        v.push(0);
        CText(v)
    }
    fn ptr(&self) -> *const c_char {
        self.0.as_ptr().cast()
    }
    fn len(&self) -> usize {
        self.0.len() - 1
    }
}

/// Fail on a panic caught by the boundary; accept every other code.
fn ok(what: &str, r: ferrite_result) -> bool {
    assert!(!matches!(r, ferrite_result::Panic), "{what} panicked inside the boundary");
    matches!(r, ferrite_result::Ok)
}

/// Take an owned buffer Ferrite returned: check it is UTF-8 (and JSON when `json`), free it.
fn take(out: *mut c_char, len: usize, json: bool) {
    if out.is_null() {
        return;
    }
    // SAFETY: Ferrite returned `out` with `len` readable bytes; it is freed right after.
    let bytes = unsafe { std::slice::from_raw_parts(out.cast::<u8>(), len) };
    let text = std::str::from_utf8(bytes).expect("Ferrite returns UTF-8");
    // JSON syntax, not serde_json's range of numbers: `1E99999` is JSON that `Value` refuses.
    if json && !text.is_empty() {
        assert!(serde_json::from_str::<Box<RawValue>>(text).is_ok(), "not JSON: {text:?}");
    }
    // SAFETY: an owned buffer from Ferrite, freed once.
    unsafe { ferrite_string_free(out) };
}

/// What the `complete` tool does with the input when the server calls it.
static PLAN: Mutex<(u8, Vec<u8>, Vec<u8>)> = Mutex::new((0, Vec::new(), Vec::new()));

unsafe extern "C" fn complete_tool(_user: *mut c_void, request: *mut ferrite_request) -> u32 {
    let (op, a, b) = PLAN.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let (a, b) = (CText::new(&a), CText::new(&b));
    // SAFETY: `request` is the live request this callback was handed; the texts outlive the
    // calls.
    let r = unsafe {
        match op % 5 {
            0 => ferrite_request_complete(request, a.ptr(), a.len()),
            1 => ferrite_request_complete_text(request, b.ptr(), b.len(), a.ptr(), a.len()),
            2 => ferrite_request_fail_rpc(request, -32000 - i32::from(op), b.ptr(), b.len(), a.ptr(), a.len()),
            3 => ferrite_request_input_required(request, a.ptr(), a.len(), b.ptr(), b.len()),
            _ => {
                let mut sent = false;
                ok(
                    "ferrite_request_log",
                    ferrite_request_log(request, u32::from(op) % 9, a.ptr(), a.len(), b.ptr(), b.len(), &mut sent),
                );
                ok("ferrite_request_notify", ferrite_request_notify(request, b.ptr(), b.len(), a.ptr(), a.len()));
                ferrite_request_complete(request, a.ptr(), a.len())
            }
        }
    };
    ok("completing the request", r);
    // A request left unsettled after a failed completion is failed by the binding.
    r as u32
}

unsafe extern "C" fn refuse_resource(_: *mut c_void, _: *mut ferrite_request, _: ferrite_str, _: ferrite_str) -> u32 {
    ferrite_result::HandlerFailed as u32
}

unsafe extern "C" fn refuse(_: *mut c_void, _: *mut ferrite_request) -> u32 {
    ferrite_result::HandlerFailed as u32
}

struct Shared(*mut ferrite_server);
// SAFETY: a ferrite_server may be used from any thread (the C ABI's contract); this one is
// freed only by `free_server`, when no call uses it.
unsafe impl Send for Shared {}

/// The server every input calls into, made on first use.
static SERVER: Mutex<Option<Shared>> = Mutex::new(None);

fn server() -> *const ferrite_server {
    let mut slot = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    slot.get_or_insert_with(|| {
        let info = CText::new(br#"{"name":"fuzz","version":"1"}"#);
        let mut out = ptr::null_mut();
        // SAFETY: valid texts and out pointer.
        let r = unsafe { ferrite_server_new(info.ptr(), info.len(), 1, ptr::null(), 0, &mut out) };
        assert!(ok("ferrite_server_new", r));
        let tool = CText::new(br#"{"name":"complete","inputSchema":{"type":"object"}}"#);
        // SAFETY: a live server; a callback that upholds the tool contract; no user data.
        let r = unsafe { ferrite_server_add_tool(out, tool.ptr(), tool.len(), Some(complete_tool), ptr::null_mut(), None) };
        assert!(ok("ferrite_server_add_tool", r));
        let caps = CText::new(br#"{"name":"caps","inputSchema":{"type":"object"}}"#);
        // SAFETY: as above.
        let r = unsafe { ferrite_server_add_tool(out, caps.ptr(), caps.len(), Some(refuse), ptr::null_mut(), None) };
        assert!(ok("ferrite_server_add_tool", r));
        let init = CText::new(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
        let mut text = ptr::null_mut();
        let mut len = 0;
        // SAFETY: live server, valid text and out pointers.
        let r = unsafe { ferrite_server_handle_raw(out, init.ptr(), init.len(), &mut text, &mut len) };
        assert!(ok("initialize", r));
        take(text, len, true);
        Shared(out)
    })
    .0
}

/// Free the shared server (its worker threads joined): a test ends with nothing left running,
/// so that Miri can check that nothing leaked. The next input makes a new one.
#[allow(dead_code)] // the fuzz target never frees it
pub fn free_server() {
    let taken = SERVER.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(Shared(s)) = taken {
        // SAFETY: a live server no call uses any more, freed once.
        unsafe { ferrite_server_free(s) };
    }
}

/// The `key` field of a descriptor, to remove what a registration added.
fn key_of(json: &[u8], field: &str) -> Option<CText> {
    // Read as the core reads a descriptor: the other fields are only checked for syntax. (A
    // `Value` would refuse what the core accepts in a field it ignores, such as a number out of
    // f64's range: the hour-long run's one find, now a seed.)
    let fields: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(json).ok()?;
    let text: String = serde_json::from_str(fields.get(field)?.get()).ok()?;
    Some(CText::new(text.as_bytes()))
}

/// One input: the first byte picks the entry point; the rest is its text (see the module doc).
pub fn run(data: &[u8]) {
    let Some((&op, rest)) = data.split_first() else { return };
    let (first, second) = match rest.iter().position(|b| *b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &b""[..]),
    };
    let (all, a, b) = (CText::new(rest), CText::new(first), CText::new(second));
    let s = server();
    let mut out: *mut c_char = ptr::null_mut();
    let mut out_len = 0usize;
    // SAFETY: for every call below, `s` is a live server, every text is a NUL-terminated
    // copy that outlives the call with its exact length, and out pointers are valid for
    // writes.
    unsafe {
        match op % 20 {
            0 => {
                let mut srv = ptr::null_mut();
                if ok(
                    "ferrite_server_new",
                    ferrite_server_new(a.ptr(), a.len(), u32::from(op >> 5), b.ptr(), b.len(), &mut srv),
                ) {
                    ferrite_server_free(srv);
                }
            }
            1 => {
                if ok(
                    "ferrite_server_add_tool",
                    ferrite_server_add_tool(s, all.ptr(), all.len(), Some(refuse), ptr::null_mut(), None),
                ) {
                    let name = key_of(rest, "name").expect("an accepted tool has a name");
                    if name.0 != b"complete\0" && name.0 != b"caps\0" {
                        ok("ferrite_server_remove_tool", ferrite_server_remove_tool(s, name.ptr(), name.len()));
                    }
                }
            }
            2 => {
                if ok(
                    "ferrite_server_add_resource",
                    ferrite_server_add_resource(s, all.ptr(), all.len(), Some(refuse_resource), ptr::null_mut(), None),
                ) {
                    let uri = key_of(rest, "uri").expect("an accepted resource has a uri");
                    ok("ferrite_server_remove_resource", ferrite_server_remove_resource(s, uri.ptr(), uri.len()));
                }
            }
            3 => {
                if ok(
                    "ferrite_server_add_resource_template",
                    ferrite_server_add_resource_template(
                        s,
                        all.ptr(),
                        all.len(),
                        Some(refuse_resource),
                        ptr::null_mut(),
                        None,
                    ),
                ) {
                    let t = key_of(rest, "uriTemplate").expect("an accepted template has a uriTemplate");
                    ok(
                        "ferrite_server_remove_resource_template",
                        ferrite_server_remove_resource_template(s, t.ptr(), t.len()),
                    );
                }
            }
            4 => {
                if ok(
                    "ferrite_server_add_prompt",
                    ferrite_server_add_prompt(s, all.ptr(), all.len(), Some(refuse), ptr::null_mut(), None),
                ) {
                    let name = key_of(rest, "name").expect("an accepted prompt has a name");
                    ok("ferrite_server_remove_prompt", ferrite_server_remove_prompt(s, name.ptr(), name.len()));
                }
            }
            5 => {
                let arg = CText::new(b"arg");
                ok(
                    "ferrite_server_set_argument_candidates",
                    ferrite_server_set_argument_candidates(s, a.ptr(), a.len(), arg.ptr(), arg.len(), b.ptr(), b.len()),
                );
            }
            6 => {
                let name = CText::new(b"caps");
                ok(
                    "ferrite_server_set_tool_required_client_capabilities",
                    ferrite_server_set_tool_required_client_capabilities(
                        s,
                        name.ptr(),
                        name.len(),
                        all.ptr(),
                        all.len(),
                    ),
                );
            }
            7 => {
                ok("ferrite_server_add_extension", ferrite_server_add_extension(s, a.ptr(), a.len(), b.ptr(), b.len()));
            }
            8 => {
                ok("ferrite_server_add_skill", ferrite_server_add_skill(s, a.ptr(), a.len(), b.ptr(), b.len()));
            }
            9 => {
                ok("ferrite_server_set_cache_hints", ferrite_server_set_cache_hints(s, all.ptr(), all.len()));
            }
            10 => {
                ok(
                    "ferrite_server_set_request_state_keys",
                    ferrite_server_set_request_state_keys(s, a.ptr(), a.len(), b.ptr(), b.len()),
                );
            }
            11 => {
                let mut o = ptr::null_mut();
                assert!(ok("ferrite_http_options_new", ferrite_http_options_new(&mut o)));
                ok("ferrite_http_options_set_json", ferrite_http_options_set_json(o, all.ptr(), all.len()));
                ok(
                    "ferrite_http_options_set_allowed_hosts",
                    ferrite_http_options_set_allowed_hosts(o, a.ptr(), a.len()),
                );
                ok(
                    "ferrite_http_options_set_allowed_origins",
                    ferrite_http_options_set_allowed_origins(o, b.ptr(), b.len()),
                );
                if ok("ferrite_http_options_get_json", ferrite_http_options_get_json(o, &mut out, &mut out_len)) {
                    take(out, out_len, true);
                }
                ferrite_http_options_free(o);
            }
            12 => {
                let mut auth = ptr::null_mut();
                if ok(
                    "ferrite_auth_new",
                    ferrite_auth_new(all.ptr(), all.len(), None, ptr::null_mut(), None, &mut auth),
                ) {
                    ferrite_auth_free(auth);
                }
            }
            13 => {
                if ok("ferrite_json_get", ferrite_json_get(a.ptr(), a.len(), b.ptr(), b.len(), &mut out, &mut out_len))
                {
                    take(out, out_len, true);
                }
            }
            14 => {
                if ok(
                    "ferrite_json_get_string",
                    ferrite_json_get_string(a.ptr(), a.len(), b.ptr(), b.len(), &mut out, &mut out_len),
                ) {
                    take(out, out_len, false);
                }
                let mut n = 0i64;
                ok("ferrite_json_get_i64", ferrite_json_get_i64(a.ptr(), a.len(), b.ptr(), b.len(), &mut n));
            }
            15 => {
                if ok("ferrite_json_quote", ferrite_json_quote(all.ptr(), all.len(), &mut out, &mut out_len)) {
                    // SAFETY: an owned buffer of `out_len` bytes.
                    let quoted = std::slice::from_raw_parts(out.cast::<u8>(), out_len).to_vec();
                    take(out, out_len, true);
                    let back: String = serde_json::from_slice(&quoted).expect("a quoted text is a JSON string");
                    assert_eq!(back.as_bytes(), rest, "quoting does not round-trip");
                }
            }
            16 => {
                if ok(
                    "ferrite_server_handle_raw",
                    ferrite_server_handle_raw(s, all.ptr(), all.len(), &mut out, &mut out_len),
                ) {
                    take(out, out_len, true);
                }
            }
            17 => {
                let mut conn = ptr::null_mut();
                assert!(ok(
                    "ferrite_connection_new",
                    ferrite_connection_new(s, None, ptr::null_mut(), None, &mut conn)
                ));
                if ok(
                    "ferrite_server_handle_raw_on",
                    ferrite_server_handle_raw_on(s, conn, all.ptr(), all.len(), &mut out, &mut out_len),
                ) {
                    take(out, out_len, true);
                }
                ferrite_connection_free(conn);
            }
            _ => {
                // The result builders, from inside a tool call.
                *PLAN.lock().unwrap_or_else(|p| p.into_inner()) = (op / 20, first.to_vec(), second.to_vec());
                let call = CText::new(
                    json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"complete","arguments":{}}})
                        .to_string()
                        .as_bytes(),
                );
                if ok("tools/call", ferrite_server_handle_raw(s, call.ptr(), call.len(), &mut out, &mut out_len)) {
                    take(out, out_len, true);
                }
            }
        }
    }
}
