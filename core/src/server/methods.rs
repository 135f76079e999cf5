//! The methods a server serves, shared by both eras: lists, `tools/call`, `resources/read`,
//! `prompts/get`, `completion/complete`, the session methods of the handshake revisions,
//! the 2026-07-28 methods, and custom methods. What is served comes from the server's
//! [offer](super::offer); how a result is shaped for the request's era from
//! [`Server::finish`].

use std::sync::atomic::Ordering;

use serde::Serialize;
use serde_json::{Map, Value};

use super::connection::Era;
use super::dispatch::{empty_result, missing_capability, params_map, required_str, to_raw, Outcome};
use super::handler::{HandlerError, NOT_AN_OBJECT};
use super::pagination;
use super::registry::ToolEntry;
use super::reply::{Finished, RoundInput};
use super::tasks::TaskMode;
use super::{read, RequestContext, Server};
use crate::auth::{self, Target};
use crate::protocol::model::{
    CacheHint, CallToolResult, CompleteRequest, CompleteResult, CompletionReference, ForVersion as _, LoggingLevel,
    Meta, Prompt, Resource, ResourceTemplate, Tool,
};
use crate::protocol::{code, ErrorObject, ProtocolVersion};

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

/// A result whose `_meta` the 2026-07-28 path merges with the server info.
pub(crate) trait ResultMeta {
    /// Take the result's own `_meta`, if it has one.
    fn take_meta(&mut self) -> Option<Meta> {
        None
    }
}

impl<T: Serialize> ResultMeta for ListPage<'_, T> {}
impl ResultMeta for CompleteResult {}
impl ResultMeta for CallToolResult {
    fn take_meta(&mut self) -> Option<Meta> {
        self.meta.take()
    }
}
impl ResultMeta for crate::protocol::model::ReadResourceResult {
    fn take_meta(&mut self) -> Option<Meta> {
        self.meta.take()
    }
}
impl ResultMeta for crate::protocol::model::GetPromptResult {
    fn take_meta(&mut self) -> Option<Meta> {
        self.meta.take()
    }
}

fn resource_not_found(uri: &str, version: ProtocolVersion) -> ErrorObject {
    let c = if version.is_handshake() { code::RESOURCE_NOT_FOUND } else { code::INVALID_PARAMS };
    ErrorObject::new(c, format!("Resource not found: {uri}")).with_data(serde_json::json!({ "uri": uri }))
}

impl Server {
    /// Shape a complete result for the request's era: as is for the handshake revisions;
    /// on 2026-07-28 with `resultType`, the cache hint (when the method carries one) and the
    /// server info in `_meta`.
    pub(crate) fn finish<T: Serialize + ResultMeta>(
        &self,
        ctx: &RequestContext,
        mut result: T,
        hint: Option<CacheHint>,
    ) -> Outcome {
        if !ctx.is_modern() {
            return to_raw(&result);
        }
        let meta = result.take_meta();
        self.modern_result(&result, crate::protocol::model::ResultType::Complete, hint, meta.as_ref())
    }

