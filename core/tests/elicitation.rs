//! What a server asks of its client beyond plain requests (issue 12): elicitation forms
//! checked against the spec's restrictions before anything is sent (both `ctx.elicit` and an
//! MRTR input request), typed forms made from a Rust type and decoded back into it, URL
//! elicitation's completion notification and the -32042 error, and sampling's `includeContext`
//! gated on the client's `sampling.context`.

mod common;

use common::{stateful, Harness};
use ferrite_core::{
    CallToolResult, CreateMessageParams, ElicitRequestParams, Elicited, ErrorObject, HandlerError, InputRequest,
    InputRequired, PeerError, Reply, RequestContext, Server, Tool,
};
use serde::Deserialize;
use serde_json::{json, Value};

type ToolReply = Result<Reply<CallToolResult>, HandlerError>;

/// A plan a user can choose.
#[derive(Debug, Deserialize, schemars::JsonSchema, PartialEq)]
enum Plan {
    Basic,
    Pro,
}

/// Who to contact.
#[derive(Debug, Deserialize, schemars::JsonSchema, PartialEq)]
struct Contact {
    /// Your name
    name: String,
    /// Your age, if you like
    age: Option<u32>,
    plan: Plan,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Nested {
    contact: Contact,
}

fn text(t: impl Into<String>) -> ToolReply {
    Ok(Reply::Complete(CallToolResult::text(t)))
}

fn server() -> Server {
    let s = stateful("ask");
    s.add_tool(Tool::new("nested_form", json!({"type": "object"})), |_a: Value, c: RequestContext| async move {
        let schema = json!({"type": "object", "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}});
        match c.elicit("Where?", schema).await {
            Err(e @ PeerError::InvalidElicitation(_)) => text(format!("refused: {e}")),
            other => text(format!("unexpected: {other:?}")),
        }
    })
    .unwrap();
    s.add_tool(Tool::new("typed", json!({"type": "object"})), |_a: Value, c: RequestContext| async move {
        match c.elicit_as::<Contact>("Who are you?").await {
            Ok(Elicited::Accepted(contact)) => text(format!("{contact:?}")),
            Ok(other) => text(format!("{other:?}")),
            Err(e) => text(format!("error: {e}")),
        }
    })
    .unwrap();
    s.add_tool(Tool::new("typed_nested", json!({"type": "object"})), |_a: Value, c: RequestContext| async move {
        match c.elicit_as::<Nested>("Nested?").await {
            Err(e @ PeerError::InvalidElicitation(_)) => text(format!("refused: {e}")),
            other => text(format!("unexpected: {other:?}")),
        }
    })
    .unwrap();
    s.add_tool(Tool::new("mrtr_typed", json!({"type": "object"})), |_a: Value, c: RequestContext| async move {
        match c.elicited_as::<Contact>("contact") {
            Some(Ok(Elicited::Accepted(contact))) => text(format!("hello {}", contact.name)),
            Some(Ok(other)) => text(format!("{other:?}")),
            Some(Err(e)) => Err(HandlerError::failed(e)),
            None => Ok(Reply::InputRequired(
                InputRequired::new().ask("contact", InputRequest::elicit_for::<Contact>("Who?")),
            )),
        }
    })
    .unwrap();
    s.add_tool(Tool::new("mrtr_bad_form", json!({"type": "object"})), |_a: Value, _c: RequestContext| async move {
        let schema = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "integer"}}}});
        Ok(Reply::InputRequired(InputRequired::new().ask("tags", InputRequest::elicit("Tags?", schema))))
    })
    .unwrap();
    s.add_tool(Tool::new("with_context", json!({"type": "object"})), |_a: Value, c: RequestContext| async move {
        let mut p = CreateMessageParams::user_text("Summarize", 10);
        p.include_context = Some("thisServer".into());
        match c.sample(p).await {
            Ok(r) => text(format!("sampled: {}", r.text().unwrap_or_default())),
            Err(e) => text(format!("error: {e}")),
        }
    })
    .unwrap();
    s.add_tool(Tool::new("needs_login", json!({"type": "object"})), |_a: Value, c: RequestContext| async move {
        c.notify_elicitation_complete("login-1");
        let url = ElicitRequestParams::Url {
            message: "Sign in first".into(),
            url: "https://example.com/login".into(),
            elicitation_id: Some("login-1".into()),
        };
        let refused: ToolReply =
            Err(HandlerError::Rpc(ErrorObject::url_elicitation_required(vec![url.to_params(true)])));
        refused
    })
    .unwrap();
    s
}

#[tokio::test]
async fn a_form_outside_the_spec_is_refused_before_anything_is_sent() {
    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let r = h.ok("tools/call", json!({"name": "nested_form", "arguments": {}})).await;
    let said = r["content"][0]["text"].as_str().unwrap();
    assert!(said.starts_with("refused: invalid elicitation schema: property \"address\""), "{said}");
    assert!(said.contains("\"properties\" is not allowed"), "{said}");
    assert!(h.recorder.requests.lock().unwrap().is_empty(), "nothing reached the client");
}

