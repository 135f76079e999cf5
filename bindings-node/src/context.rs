//! The request context, reached from JS by slot: what the JS `Context` reads and does.
//!
//! Each function looks the slot up in the running-request table; a finished request's slot
//! is gone, so a stale context fails with a clear error. Values cross as JSON text.

use std::sync::Arc;
use std::time::Duration;

use ferrite_core::sync::lock;
use ferrite_core::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorObject, ListRootsResult,
    LoggingLevel, PeerError,
};
use napi::bindgen_prelude::Object;
use napi::{Env, Error, Result};
use napi_derive::napi;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::calls::{Call, Calls};
use crate::envelope;
use crate::server::{parse, NativeServer};

/// The request table entry for `slot`, or an error naming the finished request.
fn live(calls: &Calls, slot: i64) -> Result<Arc<Call>> {
    calls
        .get(slot)
        .ok_or_else(|| Error::from_reason("this request has already completed: its context is no longer usable"))
}

#[napi]
impl NativeServer {
    /// The envelope of the handler running in `slot`, which returned nothing and settled
    /// since (an async handler: the JS layer calls this when its promise settles); false when
    /// the request is gone (cancelled and dropped) or was settled already.
    /// Served from the JS thread, the stdio loop answers it before this returns.
    #[napi]
    pub fn settle_call(&self, env: Env, slot: i64, envelope: String) -> bool {
        crate::stdio_loop::driving_woken(&env, || self.calls.settle(slot, envelope))
    }

    /// `{requestId, protocolVersion, connectionId, progressToken, meta, stateless, modern,
    /// task, resubmission, requestState}` (JSON).
    #[napi]
    pub fn ctx_info(&self, slot: i64) -> Result<String> {
        let call = live(&self.calls, slot)?;
        let c = &call.ctx;
        Ok(json!({
            "requestId": c.request_id(),
            "protocolVersion": c.protocol_version(),
            "connectionId": c.connection_id(),
            "progressToken": c.progress_token(),
            "meta": c.meta(),
            "stateless": c.is_stateless(),
            "modern": c.is_modern(),
            "task": c.is_task(),
            "resubmission": c.is_resubmission(),
            "requestState": c.request_state(),
        })
        .to_string())
    }

    /// The client's answers to this request's input requests (MRTR): a JSON object of key ->
    /// the bare result the client returned; `{}` on a first call.
    #[napi]
    pub fn ctx_input_responses(&self, slot: i64) -> Result<String> {
        Ok(Value::Object(live(&self.calls, slot)?.ctx.input_responses().clone()).to_string())
    }

    /// The answer to input request `key` decoded by the core as `kind` ("elicit":
    /// `ElicitResult`, "sample": `CreateMessageResult`, "roots": `ListRootsResult`):
    /// `{"ok": result}`, `{"error": {"kind": "invalidParams", "message"}}` when it has another
    /// shape, or `null` when the client did not answer `key`.
    #[napi]
    pub fn ctx_input_response_as(&self, slot: i64, key: String, kind: String) -> Result<Option<String>> {
        let call = live(&self.calls, slot)?;
        let ctx = &call.ctx;
        fn decoded<T: DeserializeOwned + serde::Serialize>(
            r: Option<std::result::Result<T, String>>,
        ) -> Option<String> {
            r.map(|r| match r {
                Ok(v) => envelope::ok(&v),
                Err(e) => envelope::error("invalidParams", e),
            })
        }
        Ok(match kind.as_str() {
            "elicit" => decoded(ctx.input_response_as::<ElicitResult>(&key)),
            "sample" => decoded(ctx.input_response_as::<CreateMessageResult>(&key)),
            "roots" => decoded(ctx.input_response_as::<ListRootsResult>(&key)),
            other => {
                return Err(Error::from_reason(format!(
                    "unknown input response kind {other:?}: use \"elicit\", \"sample\" or \"roots\""
                )))
            }
        })
    }

