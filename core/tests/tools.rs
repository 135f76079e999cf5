//! tools/list and tools/call: validation, failures as isError, output schemas, capability
//! requirements, and version stripping.

mod common;

use common::{stateful, Harness};
use ferrite_core::server::typed::Structured;
use ferrite_core::{
    CallToolResult, ClientCapabilities, ConfigError, ErrorObject, HandlerError, RequestContext, Tool, ToolAnnotations,
};
use serde_json::{json, Value};

fn add_schema() -> Value {
    json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]})
}

fn server() -> ferrite_core::Server {
    let s = stateful("tools");
    s.add_tool_fn(Tool::new("add", add_schema()).with_description("adds"), |a| {
        Ok(CallToolResult::text((a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0)).to_string()))
    })
    .unwrap();
    s.add_tool_fn(Tool::new("noargs", Tool::no_arguments_schema()).with_description("none"), |a| {
        Ok(CallToolResult::text(a.to_string()))
    })
    .unwrap();
    s.add_tool_fn(Tool::new("fails", json!({"type":"object"})).with_description("fails"), |_| {
        Err(HandlerError::failed("it broke"))
    })
    .unwrap();
    s.add_tool_fn(Tool::new("panics", json!({"type":"object"})).with_description("panics"), |_| panic!("boom"))
        .unwrap();
    s.add_tool_fn(Tool::new("rpc", json!({"type":"object"})).with_description("protocol error"), |_| {
        Err(HandlerError::Rpc(ErrorObject::new(-31999, "custom")))
    })
    .unwrap();
    s
}

