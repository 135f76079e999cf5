//! set_page_size: opaque cursors across every list method; invalid cursors are -32602.

mod common;

use common::{stateful, Harness};
use ferrite_core::{CallToolResult, Prompt, Resource, ResourceTemplate, Tool};
use serde_json::{json, Value};

fn harness() -> Harness {
    let s = stateful("pages");
    for i in 0..5 {
        s.add_tool_fn(Tool::new(format!("t{i}"), json!({"type":"object"})).with_description("d"), |_| {
            Ok(CallToolResult::text(""))
        })
        .unwrap();
        s.add_text_resource(Resource::new(format!("test://r{i}"), format!("r{i}")), "x");
        s.add_prompt(Prompt::new(format!("p{i}")).with_description("d"), |_a, _c| async {
            Ok(ferrite_core::GetPromptResult::default())
        });
        s.add_resource_template(
            ResourceTemplate::new(format!("test://t{i}/{{x}}"), format!("t{i}")),
            |_u, _v, _c| async { Ok(ferrite_core::ReadResourceResult::default()) },
        )
        .unwrap();
    }
    s.set_page_size(2);
    Harness::new(s)
}

async fn walk(h: &Harness, method: &str, key: &str) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => Value::Null,
        };
        let r = h.ok(method, params).await;
        sizes.push(r[key].as_array().unwrap().len());
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    sizes
}

#[tokio::test]
async fn every_list_method_pages() {
    let h = harness();
    assert_eq!(walk(&h, "tools/list", "tools").await, [2, 2, 1]);
    assert_eq!(walk(&h, "resources/list", "resources").await, [2, 2, 1]);
    assert_eq!(walk(&h, "resources/templates/list", "resourceTemplates").await, [2, 2, 1]);
    assert_eq!(walk(&h, "prompts/list", "prompts").await, [2, 2, 1]);
}

#[tokio::test]
async fn pages_do_not_overlap() {
    let h = harness();
    let first = h.ok("tools/list", Value::Null).await;
    let second = h.ok("tools/list", json!({"cursor": first["nextCursor"]})).await;
    assert_eq!(first["tools"][0]["name"], "t0");
    assert_eq!(second["tools"][0]["name"], "t2");
}

#[tokio::test]
async fn invalid_cursors_are_invalid_params() {
    let h = harness();
    assert_eq!(h.err_code("tools/list", json!({"cursor": "garbage!"})).await, -32602);
    assert_eq!(h.err_code("prompts/list", json!({"cursor": ""})).await, -32602);
}

#[tokio::test]
async fn page_size_zero_disables_pagination() {
    let h = harness();
    h.server.set_page_size(0);
    let r = h.ok("tools/list", Value::Null).await;
    assert_eq!(r["tools"].as_array().unwrap().len(), 5);
    assert!(r.get("nextCursor").is_none());
}
