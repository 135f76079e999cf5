//! Composition (issue 16): a server mounted in another under a prefix, names and URIs
//! rewritten both ways, kept live, notifications carried up.

use std::sync::{Arc, Mutex};

use ferrite_core::server::TemplateVariables;
use ferrite_core::{
    CallToolResult, CompleteRequest, CompleteResult, CompletionReference, ConfigError, GetPromptResult, Prompt,
    PromptArgument, PromptMessage, ReadResourceResult, RequestContext, Resource, ResourceContents, ResourceTemplate,
    Server, Tool,
};
use serde_json::{json, Value};

mod common;
use common::{stateful, Harness};

/// A weather server: a tool, a resource, a template, a prompt, completions. Its readers
/// record the URIs they were asked for.
fn weather(seen: &Arc<Mutex<Vec<String>>>) -> Server {
    let s = stateful("weather");
    s.add_tool_fn(
        Tool::new(
            "forecast",
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        ),
        |a| Ok(CallToolResult::text(format!("sunny in {}", a["city"].as_str().unwrap_or("?")))),
    )
    .unwrap();
    let log = seen.clone();
    s.add_resource(
        Resource::new("data://cities", "cities"),
        move |uri: String, _v: TemplateVariables, _c: RequestContext| {
            log.lock().unwrap().push(uri.clone());
            async move {
                Ok(ReadResourceResult { contents: vec![ResourceContents::text(uri, None, "paris,rome")], meta: None })
            }
        },
    );
    let log = seen.clone();
    s.add_resource_template(
        ResourceTemplate::new("data://cities/{city}", "city"),
        move |uri: String, v: TemplateVariables, _c: RequestContext| {
            log.lock().unwrap().push(uri.clone());
            let city = v.get("city").cloned().unwrap_or_default();
            async move { Ok(ReadResourceResult { contents: vec![ResourceContents::text(uri, None, city)], meta: None }) }
        },
    )
    .unwrap();
    s.add_prompt(
        Prompt::new("brief").with_arguments(vec![PromptArgument::new("city", None, true)]),
        |args: serde_json::Map<String, Value>, _c: RequestContext| async move {
            let city = args.get("city").and_then(Value::as_str).unwrap_or("?").to_owned();
            Ok(GetPromptResult {
                description: None,
                messages: vec![PromptMessage::user_text(format!("brief for {city}"))],
                meta: None,
            })
        },
    );
    s.set_argument_candidates(
        CompletionReference::Prompt { name: "brief".into() },
        "city",
        vec!["paris".into(), "park".into(), "rome".into()],
    );
    s
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    list[key].as_array().unwrap().iter().map(|t| t[field].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_mounted_server_is_served_under_its_prefix_with_names_and_uris_rewritten_both_ways() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let parent = stateful("app");
    parent.add_tool_fn(Tool::new("own", json!({"type": "object"})), |_| Ok(CallToolResult::text("own"))).unwrap();
    parent.mount("weather", &weather(&seen)).unwrap();
    let h = Harness::new(parent);
    h.initialize("2025-11-25", json!({})).await;

    assert_eq!(names(&h.ok("tools/list", json!({})).await, "tools", "name"), ["own", "weather_forecast"]);
    let r = h.ok("tools/call", json!({"name": "weather_forecast", "arguments": {"city": "oslo"}})).await;
    assert_eq!(r["content"][0]["text"], "sunny in oslo");
    // The child's input schema still applies under the new name.
    let bad = h.ok("tools/call", json!({"name": "weather_forecast", "arguments": {}})).await;
    assert_eq!(bad["isError"], true, "{bad}");
    assert_eq!(h.err_code("tools/call", json!({"name": "forecast", "arguments": {"city": "x"}})).await, -32602);

    assert_eq!(names(&h.ok("resources/list", json!({})).await, "resources", "uri"), ["data://weather/cities"]);
    assert_eq!(
        names(&h.ok("resources/templates/list", json!({})).await, "resourceTemplates", "uriTemplate"),
        ["data://weather/cities/{city}"]
    );
    let r = h.ok("resources/read", json!({"uri": "data://weather/cities"})).await;
    assert_eq!(r["contents"][0]["uri"], "data://weather/cities", "contents go out under the parent's URI");
    let r = h.ok("resources/read", json!({"uri": "data://weather/cities/lima"})).await;
    assert_eq!(r["contents"][0], json!({"uri": "data://weather/cities/lima", "text": "lima"}));
    assert_eq!(*seen.lock().unwrap(), ["data://cities", "data://cities/lima"], "the child reads its own URIs");

    assert_eq!(names(&h.ok("prompts/list", json!({})).await, "prompts", "name"), ["weather_brief"]);
    let p = h.ok("prompts/get", json!({"name": "weather_brief", "arguments": {"city": "rome"}})).await;
    assert_eq!(p["messages"][0]["content"]["text"], "brief for rome");
    let c = h
        .ok(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "weather_brief"}, "argument": {"name": "city", "value": "pa"}}),
        )
        .await;
    assert_eq!(c["completion"]["values"], json!(["paris", "park"]));
}

