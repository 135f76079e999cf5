//! resources/list, templates, read, subscriptions and their notifications.

mod common;

use std::sync::Arc;

use common::{stateful, Harness, RecordingPeer};
use ferrite_core::server::TemplateVariables;
use ferrite_core::{Peer, ReadResourceResult, RequestContext, Resource, ResourceContents, ResourceTemplate, Server};
use serde_json::{json, Value};

fn server() -> Server {
    let s = stateful("res");
    s.add_text_resource(Resource::new("test://a", "a").with_mime_type("text/plain"), "alpha");
    s.add_resource_template(
        ResourceTemplate::new("test://items/{id}/parts/{part}", "items").with_mime_type("application/json"),
        |uri: String, vars: TemplateVariables, _ctx: RequestContext| async move {
            let text = serde_json::to_string(&vars).unwrap();
            Ok(ReadResourceResult {
                contents: vec![ResourceContents::text(uri, Some("application/json"), text)],
                meta: None,
            })
        },
    )
    .unwrap();
    s.enable_resource_subscriptions().unwrap();
    s
}

#[tokio::test]
async fn list_and_templates_list() {
    let h = Harness::new(server());
    let r = h.ok("resources/list", Value::Null).await;
    assert_eq!(r, json!({"resources":[{"uri":"test://a","name":"a","mimeType":"text/plain"}]}));
    let r = h.ok("resources/templates/list", Value::Null).await;
    assert_eq!(
        r,
        json!({"resourceTemplates":[{"uriTemplate":"test://items/{id}/parts/{part}","name":"items","mimeType":"application/json"}]})
    );
}

#[tokio::test]
async fn read_a_direct_resource() {
    let h = Harness::new(server());
    let r = h.ok("resources/read", json!({"uri":"test://a"})).await;
    assert_eq!(r, json!({"contents":[{"uri":"test://a","mimeType":"text/plain","text":"alpha"}]}));
}

#[tokio::test]
async fn read_a_template_passes_captured_variables() {
    let h = Harness::new(server());
    let r = h.ok("resources/read", json!({"uri":"test://items/42/parts/wheel%20nut"})).await;
    let vars: Value = serde_json::from_str(r["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(vars, json!({"id":"42","part":"wheel nut"}));
    assert_eq!(r["contents"][0]["uri"], "test://items/42/parts/wheel%20nut");
}

#[tokio::test]
async fn unknown_uri_is_resource_not_found_with_the_uri() {
    let h = Harness::new(server());
    h.initialize("2025-06-18", json!({})).await;
    let r = h.call("resources/read", json!({"uri":"test://missing"})).await;
    assert_eq!(r["error"]["code"], -32002);
    assert_eq!(r["error"]["data"]["uri"], "test://missing");
    assert_eq!(h.err_code("resources/read", json!({})).await, -32602, "uri is required");
}

#[tokio::test]
async fn remove_resource_and_template() {
    let h = Harness::new(server());
    assert!(h.server.remove_resource("test://a"));
    assert_eq!(h.err_code("resources/read", json!({"uri":"test://a"})).await, -32002);
    assert!(h.server.remove_resource_template("test://items/{id}/parts/{part}"));
    assert_eq!(h.err_code("resources/read", json!({"uri":"test://items/1/parts/2"})).await, -32002);
}

#[tokio::test]
async fn a_stateless_server_subscribes_only_through_listen_streams() {
    let s = common::stateless("stateless");
    s.enable_resource_subscriptions().expect("listen streams carry updates on a stateless server");
    s.add_text_resource(Resource::new("test://a", "a"), "x");
    assert_eq!(s.modern_capabilities().resources.and_then(|r| r.subscribe), Some(true));
    let h = Harness::new(s);
    let caps = h.initialize("2025-06-18", json!({})).await["capabilities"].clone();
    assert_eq!(caps["resources"], json!({}), "no resources/subscribe without a session");
    assert_eq!(h.err_code("resources/subscribe", json!({"uri":"test://a"})).await, -32601);
}

#[tokio::test]
async fn updated_goes_only_to_subscribed_connections() {
    let s = server();
    let a = Harness::new(s.clone());
    let b = Harness::new(s.clone());
    let _ga = s.attach_listener(&a.conn, &a.peer);
    let _gb = s.attach_listener(&b.conn, &b.peer);
    assert_eq!(a.ok("resources/subscribe", json!({"uri":"test://a"})).await, json!({}));
    assert_eq!(s.notify_resource_updated("test://a"), 1);
    assert_eq!(
        a.recorder.frames(),
        vec![json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}})]
    );
    assert!(b.recorder.frames().is_empty(), "b did not subscribe");
    assert_eq!(s.notify_resource_updated("test://other"), 0);
    a.ok("resources/unsubscribe", json!({"uri":"test://a"})).await;
    assert_eq!(s.notify_resource_updated("test://a"), 0);
}

#[tokio::test]
async fn list_changed_goes_to_every_listener_until_detached() {
    let s = server();
    let a = Harness::new(s.clone());
    let rec = Arc::new(RecordingPeer::default());
    let peer: Arc<dyn Peer> = rec.clone();
    let guard = s.attach_listener(&a.conn, &peer);
    assert_eq!(s.connected_sessions(), vec![a.conn.id().to_owned()]);
    assert_eq!(s.notify_resources_list_changed(), 1);
    assert_eq!(s.notify_tools_list_changed(), 1);
    assert_eq!(s.notify_prompts_list_changed(), 1);
    assert_eq!(
        rec.methods(),
        [
            "notifications/resources/list_changed",
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed"
        ]
    );
    drop(guard);
    assert_eq!(s.notify_resources_list_changed(), 0);
    assert!(s.connected_sessions().is_empty());
}
