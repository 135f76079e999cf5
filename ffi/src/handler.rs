//! Host callbacks as the core's handler traits, and the exports that register them.
//!
//! Each callback arrives as the triple `(fn, user_data, finalizer)`. [`UserData`] owns the
//! pair `(user_data, finalizer)` and runs the finalizer exactly once when dropped, which is
//! when the core drops the handler (removed, replaced, or the server closed), or at once when
//! registration fails. A struct per handler kind (`CTool`, `CResource`, ...) implements the
//! core's trait, so the core never knows it serves C.

use std::ffi::{c_char, c_void};

use ferrite_core::server::{
    CompletionHandler, NotificationObserver, PromptHandler, ResourceHandler, TemplateVariables, ToolHandler,
};
use ferrite_core::{
    CallToolResult, ClientCapabilities, CompleteRequest, CompleteResult, CompletionReference, GetPromptResult,
    HandlerError, Prompt, ReadResourceResult, Reply, RequestContext, Resource, ResourceTemplate, Server, Tool,
};
use serde_json::{json, Map, Value};
use tokio::runtime::Handle;

use crate::buffer::{ferrite_str, json_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::request::{ferrite_request, invoke, Completed, ResultKind};
use crate::server::{ferrite_server, server_ref};

/// Called once with the `user_data` it was registered with, when Ferrite no longer needs it
/// (NULL: nothing to free). Runs on whichever thread drops the handler: the one calling
/// `ferrite_server_close`/`_free` or replacing/removing the handler, or the registering
/// thread when registration fails.
#[allow(non_camel_case_types)]
pub type ferrite_finalizer = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A host's `user_data` and its finalizer.
pub(crate) struct UserData {
    ptr: *mut c_void,
    finalizer: ferrite_finalizer,
}

// SAFETY: the header's contract makes the host promise that user_data tolerates use from any
// thread, concurrently; Ferrite itself only passes the pointer back.
unsafe impl Send for UserData {}
// SAFETY: as for Send.
unsafe impl Sync for UserData {}

impl UserData {
    pub(crate) fn new(ptr: *mut c_void, finalizer: ferrite_finalizer) -> UserData {
        UserData { ptr, finalizer }
    }
    pub(crate) fn ptr(&self) -> *mut c_void {
        self.ptr
    }
}

impl Drop for UserData {
    fn drop(&mut self) {
        if let Some(f) = self.finalizer.take() {
            // SAFETY: the host registered this finalizer for this pointer; it runs once.
            unsafe { f(self.ptr) }
        }
    }
}

/// A tool handler. The call's arguments (a JSON object, validated against the input schema)
/// are on `request`: `ferrite_request_argument_i64` / `_string` read one by JSON Pointer
/// without any JSON parsing, `ferrite_request_arguments` gives them all as JSON text.
/// Complete `request` with a `CallToolResult` (or `ferrite_request_complete_text`) before
/// returning `FERRITE_RESULT_OK`, or return `FERRITE_RESULT_PENDING` and complete it later
/// from any thread. Any other return value fails the call. Returns a `ferrite_result` value.
#[allow(non_camel_case_types)]
pub type ferrite_tool_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, request: *mut ferrite_request) -> u32>;

/// A resource reader, for direct resources and templates: `uri` is the URI read;
/// `variables_json` is a JSON object of the template's captured variables (`{}` for a
/// direct resource). Complete with a `ReadResourceResult`; otherwise as
/// `ferrite_tool_callback`.
#[allow(non_camel_case_types)]
pub type ferrite_resource_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request: *mut ferrite_request,
        uri: ferrite_str,
        variables_json: ferrite_str,
    ) -> u32,
>;

/// A prompt handler. The prompt's arguments (a JSON object of strings; required ones are
/// checked before the call) are on `request`, read as for `ferrite_tool_callback`. Complete
/// with a `GetPromptResult`; otherwise as `ferrite_tool_callback`.
#[allow(non_camel_case_types)]
pub type ferrite_prompt_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, request: *mut ferrite_request) -> u32>;

/// A completer: `request_json` is the `completion/complete` params
/// (`{"ref": {...}, "argument": {"name", "value"}, "context": {"arguments": {...}}}`).
/// Complete with a `CompleteResult` (`{"completion": {"values": [...]}}`); otherwise as
/// `ferrite_tool_callback`.
#[allow(non_camel_case_types)]
pub type ferrite_completion_callback = Option<
    unsafe extern "C" fn(user_data: *mut c_void, request: *mut ferrite_request, request_json: ferrite_str) -> u32,
>;

/// Observes a client notification after the server processed it: `method` and `params_json`
/// (`null` when it had none), borrowed for the call. Runs on the connection's read loop (a
/// worker thread): return quickly.
#[allow(non_camel_case_types)]
pub type ferrite_notification_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, method: ferrite_str, params_json: ferrite_str)>;

/// Observes `notifications/roots/list_changed`; as `ferrite_notification_callback`.
#[allow(non_camel_case_types)]
pub type ferrite_roots_changed_callback = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

type ToolFn = unsafe extern "C" fn(*mut c_void, *mut ferrite_request) -> u32;
type CompleterFn = unsafe extern "C" fn(*mut c_void, *mut ferrite_request, ferrite_str) -> u32;
type ResourceFn = unsafe extern "C" fn(*mut c_void, *mut ferrite_request, ferrite_str, ferrite_str) -> u32;