#[tokio::test]
async fn the_same_names_in_both_eras_and_without_a_prefix() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let parent = stateful("app");
    parent.mount("", &weather(&seen)).unwrap();
    let h = Harness::new(parent);
    let r = h.modern_ok("tools/call", json!({"name": "forecast", "arguments": {"city": "kyiv"}}), json!({})).await;
    assert_eq!(r["content"][0]["text"], "sunny in kyiv");
    let r = h.modern_ok("resources/read", json!({"uri": "data://cities/bern"}), json!({})).await;
    assert_eq!(r["contents"][0]["uri"], "data://cities/bern");
}

#[tokio::test]
async fn the_mount_is_live_and_the_childs_notifications_reach_the_parents_clients() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let child = weather(&seen);
    let parent = stateful("app");
    parent.enable_resource_subscriptions().unwrap();
    parent.mount("w", &child).unwrap();
    let h = Harness::new(parent.clone());
    h.initialize("2025-11-25", json!({})).await;
    let _guard = parent.attach_listener(&h.conn, &h.peer);

    child.add_tool_fn(Tool::new("alerts", json!({"type": "object"})), |_| Ok(CallToolResult::text("none"))).unwrap();
    assert_eq!(names(&h.ok("tools/list", json!({})).await, "tools", "name"), ["w_forecast", "w_alerts"]);
    assert!(child.remove_tool("forecast"));
    assert_eq!(names(&h.ok("tools/list", json!({})).await, "tools", "name"), ["w_alerts"]);
    assert_eq!(h.err_code("tools/call", json!({"name": "w_forecast", "arguments": {"city": "x"}})).await, -32602);

    assert_eq!(child.notify_tools_list_changed(), 1, "the parent's listener was reached");
    h.ok("resources/subscribe", json!({"uri": "data://w/cities"})).await;
    assert_eq!(child.notify_resource_updated("data://cities"), 1);
    assert_eq!(
        h.recorder.frames(),
        [
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "data://w/cities"}}),
        ]
    );
}

#[tokio::test]
async fn the_parents_own_entries_win_and_unmount_takes_the_mount_out() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let child = weather(&seen);
    let parent = stateful("app");
    parent
        .add_tool_fn(Tool::new("w_forecast", json!({"type": "object"})), |_| Ok(CallToolResult::text("mine")))
        .unwrap();
    parent.mount("w", &child).unwrap();
    let h = Harness::new(parent.clone());
    let r = h.ok("tools/call", json!({"name": "w_forecast", "arguments": {}})).await;
    assert_eq!(r["content"][0]["text"], "mine");
    assert!(parent.unmount("w", &child));
    assert!(!parent.unmount("w", &child), "already gone");
    assert_eq!(names(&h.ok("tools/list", json!({})).await, "tools", "name"), ["w_forecast"], "own entries stay");
    assert_eq!(h.err_code("resources/list", json!({})).await, -32601, "no resources are served any more");
    // After unmounting, the child's changes no longer show.
    child.add_tool_fn(Tool::new("later", json!({"type": "object"})), |_| Ok(CallToolResult::text(""))).unwrap();
    assert_eq!(names(&h.ok("tools/list", json!({})).await, "tools", "name"), ["w_forecast"]);
}

