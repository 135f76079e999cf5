//! Typed tools: arguments deserialized into a Rust type whose JSON Schema becomes the
//! tool's `inputSchema`, and results converted from Rust values.
//!
//! ```no_run
//! # use ferrite_core::{Server, server::typed::Structured};
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct AddArgs { a: i64, b: i64 }
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Sum { sum: i64 }
//! let server = Server::new("demo", "1.0");
//! server.typed_tool("add", "Add two integers", |args: AddArgs, _ctx| async move {
//!     Ok(Structured(Sum { sum: args.a + args.b }))
//! }).unwrap();
//! ```

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::{ConfigError, HandlerError, RequestContext, Server};
use crate::protocol::model::{CallToolResult, Content, InputRequired, Reply, Tool};

/// Converts a handler's return value into a tool result.
pub trait IntoToolResult: Send + 'static {
    /// The output schema this type produces, if it is structured.
    fn output_schema() -> Option<Value> {
        None
    }
    /// The result.
    fn into_tool_result(self) -> CallToolResult;
    /// The reply: the result, unless the value asks for input (see [`Asking`]).
    fn into_tool_reply(self) -> Reply<CallToolResult>
    where
        Self: Sized,
    {
        Reply::Complete(self.into_tool_result())
    }
}

/// A typed tool's reply that may ask for input first: `Asking::Done(value)` completes,
/// `Asking::Input(InputRequired)` asks the client (MRTR) and the tool runs again with the
/// answers in the context.
#[derive(Debug, Clone)]
pub enum Asking<T> {
    /// The final value.
    Done(T),
    /// Input needed first.
    Input(InputRequired),
}

impl<T: IntoToolResult> IntoToolResult for Asking<T> {
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
    fn into_tool_result(self) -> CallToolResult {
        match self {
            Asking::Done(t) => t.into_tool_result(),
            Asking::Input(_) => CallToolResult::error("the tool asked for input where no reply was possible"),
        }
    }
    fn into_tool_reply(self) -> Reply<CallToolResult> {
        match self {
            Asking::Done(t) => t.into_tool_reply(),
            Asking::Input(i) => Reply::InputRequired(i),
        }
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

/// A structured result: serialized as `structuredContent` and as a text block, with the
/// type's JSON Schema as the tool's `outputSchema`.
#[derive(Debug, Clone)]
pub struct Structured<T>(pub T);

impl<T: Serialize + JsonSchema + Send + 'static> IntoToolResult for Structured<T> {
    fn output_schema() -> Option<Value> {
        Some(schema_of::<T>())
    }
    fn into_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => CallToolResult::error(format!("failed to serialize the result: {e}")),
        }
    }
}

/// The JSON Schema (2020-12) of `T`, without the `title`/`$schema` noise at the root.
pub fn schema_of<T: JsonSchema>() -> Value {
    let mut v = schemars::schema_for!(T).to_value();
    if let Some(m) = v.as_object_mut() {
        m.remove("title");
    }
    v
}

impl Server {
    /// Register a tool whose arguments deserialize into `A` (its JSON Schema becomes the
    /// `inputSchema`) and whose return value converts with [`IntoToolResult`].
    pub fn typed_tool<A, R, F, Fut>(&self, name: &str, description: &str, handler: F) -> Result<(), ConfigError>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, HandlerError>> + Send + 'static,
    {
        let mut tool = Tool::new(name, schema_of::<A>()).with_description(description);
        tool.output_schema = R::output_schema();
        let handler = Arc::new(handler);
        self.add_tool(tool, move |args: Value, ctx: RequestContext| {
            let handler = handler.clone();
            async move {
                let args: A = serde_json::from_value(args)
                    .map_err(|e| HandlerError::Failed(format!("invalid arguments: {e}")))?;
                handler(args, ctx).await.map(IntoToolResult::into_tool_reply)
            }
        })
    }
}