    pub(crate) async fn route(&self, method: &str, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let era = if ctx.is_modern() { Era::Modern } else { Era::Handshake };
        let offer = self.offer(era);
        offer.gate(method)?;
        let page_size = self.inner.flags.page_size.load(Ordering::Relaxed);
        let version = ctx.protocol_version();
        let hints = read(&self.inner.registry).cache;
        match method {
            "tools/list" => {
                let p = params_map(params, method)?;
                let mut tools: Vec<Tool> =
                    read(&self.inner.registry).tools.values().map(|e| e.tool.for_version(version)).collect();
                self.hide_unauthorized(&ctx, &mut tools, Target::Tool, |t| &t.name);
                let (items, next_cursor) = pagination::page(&tools, cursor_of(&p)?, page_size)?;
                let page = ListPage { items: ListItems { key: "tools", items }, next_cursor };
                self.finish(&ctx, page, Some(hints.tools_list))
            }
            "tools/call" => self.call_tool(params, ctx).await,
            "resources/list" => {
                let p = params_map(params, method)?;
                let mut list: Vec<Resource> =
                    read(&self.inner.registry).resources.values().map(|e| e.resource.for_version(version)).collect();
                self.hide_unauthorized(&ctx, &mut list, Target::Resource, |r| &r.uri);
                let (items, next_cursor) = pagination::page(&list, cursor_of(&p)?, page_size)?;
                let page = ListPage { items: ListItems { key: "resources", items }, next_cursor };
                self.finish(&ctx, page, Some(hints.resources_list))
            }
            "resources/templates/list" => {
                let p = params_map(params, method)?;
                let list: Vec<ResourceTemplate> =
                    read(&self.inner.registry).templates.iter().map(|e| e.template.for_version(version)).collect();
                let (items, next_cursor) = pagination::page(&list, cursor_of(&p)?, page_size)?;
                let page = ListPage { items: ListItems { key: "resourceTemplates", items }, next_cursor };
                self.finish(&ctx, page, Some(hints.templates_list))
            }
            "resources/read" => self.read_resource(params, ctx).await,
            "prompts/list" => {
                let p = params_map(params, method)?;
                let mut list: Vec<Prompt> =
                    read(&self.inner.registry).prompts.values().map(|e| e.prompt.for_version(version)).collect();
                self.hide_unauthorized(&ctx, &mut list, Target::Prompt, |p| &p.name);
                let (items, next_cursor) = pagination::page(&list, cursor_of(&p)?, page_size)?;
                let page = ListPage { items: ListItems { key: "prompts", items }, next_cursor };
                self.finish(&ctx, page, Some(hints.prompts_list))
            }
            "prompts/get" => self.get_prompt(params, ctx).await,
            "completion/complete" => self.complete(params, ctx).await,
            // Session methods of the handshake revisions (the modern path refuses them
            // before routing).
            "resources/subscribe" | "resources/unsubscribe" => {
                let mut p = params_map(params, method)?;
                let uri = required_str(&mut p, "uri", method)?;
                if method == "resources/subscribe" {
                    ctx.connection().subscribe(&uri);
                } else {
                    ctx.connection().unsubscribe(&uri);
                }
                empty_result()
            }
            "logging/setLevel" => {
                let mut p = params_map(params, method)?;
                let level = required_str(&mut p, "level", method)?;
                let level = LoggingLevel::parse(&level)
                    .ok_or_else(|| ErrorObject::invalid_params(format!("logging/setLevel: unknown level {level:?}")))?;
                ctx.connection().set_log_level(level);
                empty_result()
            }
            // The 2026-07-28 methods.
            "server/discover" if era == Era::Modern => to_raw(&self.discover_result()),
            "subscriptions/listen" if era == Era::Modern => self.listen(params, ctx).await,
            // Boxed: the task methods' state is the largest of all (about 1.9 KiB), and every
            // request's routing future would otherwise be as large.
            "tasks/get" | "tasks/update" | "tasks/cancel" | "tasks/result" | "tasks/list" => {
                Box::pin(self.task_method(method, params, ctx)).await
            }
            _ => self.custom_method(method, params, ctx).await,
        }
    }

    async fn custom_method(&self, method: &str, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let handler = read(&self.inner.registry).methods.get(method).cloned();
        let handler = handler.ok_or_else(|| ErrorObject::method_not_found(method))?;
        let mut p = params_map(params, method)?;
        p.remove("_meta");
        let value = handler.call(p, ctx.clone()).await.map_err(HandlerError::into_rpc)?;
        if !value.is_object() {
            return Err(ErrorObject::internal(format!(
                "the handler of {method} returned a result that is not an object"
            )));
        }
        if !ctx.is_modern() {
            return to_raw(&value);
        }
        self.decorate_value(value)
    }