#[tokio::test]
async fn mounts_nest_and_cycles_and_bad_prefixes_are_refused() {
    let leaf = stateful("leaf");
    leaf.add_tool_fn(Tool::new("t", json!({"type": "object"})), |_| Ok(CallToolResult::text("leaf"))).unwrap();
    let middle = stateful("middle");
    let top = stateful("top");
    middle.mount("b", &leaf).unwrap();
    top.mount("a", &middle).unwrap();
    let h = Harness::new(top.clone());
    assert_eq!(names(&h.ok("tools/list", json!({})).await, "tools", "name"), ["a_b_t"]);
    // A change at the leaf shows at the top.
    leaf.add_tool_fn(Tool::new("u", json!({"type": "object"})), |_| Ok(CallToolResult::text("u"))).unwrap();
    assert_eq!(h.ok("tools/call", json!({"name": "a_b_u", "arguments": {}})).await["content"][0]["text"], "u");

    assert!(matches!(leaf.mount("x", &top), Err(ConfigError::MountCycle)));
    assert!(matches!(top.mount("x", &top), Err(ConfigError::MountCycle)));
    assert!(matches!(top.mount("has space", &leaf), Err(ConfigError::InvalidMountPrefix(_))));
}

#[tokio::test]
async fn a_childs_global_completion_handler_answers_for_its_namespace_only() {
    let child = stateful("c");
    child.add_prompt(Prompt::new("p"), |_a: serde_json::Map<String, Value>, _c: RequestContext| async move {
        Ok(GetPromptResult { description: None, messages: vec![], meta: None })
    });
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    child.set_completion_handler(move |req: CompleteRequest, _c: RequestContext| {
        log.lock().unwrap().push(req.reference.clone());
        async move { Ok(CompleteResult::prefix_match(&["alpha".to_owned()], &req.argument_value)) }
    });
    let parent = stateful("app");
    parent.add_prompt(Prompt::new("mine"), |_a: serde_json::Map<String, Value>, _c: RequestContext| async move {
        Ok(GetPromptResult { description: None, messages: vec![], meta: None })
    });
    parent.mount("c", &child).unwrap();
    let h = Harness::new(parent);
    let caps = h.initialize("2025-11-25", json!({})).await["capabilities"].clone();
    assert_eq!(caps["completions"], json!({}));
    let ask =
        |name: &str| json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": "x", "value": "a"}});
    assert_eq!(h.ok("completion/complete", ask("c_p")).await["completion"]["values"], json!(["alpha"]));
    assert_eq!(h.ok("completion/complete", ask("mine")).await["completion"]["values"], json!([]));
    assert_eq!(*asked.lock().unwrap(), [CompletionReference::Prompt { name: "p".into() }]);
}