struct CTool {
    f: ToolFn,
    data: UserData,
    runtime: Handle,
}

impl ToolHandler for CTool {
    fn call(
        &self,
        arguments: Value,
        ctx: RequestContext,
    ) -> ferrite_core::BoxFuture<'static, Result<Reply<CallToolResult>, HandlerError>> {
        let extract = |c| match c {
            Completed::Tool(r) => Some(r),
            _ => None,
        };
        invoke(ctx, ResultKind::Tool, Some(arguments), self.runtime.clone(), extract, |req| {
            // SAFETY: the host registered `f` for `data`; `req` outlives the call.
            unsafe { (self.f)(self.data.ptr(), req) }
        })
    }
}

struct CResource {
    f: ResourceFn,
    data: UserData,
    runtime: Handle,
}

impl ResourceHandler for CResource {
    fn read(
        &self,
        uri: String,
        variables: TemplateVariables,
        ctx: RequestContext,
    ) -> ferrite_core::BoxFuture<'static, Result<Reply<ReadResourceResult>, HandlerError>> {
        let vars = json!(variables).to_string();
        let extract = |c| match c {
            Completed::Resource(r) => Some(r),
            _ => None,
        };
        invoke(ctx, ResultKind::Resource, None, self.runtime.clone(), extract, |req| {
            // SAFETY: the host registered `f` for `data`; `req`, `uri`, `vars` outlive the call.
            unsafe { (self.f)(self.data.ptr(), req, ferrite_str::borrow(&uri), ferrite_str::borrow(&vars)) }
        })
    }
}

struct CPrompt {
    f: ToolFn,
    data: UserData,
    runtime: Handle,
}

impl PromptHandler for CPrompt {
    fn get(
        &self,
        arguments: Map<String, Value>,
        ctx: RequestContext,
    ) -> ferrite_core::BoxFuture<'static, Result<Reply<GetPromptResult>, HandlerError>> {
        let extract = |c| match c {
            Completed::Prompt(r) => Some(r),
            _ => None,
        };
        invoke(ctx, ResultKind::Prompt, Some(Value::Object(arguments)), self.runtime.clone(), extract, |req| {
            // SAFETY: the host registered `f` for `data`; `req` outlives the call.
            unsafe { (self.f)(self.data.ptr(), req) }
        })
    }
}

struct CCompleter {
    f: CompleterFn,
    data: UserData,
    runtime: Handle,
}

fn complete_request_json(r: &CompleteRequest) -> String {
    let mut v = json!({
        "ref": r.reference,
        "argument": {"name": r.argument_name, "value": r.argument_value},
    });
    if !r.context_arguments.is_empty() {
        v["context"] = json!({ "arguments": r.context_arguments });
    }
    v.to_string()
}

impl CompletionHandler for CCompleter {
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> ferrite_core::BoxFuture<'static, Result<CompleteResult, HandlerError>> {
        let text = complete_request_json(&request);
        let extract = |c| match c {
            Completed::Completion(r) => Some(r),
            _ => None,
        };
        invoke(ctx, ResultKind::Completion, None, self.runtime.clone(), extract, |req| {
            // SAFETY: the host registered `f` for `data`; `req` and `text` outlive the call.
            unsafe { (self.f)(self.data.ptr(), req, ferrite_str::borrow(&text)) }
        })
    }
}

struct CObserver {
    f: unsafe extern "C" fn(*mut c_void, ferrite_str, ferrite_str),
    data: UserData,
}

impl NotificationObserver for CObserver {
    fn notify(&self, method: &str, params: Option<&Value>) {
        let params = params.map_or_else(|| "null".to_owned(), Value::to_string);
        // SAFETY: the host registered `f` for `data`; the strings outlive the call.
        unsafe { (self.f)(self.data.ptr(), ferrite_str::borrow(method), ferrite_str::borrow(&params)) }
    }
}

/// Take ownership of `(user_data, finalizer)` first, so that the finalizer runs exactly once
/// even when the other arguments are rejected.
pub(crate) fn own<F>(
    f: Option<F>,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> Result<(F, UserData), Error> {
    let data = UserData::new(user_data, finalizer);
    let f = f.ok_or_else(|| Error::null("callback"))?;
    Ok((f, data))
}

pub(crate) fn config(e: ferrite_core::ConfigError) -> Error {
    let code = match e {
        ferrite_core::ConfigError::NeedsStateful(_) => ferrite_result::NeedsStateful,
        ferrite_core::ConfigError::UnknownTool(_) | ferrite_core::ConfigError::UnknownResource(_) => {
            ferrite_result::NotFound
        }
        _ => ferrite_result::InvalidArgument,
    };
    Error::new(code, e.to_string())
}

/// Register (or replace) a tool. `tool_json` is its descriptor, the MCP `Tool` shape
/// (`{"name": "add", "description": ..., "inputSchema": {...}, "outputSchema": {...}}`);
/// arguments are validated against `inputSchema` before `callback` runs.
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
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let tool: Tool = unsafe { json_arg(tool_json, tool_json_len, "tool_json") }?;
        let core = s.core()?;
        core.add_tool(tool, CTool { f, data, runtime: s.runtime_handle() }).map_err(config)
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

/// Remove a tool by name. Its finalizer runs now, or when its last running call ends. The
/// finalizer runs while the registry is locked: it must not call back into the server.
/// `FERRITE_RESULT_NOT_FOUND` if there was none.
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
