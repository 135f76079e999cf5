//! Extending a server beyond the core's methods: advertising an extension (2026-07-28
//! `extensions` capability), serving custom request methods with a host callback, and
//! serving skills (the `io.modelcontextprotocol/skills` extension, which the core implements
//! entirely: digests, `skills/list`, `skills/get`, directory reads, the files as resources).

use std::ffi::{c_char, c_void};
use std::path::Path;

use ferrite_core::server::{HandlerResult, MethodHandler};
use ferrite_core::skills::{Skill, SkillError};
use ferrite_core::{RequestContext, Server};
use serde_json::{Map, Value};
use tokio::runtime::Handle;

use crate::buffer::{ferrite_str, json_arg, opt_json_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{config, ferrite_finalizer, own, UserData};
use crate::register::remove;
use crate::request::{ferrite_request, invoke, Completed, ResultKind};
use crate::server::{ferrite_server, server_ref};

/// Advertise extension `id` (a prefixed name such as `"com.example/search"`) to 2026-07-28
/// clients with `settings_json`, a JSON object (NULL for `{}`), under the `extensions`
/// capability. Adding an id again replaces its settings. `FERRITE_RESULT_INVALID_ARGUMENT`
/// for an id without a prefix (`"search"`) or settings that are not an object. Serving the
/// extension's methods is `ferrite_server_add_method`. Any thread.
///
/// # Safety
/// `server` is a live server; `id` points to `id_len` readable bytes; `settings_json` is
/// NULL or points to `settings_json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_extension(
    server: *const ferrite_server,
    id: *const c_char,
    id_len: usize,
    settings_json: *const c_char,
    settings_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let id = unsafe { str_arg(id, id_len, "id") }?;
        // SAFETY: forwarded from this function's contract.
        let settings: Option<Map<String, Value>> =
            unsafe { opt_json_arg(settings_json, settings_json_len, "settings_json") }?;
        s.core()?.add_extension(id, Value::Object(settings.unwrap_or_default())).map_err(config)
    })
}

/// A custom request method's handler: `params_json` is the request's params as a JSON
/// object without `_meta` (`{}` when it had none), borrowed for the call; the same text is
/// on the request (`ferrite_request_arguments`, `_argument_i64`, `_argument_string`).
/// Complete the request with a JSON object (`ferrite_request_complete`), fail it
/// (`ferrite_request_fail`: -32603; `ferrite_request_fail_rpc`: any error), or return
/// `FERRITE_RESULT_PENDING` and settle it later from any thread, as for
/// `ferrite_tool_callback`. On a 2026-07-28 request the core adds `resultType` and the
/// server info to the result.
#[allow(non_camel_case_types)]
pub type ferrite_method_callback = Option<
    unsafe extern "C" fn(user_data: *mut c_void, request: *mut ferrite_request, params_json: ferrite_str) -> u32,
>;

type MethodFn = unsafe extern "C" fn(*mut c_void, *mut ferrite_request, ferrite_str) -> u32;

struct CMethod {
    f: MethodFn,
    data: UserData,
    runtime: Handle,
}

impl MethodHandler for CMethod {
    fn call(
        &self,
        params: Map<String, Value>,
        ctx: RequestContext,
    ) -> ferrite_core::BoxFuture<'static, HandlerResult<Value>> {
        let extract = |c| match c {
            Completed::Method(v) => Some(v),
            _ => None,
        };
        invoke(ctx, ResultKind::Method, Some(Value::Object(params)), self.runtime.clone(), extract, |req| {
            // SAFETY: `invoke` passes a live request that outlives this call.
            let params = unsafe { &*req }.arguments_text().unwrap_or("{}");
            // SAFETY: the host registered `f` for `data`; `req` and `params` outlive the call.
            unsafe { (self.f)(self.data.ptr(), req, ferrite_str::borrow(params)) }
        })
    }
}

/// Serve request method `method` (an extension's method, `"com.example/search"`, or any
/// name the core does not serve) with `callback`, in both protocol eras; registering a name
/// again replaces the handler. A method the core serves (`"tools/call"`, `"ping"`, ...) is
/// `FERRITE_RESULT_INVALID_ARGUMENT`. Ownership of `user_data` and threads as for
/// `ferrite_server_add_tool`: the finalizer runs exactly once, at once if this call fails,
/// otherwise when the method is removed or replaced or the server closes.
///
/// # Safety
/// `server` is a live server; `method` points to `method_len` readable bytes; the callback
/// and finalizer are safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_method(
    server: *const ferrite_server,
    method: *const c_char,
    method_len: usize,
    callback: ferrite_method_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let method = unsafe { str_arg(method, method_len, "method") }?;
        s.core()?.add_method(method, CMethod { f, data, runtime: s.runtime_handle() }).map_err(config)
    })
}

/// Stop serving a custom method; its finalizer runs now, or when its last running call ends
/// (not while the registry is locked). `FERRITE_RESULT_NOT_FOUND` if it was not served. Any
/// thread, a callback's included.
///
/// # Safety
/// `server` is a live server; `method` points to `method_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_remove_method(
    server: *const ferrite_server,
    method: *const c_char,
    method_len: usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { remove(server, method, method_len, "method", Server::remove_method) } })
}

fn skill_error(e: SkillError) -> Error {
    let code = match e {
        SkillError::Io(_) => ferrite_result::Io,
        _ => ferrite_result::InvalidArgument,
    };
    Error::new(code, e.to_string())
}

/// Serve a skill at `root` (`"skill://add-numbers"`) made of `files_json`, a JSON object of
/// relative path -> UTF-8 text (`{"SKILL.md": "---\nname: add-numbers\n...", "references/
/// EXAMPLES.md": "..."}`). `SKILL.md` must be there, with frontmatter whose `name` equals the
/// root's last segment and a `description`. The first skill advertises the skills extension;
/// a skill with the same root replaces the previous one. A bad root, path, frontmatter or a
/// file that is not a string is `FERRITE_RESULT_INVALID_ARGUMENT`. Any thread.
///
/// # Safety
/// `server` is a live server; the strings point to their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_skill(
    server: *const ferrite_server,
    root: *const c_char,
    root_len: usize,
    files_json: *const c_char,
    files_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let root = unsafe { str_arg(root, root_len, "root") }?;
        // SAFETY: forwarded from this function's contract.
        let files: Map<String, Value> = unsafe { json_arg(files_json, files_json_len, "files_json") }?;
        let files = files
            .into_iter()
            .map(|(path, text)| match text {
                Value::String(t) => Ok((path, t.into_bytes())),
                _ => Err(Error::invalid(format!("files_json: the content of {path:?} is not a string"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let skill = Skill::new(root, files).map_err(skill_error)?;
        s.core()?.add_skill(skill).map_err(config)
    })
}

/// Serve a skill at `root` from the directory `dir_path` on disk (every file under it,
/// recursively, read now; later changes are not seen). `FERRITE_RESULT_IO` when the
/// directory cannot be read; otherwise as `ferrite_server_add_skill`. Any thread (blocks
/// on file I/O while it reads).
///
/// # Safety
/// `server` is a live server; the strings point to their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_skill_dir(
    server: *const ferrite_server,
    root: *const c_char,
    root_len: usize,
    dir_path: *const c_char,
    dir_path_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let (root, dir) = unsafe { (str_arg(root, root_len, "root")?, str_arg(dir_path, dir_path_len, "dir_path")?) };
        let skill = Skill::from_dir(root, Path::new(dir)).map_err(skill_error)?;
        s.core()?.add_skill(skill).map_err(config)
    })
}
