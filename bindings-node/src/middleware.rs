//! JS middleware in the core's chain: one core middleware per JS one, called once per request
//! with `{method, params, hook}` through the one native handler shape; the JS layer picks the
//! middleware's typed hooks (`onCallTool`, ...) inside that one call. `next` stays in the call's
//! slot, where [`NativeServer::middleware_next`] finds it.
//!
//! A client's notification reaches a JS middleware only when it has notification hooks
//! (`onNotification`, or `onMessage`, which runs for both): the JS layer then gives a second
//! function, called with `{method, params, hook: "notification"}` and a slot of the
//! notifications table below, where [`NativeServer::notification_next`] finds the rest of the
//! chain. Not calling it drops the notification.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{LazyLock, Mutex};

use std::sync::Arc;

use ferrite_core::server::middleware::{
    answer_from, notification_failed, Answer, Middleware, MiddlewareNotification, MiddlewareRequest, Next,
    NextNotification, NextNotificationOnce, NextOnce, NOTIFICATION_HOOK,
};
use ferrite_core::BoxFuture;
use napi::bindgen_prelude::{Either, Function, Object};
use napi::{Env, Result};
use napi_derive::napi;
use serde_json::{json, Value};

use crate::envelope;
use crate::handlers::{JsArgs, JsCallback, JsFunction, JsReturn};
use crate::server::{parse, NativeServer};

/// A JS middleware (the JS layer's adapter around it) in the core's chain, with its
/// notification adapter when it has notification hooks.
struct JsMiddleware(JsCallback, Option<Arc<JsFunction>>);

/// The rest of the chain of the notifications a JS middleware is running, by slot.
static NOTIFICATIONS: LazyLock<Mutex<HashMap<i64, Arc<NextNotificationOnce>>>> = LazyLock::new(Default::default);
static NEXT_NOTIFICATION: AtomicI64 = AtomicI64::new(0);

/// Takes its slot out of [`NOTIFICATIONS`] when dropped.
struct NotificationSlot(i64);

impl Drop for NotificationSlot {
    fn drop(&mut self) {
        ferrite_core::sync::lock(&NOTIFICATIONS).remove(&self.0);
    }
}

impl Middleware for JsMiddleware {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        let payload = json!({ "method": request.method, "params": request.params, "hook": request.hook() }).to_string();
        let ctx = request.ctx.clone();
        let run =
            self.0.invoke_with(payload, ctx, Some(Arc::new(NextOnce::new(next, request))), envelope::decode::<Value>);
        Box::pin(async move { answer_from(run.await) })
    }

    fn notify(&self, notification: MiddlewareNotification, next: NextNotification) -> BoxFuture<'static, ()> {
        let Some(function) = self.1.clone() else {
            return next.run(notification);
        };
        let method = notification.method.clone();
        let payload = json!({
            "method": notification.method,
            "params": notification.params,
            "hook": NOTIFICATION_HOOK,
            "connectionId": notification.connection.id(),
        })
        .to_string();
        let id = NEXT_NOTIFICATION.fetch_add(1, Ordering::Relaxed) + 1;
        ferrite_core::sync::lock(&NOTIFICATIONS).insert(id, Arc::new(NextNotificationOnce::new(next, notification)));
        let slot = NotificationSlot(id);
        Box::pin(async move {
            // The JS adapter answers "" when its hooks finished, else the failure's text.
            let failure = match function.call_async_catch((slot.0, payload).into()).await {
                Ok(Some(Either::A(text))) => text,
                Ok(Some(Either::B(promise))) => promise.await.unwrap_or_else(|e| e.reason),
                Ok(None) => String::new(),
                Err(e) => e.reason,
            };
            drop(slot);
            if !failure.is_empty() {
                notification_failed(&method, &failure);
            }
        })
    }
}

/// The answer of the rest of the chain as an envelope: `{"ok": result}` (the core's
/// serialized result, not parsed here) or `{"error": {code, message, data?}}`.
fn answer_envelope(answer: &Answer) -> String {
    match answer {
        Ok(raw) => format!("{{\"ok\":{}}}", raw.get()),
        Err(obj) => json!({ "error": obj }).to_string(),
    }
}