    /// The settings the client declared for extension `id` on this request (JSON), or `null`.
    #[napi]
    pub fn ctx_client_extension(&self, slot: i64, id: String) -> Result<Option<String>> {
        Ok(live(&self.calls, slot)?.ctx.client_extension(&id).map(|v| v.to_string()))
    }

    /// The HTTP request head (`{method, path, headers, remoteAddr, hostValues}`, the core's
    /// `RequestInfo::to_json`, plus `remoteAddress` (the IP) and `remotePort` (`null` when
    /// unknown) as Node's sockets name them), or `null` for stdio and in-process requests.
    #[napi]
    pub fn ctx_request_info(&self, slot: i64) -> Result<String> {
        let call = live(&self.calls, slot)?;
        let info = call.ctx.request_info();
        let mut json = info.to_json();
        if let (Value::Object(m), Some(addr)) = (&mut json, info.remote_addr()) {
            m.insert("remoteAddress".into(), json!(addr.ip().to_string()));
            m.insert("remotePort".into(), if addr.port() == 0 { Value::Null } else { json!(addr.port()) });
        }
        Ok(json.to_string())
    }

    /// The caller's verified identity (`{subject, clientId, scopes, expiresAt, issuer,
    /// claims}`, the core's `Identity::to_json`; never the token), or `null` when the request
    /// was not authenticated.
    #[napi]
    pub fn ctx_identity(&self, slot: i64) -> Result<Option<String>> {
        Ok(live(&self.calls, slot)?.ctx.identity().map(|id| id.to_json().to_string()))
    }

    /// A request header by case-insensitive name (HTTP only), or `null`.
    #[napi]
    pub fn ctx_header(&self, slot: i64, name: String) -> Result<Option<String>> {
        Ok(live(&self.calls, slot)?.ctx.header(&name).map(str::to_owned))
    }

    /// Whether the request was cancelled, or is over without an answer to give (its slot is
    /// gone: the server closed while the handler ran on, or the core dropped it): a handler
    /// polling `ctx.cancelled` stops either way instead of looping on a request no one waits for.
    #[napi]
    pub fn ctx_is_cancelled(&self, slot: i64) -> bool {
        self.calls.get(slot).is_none_or(|c| c.ctx.is_cancelled())
    }

    /// Ask to be told (through the cancel callback) when the request is cancelled. Returns
    /// whether it already is; `null` when the request finished.
    #[napi]
    pub fn ctx_watch_cancel(&self, slot: i64) -> Option<bool> {
        self.calls.watch(slot)
    }

    /// Emit `notifications/message`; whether it was sent (logging enabled, level high enough).
    #[napi]
    pub fn ctx_log(&self, slot: i64, level: String, data_json: String, logger: Option<String>) -> Result<bool> {
        let level =
            LoggingLevel::parse(&level).ok_or_else(|| Error::from_reason(format!("unknown log level {level:?}")))?;
        let data: Value = parse(&data_json, "log data")?;
        Ok(live(&self.calls, slot)?.ctx.log(level, data, logger.as_deref()))
    }

    /// Emit `notifications/progress`; false when the request carried no progress token.
    #[napi]
    pub fn ctx_progress(&self, slot: i64, progress: f64, total: Option<f64>, message: Option<String>) -> Result<bool> {
        Ok(live(&self.calls, slot)?.ctx.report_progress(progress, total, message.as_deref()))
    }

    /// Send a notification related to this request.
    #[napi]
    pub fn ctx_notify(&self, slot: i64, method: String, params_json: Option<String>) -> Result<()> {
        let params = params_json.map(|p| parse::<Value>(&p, "notification params")).transpose()?;
        live(&self.calls, slot)?.ctx.notify(&method, params);
        Ok(())
    }

    /// Close the transport stream this request rides on (HTTP SSE) while it keeps running;
    /// the client reconnects after `retryMs`. False where the transport cannot (stdio).
    #[napi]
    pub fn ctx_close_sse_stream(&self, slot: i64, retry_ms: Option<u32>) -> Result<bool> {
        let retry = retry_ms.map(|ms| Duration::from_millis(u64::from(ms)));
        Ok(live(&self.calls, slot)?.ctx.close_sse_stream(retry))
    }

