//! Forwarding a client's request upstream: the handlers of the mirrored registrations
//! (tools, resources and templates, prompts, completions) and the middleware for what is not
//! registered (resource subscriptions, the upstream's custom methods). A 2026-07-28
//! upstream's input-required answer goes to a 2026-07-28 client as it is; a handshake-era
//! client is asked here and the upstream retried; a task the upstream makes of a call is
//! waited out (see `tasks`).

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::link::{Failure, Forward, UpstreamEra};
use super::{tasks, Mirror};
use crate::protocol::headers::{param_header_values, ParamHeaders};
use crate::protocol::model::{
    is_input_required, CallToolResult, CompleteRequest, CompleteResult, GetPromptResult, InputRequired,
    ReadResourceResult, Reply, TaskSupport,
};
use crate::protocol::ErrorObject;
use crate::server::middleware::{answer_with, Answer, Middleware, MiddlewareRequest, Next};
use crate::server::{
    BoxFuture, CompletionHandler, HandlerError, HandlerResult, PromptHandler, RequestContext, ResourceHandler,
    TemplateVariables, ToolHandler,
};

/// What the upstream answered a forwarded request.
pub(super) enum Forwarded {
    /// A result (a create-task result among them).
    Answer(Value),
    /// Input a 2026-07-28 client gives by retrying.
    NeedsInput(InputRequired),
}

impl Mirror {
    /// Forward a resources/read or prompts/get for `ctx`'s client (see [`Mirror::forward_raw`]).
    pub(super) async fn forward<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Map<String, Value>,
        ctx: RequestContext,
    ) -> HandlerResult<Reply<T>> {
        match self.forward_raw(method, params, &ctx, Vec::new(), None, true).await? {
            Forwarded::Answer(v) => Reply::from_value(v).map_err(HandlerError::invalid_result),
            Forwarded::NeedsInput(needs) => Ok(Reply::InputRequired(needs)),
        }
    }

    /// Forward a tools/call for `ctx`'s client: as a task upstream when the upstream runs
    /// the tool only as one (or says so with `-32021`), waited out here.
    pub(super) async fn call_tool(
        &self,
        params: Map<String, Value>,
        ctx: RequestContext,
        headers: Vec<(String, String)>,
        support: TaskSupport,
    ) -> HandlerResult<Reply<CallToolResult>> {
        let link = self.link_for(&ctx).clone();
        let modern = link.goes_modern_for(&ctx);
        let mut as_task = support == TaskSupport::Required;
        for _ in 0..2 {
            let mut params = params.clone();
            let mut capabilities = None;
            if as_task && modern {
                capabilities = Some(tasks::declaring_tasks(&ctx));
            } else if as_task {
                params.insert("task".into(), json!({}));
            }
            let answer = if as_task && modern {
                self.call_creating_task(&link, params, &ctx, headers.clone(), capabilities.clone()).await
            } else {
                self.forward_raw("tools/call", params, &ctx, headers.clone(), capabilities.clone(), true).await
            };
            let answer = match answer {
                Ok(a) => a,
                Err(HandlerError::Rpc(e)) if !as_task && modern && tasks::asks_for_tasks(&e) => {
                    as_task = true;
                    continue;
                }
                Err(e) => return Err(e),
            };
            return match answer {
                Forwarded::Answer(v) => match tasks::UpstreamTask::of(&v) {
                    Some(task) => self.await_task(&link, task, &ctx, capabilities).await,
                    None => Reply::from_value(v).map_err(HandlerError::invalid_result),
                },
                Forwarded::NeedsInput(needs) => Ok(Reply::InputRequired(needs)),
            };
        }
        Err(HandlerError::failed("the upstream server refused the tool as a task too"))
    }

    /// Forward a request for `ctx`'s client, declaring `capabilities` upstream instead of the
    /// client's (2026-07-28). A 2026-07-28 upstream's input-required answer goes to a
    /// 2026-07-28 client as it is (its retry brings the answers and the upstream's state
    /// back); a handshake-era client is asked here and the upstream retried.
    pub(super) async fn forward_raw(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        ctx: &RequestContext,
        headers: Vec<(String, String)>,
        capabilities: Option<Value>,
        abandons: bool,
    ) -> HandlerResult<Forwarded> {
        with_clients_meta(&mut params, ctx);
        let forward = Forward::declaring(ctx.clone(), headers, capabilities, abandons);
        let link = self.link_for(ctx);
        if link.goes_modern(Some(&forward)) {
            if !ctx.input_responses().is_empty() {
                params.insert("inputResponses".into(), Value::Object(ctx.input_responses().clone()));
            }
            if let Some(state) = ctx.request_state() {
                params.insert("requestState".into(), json!(state));
            }
        }
        for _ in 0..crate::server::MAX_INPUT_ROUNDS {
            let v = match link.request(method, Some(Value::Object(params.clone())), Some(&forward)).await {
                Ok(v) => v,
                Err(Failure::Rpc(e)) => return Err(HandlerError::Rpc(e)),
                Err(Failure::NeedsInput(needs)) => return Ok(Forwarded::NeedsInput(needs)),
            };
            if !is_input_required(&v) || ctx.is_modern() {
                return Ok(Forwarded::Answer(v));
            }
            let asked = InputRequired::from_value(&v).map_err(HandlerError::invalid_result)?;
            let answers = crate::server::ask_in_place(ctx, &asked).await?;
            params.insert("inputResponses".into(), Value::Object(answers));
            match asked.request_state {
                Some(s) => params.insert("requestState".into(), json!(s)),
                None => params.remove("requestState"),
            };
        }
        Err(HandlerError::failed("the upstream server kept asking for input"))
    }
}

