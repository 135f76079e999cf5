//! Middleware from C: a host callback as one middleware in the core's chain.
//!
//! The core calls each C middleware once per request (`ferrite_server_add_middleware`). The
//! callback gets the request as every handler gets it (a [`ferrite_request`], for reading the
//! context and for answering with `ferrite_request_complete` / `_fail_rpc`, synchronously or
//! later from any thread), the method, params and typed hook, and `next`: the core's
//! [`NextOnce`], which `ferrite_middleware_next_run` runs on the server's runtime, reporting the
//! answer to a callback. Everything here converts types; what the chain does, what a second
//! `next` answers and how a bad result becomes an error are the core's
//! (`ferrite_core::server::middleware`).
//!
//! A client's notification passes a C notification middleware
//! (`ferrite_server_add_notification_middleware`) in the same chain: the callback decides
//! while it runs whether the notification goes on (`ferrite_notification_next_run`, with its
//! params or others) or is dropped (no call); the rest of the chain runs after it returns.

use std::ffi::{c_char, c_void};

use std::sync::Mutex;

use ferrite_core::server::middleware::{
    answer_from, Answer, Middleware, MiddlewareNotification, MiddlewareRequest, Next, NextNotification, NextOnce,
};
use ferrite_core::BoxFuture;
use serde_json::Value;
use tokio::runtime::Handle;

use crate::buffer::{ferrite_str, opt_json_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{ferrite_finalizer, own, UserData};
use crate::request::{ferrite_request, invoke_with_next, Completed, ResultKind};
use crate::server::{ferrite_server, server_ref};

/// The rest of a request's middleware chain, lent to a `ferrite_middleware_callback`. Opaque.
///
/// Valid exactly as long as the `request` it came with: from the callback's start until that
/// request is settled. Run it at most once with `ferrite_middleware_next_run`, from any thread.
#[allow(non_camel_case_types)]
pub struct ferrite_middleware_next {
    once: NextOnce,
    runtime: Handle,
}

/// A middleware, called once per request the server dispatches (both protocol eras; not
/// `initialize`, `ping` or notifications), in the order the middlewares were added, the first
/// outermost. It runs on a server worker thread, possibly on several at once.
///
/// - `request`: the request as a handler sees it: read its context with the
///   `ferrite_request_*` getters (id, `_meta`, revision, client, identity, headers,
///   cancellation; `ferrite_request_arguments` is the params as JSON text), log on it, and
///   settle it with the middleware's answer: `ferrite_request_complete` (the result, a JSON
///   object, e.g. what `next` answered, changed or not), `ferrite_request_fail_rpc` (a
///   JSON-RPC error sent as is) or `ferrite_request_fail` (-32603 with the message). A result
///   that is not a JSON object settles it as the core's -32603 "the handler's result is not
///   valid: ...".
/// - `method`: the JSON-RPC method (`"tools/call"`), borrowed for the call.
/// - `params_json`: the params as JSON text without `_meta` (which `ferrite_request_meta`
///   gives, the 2026-07-28 envelope included), borrowed for the call; `ptr` NULL when the
///   request had none.
/// - `hook`: the method's typed hook from the core's one table (`"call_tool"`, `"list_tools"`,
///   `"read_resource"`, `"list_resources"`, `"list_resource_templates"`, `"get_prompt"`,
///   `"list_prompts"`, `"complete"`), in static storage; `ptr` NULL for other methods.
/// - `next`: the rest of the chain (`ferrite_middleware_next_run`), valid while `request` is.
///
/// Return `FERRITE_RESULT_OK` once `request` is settled, or `FERRITE_RESULT_PENDING` and settle
/// it later from any thread (the usual shape: run `next`, settle from its answer callback).
/// Any other value fails the request, as for `ferrite_tool_callback`. Returns a
/// `ferrite_result` value.
#[allow(non_camel_case_types)]
pub type ferrite_middleware_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request: *mut ferrite_request,
        method: ferrite_str,
        params_json: ferrite_str,
        hook: ferrite_str,
        next: *const ferrite_middleware_next,
    ) -> u32,