    /// Leave out of a list what the caller lacks a scope for, when the server hides such
    /// things.
    fn hide_unauthorized<T>(
        &self,
        ctx: &RequestContext,
        items: &mut Vec<T>,
        target: Target,
        name: impl Fn(&T) -> &str,
    ) {
        if let (Some(auth), Some(id)) = (&self.inner.auth, ctx.identity()) {
            items.retain(|item| auth.visible(id, target, name(item)));
        }
    }

    /// Refuse a request whose caller lacks a scope the target needs. Over HTTP the transport
    /// has already answered such a request with 403 and the step-up challenge; this is for a
    /// host that drives the server with an identity of its own.
    fn check_scopes(&self, ctx: &RequestContext, target: Target, name: &str) -> Result<(), ErrorObject> {
        let (Some(auth), Some(id)) = (&self.inner.auth, ctx.identity()) else { return Ok(()) };
        let missing = auth.missing_scopes(id, target, name);
        if missing.is_empty() {
            return Ok(());
        }
        Err(ErrorObject::new(
            auth::INSUFFICIENT_SCOPE,
            format!("Insufficient scope: {name} needs {}", missing.join(" ")),
        )
        .with_data(serde_json::json!({
            "requiredScopes": auth.required_scopes(target, name),
            "missingScopes": missing,
        })))
    }