#[tokio::test]
async fn links_and_embedded_resources_from_mounted_tools_and_prompts_point_at_the_parents_uris() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let child = weather(&seen);
    child
        .add_tool_fn(Tool::new("linked", json!({"type": "object"})), |_| {
            Ok(CallToolResult::success(vec![
                ferrite_core::Content::resource_link(Resource::new("data://cities", "cities")),
                ferrite_core::Content::resource(ResourceContents::text("data://cities/paris", None, "paris")),
                // Not the child's: left as written.
                ferrite_core::Content::resource_link(Resource::new("https://example.com/doc", "doc")),
            ]))
        })
        .unwrap();
    child.add_prompt(Prompt::new("cited"), |_a: serde_json::Map<String, Value>, _c: RequestContext| async move {
        Ok(GetPromptResult {
            description: None,
            messages: vec![PromptMessage {
                role: ferrite_core::Role::User,
                content: ferrite_core::Content::resource_link(Resource::new("data://cities", "cities")),
            }],
            meta: None,
        })
    });
    let parent = stateful("app");
    parent.mount("w", &child).unwrap();
    let h = Harness::new(parent);
    h.initialize("2025-11-25", json!({})).await;
    let r = h.ok("tools/call", json!({"name": "w_linked", "arguments": {}})).await;
    assert_eq!(r["content"][0]["uri"], "data://w/cities", "{r}");
    assert_eq!(r["content"][1]["resource"]["uri"], "data://w/cities/paris", "{r}");
    assert_eq!(r["content"][2]["uri"], "https://example.com/doc", "{r}");
    for uri in ["data://w/cities", "data://w/cities/paris"] {
        let read = h.ok("resources/read", json!({"uri": uri})).await;
        assert_eq!(read["contents"][0]["uri"], uri, "the link can be read where it points: {read}");
    }
    let p = h.ok("prompts/get", json!({"name": "w_cited", "arguments": {}})).await;
    assert_eq!(p["messages"][0]["content"]["uri"], "data://w/cities", "{p}");
}

#[tokio::test]
async fn a_capability_the_child_declares_after_the_mount_is_the_parents_too_at_any_depth() {
    let (top, mid, leaf) = (stateful("top"), stateful("mid"), stateful("leaf"));
    leaf.add_text_resource(Resource::new("data://cities", "cities"), "paris");
    top.mount("a", &mid).unwrap();
    mid.mount("b", &leaf).unwrap();
    leaf.enable_resource_subscriptions().unwrap();
    leaf.enable_tools_list_changed();
    let h = Harness::new(top);
    let init = h.initialize("2025-11-25", json!({})).await;
    assert_eq!(init["capabilities"]["resources"]["subscribe"], true, "{init}");
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true, "{init}");
    h.ok("resources/subscribe", json!({"uri": "data://a/b/cities"})).await;
}

#[tokio::test]
async fn a_change_in_the_child_keeps_the_parents_list_order_so_cursors_hold() {
    let (parent, child) = (stateful("app"), stateful("child"));
    parent.set_page_size(2);
    for name in ["t1", "t2"] {
        child.add_tool_fn(Tool::new(name, json!({"type": "object"})), |_| Ok(CallToolResult::text("x"))).unwrap();
    }
    parent.mount("a", &child).unwrap();
    parent.add_tool_fn(Tool::new("own", json!({"type": "object"})), |_| Ok(CallToolResult::text("own"))).unwrap();
    let h = Harness::new(parent);
    h.initialize("2025-11-25", json!({})).await;
    let first = h.ok("tools/list", json!({})).await;
    assert_eq!(names(&first, "tools", "name"), ["a_t1", "a_t2"]);
    let cursor = first["nextCursor"].clone();
    // A registration in the child re-syncs the mount: nothing may move.
    child.add_prompt(Prompt::new("p"), |_a: serde_json::Map<String, Value>, _c: RequestContext| async move {
        Ok(GetPromptResult { description: None, messages: vec![], meta: None })
    });
    let second = h.ok("tools/list", json!({"cursor": cursor})).await;
    assert_eq!(names(&second, "tools", "name"), ["own"], "{second}");
}

