//! The 2026-07-28 path in-process: the ladder without headers, removed methods, `server/discover`,
//! the result shape (`resultType`, server info, cache hints), per-request state, logging only
//! with a level, `-32021`, resources not found, extensions, custom methods, and the era a
//! pinning connection keeps.

mod common;

use std::sync::Arc;

use common::{envelope, stateful, Harness, V2026};
use ferrite_core::server::CacheHints;
use ferrite_core::{
    CacheHint, CacheScope, CallToolResult, ClientCapabilities, ConfigError, ConnectionState, Implementation, Message,
    Prompt, PromptMessage, RequestContext, Resource, ResourceTemplate, Server, Tool,
};
use serde_json::{json, Map, Value};

const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

fn server(s: Server) -> Server {
    s.enable_logging();
    s.add_tool_fn(Tool::new("echo", json!({"type":"object"})).with_description("echo"), |a| {
        Ok(CallToolResult::text(a.to_string()))
    })
    .unwrap();
    s.add_tool(
        Tool::new("chatty", json!({"type":"object"})).with_description("logs at two levels"),
        |_a: Value, ctx: RequestContext| async move {
            ctx.info("an info line");
            ctx.warning("a warning line");
            Ok(CallToolResult::text("done"))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("ext", json!({"type":"object"})).with_description("reads a client extension"),
        |_a: Value, ctx: RequestContext| async move {
            Ok(CallToolResult::text(format!("{:?}", ctx.client_extension("io.example/widgets"))))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("who", json!({"type":"object"})).with_description("says who the client is"),
        |_a: Value, ctx: RequestContext| async move {
            let info = ctx.connection().client_info().map(|i| format!("{} {}", i.name, i.version));
            let version = ctx.meta().and_then(|m| m.get("io.modelcontextprotocol/protocolVersion")).cloned();
            Ok(CallToolResult::text(format!("{info:?} {version:?}")))
        },
    )
    .unwrap();
    s.add_tool_fn(Tool::new("needs_sampling", json!({"type":"object"})).with_description("d"), |_| {
        Ok(CallToolResult::text("sampled"))
    })
    .unwrap();
    let sampling: ClientCapabilities = serde_json::from_value(json!({"sampling": {}})).unwrap();
    s.set_tool_required_client_capabilities("needs_sampling", sampling).unwrap();
    s.add_text_resource(Resource::new("test://a", "a").with_mime_type("text/plain"), "A");
    s.add_resource_template(
        ResourceTemplate::new("test://t/{id}", "t"),
        |uri: String, _v, _c: RequestContext| async move {
            Ok(ferrite_core::ReadResourceResult {
                contents: vec![ferrite_core::ResourceContents::text(uri, None, "T")],
                meta: None,
            })
        },
    )
    .unwrap();
    s.add_prompt(Prompt::new("p").with_description("d"), |_a: Map<String, Value>, _c: RequestContext| async move {
        Ok(ferrite_core::GetPromptResult { messages: vec![PromptMessage::user_text("hi")], ..Default::default() })
    });
    s.set_argument_candidates(
        ferrite_core::CompletionReference::Prompt { name: "p".into() },
        "x",
        vec!["alpha".into(), "beta".into()],
    );
    s.add_method("io.example/hello", |params: Map<String, Value>, _c: RequestContext| async move {
        Ok(json!({ "hello": params.get("who").cloned().unwrap_or(Value::Null) }))
    })
    .unwrap();
    s.enable_tools_list_changed();
    s
}

fn stateless_server() -> Server {
    server(Server::builder(Implementation::new("modern", "2")).stateless().build())
}

fn stateful_server() -> Server {
    server(stateful("modern"))
}

#[tokio::test]
async fn a_request_with_the_envelope_needs_no_initialize() {
    for s in [stateless_server(), stateful_server()] {
        let h = Harness::new(s);
        let r = h.modern_ok("tools/list", json!({}), json!({})).await;
        assert_eq!(r["resultType"], "complete");
        assert_eq!(r["ttlMs"], 0);
        assert_eq!(r["cacheScope"], "private");
        assert_eq!(r["_meta"][SERVER_INFO]["name"], "modern");
        assert!(r["_meta"][SERVER_INFO]["version"].is_string());
        assert_eq!(r["tools"][0]["name"], "echo");
    }
}

#[tokio::test]
async fn every_modern_result_has_a_result_type_and_the_server_info() {
    let h = Harness::new(stateless_server());
    let cases = [
        ("tools/call", json!({"name": "echo", "arguments": {"x": 1}}), false),
        ("resources/read", json!({"uri": "test://a"}), true),
        ("resources/read", json!({"uri": "test://t/7"}), true),
        ("resources/list", json!({}), true),
        ("resources/templates/list", json!({}), true),
        ("prompts/list", json!({}), true),
        ("prompts/get", json!({"name": "p"}), false),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": "a"}}),
            false,
        ),
        ("io.example/hello", json!({"who": "you"}), false),
        ("server/discover", json!({}), true),
    ];
    for (method, params, cacheable) in cases {
        let r = h.modern_ok(method, params, json!({})).await;
        assert_eq!(r["resultType"], "complete", "{method}: {r}");
        assert_eq!(r["_meta"][SERVER_INFO]["name"], "modern", "{method}: {r}");
        assert_eq!(r.get("ttlMs").is_some(), cacheable, "{method}: {r}");
        assert_eq!(r.get("cacheScope").is_some(), cacheable, "{method}: {r}");
    }
    let r = h.modern_ok("io.example/hello", json!({"who": "you"}), json!({})).await;
    assert_eq!(r["hello"], "you");
}

#[tokio::test]
async fn a_result_keeps_its_own_meta_beside_the_server_info() {
    let s = stateless_server();
    s.add_tool_fn(Tool::new("tagged", json!({"type":"object"})).with_description("d"), |_| {
        let mut r = CallToolResult::text("x");
        r.meta = Some(Map::from_iter([("com.example/trace".to_owned(), json!("t-1"))]));
        Ok(r)
    })
    .unwrap();
    let h = Harness::new(s);
    let r = h.modern_ok("tools/call", json!({"name": "tagged"}), json!({})).await;
    assert_eq!(r["_meta"]["com.example/trace"], "t-1");
    assert_eq!(r["_meta"][SERVER_INFO]["name"], "modern");
}

#[tokio::test]
async fn handshake_results_carry_none_of_the_modern_fields() {
    let h = Harness::new(stateful_server());
    h.initialize("2025-11-25", json!({})).await;
    let r = h.ok("tools/list", json!({})).await;
    assert!(r.get("resultType").is_none() && r.get("ttlMs").is_none() && r.get("_meta").is_none(), "{r}");
    let r = h.ok("tools/call", json!({"name": "echo"})).await;
    assert!(r.get("resultType").is_none(), "{r}");
}

#[tokio::test]
async fn the_ladder_refuses_a_bad_envelope_with_its_code() {
    let h = Harness::new(stateless_server());
    let raw =
        |meta: Value| json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": meta}}).to_string();
    let cases = [
        (raw(json!({"io.modelcontextprotocol/protocolVersion": V2026})), -32602, "clientCapabilities"),
        (
            raw(
                json!({"io.modelcontextprotocol/protocolVersion": 20260728, "io.modelcontextprotocol/clientCapabilities": {}}),
            ),
            -32602,
            "must be a string",
        ),
        (
            raw(
                json!({"io.modelcontextprotocol/protocolVersion": "1999-01-01", "io.modelcontextprotocol/clientCapabilities": {}}),
            ),
            -32022,
            "1999-01-01",
        ),
        (
            raw(
                json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}),
            ),
            -32022,
            "2025-11-25",
        ),
        (
            raw(
                json!({"io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": []}),
            ),
            -32602,
            "must be an object",
        ),
        (
            raw(
                json!({"io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud"}),
            ),
            -32602,
            "logLevel",
        ),
    ];
    for (text, code, says) in cases {
        let v: Value = serde_json::from_str(&h.raw(&text).await.to_string()).unwrap();
        assert_eq!(v["id"], 9, "{v}");
        assert_eq!(v["error"]["code"], code, "{text}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains(says), "{text}: {v}");
    }
    // The connection still serves after the refusals.
    assert_eq!(h.modern_ok("tools/list", json!({}), json!({})).await["tools"][0]["name"], "echo");
}

