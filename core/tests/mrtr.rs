//! Multi round-trip requests: a handler replies "input required"; on 2026-07-28 the client
//! retries with answers and the sealed state, on a handshake-era session the core asks the
//! client itself and calls the handler again. Sealed state is verified end to end (tampered,
//! another tool's, another subject's, expired, rotated and retired keys), input requests are
//! checked against the client's capabilities, and a blocking call fails fast on 2026-07-28.

mod common;

use std::time::Duration;

use common::{stateful, stateless, Harness};
use ferrite_core::request_state::SealingKey;
use ferrite_core::server::RequestInfo;
use ferrite_core::{
    CallToolResult, CreateMessageParams, CreateMessageResult, ElicitResult, GetPromptResult, HandlerError,
    InputRequest, InputRequired, Prompt, PromptMessage, ReadResourceResult, Reply, RequestContext, Resource,
    ResourceContents, Server, Tool,
};
use serde_json::{json, Map, Value};

type ToolReply = Result<Reply<CallToolResult>, HandlerError>;

fn name_form() -> Value {
    json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})
}

fn server(s: Server) -> Server {
    // Asks for a name, carrying state "step-1"; greets when answered.
    s.add_tool(
        Tool::new("greet", json!({"type":"object"})).with_description("asks a name"),
        |_a: Value, ctx: RequestContext| async move {
            let state = ctx.request_state().map(str::to_owned);
            match ctx.input_response_as::<ElicitResult>("who") {
                Some(Ok(r)) => {
                    let name = r.content.and_then(|c| c.get("name").cloned()).unwrap_or_default();
                    Ok(Reply::Complete(CallToolResult::text(format!("hello {name} (state {state:?})"))))
                }
                Some(Err(e)) => Err(HandlerError::failed(e)),
                None => Ok(Reply::InputRequired(
                    InputRequired::new().ask("who", InputRequest::elicit("Name?", name_form())).with_state("step-1"),
                )),
            }
        },
    )
    .unwrap();
    // Two rounds: elicitation, then sampling; the state carries the first answer.
    s.add_tool(
        Tool::new("two_rounds", json!({"type":"object"})).with_description("two rounds"),
        |_a: Value, ctx: RequestContext| async move {
            let r: ToolReply = match (ctx.request_state(), ctx.input_responses().is_empty()) {
                (None, _) => Ok(Reply::InputRequired(
                    InputRequired::new().ask("name", InputRequest::elicit("Name?", name_form())).with_state("r1"),
                )),
                (Some("r1"), false) => {
                    let name = ctx.input_response_as::<ElicitResult>("name").unwrap().unwrap();
                    let name = name.content.unwrap()["name"].as_str().unwrap().to_owned();
                    Ok(Reply::InputRequired(
                        InputRequired::new()
                            .ask("poem", InputRequest::sample(CreateMessageParams::user_text("A poem", 20)))
                            .with_state(format!("r2:{name}")),
                    ))
                }
                (Some(s), false) if s.starts_with("r2:") => {
                    let poem = ctx.input_response_as::<CreateMessageResult>("poem").unwrap().unwrap();
                    Ok(Reply::Complete(CallToolResult::text(format!("{} / {}", &s[3..], poem.text().unwrap()))))
                }
                (Some(s), _) => Err(HandlerError::failed(format!("unexpected state {s}"))),
            };
            r
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("blocking", json!({"type":"object"})).with_description("uses the blocking elicit"),
        |_a: Value, ctx: RequestContext| async move {
            let r = ctx.elicit("Name?", name_form()).await?;
            Ok(CallToolResult::text(format!("{:?}", r.action)))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("empty", json!({"type":"object"})).with_description("asks for nothing"),
        |_a: Value, _c: RequestContext| async move { Ok(InputRequired::new()) },
    )
    .unwrap();
    s.add_tool(
        Tool::new("insatiable", json!({"type":"object"})).with_description("never stops asking"),
        |_a: Value, _c: RequestContext| async move {
            Ok(InputRequired::new().ask("again", InputRequest::elicit("Again?", name_form())))
        },
    )
    .unwrap();
    s.add_prompt(
        Prompt::new("ctx_prompt").with_description("asks first"),
        |_a: Map<String, Value>, ctx: RequestContext| async move {
            match ctx.input_response_as::<ElicitResult>("c") {
                Some(Ok(r)) => Ok(Reply::Complete(GetPromptResult {
                    messages: vec![PromptMessage::user_text(format!("ctx={}", r.content.unwrap()["c"]))],
                    ..Default::default()
                })),
                _ => Ok(Reply::InputRequired(InputRequired::new().ask(
                    "c",
                    InputRequest::elicit("Context?", json!({"type":"object","properties":{"c":{"type":"string"}}})),
                ))),
            }
        },
    );
    s.add_resource(Resource::new("test://gated", "gated"), |uri: String, _v, ctx: RequestContext| async move {
        match ctx.input_response_as::<Value>("ok") {
            Some(_) => Ok(Reply::Complete(ReadResourceResult {
                contents: vec![ResourceContents::text(uri, None, "opened")],
                meta: None,
            })),
            None => Ok(Reply::InputRequired(
                InputRequired::new().ask("ok", InputRequest::elicit("Open?", json!({"type":"object","properties":{}}))),
            )),
        }
    });
    // Each asks once, then shows the input it was called with (the second call must get the
    // same input as the first).
    let ask = || InputRequired::new().ask("go", InputRequest::elicit("Go?", json!({"type":"object","properties":{}})));
    s.add_tool(
        Tool::new("args_twice", json!({"type":"object"})).with_description("d"),
        move |a: Value, ctx: RequestContext| async move {
            if ctx.has_input_response("go") {
                Ok(Reply::Complete(CallToolResult::text(a.to_string())))
            } else {
                Ok(Reply::InputRequired(ask()))
            }
        },
    )
    .unwrap();
    s.add_prompt(
        Prompt::new("args_twice").with_description("d"),
        move |a: Map<String, Value>, ctx: RequestContext| async move {
            if ctx.has_input_response("go") {
                Ok(Reply::Complete(GetPromptResult {
                    messages: vec![PromptMessage::user_text(Value::Object(a).to_string())],
                    ..Default::default()
                }))
            } else {
                Ok(Reply::InputRequired(ask()))
            }
        },
    );
    s.add_resource_template(
        ferrite_core::ResourceTemplate::new("test://twice/{id}", "twice"),
        move |uri: String, vars, ctx: RequestContext| async move {
            if ctx.has_input_response("go") {
                let text = format!("{uri} {vars:?}");
                Ok(Reply::Complete(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, None, text)],
                    meta: None,
                }))
            } else {
                Ok(Reply::InputRequired(ask()))
            }
        },
    )
    .unwrap();
    s
}

