//! Host callbacks as the core's handler traits (the exports that register them are in
//! `register`).
//!
//! Each callback arrives as the triple `(fn, user_data, finalizer)`. [`UserData`] owns the
//! pair `(user_data, finalizer)` and runs the finalizer exactly once when dropped, which is
//! when the core drops the handler (removed, replaced, or the server closed), or at once when
//! registration fails. A struct per handler kind (`CTool`, `CResource`, ...) implements the
//! core's trait, so the core never knows it serves C.

use std::ffi::c_void;

use ferrite_core::server::{
    CompletionHandler, NotificationObserver, PromptHandler, ResourceHandler, TemplateVariables, ToolHandler,
};
use ferrite_core::{
    CallToolResult, CompleteRequest, CompleteResult, ErrorObject, GetPromptResult, HandlerError, ReadResourceResult,
    Reply, RequestContext,
};
use serde_json::{json, Map, Value};
use tokio::runtime::Handle;

use crate::buffer::ferrite_str;
use crate::error::{ferrite_result, Error};
use crate::request::{ferrite_request, invoke, Completed, ResultKind};

fn internal_error(message: String) -> HandlerError {
    HandlerError::Rpc(ErrorObject::internal(message))
}

/// Called once with the `user_data` it was registered with, when Ferrite no longer needs it
/// (NULL: nothing to free). Runs on whichever thread drops the handler: the one calling
/// `ferrite_server_close`/`_free` or replacing/removing the handler, the worker ending the
/// handler's last running call when that is later, or the registering thread when
/// registration fails. The server's registry is not locked then (see the header's opening
/// comment for the one exception, a replaced observer).
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

pub(crate) struct CTool {
    pub(crate) f: ToolFn,
    pub(crate) data: UserData,
    pub(crate) runtime: Handle,
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

pub(crate) struct CResource {
    pub(crate) f: ResourceFn,
    pub(crate) data: UserData,
    pub(crate) runtime: Handle,
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

pub(crate) struct CPrompt {
    pub(crate) f: ToolFn,
    pub(crate) data: UserData,
    pub(crate) runtime: Handle,
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

pub(crate) struct CCompleter {
    pub(crate) f: CompleterFn,
    pub(crate) data: UserData,
    pub(crate) runtime: Handle,
}

impl CompletionHandler for CCompleter {
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> ferrite_core::BoxFuture<'static, Result<CompleteResult, HandlerError>> {
        // The core's wire shape, as the client sent it.
        let text = match serde_json::to_string(&request) {
            Ok(text) => text,
            Err(e) => return Box::pin(async move { Err(internal_error(e.to_string())) }),
        };
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

pub(crate) struct CObserver {
    pub(crate) f: unsafe extern "C" fn(*mut c_void, ferrite_str, ferrite_str),
    pub(crate) data: UserData,
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
        ferrite_core::ConfigError::TasksStarted => ferrite_result::TasksStarted,
        _ => ferrite_result::InvalidArgument,
    };
    Error::new(code, e.to_string())
}
