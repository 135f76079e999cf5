//! prompts/list and prompts/get with argument validation.

mod common;

use common::{stateful, Harness};
use ferrite_core::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
use serde_json::{json, Map, Value};

fn harness() -> Harness {
    let s = stateful("prompts");
    s.add_prompt(
        Prompt::new("greet").with_description("greets").with_arguments(vec![
            PromptArgument::new("name", Some("who"), true),
            PromptArgument::new("style", None, false),
        ]),
        |args: Map<String, Value>, _ctx| async move {
            let text = format!(
                "Hello {} ({})",
                args["name"].as_str().unwrap_or(""),
                args.get("style").and_then(Value::as_str).unwrap_or("plain")
            );
            Ok(GetPromptResult {
                description: Some("a greeting".into()),
                messages: vec![PromptMessage::user_text(text)],
                meta: None,
            })
        },
    );
    s.add_prompt(Prompt::new("broken").with_description("fails"), |_a, _c| async {
        Err::<ferrite_core::GetPromptResult, _>("no luck".into())
    });
    Harness::new(s)
}

#[tokio::test]
async fn list_describes_prompts_and_arguments() {
    let h = harness();
    let r = h.ok("prompts/list", Value::Null).await;
    assert_eq!(r["prompts"][0]["name"], "greet");
    assert_eq!(r["prompts"][0]["arguments"][0], json!({"name":"name","description":"who","required":true}));
    assert_eq!(r["prompts"][0]["arguments"][1], json!({"name":"style","required":false}));
}

#[tokio::test]
async fn get_passes_arguments() {
    let h = harness();
    let r = h.ok("prompts/get", json!({"name":"greet","arguments":{"name":"Ada","style":"warm"}})).await;
    assert_eq!(
        r,
        json!({"description":"a greeting","messages":[{"role":"user","content":{"type":"text","text":"Hello Ada (warm)"}}]})
    );
}

#[tokio::test]
async fn missing_required_argument_is_invalid_params() {
    let h = harness();
    let r = h.call("prompts/get", json!({"name":"greet","arguments":{"style":"x"}})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("name"));
    assert_eq!(h.err_code("prompts/get", json!({"name":"greet"})).await, -32602);
}

#[tokio::test]
async fn non_string_arguments_and_unknown_prompts_are_invalid_params() {
    let h = harness();
    assert_eq!(h.err_code("prompts/get", json!({"name":"greet","arguments":{"name":5}})).await, -32602);
    assert_eq!(h.err_code("prompts/get", json!({"name":"ghost"})).await, -32602);
    assert_eq!(h.err_code("prompts/get", json!({"arguments":{}})).await, -32602);
}

#[tokio::test]
async fn a_failing_prompt_handler_is_an_internal_error() {
    let h = harness();
    let r = h.call("prompts/get", json!({"name":"broken"})).await;
    assert_eq!(r["error"]["code"], -32603);
    assert_eq!(r["error"]["message"], "no luck");
}

#[tokio::test]
async fn remove_prompt_unregisters() {
    let h = harness();
    assert!(h.server.remove_prompt("broken"));
    assert_eq!(h.err_code("prompts/get", json!({"name":"broken"})).await, -32602);
}
