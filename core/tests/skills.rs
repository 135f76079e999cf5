//! The skills extension through dispatch: the extension advertised, `skills/list` and
//! `skills/get` entries with their manifest, `resources/directory/read`, the files served as
//! resources, and the `-32602` answers for unknown skills and non-directories.

mod common;

use common::Harness;
use ferrite_core::skills::{Skill, EXTENSION_ID};
use ferrite_core::Server;
use serde_json::{json, Value};

const SKILL_MD: &str = "---\nname: add-numbers\ndescription: Add two integers\n---\n\n# Add\n";
const EXAMPLE: &str = "# Examples\n";

fn server() -> Server {
    let s = common::stateless("skills");
    let files = vec![
        ("SKILL.md".to_owned(), SKILL_MD.as_bytes().to_vec()),
        ("references/EXAMPLES.md".to_owned(), EXAMPLE.as_bytes().to_vec()),
        ("scripts/run.bin".to_owned(), vec![0, 159, 146, 150]),
    ];
    s.add_skill(Skill::new("skill://add-numbers", files).unwrap()).unwrap();
    s
}

#[tokio::test]
async fn the_extension_is_advertised_with_directory_reads() {
    let h = Harness::new(server());
    let d = h.modern_ok("server/discover", json!({}), json!({})).await;
    assert_eq!(d["capabilities"]["extensions"][EXTENSION_ID], json!({"directoryRead": true}));
    assert!(d["capabilities"]["resources"].is_object());
}

#[tokio::test]
async fn list_and_get_give_the_same_entry_with_its_manifest() {
    let h = Harness::new(server());
    let list = h.modern_ok("skills/list", json!({}), json!({})).await;
    assert_eq!(list["resultType"], "complete");
    assert_eq!(list["ttlMs"], 0);
    assert_eq!(list["cacheScope"], "private");
    let entry = list["skills"][0].clone();
    assert_eq!(entry["uri"], "skill://add-numbers/SKILL.md");
    assert_eq!(entry["frontmatter"], json!({"name": "add-numbers", "description": "Add two integers"}));
    let manifest: Vec<(String, u64)> = entry["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["uri"].as_str().unwrap().to_owned(), r["size"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        manifest,
        vec![
            ("skill://add-numbers/SKILL.md".to_owned(), SKILL_MD.len() as u64),
            ("skill://add-numbers/references/EXAMPLES.md".to_owned(), EXAMPLE.len() as u64),
            ("skill://add-numbers/scripts/run.bin".to_owned(), 4),
        ]
    );
    assert!(entry["resources"][0]["digest"].as_str().unwrap().starts_with("sha256:"));
    let got = h.modern_ok("skills/get", json!({"uri": "skill://add-numbers/SKILL.md"}), json!({})).await;
    assert_eq!(got["skill"], entry);
    assert!(got.get("nextCursor").is_none());
    let e = h.modern_err("skills/get", json!({"uri": "skill://nope/SKILL.md"}), json!({})).await;
    assert_eq!(e["code"], -32602);
    let e = h.modern_err("skills/list", json!({"cursor": "x"}), json!({})).await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn directories_list_their_children() {
    let h = Harness::new(server());
    let r = h.modern_ok("resources/directory/read", json!({"uri": "skill://add-numbers"}), json!({})).await;
    let kids: Vec<(Value, Value)> =
        r["resources"].as_array().unwrap().iter().map(|c| (c["uri"].clone(), c["mimeType"].clone())).collect();
    assert_eq!(
        kids,
        vec![
            (json!("skill://add-numbers/SKILL.md"), json!("text/markdown")),
            (json!("skill://add-numbers/references"), json!("inode/directory")),
            (json!("skill://add-numbers/scripts"), json!("inode/directory")),
        ]
    );
    for not_a_dir in ["skill://add-numbers/SKILL.md", "skill://other", "skill://add-numbers/nope"] {
        let e = h.modern_err("resources/directory/read", json!({"uri": not_a_dir}), json!({})).await;
        assert_eq!(e["code"], -32602, "{not_a_dir}");
    }
}

#[tokio::test]
async fn the_files_are_resources_text_or_blob() {
    let h = Harness::new(server());
    let listed = h.modern_ok("resources/list", json!({}), json!({})).await;
    assert_eq!(
        listed["resources"][0],
        json!({"uri": "skill://add-numbers/SKILL.md", "name": "add-numbers", "description": "Add two integers",
               "mimeType": "text/markdown", "size": SKILL_MD.len()})
    );
    let md = h.modern_ok("resources/read", json!({"uri": "skill://add-numbers/SKILL.md"}), json!({})).await;
    assert_eq!(md["contents"][0]["text"], SKILL_MD);
    let bin = h.modern_ok("resources/read", json!({"uri": "skill://add-numbers/scripts/run.bin"}), json!({})).await;
    assert_eq!(bin["contents"][0]["blob"], "AJ+Slg==");
}

#[tokio::test]
async fn the_skill_methods_answer_handshake_era_clients_too() {
    let h = Harness::new(server());
    h.initialize("2025-11-25", json!({})).await;
    let list = h.ok("skills/list", json!({})).await;
    assert_eq!(list["skills"][0]["uri"], "skill://add-numbers/SKILL.md");
    assert!(list.get("resultType").is_none());
}

/// Sets its flag when dropped.
struct DropFlag(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_server_that_serves_skills_is_dropped_with_its_handlers() {
    let dropped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let s = server();
        let flag = DropFlag(dropped.clone());
        s.add_tool_fn(ferrite_core::Tool::new("holder", json!({"type":"object"})), move |_| {
            let _ = &flag;
            Ok(ferrite_core::CallToolResult::text(""))
        })
        .unwrap();
        let weak = s.downgrade();
        assert!(weak.upgrade().is_some());
    }
    assert!(
        dropped.load(std::sync::atomic::Ordering::SeqCst),
        "the skill methods must not keep their server (and its handlers) alive"
    );
}