#[tokio::test]
async fn an_mrtr_form_outside_the_spec_is_an_internal_error_naming_it() {
    let h = Harness::new(server());
    let e =
        h.modern_err("tools/call", json!({"name": "mrtr_bad_form", "arguments": {}}), json!({"elicitation": {}})).await;
    assert_eq!(e["code"], -32603);
    let m = e["message"].as_str().unwrap();
    assert!(m.contains("asked input \"tags\" with an invalid elicitation schema: property \"tags\""), "{m}");
    assert!(m.contains("multi-select"), "{m}");
}

#[tokio::test]
async fn a_typed_form_is_made_from_the_type_and_decoded_into_it() {
    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    *h.recorder.reply.lock().unwrap() = Some(json!({"action": "accept", "content": {"name": "Ada", "plan": "Pro"}}));
    let r = h.ok("tools/call", json!({"name": "typed", "arguments": {}})).await;
    assert_eq!(r["content"][0]["text"], r#"Contact { name: "Ada", age: None, plan: Pro }"#);
    let (method, params) = h.recorder.requests.lock().unwrap()[0].clone();
    assert_eq!(method, "elicitation/create");
    let schema = &params.unwrap()["requestedSchema"];
    assert_eq!(schema["type"], "object");
    assert!(schema.get("$schema").is_none() && schema.get("title").is_none(), "{schema}");
    assert_eq!(schema["properties"]["name"]["type"], "string");
    assert_eq!(schema["properties"]["name"]["description"], "Your name");
    assert_eq!(schema["properties"]["age"]["type"], "integer", "an optional field is its type, not [T, null]");
    assert_eq!(schema["properties"]["plan"]["enum"], json!(["Basic", "Pro"]));
    assert_eq!(schema["required"], json!(["name", "plan"]));

    *h.recorder.reply.lock().unwrap() = Some(json!({"action": "accept", "content": {"name": "Ada", "plan": "Gold"}}));
    let r = h.ok("tools/call", json!({"name": "typed", "arguments": {}})).await;
    let said = r["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        said,
        r#"error: the accepted answer does not fit the requested form: field "plan": "Gold" is not one of the options"#
    );

    *h.recorder.reply.lock().unwrap() = Some(json!({"action": "decline"}));
    assert_eq!(h.ok("tools/call", json!({"name": "typed", "arguments": {}})).await["content"][0]["text"], "Declined");
}

#[tokio::test]
async fn a_type_a_form_cannot_express_is_refused() {
    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let r = h.ok("tools/call", json!({"name": "typed_nested", "arguments": {}})).await;
    let said = r["content"][0]["text"].as_str().unwrap();
    assert!(said.starts_with("refused: invalid elicitation schema: property \"contact\""), "{said}");
    assert!(h.recorder.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_typed_mrtr_form_round_trips_on_2026() {
    let h = Harness::new(server());
    let caps = json!({"elicitation": {}});
    let first = h.modern_ok("tools/call", json!({"name": "mrtr_typed", "arguments": {}}), caps.clone()).await;
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"]["contact"]["params"]["requestedSchema"]["properties"]["plan"]["enum"],
        json!(["Basic", "Pro"])
    );
    let answer = json!({"contact": {"action": "accept", "content": {"name": "Grace", "plan": "Basic"}}});
    let done =
        h.modern_ok("tools/call", json!({"name": "mrtr_typed", "arguments": {}, "inputResponses": answer}), caps).await;
    assert_eq!(done["content"][0]["text"], "hello Grace");
}

#[tokio::test]
async fn include_context_needs_the_clients_sampling_context() {
    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({"sampling": {}})).await;
    let r = h.ok("tools/call", json!({"name": "with_context", "arguments": {}})).await;
    assert_eq!(r["content"][0]["text"], "error: the client did not declare the sampling.context capability");
    assert!(h.recorder.requests.lock().unwrap().is_empty());

    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({"sampling": {"context": {}}})).await;
    *h.recorder.reply.lock().unwrap() =
        Some(json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}));
    let r = h.ok("tools/call", json!({"name": "with_context", "arguments": {}})).await;
    assert_eq!(r["content"][0]["text"], "sampled: ok");
    let params = h.recorder.requests.lock().unwrap()[0].1.clone().unwrap();
    assert_eq!(params["includeContext"], "thisServer");
}

#[tokio::test]
async fn url_elicitation_completes_with_a_notification_and_requires_with_32042() {
    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({"elicitation": {"url": {}}})).await;
    let r = h.call("tools/call", json!({"name": "needs_login", "arguments": {}})).await;
    assert_eq!(r["error"]["code"], -32042);
    assert_eq!(r["error"]["message"], "URL elicitation required");
    let e = &r["error"]["data"]["elicitations"][0];
    assert_eq!(e["mode"], "url");
    assert_eq!(e["url"], "https://example.com/login");
    assert_eq!(e["elicitationId"], "login-1");
    let frames = h.recorder.frames();
    let done = frames.iter().find(|f| f["method"] == "notifications/elicitation/complete").expect("the notification");
    assert_eq!(done["params"]["elicitationId"], "login-1");
}