#[tokio::test]
async fn list_returns_tools_in_registration_order() {
    let h = Harness::new(server());
    let r = h.ok("tools/list", Value::Null).await;
    let names: Vec<&str> = r["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "noargs", "fails", "panics", "rpc"]);
    assert_eq!(r["tools"][0]["inputSchema"], add_schema());
    assert_eq!(r["tools"][0]["description"], "adds");
    assert!(r.get("nextCursor").is_none());
}

#[tokio::test]
async fn call_returns_the_handler_result() {
    let h = Harness::new(server());
    let r = h.ok("tools/call", json!({"name":"add","arguments":{"a":2,"b":3}})).await;
    assert_eq!(r, json!({"content":[{"type":"text","text":"5"}]}));
}

#[tokio::test]
async fn a_call_without_arguments_gets_an_empty_object() {
    let h = Harness::new(server());
    let r = h.ok("tools/call", json!({"name":"noargs"})).await;
    assert_eq!(r["content"][0]["text"], "{}");
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    let h = Harness::new(server());
    let r = h.call("tools/call", json!({"name":"nope"})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("nope"));
}

#[tokio::test]
async fn schema_violations_are_is_error_results_naming_the_problem() {
    let h = Harness::new(server());
    let r = h.ok("tools/call", json!({"name":"add","arguments":{"a":"two","b":3}})).await;
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/a") && text.contains("integer"), "{text}");
    let r = h.ok("tools/call", json!({"name":"add","arguments":{"a":1}})).await;
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"].as_str().unwrap().contains("b"), "names the missing property");
    let r = h.ok("tools/call", json!({"name":"noargs","arguments":{"x":1}})).await;
    assert_eq!(r["isError"], true, "additionalProperties: false is enforced");
}

#[tokio::test]
async fn input_validation_can_be_turned_off() {
    let s = server();
    s.disable_input_validation();
    let h = Harness::new(s);
    let r = h.ok("tools/call", json!({"name":"add","arguments":{"a":"two","b":3}})).await;
    assert!(r.get("isError").is_none(), "the handler ran: {r}");
    s_reenable(&h);
    let r = h.ok("tools/call", json!({"name":"add","arguments":{"a":"two","b":3}})).await;
    assert_eq!(r["isError"], true);
}

fn s_reenable(h: &Harness) {
    h.server.enable_input_validation();
}

#[tokio::test]
async fn handler_failure_is_an_is_error_result() {
    let h = Harness::new(server());
    let r = h.ok("tools/call", json!({"name":"fails"})).await;
    assert_eq!(r, json!({"content":[{"type":"text","text":"it broke"}],"isError":true}));
}

#[tokio::test]
async fn a_panicking_handler_is_an_is_error_result_and_the_server_survives() {
    let h = Harness::new(server());
    let r = h.ok("tools/call", json!({"name":"panics"})).await;
    // The panic's own message, nothing added: what a Python raise, a JS throw and a Go
    // panic give on their surfaces.
    assert_eq!(r, json!({"content":[{"type":"text","text":"boom"}],"isError":true}));
    h.ok("tools/call", json!({"name":"add","arguments":{"a":1,"b":1}})).await;
}

#[tokio::test]
async fn structured_content_that_is_not_an_object_is_an_invalid_result() {
    let s = stateful("bad");
    s.add_tool_fn(Tool::new("scalar", json!({"type":"object"})).with_description("scalar"), |_| {
        Ok(CallToolResult::structured(json!("not an object")))
    })
    .unwrap();
    let h = Harness::new(s);
    let r = h.call("tools/call", json!({"name":"scalar"})).await;
    assert_eq!(
        r["error"],
        json!({"code":-32603,"message":"the handler's result is not valid: structuredContent must be a JSON object"})
    );
}

#[tokio::test]
async fn a_handler_protocol_error_is_sent_as_is() {
    let h = Harness::new(server());
    let r = h.call("tools/call", json!({"name":"rpc"})).await;
    assert_eq!(r["error"], json!({"code":-31999,"message":"custom"}));
}

fn output_server() -> Harness {
    let s = stateful("out");
    let schema = json!({"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]});
    let tool = |n: &str| Tool::new(n, json!({"type":"object"})).with_description(n).with_output_schema(schema.clone());
    s.add_tool_fn(tool("good"), |_| Ok(CallToolResult::structured(json!({"sum": 3})))).unwrap();
    s.add_tool_fn(tool("missing"), |_| Ok(CallToolResult::text("3"))).unwrap();
    s.add_tool_fn(tool("wrong"), |_| Ok(CallToolResult::structured(json!({"sum": "three"})))).unwrap();
    s.add_tool_fn(tool("error"), |_| Ok(CallToolResult::error("failed, no structured content"))).unwrap();
    Harness::new(s)
}

#[tokio::test]
async fn output_schemas_are_not_enforced_by_default() {
    let h = output_server();
    h.ok("tools/call", json!({"name":"missing"})).await;
    h.ok("tools/call", json!({"name":"wrong"})).await;
}

#[tokio::test]
async fn output_validation_requires_conforming_structured_content() {
    let h = output_server();
    h.server.enable_output_validation();
    let r = h.ok("tools/call", json!({"name":"good"})).await;
    assert_eq!(r["structuredContent"], json!({"sum": 3}));
    assert_eq!(h.err_code("tools/call", json!({"name":"missing"})).await, -32603);
    let r = h.call("tools/call", json!({"name":"wrong"})).await;
    assert_eq!(r["error"]["code"], -32603);
    assert!(r["error"]["message"].as_str().unwrap().contains("outputSchema"));
    let r = h.ok("tools/call", json!({"name":"error"})).await;
    assert_eq!(r["isError"], true, "isError results are exempt");
}

#[tokio::test]
async fn required_client_capabilities_are_enforced() {
    let s = stateful("caps");
    s.add_tool_fn(Tool::new("needs", json!({"type":"object"})).with_description("d"), |_| {
        Ok(CallToolResult::text("ran"))
    })
    .unwrap();
    let caps: ClientCapabilities = serde_json::from_value(json!({"sampling": {}})).unwrap();
    s.set_tool_required_client_capabilities("needs", caps).unwrap();
    assert!(matches!(
        s.set_tool_required_client_capabilities("ghost", ClientCapabilities::default()),
        Err(ConfigError::UnknownTool(_))
    ));

    let without = Harness::new(s.clone());
    without.initialize("2025-06-18", json!({})).await;
    let r = without.call("tools/call", json!({"name":"needs"})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));
    assert!(r["error"]["message"].as_str().unwrap().contains("sampling"));

    let with = Harness::new(s);
    with.initialize("2025-06-18", json!({"sampling": {}})).await;
    assert_eq!(with.ok("tools/call", json!({"name":"needs"})).await["content"][0]["text"], "ran");
}

#[tokio::test]
async fn remove_tool_unregisters() {
    let h = Harness::new(server());
    assert!(h.server.remove_tool("add"));
    assert!(!h.server.remove_tool("add"));
    assert_eq!(h.err_code("tools/call", json!({"name":"add","arguments":{"a":1,"b":2}})).await, -32602);
}

#[tokio::test]
async fn invalid_schemas_are_refused_at_registration() {
    let s = stateful("bad");
    let r = s.add_tool_fn(Tool::new("x", json!({"type":"object","properties":{"a":{"type":12}}})), |_| {
        Ok(CallToolResult::text(""))
    });
    assert!(matches!(r, Err(ConfigError::InvalidSchema { which: "input", .. })), "{r:?}");
    let r = s.add_tool_fn(Tool::new("y", json!({"type":"string"})), |_| Ok(CallToolResult::text("")));
    assert!(matches!(r, Err(ConfigError::InputSchemaNotObject(_))));
    let r = s.add_tool_fn(Tool::new("z", json!({"type":"object"})).with_output_schema(json!({"type": 5})), |_| {
        Ok(CallToolResult::text(""))
    });
    assert!(matches!(r, Err(ConfigError::InvalidSchema { which: "output", .. })));
}

#[tokio::test]
async fn newer_tool_fields_are_stripped_for_older_revisions() {
    let s = stateful("strip");
    let mut t = Tool::new("t", json!({"type":"object"}))
        .with_description("d")
        .with_title("T")
        .with_output_schema(json!({"type":"object"}))
        .with_annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() });
    t.icons = Some(vec![]);
    s.add_tool_fn(t, |_| Ok(CallToolResult::structured(json!({"k": 1})))).unwrap();
    let cases = [
        ("2024-11-05", vec!["description", "inputSchema", "name"], false),
        ("2025-03-26", vec!["annotations", "description", "inputSchema", "name"], false),
        ("2025-06-18", vec!["annotations", "description", "inputSchema", "name", "outputSchema", "title"], true),
        (
            "2025-11-25",
            vec!["annotations", "description", "icons", "inputSchema", "name", "outputSchema", "title"],
            true,
        ),
    ];
    for (v, keys, structured) in cases {
        let h = Harness::new(s.clone());
        h.initialize(v, json!({})).await;
        let tool = h.ok("tools/list", Value::Null).await["tools"][0].clone();
        let mut got: Vec<&str> = tool.as_object().unwrap().keys().map(String::as_str).collect();
        got.sort();
        assert_eq!(got, keys, "at {v}");
        let r = h.ok("tools/call", json!({"name":"t"})).await;
        assert_eq!(r.get("structuredContent").is_some(), structured, "structuredContent at {v}");
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
    times: Option<u8>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Greeting {
    message: String,
}

#[tokio::test]
async fn typed_tools_derive_schemas_and_structure_results() {
    let s = stateful("typed");
    s.typed_tool("greet", "Greets", |g: Greet, ctx: RequestContext| async move {
        let _ = ctx.request_id();
        Ok(Structured(Greeting { message: format!("hi {}", g.name).repeat(g.times.unwrap_or(1) as usize) }))
    })
    .unwrap();
    let h = Harness::new(s);
    h.initialize("2025-11-25", json!({})).await;
    let tool = h.ok("tools/list", Value::Null).await["tools"][0].clone();
    assert_eq!(tool["inputSchema"]["type"], "object");
    assert_eq!(tool["inputSchema"]["required"], json!(["name"]));
    assert_eq!(tool["inputSchema"]["properties"]["name"]["description"], "Who to greet.");
    assert_eq!(tool["outputSchema"]["properties"]["message"]["type"], "string");
    let r = h.ok("tools/call", json!({"name":"greet","arguments":{"name":"ann"}})).await;
    assert_eq!(r["structuredContent"], json!({"message":"hi ann"}));
    assert_eq!(r["content"][0]["text"], r#"{"message":"hi ann"}"#);
    let r = h.ok("tools/call", json!({"name":"greet","arguments":{"name":"ann","times":300}})).await;
    assert_eq!(r["isError"], true, "u8 range comes from the derived schema");
}

/// A handler whose drop calls back into the server, as a C finalizer or a Python
/// destructor may: removal and replacement must not hold the registry lock while dropping.
struct Reentrant(ferrite_core::Server);

impl Drop for Reentrant {
    fn drop(&mut self) {
        let _ = self.0.tools();
    }
}

#[tokio::test]
async fn dropping_a_removed_or_replaced_handler_may_call_back_into_the_server() {
    let s = stateful("reentrant");
    let make = |s: &ferrite_core::Server| {
        let guard = Reentrant(s.clone());
        move |_a: Value| {
            let _ = &guard;
            Ok(CallToolResult::text("x"))
        }
    };
    s.add_tool_fn(Tool::new("t", json!({"type":"object"})), make(&s)).unwrap();
    s.add_tool_fn(Tool::new("t", json!({"type":"object"})), make(&s)).unwrap();
    assert!(s.remove_tool("t"));
}