>;

/// The answer of the rest of the chain (`ferrite_middleware_next_run`). On success
/// `result_json` is the result as JSON text (a JSON object), `error_code` is 0 and both error
/// strings have a NULL `ptr`; on a JSON-RPC error `result_json.ptr` is NULL and `error_code`,
/// `error_message` and `error_data_json` (`ptr` NULL when the error has no `data`) are the
/// error's. The strings are borrowed for the call only. Runs on a server worker thread, at most
/// once; `user_data`'s finalizer runs exactly once afterwards (also when the server closes
/// before the answer arrives, in which case the callback is not called).
#[allow(non_camel_case_types)]
pub type ferrite_middleware_answer_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        result_json: ferrite_str,
        error_code: i32,
        error_message: ferrite_str,
        error_data_json: ferrite_str,
    ),
>;

type MiddlewareFn = unsafe extern "C" fn(
    *mut c_void,
    *mut ferrite_request,
    ferrite_str,
    ferrite_str,
    ferrite_str,
    *const ferrite_middleware_next,
) -> u32;
type AnswerFn = unsafe extern "C" fn(*mut c_void, ferrite_str, i32, ferrite_str, ferrite_str);

struct CMiddleware {
    f: MiddlewareFn,
    data: UserData,
    runtime: Handle,
}

impl Middleware for CMiddleware {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        let (method, hook) = (request.method.clone(), request.hook());
        let (ctx, params) = (request.ctx.clone(), request.params.clone());
        let next = ferrite_middleware_next { once: NextOnce::new(next, request), runtime: self.runtime.clone() };
        let extract = |c| match c {
            Completed::Method(v) => Some(v),
            _ => None,
        };
        let answer =
            invoke_with_next(ctx, ResultKind::Middleware, params, Some(next), self.runtime.clone(), extract, |req| {
                // SAFETY: `invoke_with_next` passes a live request that outlives this call.
                let r = unsafe { &*req };
                let params = r.arguments_text().map_or(ferrite_str::ABSENT, ferrite_str::borrow);
                let next = r.middleware_next().map_or(std::ptr::null(), |n| n as *const ferrite_middleware_next);
                let hook = hook.map_or(ferrite_str::ABSENT, ferrite_str::borrow);
                // SAFETY: the host registered `f` for `data`; `req`, `next` and the strings
                // outlive the call (`next` lives in the request).
                unsafe { (self.f)(self.data.ptr(), req, ferrite_str::borrow(&method), params, hook, next) }
            });
        Box::pin(async move { answer_from(answer.await) })
    }
}

/// Add a middleware at the end of the server's chain (the first added runs first, outermost,
/// around the ones added after it and the handlers). A middleware cannot be removed: it lives
/// until the server closes. Ownership of `user_data` and threads as for
/// `ferrite_server_add_tool`: the finalizer runs exactly once, at once if this call fails,
/// otherwise when the server closes (after the middleware's last running call).
///
/// # Safety
/// `server` is a live server; the callback and finalizer are safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_middleware(
    server: *const ferrite_server,
    callback: ferrite_middleware_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        s.core()?.add_middleware(CMiddleware { f, data, runtime: s.runtime_handle() });
        Ok(())
    })
}

