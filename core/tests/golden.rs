//! Golden JSON: the exact `initialize` response of each handshake revision. Fields newer
//! than the negotiated revision never appear (title from 2025-06-18; description,
//! websiteUrl and icons from 2025-11-25; completions from 2025-03-26).

use ferrite_core::{CallToolResult, Icon, Implementation, Prompt, Resource, Server, Tool};
use serde_json::{json, Value};

fn full_server() -> Server {
    let mut info = Implementation::new("golden", "1.2.3");
    info.title = Some("Golden Server".into());
    info.description = Some("A server for golden tests".into());
    info.website_url = Some("https://example.com/golden".into());
    info.icons = Some(vec![Icon {
        src: "https://example.com/icon.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into()]),
        theme: None,
    }]);
    let s = Server::builder(info).instructions("Use the tools.").stateful().build();
    s.add_tool_fn(Tool::new("t", json!({"type":"object"})).with_description("d"), |_| Ok(CallToolResult::text("x")))
        .unwrap();
    s.add_text_resource(Resource::new("test://r", "r"), "text");
    s.add_prompt(Prompt::new("p").with_description("d"), |_a, _c| async {
        Ok(ferrite_core::GetPromptResult::default())
    });
    s.set_argument_candidates(ferrite_core::CompletionReference::Prompt { name: "p".into() }, "a", vec!["x".into()]);
    s.enable_logging();
    s.enable_resource_subscriptions().unwrap();
    s.enable_tools_list_changed();
    s.enable_resources_list_changed();
    s.enable_prompts_list_changed();
    s
}

async fn check(version: &str) {
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{}/tests/golden/initialize-{version}.json", env!("CARGO_MANIFEST_DIR")))
            .unwrap(),
    )
    .unwrap();
    let req = json!({"jsonrpc":"2.0","id":1,"method":"initialize",
        "params":{"protocolVersion": version, "capabilities": {}, "clientInfo": {"name":"c","version":"1"}}});
    let out = full_server().handle_raw(&req.to_string()).await;
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got, golden, "initialize at {version}:\n{}", serde_json::to_string_pretty(&got).unwrap());
}

#[tokio::test]
async fn initialize_2024_11_05() {
    check("2024-11-05").await;
}

#[tokio::test]
async fn initialize_2025_03_26() {
    check("2025-03-26").await;
}

#[tokio::test]
async fn initialize_2025_06_18() {
    check("2025-06-18").await;
}

#[tokio::test]
async fn initialize_2025_11_25() {
    check("2025-11-25").await;
}
