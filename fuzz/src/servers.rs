//! The servers the targets drive: the everything server's tool schemas with handlers that
//! answer at once, plus a resource, a template, a prompt and tools that log and report
//! progress, so an HTTP answer can become an SSE stream.

use ferrite_core::{
    CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, RequestContext, Resource,
    ResourceContents, ResourceTemplate, Server, Tool,
};
use serde_json::{json, Value};

/// One tool per distinct `inputSchema` of the Rust everything server (see `schemas/README.md`).
const EVERYTHING_TOOLS: &str = include_str!("../schemas/everything_tools.json");

/// The everything server's tools, as `(name, inputSchema)`.
pub fn everything_tools() -> Vec<(String, Value)> {
    let tools: Vec<Value> = serde_json::from_str(EVERYTHING_TOOLS).expect("schemas/everything_tools.json is JSON");
    tools
        .into_iter()
        .map(|t| (t["name"].as_str().expect("a tool has a name").to_owned(), t["inputSchema"].clone()))
        .collect()
}

/// Register the everything tools, each answering with its arguments as text.
pub fn add_everything_tools(server: &Server) {
    for (name, schema) in everything_tools() {
        server
            .add_tool_fn(Tool::new(&name, schema), |args| Ok(CallToolResult::text(args.to_string())))
            .expect("the everything server's schemas compile");
    }
}

/// A server for the in-process targets: the everything tools only.
pub fn schema_server() -> Server {
    let server = Server::builder(Implementation::new("fuzz", "1")).stateful().build();
    add_everything_tools(&server);
    server
}

/// A server for the HTTP front: the everything tools, one with an output schema, tools that
/// log and report progress (so answers go out as SSE), a resource, a template and a prompt.
pub fn http_server(stateless: bool) -> Server {
    let builder = Server::builder(Implementation::new("fuzz", "1"));
    let server = if stateless { builder.stateless() } else { builder.stateful() }.build();
    add_everything_tools(&server);
    server
        .add_tool_fn(
            Tool::new(
                "sum",
                json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
            )
            .with_output_schema(json!({"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]})),
            |args| {
                let sum = args["a"].as_i64().unwrap_or(0).wrapping_add(args["b"].as_i64().unwrap_or(0));
                Ok(CallToolResult { structured_content: Some(json!({ "sum": sum })), ..CallToolResult::text(sum.to_string()) })
            },
        )
        .expect("sum registers");
    server
        .add_tool(Tool::new("chatty", json!({"type": "object"})), |_args: Value, ctx: RequestContext| async move {
            ctx.info("started");
            ctx.report_progress(50.0, Some(100.0), Some("half"));
            ctx.notify("notifications/message", Some(json!({"level": "info", "data": "x"})));
            Ok(CallToolResult::text("done"))
        })
        .expect("chatty registers");
    server.add_resource(Resource::new("test://static", "static"), |uri: String, _vars, _ctx| async move {
        Ok(ReadResourceResult { contents: vec![ResourceContents::text(uri, None, "static")], meta: None })
    });
    server
        .add_resource_template(
            ResourceTemplate::new("test://item/{id}{?q}", "item"),
            |uri: String, _vars, _ctx| async move {
                Ok(ReadResourceResult { contents: vec![ResourceContents::text(uri, None, "item")], meta: None })
            },
        )
        .expect("the template parses");
    server.add_prompt(Prompt::new("p").with_description("a prompt"), |_args, _ctx| async {
        Ok(GetPromptResult::default())
    });
    server.enable_logging();
    let _ = server.enable_resource_subscriptions();
    server
}