const ELICIT: &str = r#"{"elicitation":{}}"#;

fn caps(c: &str) -> Value {
    serde_json::from_str(c).unwrap()
}

/// Round 1 of `tool` on 2026-07-28; its input-required result.
async fn round_one(h: &Harness, tool: &str) -> Value {
    let r = h.modern_ok("tools/call", json!({"name": tool}), caps(ELICIT)).await;
    assert_eq!(r["resultType"], "input_required", "{r}");
    r
}

#[tokio::test]
async fn a_tool_asks_then_completes_with_the_answer_and_its_own_state() {
    let h = Harness::new(server(stateless("m")));
    let r = round_one(&h, "greet").await;
    assert_eq!(
        r["inputRequests"],
        json!({"who": {"method": "elicitation/create", "params": {"mode": "form", "message": "Name?", "requestedSchema": name_form()}}})
    );
    assert!(r.get("ttlMs").is_none() && r.get("content").is_none(), "{r}");
    let sealed = r["requestState"].as_str().unwrap();
    assert!(sealed.starts_with("fr1.") && !sealed.contains("step-1"), "sealed, not readable: {sealed}");
    let done = h
        .modern_ok(
            "tools/call",
            json!({"name": "greet", "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}}, "requestState": sealed}),
            caps(ELICIT),
        )
        .await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "hello \"Ada\" (state Some(\"step-1\"))");
}

#[tokio::test]
async fn a_retry_without_the_answer_is_asked_again() {
    let h = Harness::new(server(stateless("m")));
    let r = h
        .modern_ok(
            "tools/call",
            json!({"name": "greet", "inputResponses": {"other": {"action": "accept"}}}),
            caps(ELICIT),
        )
        .await;
    assert_eq!(r["resultType"], "input_required");
    assert!(r["inputRequests"].get("who").is_some());
}

#[tokio::test]
async fn altered_or_misplaced_state_is_refused() {
    let h = Harness::new(server(stateless("m")));
    let sealed = round_one(&h, "greet").await["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"who": {"action": "accept", "content": {"name": "Ada"}}});
    for (tool, state, why) in [
        ("greet", format!("{sealed}-TAMPERED"), "requestState"),
        ("greet", "plain text".to_owned(), "malformed"),
        ("two_rounds", sealed.clone(), "issued for another request"),
    ] {
        let e = h
            .modern_err(
                "tools/call",
                json!({"name": tool, "inputResponses": answer, "requestState": state}),
                caps(ELICIT),
            )
            .await;
        assert_eq!(e["code"], -32602, "{tool}: {e}");
        assert!(e["message"].as_str().unwrap().contains(why), "{tool}: {e}");
    }
    let e = h.modern_err("tools/call", json!({"name": "greet", "requestState": 7}), caps(ELICIT)).await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn state_sealed_for_one_subject_is_refused_for_another() {
    let h = Harness::new(server(stateless("m")));
    let alice = RequestInfo::default().with_subject("alice");
    let bob = RequestInfo::default().with_subject("bob");
    let r = h.modern_with("tools/call", json!({"name": "greet"}), caps(ELICIT), &alice).await;
    let sealed = r["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = json!({"name": "greet", "inputResponses": {"who": {"action": "decline"}}, "requestState": sealed});
    let e = h.modern_with("tools/call", retry.clone(), caps(ELICIT), &bob).await;
    assert_eq!(e["error"]["code"], -32602);
    assert!(e["error"]["message"].as_str().unwrap().contains("another caller"), "{e}");
    let ok = h.modern_with("tools/call", retry, caps(ELICIT), &alice).await;
    assert_eq!(ok["result"]["resultType"], "complete", "{ok}");
}

#[tokio::test]
async fn an_expired_state_is_refused() {
    let s = server(stateless("m"));
    s.set_request_state_ttl(Duration::from_millis(1));
    let h = Harness::new(s);
    let sealed = round_one(&h, "greet").await["requestState"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(10)).await;
    let e = h
        .modern_err("tools/call", json!({"name": "greet", "inputResponses": {}, "requestState": sealed}), caps(ELICIT))
        .await;
    assert!(e["message"].as_str().unwrap().contains("expired"), "{e}");
}

#[tokio::test]
async fn a_rotated_key_still_opens_until_it_is_retired() {
    let s = server(stateless("m"));
    let old = SealingKey::from_bytes([1; 32]);
    let new = SealingKey::from_bytes([2; 32]);
    s.set_request_state_keys(old.clone(), vec![]);
    let h = Harness::new(s.clone());
    let sealed = round_one(&h, "greet").await["requestState"].as_str().unwrap().to_owned();
    let retry = json!({"name": "greet", "inputResponses": {"who": {"action": "decline"}}, "requestState": sealed});
    s.set_request_state_keys(new.clone(), vec![old]);
    assert_eq!(s.request_state_key_id(), new.id());
    assert_eq!(h.modern_ok("tools/call", retry.clone(), caps(ELICIT)).await["resultType"], "complete");
    s.set_request_state_keys(new, vec![]);
    let e = h.modern_err("tools/call", retry, caps(ELICIT)).await;
    assert!(e["message"].as_str().unwrap().contains("does not accept"), "{e}");
}

#[tokio::test]
async fn input_responses_must_be_result_objects() {
    let h = Harness::new(server(stateless("m")));
    for bad in [json!(null), json!([]), json!({"who": 12345}), json!({"who": "yes"})] {
        let e = h.modern_err("tools/call", json!({"name": "greet", "inputResponses": bad}), caps(ELICIT)).await;
        assert_eq!(e["code"], -32602, "{bad}: {e}");
    }
}

#[tokio::test]
async fn an_input_request_the_client_did_not_declare_is_refused_with_the_capability() {
    let h = Harness::new(server(stateless("m")));
    let e = h.modern_err("tools/call", json!({"name": "greet"}), json!({"sampling": {}})).await;
    assert_eq!(e["code"], -32021);
    assert_eq!(e["data"], json!({"requiredCapabilities": {"elicitation": {}}}));
}

#[tokio::test]
async fn prompts_and_resources_ask_too() {
    let h = Harness::new(server(stateless("m")));
    let r = h.modern_ok("prompts/get", json!({"name": "ctx_prompt"}), caps(ELICIT)).await;
    assert_eq!(r["resultType"], "input_required");
    let r = h
        .modern_ok(
            "prompts/get",
            json!({"name": "ctx_prompt", "inputResponses": {"c": {"action": "accept", "content": {"c": "x"}}}}),
            caps(ELICIT),
        )
        .await;
    assert_eq!(r["messages"][0]["content"]["text"], "ctx=\"x\"");
    let r = h.modern_ok("resources/read", json!({"uri": "test://gated"}), caps(ELICIT)).await;
    assert_eq!(r["resultType"], "input_required");
    assert!(r.get("ttlMs").is_none(), "no cache hint on input_required: {r}");
    let r = h
        .modern_ok(
            "resources/read",
            json!({"uri": "test://gated", "inputResponses": {"ok": {"action": "accept"}}}),
            caps(ELICIT),
        )
        .await;
    assert_eq!(r["contents"][0]["text"], "opened");
    assert_eq!(r["ttlMs"], 0);
}

#[tokio::test]
async fn blocking_calls_fail_fast_on_a_modern_request() {
    let h = Harness::new(server(stateful("m")));
    let r = h.modern_ok("tools/call", json!({"name": "blocking"}), caps(ELICIT)).await;
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"].as_str().unwrap().contains("return InputRequired"), "{r}");
    assert!(h.recorder.requests.lock().unwrap().is_empty(), "nothing was sent to the client");
}

#[tokio::test]
async fn an_empty_input_required_is_an_internal_error() {
    let h = Harness::new(server(stateless("m")));
    assert_eq!(h.modern_err("tools/call", json!({"name": "empty"}), caps(ELICIT)).await["code"], -32603);
}

#[tokio::test]
async fn the_handshake_era_asks_the_client_for_real_and_runs_the_handler_again() {
    let h = Harness::new(server(stateful("m")));
    h.recorder
        .replies
        .lock()
        .unwrap()
        .insert("elicitation/create".into(), json!({"action": "accept", "content": {"name": "Ada"}}));
    h.recorder.replies.lock().unwrap().insert(
        "sampling/createMessage".into(),
        json!({"role": "assistant", "content": {"type": "text", "text": "roses"}, "model": "m"}),
    );
    h.initialize("2025-11-25", json!({"elicitation": {}, "sampling": {}})).await;
    let r = h.ok("tools/call", json!({"name": "two_rounds"})).await;
    assert_eq!(r["content"][0]["text"], "Ada / roses");
    let sent = h.recorder.requests.lock().unwrap().clone();
    let methods: Vec<&str> = sent.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(methods, ["elicitation/create", "sampling/createMessage"]);
    assert_eq!(sent[0].1, Some(json!({"mode": "form", "message": "Name?", "requestedSchema": name_form()})));
}

#[tokio::test]
async fn the_handshake_era_calls_the_handler_again_with_the_same_input() {
    let h = Harness::new(server(stateful("m")));
    h.recorder.replies.lock().unwrap().insert("elicitation/create".into(), json!({"action": "accept", "content": {}}));
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let args = json!({"a": [1, {"b": "c"}], "d": null});
    let r = h.ok("tools/call", json!({"name": "args_twice", "arguments": args})).await;
    assert_eq!(serde_json::from_str::<Value>(r["content"][0]["text"].as_str().unwrap()).unwrap(), args);
    let r = h.ok("prompts/get", json!({"name": "args_twice", "arguments": {"x": "1", "y": "2"}})).await;
    assert_eq!(r["messages"][0]["content"]["text"], r#"{"x":"1","y":"2"}"#);
    let r = h.ok("resources/read", json!({"uri": "test://twice/42"})).await;
    assert_eq!(r["contents"][0]["text"], r#"test://twice/42 {"id": "42"}"#);
    assert_eq!(h.recorder.requests.lock().unwrap().len(), 3, "each asked once");
}

#[tokio::test]
async fn before_2025_11_25_an_elicitation_has_no_mode() {
    let h = Harness::new(server(stateful("m")));
    *h.recorder.reply.lock().unwrap() = Some(json!({"action": "decline"}));
    h.initialize("2025-06-18", json!({"elicitation": {}})).await;
    let r = h.ok("tools/call", json!({"name": "greet"})).await;
    assert_eq!(r["content"][0]["text"], "hello null (state Some(\"step-1\"))");
    let sent = h.recorder.requests.lock().unwrap().clone();
    assert_eq!(sent[0].1, Some(json!({"message": "Name?", "requestedSchema": name_form()})));
}

#[tokio::test]
async fn the_handshake_era_refuses_an_undeclared_capability_without_asking() {
    let h = Harness::new(server(stateful("m")));
    h.initialize("2025-11-25", json!({})).await;
    let v = h.call("tools/call", json!({"name": "greet"})).await;
    assert_eq!(v["error"]["code"], -32602);
    assert_eq!(v["error"]["data"], json!({"requiredCapabilities": {"elicitation": {}}}));
    assert!(h.recorder.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_handler_that_never_stops_asking_is_cut_off() {
    let h = Harness::new(server(stateful("m")));
    *h.recorder.reply.lock().unwrap() = Some(json!({"action": "cancel"}));
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let v = h.call("tools/call", json!({"name": "insatiable"})).await;
    assert_eq!(v["error"]["code"], -32603);
    assert_eq!(h.recorder.requests.lock().unwrap().len(), ferrite_core::server::MAX_INPUT_ROUNDS);
}

#[tokio::test]
async fn a_stateless_handshake_era_request_cannot_ask() {
    let h = Harness::new(server(stateless("m")));
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let r = h.ok("tools/call", json!({"name": "greet"})).await;
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"].as_str().unwrap().contains("stateful"), "{r}");
}