#[napi]
impl NativeServer {
    /// Add a middleware at the end of the chain (the first added runs first, outermost):
    /// `handler(slot, '{"method", "params", "hook"}')` answers the result envelope; `notify`,
    /// when given, gets the client's notifications (`notify(slot, '{"method", "params",
    /// "hook": "notification", "connectionId"}')`, answering `""` or the failure's text).
    #[napi]
    pub fn add_middleware(
        &self,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
        #[napi(ts_arg_type = "((slot: number, payload: string) => string | Promise<string>) | undefined | null")]
        notify: Option<Function<'_, JsArgs, JsReturn>>,
    ) -> Result<()> {
        let notify = match notify {
            Some(f) => Some(Arc::new(f.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?)),
            None => None,
        };
        self.server.add_middleware(JsMiddleware(self.callback(handler, "middleware")?, notify));
        Ok(())
    }

    /// Run the rest of the chain of the notification in `slot` (a notification hook's), with
    /// `paramsJson` as its params (`null`: none); resolves when the server has handled it. A
    /// second call, or one after the hook finished, resolves at once and does nothing. Resolves
    /// to `""`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn notification_next<'env>(
        &self,
        env: &'env Env,
        slot: i64,
        params_json: Option<String>,
    ) -> Result<Object<'env>> {
        let next = ferrite_core::sync::lock(&NOTIFICATIONS).get(&slot).cloned();
        let params = match params_json {
            Some(text) => Some(parse::<Value>(&text, "notification params")?).filter(|v| !v.is_null()),
            None => None,
        };
        let run = next.and_then(|n| n.run(Some(params)));
        self.spawn_string(env, async move {
            if let Some(run) = run {
                run.await;
            }
            String::new()
        })
    }

    /// Add the core's built-in middleware `name` configured by `configJson` (the core's keys);
    /// an unknown name or a bad configuration is a `TypeError`.
    #[napi]
    pub fn add_builtin_middleware(&self, env: &Env, name: String, config_json: String) -> Result<()> {
        let config: Value = parse(&config_json, "middleware configuration")?;
        self.server.add_builtin_middleware(&name, config).map_err(|e| crate::errors::config(env, e))
    }

    /// Turn OpenTelemetry on (the core's `enable_telemetry`); an exporter the `OTEL_*`
    /// variables make unbuildable is an `Error` with the reason.
    #[napi]
    pub fn enable_telemetry(&self) -> Result<()> {
        self.server.enable_telemetry().map_err(|e| napi::Error::from_reason(e.to_string()))
    }

    /// Run the rest of the chain of the middleware call in `slot`, with `paramsJson` as the
    /// request's params (`null`: none); resolves to the answer's envelope. A second call
    /// answers the core's "called next twice" error.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn middleware_next<'env>(
        &self,
        env: &'env Env,
        slot: i64,
        params_json: Option<String>,
    ) -> Result<Object<'env>> {
        let call = self.calls.get(slot).ok_or_else(|| {
            napi::Error::from_reason("this request has already completed: its middleware context is no longer usable")
        })?;
        let next = call.next.clone().ok_or_else(|| napi::Error::from_reason("this request is not a middleware's"))?;
        let params = match params_json {
            Some(text) => Some(parse::<Value>(&text, "middleware params")?).filter(|v| !v.is_null()),
            None => None,
        };
        let run = next.run(Some(params)).ok_or_else(|| next.refusal());
        self.spawn_string(env, async move {
            match run {
                Ok(run) => answer_envelope(&run.await),
                Err(refused) => answer_envelope(&Err(refused)),
            }
        })
    }
}

/// Export the pending spans and metrics now (the core's `telemetry::flush`; blocks).
#[napi]
#[cfg_attr(test, allow(dead_code))] // called from JS only; the unit-test build does not register it
pub fn telemetry_flush() {
    ferrite_core::telemetry::flush();
}

/// Export what is pending and stop the exporters (the core's `telemetry::shutdown`; blocks).
#[napi]
#[cfg_attr(test, allow(dead_code))] // called from JS only; the unit-test build does not register it
pub fn telemetry_shutdown() {
    ferrite_core::telemetry::shutdown();
}
