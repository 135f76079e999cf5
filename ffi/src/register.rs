//! The exports that register host callbacks (tools, resources, templates, prompts,
//! completers, observers) and remove them. Each takes ownership of `(user_data, finalizer)`
//! first, so the finalizer runs exactly once even when the registration is refused.

use std::ffi::{c_char, c_void};

use ferrite_core::{
    ClientCapabilities, CompletionReference, Prompt, Resource, ResourceTemplate, Server, TaskSupport, Tool,
};

use crate::buffer::{json_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{
    config, ferrite_completion_callback, ferrite_finalizer, ferrite_notification_callback, ferrite_prompt_callback,
    ferrite_resource_callback, ferrite_roots_changed_callback, ferrite_tool_callback, own, CCompleter, CObserver,
    CPrompt, CResource, CTool,
};
use crate::server::{ferrite_server, server_ref};

/// Whether a tool's calls run as tasks: `Tool.execution.taskSupport` on the wire.
/// The numbers are stable. Pass one to `ferrite_server_add_tool_with_task_support`.
#[repr(u32)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub enum ferrite_task_support {
    /// Never a task (a tool without `execution.taskSupport` is this).
    Forbidden = 0,
    /// A task when the client asks for one (2025-11-25 `params.task`) or declares the tasks
    /// extension (2026-07-28); otherwise an ordinary call.
    Optional = 1,
    /// Only as a task: a client that cannot take one gets the core's error (-32601 on
    /// 2025-11-25, -32021 on 2026-07-28).
    Required = 2,
}

fn task_support(v: u32) -> Result<TaskSupport, Error> {
    Ok(match v {
        0 => TaskSupport::Forbidden,
        1 => TaskSupport::Optional,
        2 => TaskSupport::Required,
        _ => return Err(Error::invalid(format!("{v} is not a ferrite_task_support (0, 1 or 2)"))),
    })
}

/// Parse a tool descriptor and register it.
///
/// # Safety
/// As `ferrite_server_add_tool`.
unsafe fn add_tool(
    server: *const ferrite_server,
    tool_json: *const c_char,
    tool_json_len: usize,
    support: Option<u32>,
    callback: ferrite_tool_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> Result<(), Error> {
    let (f, data) = own(callback, user_data, finalizer)?;
    // SAFETY: forwarded from the caller's contract.
    let s = unsafe { server_ref(server) }?;
    // SAFETY: forwarded from the caller's contract.
    let mut tool: Tool = unsafe { json_arg(tool_json, tool_json_len, "tool_json") }?;
    // A taskSupport word in the JSON is the core's to judge (ConfigError::InvalidTaskSupport).
    if let Some(v) = support {
        tool = tool.with_task_support(task_support(v)?);
    }
    let core = s.core()?;
    core.add_tool(tool, CTool { f, data, runtime: s.runtime_handle() }).map_err(config)
}

/// Register (or replace) a tool. `tool_json` is its descriptor, the MCP `Tool` shape
/// (`{"name": "add", "description": ..., "inputSchema": {...}, "outputSchema": {...}}`);
/// arguments are validated against `inputSchema` before `callback` runs. A descriptor's
/// `execution.taskSupport` (`"forbidden"`, `"optional"`, `"required"`) says whether calls run
/// as tasks, as `ferrite_server_add_tool_with_task_support` does; any other value is
/// `FERRITE_RESULT_INVALID_ARGUMENT`.
///
/// Ownership of `user_data` passes to Ferrite in every case: if this call fails, `finalizer`
/// has run before it returns; otherwise it runs once when the tool is dropped (removed,
/// replaced, or the server closed). `callback` runs on a server worker thread, possibly on
/// several at once: `user_data` must tolerate concurrent use from any thread.
///
/// # Safety
/// `server` is a live server; `tool_json` points to `tool_json_len` readable bytes; the
/// callback and finalizer are safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_tool(
    server: *const ferrite_server,
    tool_json: *const c_char,
    tool_json_len: usize,
    callback: ferrite_tool_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe { add_tool(server, tool_json, tool_json_len, None, callback, user_data, finalizer) }
    })
}