/// Run the rest of the chain (the middlewares added after this one, then the core's routing)
/// without blocking: its answer arrives at `callback` on a worker thread
/// (`ferrite_middleware_answer_callback`). `params_json` replaces the request's params (JSON
/// text; `null` for none); NULL keeps them as they are. The method cannot change.
///
/// At most once per request: a second call reports the core's -32603 "a middleware called next
/// twice" to its callback. Returns an error code (and runs the finalizer without calling the
/// callback, leaving `next` unused) only when the arguments are unusable: a NULL `next` or
/// `callback` (`FERRITE_RESULT_NULL_POINTER`), `params_json` that does not parse
/// (`FERRITE_RESULT_INVALID_JSON`). Any thread, while the middleware's request is live.
///
/// # Safety
/// `next` is a live handle from a `ferrite_middleware_callback` whose request is not yet
/// settled; `params_json` is NULL or points to `params_json_len` readable bytes; `user_data`
/// must tolerate the callback and finalizer on a worker thread.
#[no_mangle]
pub unsafe extern "C" fn ferrite_middleware_next_run(
    next: *const ferrite_middleware_next,
    params_json: *const c_char,
    params_json_len: usize,
    callback: ferrite_middleware_answer_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // Own user_data first, so its finalizer runs exactly once whatever happens below.
        let data = UserData::new(user_data, finalizer);
        // SAFETY: NULL or live, per this function's contract.
        let next = unsafe { next.as_ref() }.ok_or_else(|| Error::null("next"))?;
        let callback = callback.ok_or_else(|| Error::null("callback"))?;
        // SAFETY: forwarded from this function's contract.
        let params: Option<Value> = unsafe { opt_json_arg(params_json, params_json_len, "params_json") }?;
        let params = params.map(|p| Some(p).filter(|p| !p.is_null()));
        let answer = next.once.run(params).ok_or_else(|| next.once.refusal());
        next.runtime.spawn(async move {
            let answer = match answer {
                Ok(rest) => rest.await,
                Err(refused) => Err(refused),
            };
            deliver(callback, &data, &answer);
        });
        Ok(())
    })
}

/// Hand an answer to the host's callback.
fn deliver(callback: AnswerFn, data: &UserData, answer: &Answer) {
    match answer {
        Ok(raw) => {
            // SAFETY: the host registered this callback for this user_data; the string lives
            // until it returns.
            unsafe { callback(data.ptr(), ferrite_str::borrow(raw.get()), 0, ferrite_str::ABSENT, ferrite_str::ABSENT) }
        }
        Err(e) => {
            let error_data = e.data.as_ref().map(Value::to_string);
            let error_data = error_data.as_deref().map_or(ferrite_str::ABSENT, ferrite_str::borrow);
            // SAFETY: as above.
            unsafe { callback(data.ptr(), ferrite_str::ABSENT, e.code, ferrite_str::borrow(&e.message), error_data) }
        }
    }
}

/// The rest of a notification's middleware chain, lent to a
/// `ferrite_notification_middleware_callback` for the duration of the call. Opaque.
#[allow(non_camel_case_types)]
pub struct ferrite_notification_next {
    /// The params the notification goes on with, once `ferrite_notification_next_run` ran.
    decision: Mutex<Option<Option<Value>>>,
}

/// A notification middleware, called once per notification a client sends
/// (`notifications/initialized`, `notifications/cancelled`, `notifications/roots/list_changed`,
/// ...), in the chain's order (request middlewares and notification middlewares share it, the
/// first added outermost), before the server acts on it. It runs on a server worker thread,
/// possibly on several at once.
///
/// - `method`: the notification's method, borrowed for the call.
/// - `params_json`: its params as JSON text, borrowed for the call; `ptr` NULL when it had none.
/// - `connection_id`: the connection it came on (the session id on a stateful HTTP server),
///   borrowed for the call.
/// - `next`: the rest of the chain, valid during the call only: call
///   `ferrite_notification_next_run` before returning to pass the notification on (it runs
///   when the callback returns); without that call the notification is dropped.
#[allow(non_camel_case_types)]
pub type ferrite_notification_middleware_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        method: ferrite_str,
        params_json: ferrite_str,
        connection_id: ferrite_str,
        next: *const ferrite_notification_next,
    ),
>;

type NotificationFn =
    unsafe extern "C" fn(*mut c_void, ferrite_str, ferrite_str, ferrite_str, *const ferrite_notification_next);

struct CNotificationMiddleware {
    f: NotificationFn,
    data: UserData,
}