    /// Whether the client declared a capability (dotted path, e.g. "elicitation.url").
    #[napi]
    pub fn ctx_client_supports(&self, slot: i64, capability: String) -> Result<bool> {
        Ok(live(&self.calls, slot)?.ctx.client_supports(&capability))
    }

    /// The client's declared capabilities (JSON).
    #[napi]
    pub fn ctx_client_capabilities(&self, slot: i64) -> Result<String> {
        Ok(json!(live(&self.calls, slot)?.ctx.client_capabilities()).to_string())
    }

    /// The client's `clientInfo` (JSON, `null` when unknown).
    #[napi]
    pub fn ctx_client_info(&self, slot: i64) -> Result<String> {
        Ok(json!(live(&self.calls, slot)?.ctx.connection().client_info()).to_string())
    }

    /// `notifications/elicitation/complete` for the URL elicitation `elicitationId` (the
    /// core's `notify_elicitation_complete`).
    #[napi]
    pub fn ctx_notify_elicitation_complete(&self, slot: i64, elicitation_id: String) -> Result<()> {
        live(&self.calls, slot)?.ctx.notify_elicitation_complete(&elicitation_id);
        Ok(())
    }

    /// A server-to-client request; resolves to an envelope (`{"ok": result}` or
    /// `{"error": {kind, message, code?, data?}}`). `kind`: "sample" (`argsJson` =
    /// `CreateMessageParams`, `maxTokens` defaulting to the core's
    /// `CreateMessageParams::DEFAULT_MAX_TOKENS`), "elicit" (`argsJson` = the core's
    /// `ElicitRequestParams`: `{message, requestedSchema}`, or `{mode: "url", message, url,
    /// elicitationId}`), "listRoots", or "request" (`{method, params?}`).
    /// With `ask`, `ctxRequestCancel(ask)` gives it up: the core withdraws the request from
    /// the client (`notifications/cancelled`) and the promise resolves to a "cancelled" error.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn ctx_request<'env>(
        &self,
        env: &'env Env,
        slot: i64,
        kind: String,
        args_json: String,
        ask: Option<i64>,
    ) -> Result<Object<'env>> {
        let call = live(&self.calls, slot)?;
        let args: Value = parse(&args_json, "request arguments")?;
        let given_up = ask.map(|id| {
            let token = CancellationToken::new();
            lock(&self.asks).insert(id, token.clone());
            (id, token, self.asks.clone())
        });
        let asked = Self::asking(call, kind, args);
        self.spawn_string(env, async move {
            let Some((id, token, asks)) = given_up else { return asked.await };
            let out = tokio::select! {
                out = asked => out,
                () = token.cancelled() => envelope::error("cancelled", "the request to the client was given up"),
            };
            lock(&asks).remove(&id);
            out
        })
    }

    /// Give up the server-to-client request `ask` (see `ctxRequest`); nothing if it ended.
    #[napi]
    pub fn ctx_request_cancel(&self, ask: i64) {
        if let Some(token) = lock(&self.asks).remove(&ask) {
            token.cancel();
        }
    }
}

