//! No input crashes the server: deterministic mutations of valid messages (byte flips,
//! truncations, insertions) fed to `handle_raw` always produce nothing or valid JSON-RPC.

use ferrite_core::{CallToolResult, Implementation, Server, Tool};
use serde_json::{json, Value};

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"t"}}}"#,
    r#"{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"test://t/1/d"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"},"context":{"arguments":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"p","arguments":{"a":"b"}}}"#,
    r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}]"#,
    r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"ZmVycml0ZToy"}}"#,
    r#"{"jsonrpc":"2.0","id":7,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}"#,
];

fn server() -> Server {
    let s = Server::builder(Implementation::new("fuzz", "1")).stateful().build();
    s.add_tool_fn(
        Tool::new(
            "add",
            json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
        )
        .with_description("adds"),
        |a| Ok(CallToolResult::text((a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0)).to_string())),
    )
    .unwrap();
    s.add_resource_template(
        ferrite_core::ResourceTemplate::new("test://t/{id}/d", "t"),
        |u: String, _v, _c| async move {
            Ok(ferrite_core::ReadResourceResult {
                contents: vec![ferrite_core::ResourceContents::text(u, None, "x")],
                meta: None,
            })
        },
    )
    .unwrap();
    s.add_prompt(ferrite_core::Prompt::new("p").with_description("d"), |_a, _c| async {
        Ok(ferrite_core::GetPromptResult::default())
    });
    s.set_argument_candidates(ferrite_core::CompletionReference::Prompt { name: "p".into() }, "a", vec!["xy".into()]);
    s.enable_logging();
    s.set_page_size(1);
    s
}

fn mutate(rng: &mut Rng, seed: &str) -> Vec<u8> {
    let mut b = seed.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = b.len().max(1);
        match rng.below(4) {
            0 => {
                let i = rng.below(len);
                if i < b.len() {
                    b[i] = b"{}[]\":,0-9aZ\\\x00\xff"[rng.below(15)];
                }
            }
            1 => b.truncate(rng.below(len)),
            2 => {
                let i = rng.below(len);
                let j = rng.below(len);
                let (lo, hi) = (i.min(j), i.max(j).min(b.len()));
                let chunk = b[lo..hi].to_vec();
                b.splice(lo..lo, chunk);
            }
            _ => {
                let i = rng.below(len).min(b.len());
                b.insert(i, b"\"{[1-e.,:n"[rng.below(10)]);
            }
        }
    }
    b
}

#[tokio::test]
async fn mutated_messages_never_crash_and_always_get_valid_json_rpc() {
    let s = server();
    let mut rng = Rng(0x5eed_f00d_dead_beef);
    for round in 0..4000 {
        let seed = SEEDS[round % SEEDS.len()];
        let bytes = mutate(&mut rng, seed);
        let text = String::from_utf8_lossy(&bytes);
        let out = s.handle_raw(&text).await;
        if out.is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("invalid output for {text:?}: {e}: {out}"));
        let items = match v {
            Value::Array(a) => a,
            other => vec![other],
        };
        for item in items {
            assert_eq!(item["jsonrpc"], "2.0", "{text:?} -> {item}");
            assert!(item.get("result").is_some() != item.get("error").is_some(), "{text:?} -> {item}");
            if let Some(code) = item["error"]["code"].as_i64() {
                assert!([-32700, -32600, -32601, -32602, -32603, -32002].contains(&code), "{text:?} -> {item}");
            }
        }
    }
    assert_eq!(
        s.handle_raw(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
    );
}
