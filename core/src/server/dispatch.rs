//! JSON-RPC dispatch: from a parsed message to the response, per method.
//!
//! Protocol errors (unknown method, bad params, unknown tool) are JSON-RPC errors; tool
//! failures (including arguments that violate the input schema) are results with
//! `isError: true`. A panicking handler never takes the server down: it becomes an
//! `isError` result (tools) or `-32603` (everything else).

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::FutureExt as _;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::context::{ContextInner, NullPeer};
use super::handler::HandlerError;
use super::pagination;
use super::{read, ConnectionState, Peer, RequestContext, Server};
use crate::protocol::jsonrpc::{parse_payload, Invalid, Payload};
use crate::protocol::model::{
    CallToolResult, ClientCapabilities, CompleteRequest, CompleteResult, CompletionReference, ForVersion as _,
    Implementation, InitializeResult, LoggingLevel, Prompt, Resource, ResourceTemplate, Tool,
};
use crate::protocol::{
    code, ErrorObject, Message, Notification, OutboundResponse, ProtocolVersion, Request, RequestId,
};

type Outcome = Result<Box<RawValue>, ErrorObject>;

fn to_raw<T: Serialize + ?Sized>(value: &T) -> Outcome {
    serde_json::value::to_raw_value(value)
        .map_err(|e| ErrorObject::internal(format!("failed to serialize the result: {e}")))
}

fn empty_result() -> Outcome {
    to_raw(&json!({}))
}

fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// `params` as an owned object map (absent params read as empty).
fn params_map(params: Option<Value>, method: &str) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(ErrorObject::invalid_params(format!("{method}: params must be an object"))),
    }
}

fn required_str(m: &mut Map<String, Value>, key: &str, method: &str) -> Result<String, ErrorObject> {
    match m.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ErrorObject::invalid_params(format!("{method}: {key} must be a string"))),
        None => Err(ErrorObject::invalid_params(format!("{method}: missing required parameter {key}"))),
    }
}

fn cursor_of(m: &Map<String, Value>) -> Result<Option<&str>, ErrorObject> {
    match m.get("cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ErrorObject::invalid_params("cursor must be a string")),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListPage<'a, T: Serialize> {
    #[serde(flatten)]
    items: ListItems<'a, T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

struct ListItems<'a, T> {
    key: &'static str,
    items: &'a [T],
}

impl<T: Serialize> Serialize for ListItems<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.key, self.items)?;
        m.end()
    }
}