/// Register (or replace) a tool whose calls may or must run as tasks: as
/// `ferrite_server_add_tool`, with `task_support` (a `ferrite_task_support`) written into the
/// descriptor's `execution.taskSupport` (other `execution` keys are kept; a `taskSupport`
/// already there is replaced). A number that is not a `ferrite_task_support` is
/// `FERRITE_RESULT_INVALID_ARGUMENT` (the finalizer has run).
///
/// The callback is the tool's ordinary handler: the core decides per call whether it runs
/// inline or as a task's body (see "Tasks" in ffi/README.md). Inside a task
/// `ferrite_request_is_task` is true, cancellation (`ferrite_request_is_cancelled`,
/// `ferrite_request_on_cancel`) is the task's (`tasks/cancel`), `ferrite_request_elicit`,
/// `_sample` and `_list_roots` and an input-required reply wait in the task until the client
/// answers (in both protocol eras), and logs, progress and notifications are dropped. A
/// handler that fails (`ferrite_request_fail`, `_fail_rpc`, or a failing status) ends the task
/// as failed; the server keeps serving.
///
/// # Safety
/// As `ferrite_server_add_tool`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_tool_with_task_support(
    server: *const ferrite_server,
    tool_json: *const c_char,
    tool_json_len: usize,
    task_support: u32,
    callback: ferrite_tool_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe { add_tool(server, tool_json, tool_json_len, Some(task_support), callback, user_data, finalizer) }
    })
}

/// Register (or replace, by URI) a direct resource. `resource_json` is the MCP `Resource`
/// shape (`{"uri": ..., "name": ..., "mimeType": ...}`). Ownership and threads as for
/// `ferrite_server_add_tool`.
///
/// # Safety
/// As `ferrite_server_add_tool`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_resource(
    server: *const ferrite_server,
    resource_json: *const c_char,
    resource_json_len: usize,
    callback: ferrite_resource_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let resource: Resource = unsafe { json_arg(resource_json, resource_json_len, "resource_json") }?;
        s.core()?.add_resource(resource, CResource { f, data, runtime: s.runtime_handle() });
        Ok(())
    })
}

/// Register (or replace, by URI template) a resource template. `template_json` is the MCP
/// `ResourceTemplate` shape (`{"uriTemplate": "test://item/{id}", "name": ...}`); the
/// callback gets the captured variables. Ownership and threads as for
/// `ferrite_server_add_tool`.
///
/// # Safety
/// As `ferrite_server_add_tool`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_resource_template(
    server: *const ferrite_server,
    template_json: *const c_char,
    template_json_len: usize,
    callback: ferrite_resource_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let template: ResourceTemplate = unsafe { json_arg(template_json, template_json_len, "template_json") }?;
        s.core()?.add_resource_template(template, CResource { f, data, runtime: s.runtime_handle() }).map_err(config)
    })
}

/// Register (or replace) a prompt. `prompt_json` is the MCP `Prompt` shape (`{"name": ...,
/// "arguments": [{"name": ..., "required": true}]}`). Ownership and threads as for
/// `ferrite_server_add_tool`.
///
/// # Safety
/// As `ferrite_server_add_tool`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_prompt(
    server: *const ferrite_server,
    prompt_json: *const c_char,
    prompt_json_len: usize,
    callback: ferrite_prompt_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let prompt: Prompt = unsafe { json_arg(prompt_json, prompt_json_len, "prompt_json") }?;
        s.core()?.add_prompt(prompt, CPrompt { f, data, runtime: s.runtime_handle() });
        Ok(())
    })
}

/// Set the global completion handler, tried before per-argument completers (replacing any
/// previous one). Ownership and threads as for `ferrite_server_add_tool`.
///
/// # Safety
/// As `ferrite_server_add_tool`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_completion_handler(
    server: *const ferrite_server,
    callback: ferrite_completion_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        s.core()?.set_completion_handler(CCompleter { f, data, runtime: s.runtime_handle() });
        Ok(())
    })
}

/// Register a completer for one argument of one reference. `reference_json` is a completion
/// reference (`{"type": "ref/prompt", "name": ...}` or `{"type": "ref/resource", "uri":
/// ...}`). Ownership and threads as for `ferrite_server_add_tool`.
///
/// # Safety
/// As `ferrite_server_add_tool`; `argument` points to `argument_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_argument_completer(
    server: *const ferrite_server,
    reference_json: *const c_char,
    reference_json_len: usize,
    argument: *const c_char,
    argument_len: usize,
    callback: ferrite_completion_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let reference: CompletionReference = unsafe { json_arg(reference_json, reference_json_len, "reference_json") }?;
        // SAFETY: forwarded from this function's contract.
        let argument = unsafe { str_arg(argument, argument_len, "argument") }?;
        s.core()?.set_argument_completer(reference, argument, CCompleter { f, data, runtime: s.runtime_handle() });
        Ok(())
    })
}