impl NativeServer {
    /// The request of `ctx_request`, as an envelope.
    async fn asking(call: Arc<Call>, kind: String, args: Value) -> String {
        let ctx = &call.ctx;
        let answer = |r: std::result::Result<Value, PeerError>| match r {
            Ok(v) => envelope::ok(&v),
            Err(e) => envelope::peer_error(&e),
        };
        fn value<T: serde::Serialize>(r: std::result::Result<T, PeerError>) -> std::result::Result<Value, PeerError> {
            r.and_then(|v| serde_json::to_value(v).map_err(|e| PeerError::Malformed(e.to_string())))
        }
        match kind.as_str() {
            "sample" => match sampling_params(args) {
                Ok(p) => answer(value(ctx.sample(p).await)),
                Err(e) => envelope::error("invalidArguments", format!("invalid sampling request: {e}")),
            },
            "elicit" => match serde_json::from_value::<ElicitRequestParams>(args) {
                Ok(ElicitRequestParams::Form { message, requested_schema }) => {
                    answer(value(ctx.elicit(&message, requested_schema).await))
                }
                Ok(ElicitRequestParams::Url { message, url, elicitation_id: Some(id) }) => {
                    answer(value(ctx.elicit_url(&message, &url, &id).await))
                }
                Ok(ElicitRequestParams::Url { elicitation_id: None, .. }) => {
                    envelope::error("invalidArguments", "invalid elicitation request: missing field `elicitationId`")
                }
                Err(e) => envelope::error("invalidArguments", format!("invalid elicitation request: {e}")),
            },
            "listRoots" => answer(value(ctx.list_roots().await)),
            "request" => match serde_json::from_value::<ClientRequest>(args) {
                Ok(r) => answer(ctx.send_request(&r.method, r.params).await),
                Err(e) => envelope::error("invalidArguments", format!("invalid request: {e}")),
            },
            other => envelope::error("invalidArguments", format!("unknown request kind {other:?}")),
        }
    }
}

/// The core's `-32042` error (`ErrorObject::url_elicitation_required`) as `{code, message,
/// data}` JSON: `elicitationsJson` is an array of URL elicitations (`{message, url,
/// elicitationId}`, `mode: "url"` optional), each read as the core's `ElicitRequestParams` and
/// written back in its wire shape; `message` replaces the core's. Anything else is an error
/// naming the item.
#[napi]
pub fn url_elicitation_required(elicitations_json: String, message: Option<String>) -> Result<String> {
    let items: Vec<Value> = parse(&elicitations_json, "elicitations")?;
    let mut elicitations = Vec::with_capacity(items.len());
    for (i, mut item) in items.into_iter().enumerate() {
        if let Value::Object(m) = &mut item {
            m.entry("mode").or_insert_with(|| json!("url"));
        }
        match serde_json::from_value::<ElicitRequestParams>(item) {
            Ok(p @ ElicitRequestParams::Url { elicitation_id: Some(_), .. }) => elicitations.push(p.to_params(true)),
            Ok(ElicitRequestParams::Url { .. }) => {
                return Err(Error::from_reason(format!("elicitations[{i}]: a URL elicitation needs an elicitationId")))
            }
            Ok(ElicitRequestParams::Form { .. }) => {
                return Err(Error::from_reason(format!(
                    "elicitations[{i}]: only URL elicitations (mode \"url\") belong here"
                )))
            }
            Err(e) => return Err(Error::from_reason(format!("elicitations[{i}]: {e}"))),
        }
    }
    let mut e = ErrorObject::url_elicitation_required(elicitations);
    if let Some(m) = message {
        e.message = m;
    }
    serde_json::to_string(&e).map_err(|e| Error::from_reason(e.to_string()))
}

/// A request to the client by method name.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ClientRequest {
    method: String,
    #[serde(default)]
    params: Option<Value>,
}

/// The core's `CreateMessageParams` from JS values; a missing `maxTokens` is the core's
/// `CreateMessageParams::DEFAULT_MAX_TOKENS`.
pub(crate) fn sampling_params(mut args: Value) -> serde_json::Result<CreateMessageParams> {
    if let Value::Object(m) = &mut args {
        if m.get("maxTokens").is_none_or(Value::is_null) {
            m.insert("maxTokens".into(), json!(CreateMessageParams::DEFAULT_MAX_TOKENS));
        }
    }
    serde_json::from_value(args)
}

/// The `maxTokens` of a sampling request that names none: the core's
/// `CreateMessageParams::DEFAULT_MAX_TOKENS`.
#[napi]
pub fn default_max_tokens() -> u32 {
    CreateMessageParams::DEFAULT_MAX_TOKENS
}

/// The headers whose values request info never shows in `util.inspect` or `toJSON` output
/// (credentials): the core's `SENSITIVE_HEADERS`.
#[napi]
pub fn sensitive_headers() -> Vec<String> {
    ferrite_core::server::SENSITIVE_HEADERS.iter().map(|h| (*h).to_owned()).collect()
}