fn resource_not_found(uri: &str, version: ProtocolVersion) -> ErrorObject {
    let c = if version.is_handshake() { code::RESOURCE_NOT_FOUND } else { code::INVALID_PARAMS };
    ErrorObject::new(c, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

impl Server {
    /// Handle raw wire text in-process (single message or batch) on the server's in-process
    /// connection, with no channel back to a client. Returns the response text, or an empty
    /// string when there is nothing to answer (notifications).
    pub async fn handle_raw(&self, text: &str) -> String {
        let conn = self.inner.in_process.clone();
        let peer: Arc<dyn Peer> = Arc::new(NullPeer);
        self.handle_raw_on(text, &conn, &peer).await.unwrap_or_default()
    }

    /// Handle raw wire text against a given connection and peer.
    pub async fn handle_raw_on(&self, text: &str, conn: &Arc<ConnectionState>, peer: &Arc<dyn Peer>) -> Option<String> {
        self.handle_payload(parse_payload(text), conn, peer).await
    }

    /// Handle a parsed payload; returns the response text, if any.
    pub async fn handle_payload(
        &self,
        payload: Payload,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
    ) -> Option<String> {
        match payload {
            Payload::Single(Ok(msg)) => self.handle(msg, conn, peer).await.map(|r| r.to_json_string()),
            Payload::Single(Err(Invalid { id, error })) => Some(OutboundResponse::error(id, error).to_json_string()),
            Payload::Batch(items) => self.handle_batch(items, conn, peer).await,
        }
    }

    async fn handle_batch(
        &self,
        items: Vec<Result<Message, Invalid>>,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
    ) -> Option<String> {
        if items.is_empty() {
            return Some(
                OutboundResponse::error(None, ErrorObject::invalid_request("Invalid Request: empty batch"))
                    .to_json_string(),
            );
        }
        match conn.negotiated_version() {
            Some(v) if v.allows_batches() => {}
            v => {
                let rev = v.map(|v| v.as_str()).unwrap_or("(none negotiated)");
                let e = ErrorObject::invalid_request(format!(
                    "Invalid Request: JSON-RPC batches are only allowed in revision 2025-03-26, this connection uses {rev}"
                ));
                return Some(OutboundResponse::error(None, e).to_json_string());
            }
        }
        let futures = items.into_iter().map(|item| async move {
            match item {
                Ok(Message::Request(r)) if r.method == "initialize" => Some(OutboundResponse::error(
                    Some(r.id),
                    ErrorObject::invalid_request("Invalid Request: initialize must not be part of a batch"),
                )),
                Ok(m) => self.handle(m, conn, peer).await,
                Err(Invalid { id, error }) => Some(OutboundResponse::error(id, error)),
            }
        });
        let responses: Vec<String> =
            futures::future::join_all(futures).await.into_iter().flatten().map(|r| r.to_json_string()).collect();
        if responses.is_empty() {
            None
        } else {
            Some(format!("[{}]", responses.join(",")))
        }
    }

    /// Dispatch one message. Requests get a response (unless cancelled meanwhile);
    /// notifications get none; responses are handed to the peer that is waiting for them.
    pub async fn handle(
        &self,
        message: Message,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
    ) -> Option<OutboundResponse> {
        match message {
            Message::Request(r) => self.handle_request(r, conn, peer).await,
            Message::Notification(n) => {
                self.handle_notification(n, conn);
                None
            }
            Message::Response(r) => {
                peer.on_response(r);
                None
            }
        }
    }

    async fn handle_request(
        &self,
        req: Request,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
    ) -> Option<OutboundResponse> {
        let Request { id, method, params } = req;
        match method.as_str() {
            "ping" => return Some(OutboundResponse { id: Some(id), outcome: empty_result() }),
            "initialize" => {
                let outcome = self.initialize(params, conn);
                return Some(OutboundResponse { id: Some(id), outcome });
            }
            _ => {}
        }
        if self.inner.flags.require_initialized.load(Ordering::Relaxed)
            && !self.is_stateless()
            && !conn.is_initialized()
        {
            let e = ErrorObject::new(
                code::RESOURCE_NOT_FOUND,
                "Server not initialized: send notifications/initialized before other requests",
            );
            return Some(OutboundResponse::error(Some(id), e));
        }
        let cancel = conn.begin_request(&id);
        let meta = match &params {
            Some(Value::Object(m)) => m.get("_meta").and_then(Value::as_object).cloned(),
            _ => None,
        };
        let progress_token =
            meta.as_ref().and_then(|m| m.get("progressToken")).filter(|t| t.is_string() || t.is_number()).cloned();
        let ctx = RequestContext {
            inner: Arc::new(ContextInner {
                request_id: id.clone(),
                version: conn.effective_version(),
                connection: conn.clone(),
                progress_token,
                meta,
                cancel: cancel.clone(),
                peer: peer.clone(),
                logging_enabled: self.inner.flags.logging.load(Ordering::Relaxed),
                stateless: self.is_stateless(),
            }),
        };
        let outcome = match AssertUnwindSafe(self.route(&method, params, ctx)).catch_unwind().await {
            Ok(o) => o,
            Err(p) => Err(ErrorObject::internal(format!("handler for {method} panicked: {}", panic_message(&*p)))),
        };
        conn.end_request(&id);
        if cancel.is_cancelled() {
            // The client cancelled: the spec says not to answer.
            return None;
        }
        Some(OutboundResponse { id: Some(id), outcome })
    }

    fn handle_notification(&self, n: Notification, conn: &Arc<ConnectionState>) {
        match n.method.as_str() {
            "notifications/initialized" => conn.mark_initialized(),
            "notifications/cancelled" => {
                let id = n.params.as_ref().and_then(|p| p.get("requestId")).and_then(|v| match v {
                    Value::String(s) => Some(RequestId::String(s.clone())),
                    Value::Number(x) => x.as_i64().map(RequestId::Number),
                    _ => None,
                });
                if let Some(id) = id {
                    conn.cancel_request(&id);
                }
            }
            "notifications/roots/list_changed" => {
                let obs = read(&self.inner.roots_observer).clone();
                if let Some(o) = obs {
                    o();
                }
            }
            _ => {}
        }
        let obs = read(&self.inner.observer).clone();
        if let Some(o) = obs {
            o.notify(&n.method, n.params.as_ref());
        }
    }

    fn initialize(&self, params: Option<Value>, conn: &Arc<ConnectionState>) -> Outcome {
        let mut p = params_map(params, "initialize")?;
        let requested = required_str(&mut p, "protocolVersion", "initialize")?;
        let caps: ClientCapabilities = match p.remove("capabilities") {
            None | Some(Value::Null) => ClientCapabilities::default(),
            Some(v) => serde_json::from_value(v)
                .map_err(|e| ErrorObject::invalid_params(format!("initialize: invalid capabilities: {e}")))?,
        };
        let info: Option<Implementation> = match p.remove("clientInfo") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                serde_json::from_value(v)
                    .map_err(|e| ErrorObject::invalid_params(format!("initialize: invalid clientInfo: {e}")))?,
            ),
        };
        let version = ProtocolVersion::negotiate(&requested);
        if !conn.record_initialize(version, caps, info) {
            return Err(ErrorObject::invalid_request(
                "Invalid Request: initialize was already processed for this connection",
            ));
        }
        self.initialize_result(version).and_then(|r| to_raw(&r))
    }

    /// The `initialize` result this server sends at `version` (nothing newer than `version`
    /// on the wire).
    pub fn initialize_result(&self, version: ProtocolVersion) -> Result<InitializeResult, ErrorObject> {
        Ok(InitializeResult {
            protocol_version: version,
            capabilities: self.capabilities().for_version(version),
            server_info: self.inner.info.for_version(version),
            instructions: self.inner.instructions.clone(),
        })
    }

    fn has_tools(&self) -> bool {
        !read(&self.inner.registry).tools.is_empty() || self.inner.flags.tools_list_changed.load(Ordering::Relaxed)
    }

    fn has_resources(&self) -> bool {
        let reg = read(&self.inner.registry);
        let f = &self.inner.flags;
        !reg.resources.is_empty()
            || !reg.templates.is_empty()
            || f.subscriptions.load(Ordering::Relaxed)
            || f.resources_list_changed.load(Ordering::Relaxed)
    }

    fn has_prompts(&self) -> bool {
        !read(&self.inner.registry).prompts.is_empty() || self.inner.flags.prompts_list_changed.load(Ordering::Relaxed)
    }

    async fn route(&self, method: &str, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let gate = |declared: bool| {
            if declared {
                Ok(())
            } else {
                Err(ErrorObject::method_not_found(method))
            }
        };
        let page_size = self.inner.flags.page_size.load(Ordering::Relaxed);
        let version = ctx.protocol_version();
        match method {
            "tools/list" => {
                gate(self.has_tools())?;
                let p = params_map(params, method)?;
                let tools: Vec<Tool> =
                    read(&self.inner.registry).tools.values().map(|e| e.tool.for_version(version)).collect();
                let (items, next_cursor) = pagination::page(&tools, cursor_of(&p)?, page_size)?;
                to_raw(&ListPage { items: ListItems { key: "tools", items }, next_cursor })
            }
            "tools/call" => {
                gate(self.has_tools())?;
                self.call_tool(params, ctx).await
            }
            "resources/list" => {
                gate(self.has_resources())?;
                let p = params_map(params, method)?;
                let list: Vec<Resource> =
                    read(&self.inner.registry).resources.values().map(|e| e.resource.for_version(version)).collect();
                let (items, next_cursor) = pagination::page(&list, cursor_of(&p)?, page_size)?;
                to_raw(&ListPage { items: ListItems { key: "resources", items }, next_cursor })
            }
            "resources/templates/list" => {
                gate(self.has_resources())?;
                let p = params_map(params, method)?;
                let list: Vec<ResourceTemplate> =
                    read(&self.inner.registry).templates.iter().map(|e| e.template.for_version(version)).collect();
                let (items, next_cursor) = pagination::page(&list, cursor_of(&p)?, page_size)?;
                to_raw(&ListPage { items: ListItems { key: "resourceTemplates", items }, next_cursor })
            }
            "resources/read" => {
                gate(self.has_resources())?;
                self.read_resource(params, ctx).await
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                if self.is_stateless() || !self.inner.flags.subscriptions.load(Ordering::Relaxed) {
                    return Err(ErrorObject::method_not_found(method));
                }
                let mut p = params_map(params, method)?;
                let uri = required_str(&mut p, "uri", method)?;
                if method == "resources/subscribe" {
                    ctx.connection().subscribe(&uri);
                } else {
                    ctx.connection().unsubscribe(&uri);
                }
                empty_result()
            }
            "prompts/list" => {
                gate(self.has_prompts())?;
                let p = params_map(params, method)?;
                let list: Vec<Prompt> =
                    read(&self.inner.registry).prompts.values().map(|e| e.prompt.for_version(version)).collect();
                let (items, next_cursor) = pagination::page(&list, cursor_of(&p)?, page_size)?;
                to_raw(&ListPage { items: ListItems { key: "prompts", items }, next_cursor })
            }
            "prompts/get" => {
                gate(self.has_prompts())?;
                self.get_prompt(params, ctx).await
            }
            "completion/complete" => {
                let declared = {
                    let reg = read(&self.inner.registry);
                    reg.completion_handler.is_some() || !reg.completers.is_empty()
                };
                gate(declared)?;
                self.complete(params, ctx).await
            }
            "logging/setLevel" => {
                if self.is_stateless() || !self.inner.flags.logging.load(Ordering::Relaxed) {
                    return Err(ErrorObject::method_not_found(method));
                }
                let mut p = params_map(params, method)?;
                let level = required_str(&mut p, "level", method)?;
                let level = LoggingLevel::parse(&level)
                    .ok_or_else(|| ErrorObject::invalid_params(format!("logging/setLevel: unknown level {level:?}")))?;
                ctx.connection().set_log_level(level);
                empty_result()
            }
            _ => Err(ErrorObject::method_not_found(method)),
        }
    }

    async fn call_tool(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "tools/call")?;
        let name = required_str(&mut p, "name", "tools/call")?;
        let arguments = match p.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => return Err(ErrorObject::invalid_params("tools/call: arguments must be an object")),
        };
        let entry = read(&self.inner.registry).tools.get(&name).cloned();
        let entry = entry.ok_or_else(|| ErrorObject::invalid_params(format!("Unknown tool: {name}")))?;
        if let Some(required) = &entry.required_caps {
            if !ctx.client_capabilities().covers(required) {
                let data = json!({ "requiredCapabilities": required });
                return Err(ErrorObject::invalid_params(format!(
                    "tool {name} needs client capabilities the client did not declare: {}",
                    serde_json::to_string(required).unwrap_or_default()
                ))
                .with_data(data));
            }
        }
        let version = ctx.protocol_version();
        if !self.inner.flags.skip_input_validation.load(Ordering::Relaxed) {
            if let Err(violations) = entry.input.check(&arguments) {
                let r = CallToolResult::error(format!("Invalid arguments for tool {name}: {violations}"));
                return to_raw(&r);
            }
        }
        let mut result = match AssertUnwindSafe(entry.handler.call(arguments, ctx)).catch_unwind().await {
            Ok(Ok(r)) => r,
            Ok(Err(HandlerError::Failed(m))) => CallToolResult::error(m),
            Ok(Err(HandlerError::Rpc(e))) => return Err(e),
            Err(p) => CallToolResult::error(format!("tool {name} failed: {}", panic_message(&*p))),
        };
        if self.inner.flags.validate_output.load(Ordering::Relaxed) && !result.is_error() {
            if let Some(schema) = &entry.output {
                let sc = result.structured_content.as_ref().ok_or_else(|| {
                    ErrorObject::internal(format!(
                        "tool {name} declares an outputSchema but returned no structuredContent"
                    ))
                })?;
                schema.check(sc).map_err(|v| {
                    ErrorObject::internal(format!(
                        "tool {name} returned structuredContent that violates its outputSchema: {v}"
                    ))
                })?;
            }
        }
        result.strip_for(version);
        to_raw(&result)
    }

    async fn read_resource(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "resources/read")?;
        let uri = required_str(&mut p, "uri", "resources/read")?;
        let found = {
            let reg = read(&self.inner.registry);
            match reg.resources.get(&uri) {
                Some(e) => Some((e.handler.clone(), Default::default())),
                None => {
                    reg.templates.iter().find_map(|t| t.parsed.match_uri(&uri).map(|vars| (t.handler.clone(), vars)))
                }
            }
        };
        let version = ctx.protocol_version();
        let Some((handler, vars)) = found else {
            return Err(resource_not_found(&uri, version));
        };
        match handler.read(uri, vars, ctx).await {
            Ok(r) => to_raw(&r),
            Err(HandlerError::Failed(m)) => Err(ErrorObject::internal(m)),
            Err(HandlerError::Rpc(e)) => Err(e),
        }
    }

    async fn get_prompt(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "prompts/get")?;
        let name = required_str(&mut p, "name", "prompts/get")?;
        let arguments = match p.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(ErrorObject::invalid_params("prompts/get: arguments must be an object")),
        };
        if let Some((k, _)) = arguments.iter().find(|(_, v)| !v.is_string()) {
            return Err(ErrorObject::invalid_params(format!("prompts/get: argument {k} must be a string")));
        }
        let entry = read(&self.inner.registry).prompts.get(&name).cloned();
        let entry = entry.ok_or_else(|| ErrorObject::invalid_params(format!("Unknown prompt: {name}")))?;
        for arg in entry.prompt.arguments.iter().flatten() {
            if arg.required == Some(true) && !arguments.contains_key(&arg.name) {
                return Err(ErrorObject::invalid_params(format!(
                    "prompt {name}: missing required argument {}",
                    arg.name
                )));
            }
        }
        match entry.handler.get(arguments, ctx).await {
            Ok(r) => to_raw(&r),
            Err(HandlerError::Failed(m)) => Err(ErrorObject::internal(m)),
            Err(HandlerError::Rpc(e)) => Err(e),
        }
    }

    async fn complete(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "completion/complete")?;
        let reference: CompletionReference =
            p.remove("ref").and_then(|r| serde_json::from_value(r).ok()).ok_or_else(|| {
                ErrorObject::invalid_params("completion/complete: ref must be a ref/prompt or ref/resource")
            })?;
        let mut argument = match p.remove("argument") {
            Some(Value::Object(m)) => m,
            _ => return Err(ErrorObject::invalid_params("completion/complete: argument must be an object")),
        };
        let argument_name = required_str(&mut argument, "name", "completion/complete argument")?;
        let argument_value = required_str(&mut argument, "value", "completion/complete argument")?;
        let context_arguments = p
            .remove("context")
            .and_then(|c| c.get("arguments").and_then(Value::as_object).cloned())
            .unwrap_or_default();
        let request = CompleteRequest { reference, argument_name, argument_value, context_arguments };
        let (global, specific) = {
            let reg = read(&self.inner.registry);
            (
                reg.completion_handler.clone(),
                reg.completers.get(&(request.reference.clone(), request.argument_name.clone())).cloned(),
            )
        };
        let mut result = CompleteResult::default();
        if let Some(g) = global {
            result = g.complete(request.clone(), ctx.clone()).await.map_err(handler_error_to_rpc)?;
        }
        if result.completion.values.is_empty() {
            if let Some(s) = specific {
                result = s.complete(request, ctx).await.map_err(handler_error_to_rpc)?;
            }
        }
        let c = &mut result.completion;
        if c.values.len() > 100 {
            let total = c.total.unwrap_or(c.values.len() as u64).max(c.values.len() as u64);
            c.values.truncate(100);
            c.total = Some(total);
            c.has_more = Some(true);
        }
        to_raw(&result)
    }
}

fn handler_error_to_rpc(e: HandlerError) -> ErrorObject {
    match e {
        HandlerError::Failed(m) => ErrorObject::internal(m),
        HandlerError::Rpc(e) => e,
    }
}