#[tokio::test]
async fn unsupported_version_names_what_is_supported_and_what_was_asked() {
    let h = Harness::new(stateless_server());
    let text = json!({"jsonrpc":"2.0","id":"u","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}).to_string();
    let v = h.raw(&text).await;
    assert_eq!(v["error"]["code"], -32022);
    assert_eq!(v["error"]["data"], json!({"supported": [V2026], "requested": "v999.0.0"}));
    let discovered = h.modern_ok("server/discover", json!({}), json!({})).await;
    let listed: Vec<&str> =
        discovered["supportedVersions"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(listed.contains(&V2026), "every supported version is discoverable: {listed:?}");
}

#[tokio::test]
async fn removed_and_unknown_methods_are_method_not_found() {
    let h = Harness::new(stateful_server());
    for m in
        ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method"]
    {
        let e = h
            .modern_err(m, json!({"uri": "test://a", "level": "info", "protocolVersion": "2025-11-25"}), json!({}))
            .await;
        assert_eq!(e["code"], -32601, "{m}: {e}");
    }
    // A handshake-only server/discover is not a handshake-era method.
    h.initialize("2025-11-25", json!({})).await;
    assert_eq!(h.err_code("server/discover", json!({})).await, -32601);
}

#[tokio::test]
async fn discover_lists_revisions_capabilities_instructions_and_server_info() {
    let s = Server::builder(Implementation::new("d", "1")).instructions("use it well").stateless().build();
    s.add_tool_fn(Tool::new("t", json!({"type":"object"})).with_description("d"), |_| Ok(CallToolResult::text("")))
        .unwrap();
    s.enable_logging();
    s.enable_tools_list_changed();
    s.enable_resource_subscriptions().unwrap();
    s.add_text_resource(Resource::new("test://r", "r"), "r");
    s.add_extension("io.example/widgets", json!({"size": 3})).unwrap();
    s.set_cache_hints(CacheHints { discover: CacheHint::new(3_600_000, CacheScope::Public), ..Default::default() });
    let h = Harness::new(s);
    let r = h.modern_ok("server/discover", json!({}), json!({})).await;
    assert_eq!(r["supportedVersions"], json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]));
    assert_eq!(r["instructions"], "use it well");
    assert_eq!(r["ttlMs"], 3_600_000);
    assert_eq!(r["cacheScope"], "public");
    // A stateless server serves logging, list changes and subscriptions on this path.
    assert_eq!(
        r["capabilities"],
        json!({"logging": {}, "resources": {"subscribe": true}, "tools": {"listChanged": true},
               "extensions": {"io.example/widgets": {"size": 3}}})
    );
    // ...which it does not advertise to handshake-era clients.
    let init = h.initialize("2025-11-25", json!({})).await;
    assert_eq!(init["capabilities"], json!({"resources": {}, "tools": {}}));
}

#[tokio::test]
async fn client_capabilities_come_from_each_request_alone() {
    let h = Harness::new(stateful_server());
    let ok = h.modern_ok("tools/call", json!({"name": "needs_sampling"}), json!({"sampling": {}})).await;
    assert_eq!(ok["content"][0]["text"], "sampled");
    let e = h.modern_err("tools/call", json!({"name": "needs_sampling"}), json!({})).await;
    assert_eq!(e["code"], -32021);
    assert_eq!(e["data"], json!({"requiredCapabilities": {"sampling": {}}}));
    // The handshake era names the same capabilities with -32602 (no -3202x before 2026).
    h.initialize("2025-11-25", json!({})).await;
    let v = h.call("tools/call", json!({"name": "needs_sampling"})).await;
    assert_eq!(v["error"]["code"], -32602);
    assert_eq!(v["error"]["data"], json!({"requiredCapabilities": {"sampling": {}}}));
}

#[tokio::test]
async fn an_unknown_resource_is_invalid_params_with_its_uri() {
    let h = Harness::new(stateless_server());
    let e = h.modern_err("resources/read", json!({"uri": "test://missing"}), json!({})).await;
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"], json!({"uri": "test://missing"}));
    // The handshake revisions keep -32002.
    h.initialize("2025-11-25", json!({})).await;
    assert_eq!(h.err_code("resources/read", json!({"uri": "test://missing"})).await, -32002);
}

#[tokio::test]
async fn log_messages_only_for_a_request_that_asked_for_a_level() {
    let h = Harness::new(stateless_server());
    h.modern_ok("tools/call", json!({"name": "chatty"}), json!({})).await;
    assert!(h.recorder.frames().is_empty(), "no level, no logs: {:?}", h.recorder.frames());
    let mut params = json!({"name": "chatty"});
    params["_meta"] = envelope(json!({}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("warning");
    let v =
        h.server.handle(Message::request(1, "tools/call", Some(params)), &h.conn, &h.peer).await.unwrap().to_value();
    assert_eq!(v["result"]["content"][0]["text"], "done");
    let logs: Vec<Value> = h.recorder.frames().into_iter().map(|f| f["params"]["data"].clone()).collect();
    assert_eq!(logs, vec![json!("a warning line")], "only warning and above");
}

#[tokio::test]
async fn client_info_reaches_the_handler_and_an_unusable_one_reads_as_absent() {
    let h = Harness::new(stateless_server());
    // Raw text takes the one-pass parse; a value takes the general one: both must agree.
    let text = |info: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"who","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{info}}}}}}}"#
        )
    };
    let answer = |out: Option<String>| -> Value {
        let v: Value = serde_json::from_str(&out.expect("an answer")).unwrap();
        v["result"]["content"][0]["text"].clone()
    };
    let good = answer(h.server.handle_raw_on(&text(r#"{"name":"c","version":"9"}"#), &h.conn, &h.peer).await);
    assert_eq!(good, r#"Some("c 9") Some(String("2026-07-28"))"#);
    let bad = answer(h.server.handle_raw_on(&text(r#"{"name":5}"#), &h.conn, &h.peer).await);
    assert_eq!(bad, r#"None Some(String("2026-07-28"))"#);
    let mut params = json!({"name": "who"});
    params["_meta"] = envelope(json!({}));
    params["_meta"]["io.modelcontextprotocol/clientInfo"] = json!({"name": "v", "version": "1"});
    let v =
        h.server.handle(Message::request(1, "tools/call", Some(params)), &h.conn, &h.peer).await.unwrap().to_value();
    assert_eq!(v["result"]["content"][0]["text"], r#"Some("v 1") Some(String("2026-07-28"))"#);
}

#[tokio::test]
async fn a_client_extension_reaches_the_handler() {
    let h = Harness::new(stateless_server());
    let r = h
        .modern_ok("tools/call", json!({"name": "ext"}), json!({"extensions": {"io.example/widgets": {"v": 1}}}))
        .await;
    assert_eq!(r["content"][0]["text"], "Some(Object {\"v\": Number(1)})");
    let r = h.modern_ok("tools/call", json!({"name": "ext"}), json!({})).await;
    assert_eq!(r["content"][0]["text"], "None");
}

#[tokio::test]
async fn a_pinning_connection_keeps_the_era_of_its_first_request() {
    let s = stateful_server();
    // Modern first: a later initialize is told which revision this connection speaks.
    let h = Harness::with_conn(s.clone(), Arc::new(ConnectionState::new("pinned-modern").pinning_era()));
    h.modern_ok("tools/list", json!({}), json!({})).await;
    let v = h
        .call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        )
        .await;
    assert_eq!(v["error"]["code"], -32022, "{v}");
    assert_eq!(v["error"]["data"], json!({"supported": [V2026], "requested": "2025-11-25"}));
    // And a request without the envelope gets the ladder's answer.
    assert_eq!(h.err_code("tools/list", json!({})).await, -32602);
    // Handshake first: an enveloped request is refused.
    let h = Harness::with_conn(s, Arc::new(ConnectionState::new("pinned-handshake").pinning_era()));
    h.initialize("2025-11-25", json!({})).await;
    let e = h.modern_err("tools/list", json!({}), json!({})).await;
    assert_eq!(e["code"], -32600);
    assert_eq!(h.ok("tools/list", json!({})).await["tools"][0]["name"], "echo");
}

#[tokio::test]
async fn a_connection_that_does_not_pin_serves_both_eras() {
    let h = Harness::new(stateful_server());
    h.initialize("2025-11-25", json!({})).await;
    assert!(h.ok("tools/list", json!({})).await.get("resultType").is_none());
    assert_eq!(h.modern_ok("tools/list", json!({}), json!({})).await["resultType"], "complete");
}

#[tokio::test]
async fn a_batch_with_an_envelope_is_an_invalid_request() {
    let h = Harness::new(stateful_server());
    let item = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": envelope(json!({}))}});
    let v = h.raw(&json!([item]).to_string()).await;
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert_eq!(v["id"], Value::Null);
}

#[tokio::test]
async fn cache_hints_are_set_per_list_and_per_resource() {
    let s = stateless_server();
    s.set_cache_hints(CacheHints {
        tools_list: CacheHint::new(60_000, CacheScope::Public),
        resource_read: CacheHint::new(5_000, CacheScope::Private),
        ..Default::default()
    });
    s.set_resource_cache_hint("test://t/{id}", CacheHint::new(1_000, CacheScope::Public)).unwrap();
    assert!(matches!(s.set_resource_cache_hint("test://nope", CacheHint::NONE), Err(ConfigError::UnknownResource(_))));
    let h = Harness::new(s);
    let r = h.modern_ok("tools/list", json!({}), json!({})).await;
    assert_eq!((r["ttlMs"].clone(), r["cacheScope"].clone()), (json!(60_000), json!("public")));
    let r = h.modern_ok("prompts/list", json!({}), json!({})).await;
    assert_eq!((r["ttlMs"].clone(), r["cacheScope"].clone()), (json!(0), json!("private")));
    let r = h.modern_ok("resources/read", json!({"uri": "test://a"}), json!({})).await;
    assert_eq!((r["ttlMs"].clone(), r["cacheScope"].clone()), (json!(5_000), json!("private")));
    let r = h.modern_ok("resources/read", json!({"uri": "test://t/1"}), json!({})).await;
    assert_eq!((r["ttlMs"].clone(), r["cacheScope"].clone()), (json!(1_000), json!("public")));
}

#[tokio::test]
async fn registration_refuses_what_a_client_would_reject() {
    let s = stateless_server();
    let number = json!({"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}});
    let e = s.add_tool_fn(Tool::new("bad", number), |_| Ok(CallToolResult::text(""))).unwrap_err();
    assert!(matches!(e, ConfigError::InvalidParamHeader { .. }), "{e}");
    assert!(matches!(
        s.add_method("tools/call", |_p: Map<String, Value>, _c: RequestContext| async { Ok(json!({})) }),
        Err(ConfigError::ReservedMethod(_))
    ));
    assert!(matches!(s.add_extension("noprefix", json!({})), Err(ConfigError::InvalidExtensionId(_))));
    assert!(s.remove_method("io.example/hello"));
    let h = Harness::new(s);
    assert_eq!(h.modern_err("io.example/hello", json!({}), json!({})).await["code"], -32601);
}

#[tokio::test]
async fn custom_methods_serve_the_handshake_era_as_is() {
    let h = Harness::new(stateful_server());
    h.initialize("2025-11-25", json!({})).await;
    assert_eq!(h.ok("io.example/hello", json!({"who": "me"})).await, json!({"hello": "me"}));
}
