//! The adapters that make Python callables the core's handlers (tools, resources, prompts,
//! completers, custom methods, notification observers).
//!
//! Each adapter runs its callable through the [`Executor`] and turns what the Python wrapper
//! returned into the core's type: a result parsed from JSON, or the core `InputRequired` a
//! tool, prompt or resource handler returned (MRTR).

use std::sync::Arc;

use ferrite_core::server::{
    CompletionHandler, HandlerResult, MethodHandler, NotificationObserver, PromptHandler, ResourceHandler,
    TemplateVariables, ToolHandler,
};
use ferrite_core::{
    BoxFuture, CallToolResult, CompleteRequest, CompleteResult, GetPromptResult, HandlerError, ReadResourceResult,
    Reply, RequestContext,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::runtime::Handle;

use crate::bridge::{Executor, Input, PyCallable, Returned};
use crate::convert;

/// Parse the JSON a handler wrapper returned into the core's result type.
fn parse_result<T: DeserializeOwned>(v: Value, what: &str) -> HandlerResult<T> {
    serde_json::from_value(v).map_err(|e| HandlerError::failed(format!("the handler returned an invalid {what}: {e}")))
}

/// What a tool, prompt or resource wrapper returned, as the core's reply: the core
/// `InputRequired` as is, or the result's JSON (which may itself be the input-required wire
/// shape, parsed by the core's `Reply::from_value`).
fn parse_reply<T: DeserializeOwned>(r: Returned, what: &str) -> HandlerResult<Reply<T>> {
    match r {
        Returned::Input(ir) => Ok(Reply::InputRequired(ir)),
        Returned::Json(v) => Reply::from_value(v)
            .map_err(|e| HandlerError::failed(format!("the handler returned an invalid {what}: {e}"))),
    }
}

/// The JSON of a handler that cannot ask for input (completers, custom methods).
fn json_only(r: Returned, what: &str) -> HandlerResult<Value> {
    match r {
        Returned::Json(v) => Ok(v),
        Returned::Input(_) => Err(HandlerError::failed(format!(
            "a {what} handler cannot return InputRequired (only tools, prompts and resources can)"
        ))),
    }
}

/// A Python callable registered as a tool, resource reader, prompt, completer or method.
pub struct Adapter {
    pub handler: Arc<PyCallable>,
    pub exec: Arc<Executor>,
}

impl Adapter {
    fn run<T: DeserializeOwned + 'static>(
        &self,
        input: Input,
        ctx: RequestContext,
        what: &'static str,
    ) -> BoxFuture<'static, HandlerResult<T>> {
        let (handler, exec) = (self.handler.clone(), self.exec.clone());
        Box::pin(async move { parse_result(json_only(exec.run(handler, input, Some(ctx)).await?, what)?, what) })
    }

    fn run_reply<T: DeserializeOwned + 'static>(
        &self,
        input: Input,
        ctx: RequestContext,
        what: &'static str,
    ) -> BoxFuture<'static, HandlerResult<Reply<T>>> {
        let (handler, exec) = (self.handler.clone(), self.exec.clone());
        Box::pin(async move { parse_reply(exec.run(handler, input, Some(ctx)).await?, what) })
    }
}

impl ToolHandler for Adapter {
    fn call(&self, arguments: Value, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Reply<CallToolResult>>> {
        self.run_reply(Input::Tool(arguments), ctx, "tool result")
    }
}

impl ResourceHandler for Adapter {
    fn read(
        &self,
        uri: String,
        variables: TemplateVariables,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<ReadResourceResult>>> {
        self.run_reply(Input::Resource(uri, variables), ctx, "resource result")
    }
}

impl PromptHandler for Adapter {
    fn get(
        &self,
        arguments: Map<String, Value>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<GetPromptResult>>> {
        self.run_reply(Input::Prompt(arguments), ctx, "prompt result")
    }
}

impl CompletionHandler for Adapter {
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>> {
        let (handler, exec) = (self.handler.clone(), self.exec.clone());
        Box::pin(async move {
            match json_only(exec.run(handler, Input::Completion(request), Some(ctx)).await?, "completion")? {
                // Bare values: the core caps them and fills in `total` and `hasMore`.
                Value::Array(items) => items
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s),
                        other => Err(HandlerError::failed(format!("a completion value must be a string, not {other}"))),
                    })
                    .collect::<HandlerResult<Vec<String>>>()
                    .map(CompleteResult::from_values),
                v => parse_result(v, "completion result"),
            }
        })
    }
}

impl MethodHandler for Adapter {
    fn call(&self, params: Map<String, Value>, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Value>> {
        self.run(Input::Method(params), ctx, "method result")
    }
}

/// A Python callable observing the client's notifications. It runs on the worker pool, never
/// on the transport's read loop, so a slow observer delays nothing; its outcome is ignored
/// (the Python wrapper reports its exceptions on stderr).
pub struct Observer {
    pub handler: Arc<PyCallable>,
    pub exec: Arc<Executor>,
    pub runtime: Handle,
}

impl NotificationObserver for Observer {
    fn notify(&self, method: &str, params: Option<&Value>) {
        let (handler, exec) = (self.handler.clone(), self.exec.clone());
        let input = Input::Notification(method.to_owned(), params.cloned());
        self.runtime.spawn(async move {
            let _ = exec.run(handler, input, None).await;
        });
    }
}

/// A JSON description (tool, resource, ...) given as a dict, into the core's type.
pub fn describe<T: DeserializeOwned>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    serde_json::from_value(convert::from_py(obj)?).map_err(|e| PyValueError::new_err(format!("invalid {what}: {e}")))
}