#[tokio::test]
async fn a_generated_schema_is_spelled_the_restricted_way_before_it_is_checked() {
    // What pydantic or zod give for {plan: Plan, nick?: string}: $schema, a title, the enum in
    // $defs, the optional field as [string, null].
    let generated = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Signup",
        "type": "object",
        "$defs": {"Plan": {"type": "string", "enum": ["basic", "pro"], "title": "Plan"}},
        "properties": {"plan": {"$ref": "#/$defs/Plan", "description": "Which plan"}, "nick": {"type": ["string", "null"]}},
        "required": ["plan"],
    });
    let s = stateful("gen");
    let g = generated.clone();
    s.add_tool(Tool::new("signup", json!({"type": "object"})), move |_a: Value, c: RequestContext| {
        let g = g.clone();
        async move {
            match c.elicit("Sign up", g).await {
                Ok(r) => text(format!("{:?}", r.action)),
                Err(e) => text(format!("error: {e}")),
            }
        }
    })
    .unwrap();
    let h = Harness::new(s);
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    *h.recorder.reply.lock().unwrap() = Some(json!({"action": "decline"}));
    assert_eq!(h.ok("tools/call", json!({"name": "signup", "arguments": {}})).await["content"][0]["text"], "Decline");
    let sent = h.recorder.requests.lock().unwrap()[0].1.clone().unwrap()["requestedSchema"].clone();
    assert_eq!(
        sent,
        json!({"type": "object", "properties": {"plan": {"type": "string", "enum": ["basic", "pro"], "description": "Which plan"}, "nick": {"type": "string"}}, "required": ["plan"]})
    );
}

#[tokio::test]
async fn a_url_elicitation_completes_out_of_band_on_the_listening_connection_only() {
    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({"elicitation": {"url": {}}})).await;
    let id = h.conn.id().to_owned();
    // Not listening yet: nothing to send it on.
    assert!(!h.server.notify_elicitation_complete(&id, "login-2"));
    let _guard = h.server.attach_listener(&h.conn, &h.peer);
    assert!(!h.server.notify_elicitation_complete("no-such-connection", "login-2"));
    assert!(h.server.notify_elicitation_complete(&id, "login-2"));
    let frames = h.recorder.frames();
    let done: Vec<_> = frames.iter().filter(|f| f["method"] == "notifications/elicitation/complete").collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["params"], json!({"elicitationId": "login-2"}));

    // A revision without URL elicitation never gets it.
    let old = Harness::new(server());
    old.initialize("2025-06-18", json!({"elicitation": {}})).await;
    let _g = old.server.attach_listener(&old.conn, &old.peer);
    assert!(!old.server.notify_elicitation_complete(old.conn.id(), "login-3"));
    assert!(old.recorder.frames().iter().all(|f| f["method"] != "notifications/elicitation/complete"));
}

#[tokio::test]
async fn an_accepted_answer_that_does_not_fit_the_form_is_an_error_for_the_handler() {
    let s = stateful("strict");
    s.add_tool(Tool::new("ask_age", json!({"type": "object"})), |_a: Value, c: RequestContext| async move {
        let form =
            json!({"type": "object", "properties": {"age": {"type": "integer", "minimum": 0}}, "required": ["age"]});
        match c.elicit("How old?", form).await {
            Ok(r) => text(format!("{:?} {:?}", r.action, r.content)),
            Err(e @ PeerError::InvalidAnswer(_)) => text(format!("invalid: {e}")),
            Err(e) => text(format!("other: {e}")),
        }
    })
    .unwrap();
    let h = Harness::new(s);
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let answers = [
        (
            json!({"action": "accept", "content": {}}),
            r#"invalid: the accepted answer does not fit the requested form: the required field "age" is missing"#,
        ),
        (
            json!({"action": "accept", "content": {"age": "ten"}}),
            r#"invalid: the accepted answer does not fit the requested form: field "age": must be an integer"#,
        ),
        (
            json!({"action": "accept", "content": {"age": -3}}),
            r#"invalid: the accepted answer does not fit the requested form: field "age": -3 is below the minimum"#,
        ),
        (json!({"action": "accept", "content": {"age": 36}}), r#"Accept Some({"age": Number(36)})"#),
        (json!({"action": "decline"}), "Decline None"),
    ];
    for (answer, want) in answers {
        *h.recorder.reply.lock().unwrap() = Some(answer.clone());
        let r = h.ok("tools/call", json!({"name": "ask_age", "arguments": {}})).await;
        assert_eq!(r["content"][0]["text"], want, "{answer}");
    }
}