/// Complete one argument of one reference from a fixed list: `candidates_json` is a JSON
/// array of strings; the values starting with the typed prefix are offered.
///
/// # Safety
/// `server` is a live server; the strings point to their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_argument_candidates(
    server: *const ferrite_server,
    reference_json: *const c_char,
    reference_json_len: usize,
    argument: *const c_char,
    argument_len: usize,
    candidates_json: *const c_char,
    candidates_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let (reference, argument, candidates) = unsafe {
            (
                json_arg::<CompletionReference>(reference_json, reference_json_len, "reference_json")?,
                str_arg(argument, argument_len, "argument")?,
                json_arg::<Vec<String>>(candidates_json, candidates_json_len, "candidates_json")?,
            )
        };
        s.core()?.set_argument_candidates(reference, argument, candidates);
        Ok(())
    })
}

/// Observe every client notification (replacing any previous observer). Ownership as for
/// `ferrite_server_add_tool`; the callback runs on the connection's read loop (a worker thread).
///
/// # Safety
/// As `ferrite_server_add_tool`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_notification_observer(
    server: *const ferrite_server,
    callback: ferrite_notification_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        s.core()?.set_notification_observer(CObserver { f, data });
        Ok(())
    })
}

/// Observe `notifications/roots/list_changed` (replacing any previous observer). Ownership
/// as for `ferrite_server_add_tool`; the callback runs on the connection's read loop (a worker thread).
///
/// # Safety
/// As `ferrite_server_add_tool`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_roots_list_changed_observer(
    server: *const ferrite_server,
    callback: ferrite_roots_changed_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        s.core()?.set_roots_list_changed_observer(move || {
            // SAFETY: the host registered `f` for `data`.
            unsafe { f(data.ptr()) }
        });
        Ok(())
    })
}

/// Declare the client capabilities a tool needs (`caps_json`, the MCP `ClientCapabilities`
/// shape, e.g. `{"sampling": {}}`); calls from clients lacking them are refused.
/// `FERRITE_RESULT_NOT_FOUND` if no such tool is registered.
///
/// # Safety
/// `server` is a live server; the strings point to their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_tool_required_client_capabilities(
    server: *const ferrite_server,
    name: *const c_char,
    name_len: usize,
    caps_json: *const c_char,
    caps_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let (name, caps) = unsafe {
            (str_arg(name, name_len, "name")?, json_arg::<ClientCapabilities>(caps_json, caps_json_len, "caps_json")?)
        };
        s.core()?.set_tool_required_client_capabilities(name, caps).map_err(config)
    })
}

/// Remove a registration by key; `NotFound` if there was none.
///
/// # Safety
/// `server` NULL or live; `key` NULL or `key_len` readable bytes.
pub(crate) unsafe fn remove(
    server: *const ferrite_server,
    key: *const c_char,
    key_len: usize,
    what: &str,
    method: fn(&Server, &str) -> bool,
) -> Result<(), Error> {
    // SAFETY: forwarded from the caller's contract.
    let s = unsafe { server_ref(server) }?;
    // SAFETY: forwarded from the caller's contract.
    let key = unsafe { str_arg(key, key_len, what) }?;
    if method(&s.core()?, key) {
        Ok(())
    } else {
        Err(Error::new(ferrite_result::NotFound, format!("no {what} {key:?} is registered")))
    }
}

/// Remove a tool by name. Its finalizer runs now, on this thread, after the server released
/// its registry (so it may call back into the server), or, if a call of the tool is still
/// running, when that call ends, on the thread that ends it. `FERRITE_RESULT_NOT_FOUND` if
/// there was none.
///
/// # Safety
/// `server` is a live server; `key` points to `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_remove_tool(
    server: *const ferrite_server,
    key: *const c_char,
    key_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { remove(server, key, key_len, "tool", Server::remove_tool) } })
}

/// Remove a direct resource by URI; finalizer as for `ferrite_server_remove_tool`.
/// `FERRITE_RESULT_NOT_FOUND` if there was none.
///
/// # Safety
/// `server` is a live server; `key` points to `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_remove_resource(
    server: *const ferrite_server,
    key: *const c_char,
    key_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { remove(server, key, key_len, "resource", Server::remove_resource) } })
}

/// Remove a resource template by its URI template; finalizer as for
/// `ferrite_server_remove_tool`. `FERRITE_RESULT_NOT_FOUND` if there was none.
///
/// # Safety
/// `server` is a live server; `key` points to `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_remove_resource_template(
    server: *const ferrite_server,
    key: *const c_char,
    key_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { remove(server, key, key_len, "resource template", Server::remove_resource_template) } })
}

/// Remove a prompt by name; finalizer as for `ferrite_server_remove_tool`.
/// `FERRITE_RESULT_NOT_FOUND` if there was none.
///
/// # Safety
/// `server` is a live server; `key` points to `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_remove_prompt(
    server: *const ferrite_server,
    key: *const c_char,
    key_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { remove(server, key, key_len, "prompt", Server::remove_prompt) } })
}