    async fn call_tool(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "tools/call")?;
        let name = required_str(&mut p, "name", "tools/call")?;
        self.check_scopes(&ctx, Target::Tool, &name)?;
        let arguments = match p.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => return Err(ErrorObject::invalid_params("tools/call: arguments must be an object")),
        };
        let entry = read(&self.inner.registry).tools.get(&name).cloned();
        let entry = entry.ok_or_else(|| ErrorObject::invalid_params(format!("Unknown tool: {name}")))?;
        if let Some(required) = &entry.required_caps {
            if !ctx.client_capabilities().covers(required) {
                let required = serde_json::to_value(required).unwrap_or_default();
                return Err(missing_capability(ctx.is_modern(), &format!("tool {name}"), required));
            }
        }
        if !self.inner.flags.skip_input_validation.load(Ordering::Relaxed) {
            if let Err(violations) = entry.input.check(&arguments) {
                let r = CallToolResult::error(format!("Invalid arguments for tool {name}: {violations}"));
                return self.finish(&ctx, r, None).map(|raw| raw.tool_result(true));
            }
        }
        if let TaskMode::Task { generation, ttl } = self.task_mode(&ctx, &entry, p.get("task"))? {
            // Boxed, as the task methods are: a call that becomes a task is rare, and its state
            // would otherwise size every tool call's.
            return Box::pin(self.call_tool_as_task(ctx, entry, arguments, generation, ttl)).await;
        }
        let handler = entry.handler.clone();
        let input = RoundInput::new(arguments, &ctx);
        let call = move |c: RequestContext| match input.take() {
            Ok(arguments) => handler.call(arguments, c),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        };
        let result = match self.reply_loop(&ctx, "tools/call", "tool", &name, call).await {
            Ok(Finished::Complete(r)) => r,
            Ok(Finished::InputRequired(raw)) => return Ok(raw),
            Err(HandlerError::Failed(m)) => {
                tracing::debug!(target: crate::diagnostics::target::HANDLER, tool = %name, "the tool failed: {m}");
                CallToolResult::error(m)
            }
            Err(HandlerError::Rpc(e)) => return Err(e),
        };
        self.finish_tool_result(&ctx, &entry, result)
    }

    /// A tool's result as answered: checked against its output schema when the server
    /// validates output, stripped for the revision, shaped for the era.
    pub(crate) fn finish_tool_result(
        &self,
        ctx: &RequestContext,
        entry: &ToolEntry,
        mut result: CallToolResult,
    ) -> Outcome {
        let name = &entry.tool.name;
        if !result.structured_is_object() {
            return Err(HandlerError::invalid_result(NOT_AN_OBJECT).into_rpc());
        }
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
        let is_error = result.is_error();
        result.strip_for(ctx.protocol_version());
        self.finish(ctx, result, None).map(|raw| raw.tool_result(is_error))
    }

    async fn read_resource(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "resources/read")?;
        let uri = required_str(&mut p, "uri", "resources/read")?;
        self.check_scopes(&ctx, Target::Resource, &uri)?;
        let found = {
            let reg = read(&self.inner.registry);
            match reg.resources.get(&uri) {
                Some(e) => Some((e.handler.clone(), Default::default(), e.cache)),
                None => reg
                    .templates
                    .iter()
                    .find_map(|t| t.parsed.match_uri(&uri).map(|vars| (t.handler.clone(), vars, t.cache))),
            }
        };
        let version = ctx.protocol_version();
        let Some((handler, vars, hint)) = found else {
            return Err(resource_not_found(&uri, version));
        };
        let hint = hint.unwrap_or(read(&self.inner.registry).cache.resource_read);
        let target = uri.clone();
        let input = RoundInput::new((uri, vars), &ctx);
        let call = move |c: RequestContext| match input.take() {
            Ok((uri, vars)) => handler.read(uri, vars, c),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        };
        match self
            .reply_loop(&ctx, "resources/read", "resource", &target, call)
            .await
            .map_err(HandlerError::into_rpc)?
        {
            Finished::Complete(r) => self.finish(&ctx, r, Some(hint)),
            Finished::InputRequired(raw) => Ok(raw),
        }
    }

    async fn get_prompt(&self, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let mut p = params_map(params, "prompts/get")?;
        let name = required_str(&mut p, "name", "prompts/get")?;
        self.check_scopes(&ctx, Target::Prompt, &name)?;
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
        let handler = entry.handler.clone();
        let input = RoundInput::new(arguments, &ctx);
        let call = move |c: RequestContext| match input.take() {
            Ok(arguments) => handler.get(arguments, c),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        };
        match self.reply_loop(&ctx, "prompts/get", "prompt", &name, call).await.map_err(HandlerError::into_rpc)? {
            Finished::Complete(r) => self.finish(&ctx, r, None),
            Finished::InputRequired(raw) => Ok(raw),
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
            // A prompt nobody serves or completes is the client's mistake. A completer for the
            // prompt, or a global handler (which answers for whatever it knows, a proxied
            // server's prompts say), counts as serving it.
            if let CompletionReference::Prompt { name } = &request.reference {
                let served = reg.prompts.contains_key(name)
                    || reg.completion_handler.is_some()
                    || reg.mounted.iter().any(|m| m.completion.is_some())
                    || reg.completers.keys().any(|(r, _)| r == &request.reference);
                if !served {
                    return Err(ErrorObject::invalid_params(format!("completion/complete: unknown prompt {name:?}")));
                }
            }
            (
                reg.global_completers(),
                reg.completers.get(&(request.reference.clone(), request.argument_name.clone())).cloned(),
            )
        };
        let mut result = CompleteResult::default();
        for g in global {
            result = g.complete(request.clone(), ctx.clone()).await.map_err(HandlerError::into_rpc)?;
            if !result.completion.values.is_empty() {
                break;
            }
        }
        if result.completion.values.is_empty() {
            if let Some(s) = specific {
                result = s.complete(request, ctx.clone()).await.map_err(HandlerError::into_rpc)?;
            }
        }
        let c = &mut result.completion;
        if c.values.len() > CompleteResult::MAX_VALUES {
            let total = c.total.unwrap_or(c.values.len() as u64).max(c.values.len() as u64);
            c.values.truncate(CompleteResult::MAX_VALUES);
            c.total = Some(total);
            c.has_more = Some(true);
        }
        self.finish(&ctx, result, None)
    }
}