#[tokio::test]
async fn a_mounted_childs_completion_handler_never_answers_for_the_parents_own_prompts() {
    let (parent, child) = (stateful("app"), stateful("child"));
    child.add_prompt(Prompt::new("theirs"), |_a: serde_json::Map<String, Value>, _c: RequestContext| async move {
        Ok(GetPromptResult { description: None, messages: vec![], meta: None })
    });
    child.set_completion_handler(|_r: CompleteRequest, _c: RequestContext| async {
        Ok(CompleteResult::from_values(vec!["alpha".into()]))
    });
    parent.add_prompt(
        Prompt::new("mine").with_arguments(vec![PromptArgument::new("x", None, false)]),
        |_a: serde_json::Map<String, Value>, _c: RequestContext| async move {
            Ok(GetPromptResult { description: None, messages: vec![], meta: None })
        },
    );
    parent.set_argument_candidates(CompletionReference::Prompt { name: "mine".into() }, "x", vec!["mine-v".into()]);
    parent.mount("", &child).unwrap();
    let h = Harness::new(parent);
    h.initialize("2025-11-25", json!({})).await;
    let complete =
        |name: &str| json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": "x", "value": ""}});
    let mine = h.ok("completion/complete", complete("mine")).await;
    assert_eq!(mine["completion"]["values"], json!(["mine-v"]), "{mine}");
    let theirs = h.ok("completion/complete", complete("theirs")).await;
    assert_eq!(theirs["completion"]["values"], json!(["alpha"]), "{theirs}");
}

#[tokio::test]
async fn a_mounted_childs_skills_are_listed_got_and_read_under_the_parents_uris() {
    let skill_md = "---\nname: add-numbers\ndescription: Add two integers\n---\n\n# Add\n";
    let files = vec![
        ("SKILL.md".to_owned(), skill_md.as_bytes().to_vec()),
        ("references/EXAMPLES.md".to_owned(), b"# Examples\n".to_vec()),
    ];
    let child = common::stateless("skills-child");
    child.add_skill(ferrite_core::skills::Skill::new("skill://add-numbers", files.clone()).unwrap()).unwrap();
    let parent = common::stateless("skills-parent");
    parent.mount("w", &child).unwrap();
    let h = Harness::new(parent.clone());
    let list = h.modern_ok("skills/list", json!({}), json!({})).await;
    let uri = list["skills"][0]["uri"].as_str().expect("a skill").to_owned();
    assert_eq!(uri, "skill://w/add-numbers/SKILL.md", "{list}");
    assert_eq!(list["skills"][0]["resources"][1]["uri"], "skill://w/add-numbers/references/EXAMPLES.md", "{list}");
    let read = h.modern_ok("resources/read", json!({"uri": uri}), json!({})).await;
    assert!(read["contents"][0]["text"].as_str().unwrap().contains("# Add"), "{read}");
    let got = h.modern_ok("skills/get", json!({"uri": uri}), json!({})).await;
    assert_eq!(got["skill"]["uri"], uri.as_str(), "{got}");
    let dir = h.modern_ok("resources/directory/read", json!({"uri": "skill://w/add-numbers"}), json!({})).await;
    assert!(dir["resources"].as_array().unwrap().iter().any(|r| r["uri"] == uri.as_str()), "{dir}");
    // The parent's own skill goes in the parent's set, not the child's.
    parent.add_skill(ferrite_core::skills::Skill::new("skill://own/add-numbers", files.clone()).unwrap()).unwrap();
    let theirs = Harness::new(child.clone()).modern_ok("skills/list", json!({}), json!({})).await;
    assert_eq!(theirs["skills"].as_array().unwrap().len(), 1, "{theirs}");
    assert_eq!(h.modern_ok("skills/list", json!({}), json!({})).await["skills"].as_array().unwrap().len(), 2);
    // Unmounted, the child's skills go; the parent's own stay served.
    assert!(parent.unmount("w", &child));
    let after = h.modern_ok("skills/list", json!({}), json!({})).await;
    let uris: Vec<&str> = after["skills"].as_array().unwrap().iter().filter_map(|k| k["uri"].as_str()).collect();
    assert_eq!(uris, ["skill://own/add-numbers/SKILL.md"], "{after}");
}