pub(super) struct ToolForward {
    pub(super) mirror: Arc<Mirror>,
    pub(super) name: String,
    /// The arguments the tool mirrors into `Mcp-Param-*` headers (2026-07-28 over HTTP).
    pub(super) headers: Option<ParamHeaders>,
    /// Whether the upstream runs the tool as a task.
    pub(super) support: TaskSupport,
}

impl ToolHandler for ToolForward {
    fn call(&self, arguments: Value, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Reply<CallToolResult>>> {
        let (mirror, name, support) = (self.mirror.clone(), self.name.clone(), self.support);
        let headers = match (&self.headers, arguments.as_object()) {
            (Some(h), Some(args)) => param_header_values(h, args),
            _ => Vec::new(),
        };
        Box::pin(async move {
            let params = Map::from_iter([("name".to_owned(), json!(name)), ("arguments".to_owned(), arguments)]);
            mirror.call_tool(params, ctx, headers, support).await
        })
    }
}

pub(super) struct ReadForward(pub(super) Arc<Mirror>);

impl ResourceHandler for ReadForward {
    fn read(
        &self,
        uri: String,
        _v: TemplateVariables,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<ReadResourceResult>>> {
        let mirror = self.0.clone();
        Box::pin(async move {
            mirror.forward("resources/read", Map::from_iter([("uri".to_owned(), json!(uri))]), ctx).await
        })
    }
}

pub(super) struct PromptForward {
    pub(super) mirror: Arc<Mirror>,
    pub(super) name: String,
}

impl PromptHandler for PromptForward {
    fn get(
        &self,
        arguments: Map<String, Value>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<GetPromptResult>>> {
        let (mirror, name) = (self.mirror.clone(), self.name.clone());
        Box::pin(async move {
            let params =
                Map::from_iter([("name".to_owned(), json!(name)), ("arguments".to_owned(), Value::Object(arguments))]);
            mirror.forward("prompts/get", params, ctx).await
        })
    }
}

pub(super) struct CompleteForward(pub(super) Arc<Mirror>);

impl CompletionHandler for CompleteForward {
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>> {
        let mirror = self.0.clone();
        Box::pin(async move {
            let mut params = serde_json::to_value(&request).map_err(HandlerError::invalid_result)?;
            if let Value::Object(p) = &mut params {
                with_clients_meta(p, &ctx);
            }
            let link = mirror.link_for(&ctx).clone();
            let forward = Forward::new(ctx);
            match link.request("completion/complete", Some(params), Some(&forward)).await {
                Ok(v) => serde_json::from_value(v).map_err(HandlerError::invalid_result),
                Err(Failure::Rpc(e)) => Err(HandlerError::Rpc(e)),
                Err(Failure::NeedsInput(_)) => {
                    Err(HandlerError::failed("the upstream asked for input while completing"))
                }
            }
        })
    }
}

/// The client's own `_meta` of the request (`traceparent`/`tracestate`, its own keys) on the
/// request going upstream, so trace context and what the client said reach the upstream; the
/// progress token and the protocol's reserved keys (the 2026-07-28 envelope, related tasks)
/// are the link's to set.
fn with_clients_meta(params: &mut Map<String, Value>, ctx: &RequestContext) {
    let Some(other) = ctx.meta_other() else { return };
    let own: Map<String, Value> = other
        .iter()
        .filter(|(k, _)| !k.starts_with("io.modelcontextprotocol/"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if own.is_empty() {
        return;
    }
    match params.entry("_meta").or_insert_with(|| Value::Object(Map::new())) {
        Value::Object(meta) => {
            for (k, v) in own {
                meta.entry(k).or_insert(v);
            }
        }
        other => *other = Value::Object(own),
    }
}

/// The methods the mirror does not register: resource subscriptions (the upstream must
/// notify the proxy too) and the upstream's custom methods.
pub(super) struct Methods(pub(super) Arc<Mirror>);

/// `params` without the 2026-07-28 envelope and progress token the local core already read.
/// The `uri` of a request's params.
fn uri_of(params: &Option<Value>) -> Option<&str> {
    params.as_ref()?.get("uri")?.as_str()
}

/// The resource URIs a `subscriptions/listen` request asks updates of.
fn listened_uris(params: &Option<Value>) -> Vec<String> {
    params
        .as_ref()
        .and_then(|p| p.pointer("/notifications/resourceSubscriptions"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn without_envelope(params: Option<Value>) -> Option<Value> {
    let mut p = params?;
    if let Some(Value::Object(meta)) = p.get_mut("_meta") {
        meta.retain(|k, _| !k.starts_with("io.modelcontextprotocol/") && k != "progressToken");
        if meta.is_empty() {
            p.as_object_mut().map(|m| m.remove("_meta"));
        }
    }
    Some(p)
}

impl Middleware for Methods {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        let mirror = self.0.clone();
        Box::pin(async move {
            let method = request.method.as_str();
            let handshake = mirror.link.era != UpstreamEra::Modern;
            match method {
                "resources/subscribe" if handshake => {
                    if let Err(Failure::Rpc(e)) =
                        mirror.link.request(method, without_envelope(request.params.clone()), None).await
                    {
                        return Err(e);
                    }
                    if let Some(uri) = uri_of(&request.params) {
                        mirror.subscribed(uri, request.ctx.connection_id());
                    }
                    next.run(request).await
                }
                // Every client shares the upstream's one session: it unsubscribes when the last
                // subscriber here does.
                "resources/unsubscribe" if handshake => {
                    let uri = uri_of(&request.params).map(str::to_owned);
                    let connection = request.ctx.connection_id().to_owned();
                    let params = without_envelope(request.params.clone());
                    let answer = next.run(request).await;
                    if uri.is_some_and(|uri| mirror.unsubscribed(&uri, &connection)) {
                        if let Err(Failure::Rpc(e)) = mirror.link.request("resources/unsubscribe", params, None).await {
                            return Err(e);
                        }
                    }
                    answer
                }
                "subscriptions/listen" if handshake => {
                    let holder = format!("listen {} {}", request.ctx.connection_id(), request.ctx.request_id());
                    let uris = listened_uris(&request.params);
                    for uri in &uris {
                        let _ = mirror.link.request("resources/subscribe", Some(json!({"uri": uri})), None).await;
                        mirror.subscribed(uri, &holder);
                    }
                    // The client's stream is open until this returns: then its subscriptions go.
                    let answer = next.run(request).await;
                    for uri in &uris {
                        if mirror.unsubscribed(uri, &holder) {
                            let _ = mirror.link.request("resources/unsubscribe", Some(json!({"uri": uri})), None).await;
                        }
                    }
                    answer
                }
                // A 2026-07-28 upstream learns of subscriptions through the proxy's listen
                // stream, opened again when the set of URIs changes.
                "resources/subscribe" => {
                    if let Some(uri) = uri_of(&request.params) {
                        mirror.subscribed(uri, request.ctx.connection_id());
                        mirror.relisten();
                    }
                    next.run(request).await
                }
                "resources/unsubscribe" => {
                    let uri = uri_of(&request.params).map(str::to_owned);
                    let connection = request.ctx.connection_id().to_owned();
                    let answer = next.run(request).await;
                    if uri.is_some_and(|uri| mirror.unsubscribed(&uri, &connection)) {
                        mirror.relisten();
                    }
                    answer
                }
                "subscriptions/listen" => {
                    let holder = format!("listen {} {}", request.ctx.connection_id(), request.ctx.request_id());
                    let uris = listened_uris(&request.params);
                    for uri in &uris {
                        mirror.subscribed(uri, &holder);
                    }
                    mirror.relisten();
                    // The client's stream is open until this returns: then its URIs go.
                    let answer = next.run(request).await;
                    let mut gone = false;
                    for uri in &uris {
                        gone |= mirror.unsubscribed(uri, &holder);
                    }
                    if gone {
                        mirror.relisten();
                    }
                    answer
                }
                m if !crate::server::is_core_method(m)
                    && mirror.server.upgrade().is_some_and(|s| !s.serves_method(m)) =>
                {
                    let forward = Forward::new(request.ctx.clone());
                    let link = mirror.link_for(&request.ctx).clone();
                    match link.request(m, without_envelope(request.params.clone()), Some(&forward)).await {
                        Ok(v) => answer_with(&v),
                        Err(Failure::Rpc(e)) => Err(e),
                        Err(Failure::NeedsInput(_)) => {
                            Err(ErrorObject::internal(format!("{m}: the upstream asked for input")))
                        }
                    }
                }
                _ => next.run(request).await,
            }
        })
    }
}