impl Middleware for CNotificationMiddleware {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        next.run(request)
    }

    fn notify(&self, mut notification: MiddlewareNotification, next: NextNotification) -> BoxFuture<'static, ()> {
        let handle = ferrite_notification_next { decision: Mutex::new(None) };
        let params = notification.params.as_ref().map(Value::to_string);
        let params = params.as_deref().map_or(ferrite_str::ABSENT, ferrite_str::borrow);
        // SAFETY: the host registered `f` for `data`; the strings and `handle` outlive the call.
        unsafe {
            (self.f)(
                self.data.ptr(),
                ferrite_str::borrow(&notification.method),
                params,
                ferrite_str::borrow(notification.connection.id()),
                &handle,
            )
        };
        let decision = handle.decision.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        match decision {
            Some(params) => {
                if let Some(params) = params {
                    notification.params = Some(params).filter(|p| !p.is_null());
                }
                next.run(notification)
            }
            None => Box::pin(std::future::ready(())),
        }
    }
}

/// Add a notification middleware at the end of the server's chain (see
/// `ferrite_notification_middleware_callback`). Ownership of `user_data` and threads as for
/// `ferrite_server_add_middleware`.
///
/// # Safety
/// `server` is a live server; the callback and finalizer are safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_notification_middleware(
    server: *const ferrite_server,
    callback: ferrite_notification_middleware_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        s.core()?.add_middleware(CNotificationMiddleware { f, data });
        Ok(())
    })
}

/// Pass the notification on: the rest of the chain runs with it when the callback returns.
/// `params_json` replaces its params (JSON text; `null` for none); NULL keeps them. Call it
/// during the `ferrite_notification_middleware_callback` that lent `next`, at most once: a
/// second call is `FERRITE_RESULT_INVALID_ARGUMENT` and changes nothing. A NULL `next` is
/// `FERRITE_RESULT_NULL_POINTER`; `params_json` that does not parse is
/// `FERRITE_RESULT_INVALID_JSON` (and the notification is not passed on).
///
/// # Safety
/// `next` is the handle of a running `ferrite_notification_middleware_callback`;
/// `params_json` is NULL or points to `params_json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_notification_next_run(
    next: *const ferrite_notification_next,
    params_json: *const c_char,
    params_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: NULL or live, per this function's contract.
        let next = unsafe { next.as_ref() }.ok_or_else(|| Error::null("next"))?;
        // SAFETY: forwarded from this function's contract.
        let params: Option<Value> = unsafe { opt_json_arg(params_json, params_json_len, "params_json") }?;
        let mut decision = next.decision.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if decision.is_some() {
            return Err(Error::invalid("ferrite_notification_next_run: the notification was already passed on"));
        }
        *decision = Some(params);
        Ok(())
    })
}

/// Add the core's built-in middleware `name` at the end of the chain, configured by
/// `config_json` (the core's keys; NULL for the defaults): `timing`, `logging` (`{"level"}`),
/// `rate_limit` (`{"perSecond", "burst", "key": "client" | "session" | "global", "methods"}`),
/// `cache` (`{"maxEntries"}`) or `error_masking` (`{"message"}`). They run in the core: no
/// callback. An unknown name or a configuration the core refuses is
/// `FERRITE_RESULT_INVALID_ARGUMENT` (the reason in `ferrite_last_error_message`); JSON that does
/// not parse is `FERRITE_RESULT_INVALID_JSON`.
///
/// # Safety
/// `server` is a live server; `name` points to `name_len` readable bytes; `config_json` is
/// NULL or points to `config_json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_add_builtin_middleware(
    server: *const ferrite_server,
    name: *const c_char,
    name_len: usize,
    config_json: *const c_char,
    config_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let name = unsafe { crate::buffer::str_arg(name, name_len, "name") }?;
        // SAFETY: forwarded from this function's contract.
        let config: Option<Value> = unsafe { opt_json_arg(config_json, config_json_len, "config_json") }?;
        s.core()?.add_builtin_middleware(name, config.unwrap_or(Value::Null)).map_err(crate::handler::config)
    })
}
