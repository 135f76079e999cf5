//! completion/complete: global handler, per-argument completers, the 100-value cap.

mod common;

use common::{stateful, Harness};
use ferrite_core::{CompleteRequest, CompleteResult, CompletionReference, RequestContext};
use serde_json::json;

fn prompt_ref(name: &str) -> CompletionReference {
    CompletionReference::Prompt { name: name.into() }
}

fn complete_params(name: &str, arg: &str, value: &str) -> serde_json::Value {
    json!({"ref":{"type":"ref/prompt","name":name},"argument":{"name":arg,"value":value}})
}

#[tokio::test]
async fn per_argument_completer_filters_by_prefix() {
    let s = stateful("c");
    s.set_argument_candidates(prompt_ref("p"), "city", vec!["paris".into(), "park".into(), "rome".into()]);
    let h = Harness::new(s);
    let caps = h.initialize("2025-06-18", json!({})).await["capabilities"].clone();
    assert_eq!(caps["completions"], json!({}), "declared when a completer exists");
    let r = h.ok("completion/complete", complete_params("p", "city", "pa")).await;
    assert_eq!(r, json!({"completion":{"values":["paris","park"],"total":2,"hasMore":false}}));
}

#[tokio::test]
async fn unmatched_arguments_complete_to_nothing_and_unknown_prompts_are_invalid_params() {
    let s = stateful("c");
    s.set_argument_candidates(prompt_ref("p"), "city", vec!["paris".into()]);
    let h = Harness::new(s);
    let r = h.ok("completion/complete", complete_params("p", "country", "fr")).await;
    assert_eq!(r["completion"]["values"], json!([]));
    assert_eq!(h.err_code("completion/complete", complete_params("other", "city", "pa")).await, -32602);
    let r = h
        .ok(
            "completion/complete",
            json!({"ref":{"type":"ref/resource","uri":"test://x/{id}"},"argument":{"name":"id","value":""}}),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!([]));
}

#[tokio::test]
async fn global_handler_first_then_per_argument() {
    let s = stateful("c");
    s.set_completion_handler(|req: CompleteRequest, _ctx: RequestContext| async move {
        if req.argument_name == "global" {
            Ok(CompleteResult::from_values(vec![format!("{}-from-global", req.argument_value)]))
        } else {
            Ok(CompleteResult::default())
        }
    });
    s.set_argument_candidates(prompt_ref("p"), "specific", vec!["spec".into()]);
    let h = Harness::new(s);
    let r = h.ok("completion/complete", complete_params("p", "global", "x")).await;
    assert_eq!(r["completion"]["values"], json!(["x-from-global"]));
    let r = h.ok("completion/complete", complete_params("p", "specific", "s")).await;
    assert_eq!(r["completion"]["values"], json!(["spec"]));
}

#[tokio::test]
async fn context_arguments_reach_the_handler() {
    let s = stateful("c");
    s.set_completion_handler(|req: CompleteRequest, _ctx: RequestContext| async move {
        Ok(CompleteResult::from_values(vec![req.context_arguments["country"].as_str().unwrap_or("none").to_owned()]))
    });
    let h = Harness::new(s);
    let mut p = complete_params("p", "city", "");
    p["context"] = json!({"arguments": {"country": "fr"}});
    assert_eq!(h.ok("completion/complete", p).await["completion"]["values"], json!(["fr"]));
}

#[tokio::test]
async fn results_are_capped_at_100_values() {
    let s = stateful("c");
    s.set_completion_handler(|_req: CompleteRequest, _ctx: RequestContext| async move {
        Ok(CompleteResult {
            completion: ferrite_core::Completion {
                values: (0..250).map(|i| i.to_string()).collect(),
                total: None,
                has_more: None,
            },
        })
    });
    let h = Harness::new(s);
    let r = h.ok("completion/complete", complete_params("p", "a", "")).await;
    assert_eq!(r["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(r["completion"]["total"], 250);
    assert_eq!(r["completion"]["hasMore"], true);
}

#[tokio::test]
async fn malformed_requests_are_invalid_params() {
    let s = stateful("c");
    s.set_argument_candidates(prompt_ref("p"), "a", vec![]);
    let h = Harness::new(s);
    assert_eq!(
        h.err_code("completion/complete", json!({"ref":{"type":"ref/unknown"},"argument":{"name":"a","value":""}}))
            .await,
        -32602
    );
    assert_eq!(h.err_code("completion/complete", json!({"ref":{"type":"ref/prompt","name":"p"}})).await, -32602);
    assert_eq!(
        h.err_code("completion/complete", json!({"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a"}}))
            .await,
        -32602
    );
}
