//! JSON Schema validation of tool arguments as `tools/call` does it: a server with the Rust
//! everything server's tool schemas, fed `tools/call` requests through `handle_raw_on` (the
//! same dispatch every transport runs) on one current-thread runtime.
//!
//! Input: a tool name, a newline, the arguments as JSON. Invariants: the answer is JSON-RPC
//! for id 1; the tool's handler (which echoes its arguments) ran exactly when the arguments
//! conform to the schema, as `jsonschema` judges them on its own.
#![no_main]

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use ferrite_core::server::NullPeer;
use ferrite_core::{Peer, Server};
use ferrite_fuzz::{assert_jsonrpc_answer, json_eq, runtime, servers};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

struct Fixture {
    server: Server,
    validators: HashMap<String, jsonschema::Validator>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let validators = servers::everything_tools()
            .into_iter()
            .map(|(name, schema)| {
                let mut opts = jsonschema::options();
                if schema.get("$schema").is_none() {
                    opts = opts.with_draft(jsonschema::Draft::Draft202012);
                }
                (name, opts.build(&schema).expect("the everything schemas compile"))
            })
            .collect();
        Fixture { server: servers::schema_server(), validators }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (name, args) = text.split_once('\n').unwrap_or((text, "{}"));
    let Ok(args) = serde_json::from_str::<Value>(args) else { return };
    let f = fixture();
    let request =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}})
            .to_string();
    let conn = f.server.new_connection();
    let peer: Arc<dyn Peer> = Arc::new(NullPeer);
    let out = runtime().block_on(f.server.handle_raw_on(&request, &conn, &peer)).unwrap_or_default();
    assert_jsonrpc_answer(&request, &out);
    let answer: Value = serde_json::from_str(&out).expect("checked above");
    assert_eq!(answer["id"], 1, "{request} -> {out}");

    let Some(validator) = f.validators.get(name) else { return };
    if !args.is_object() {
        assert!(answer.get("error").is_some() || answer["result"]["isError"] == true, "{request} -> {out}");
        return;
    }
    let ran = answer["result"]["isError"] != true
        && answer["result"]["content"][0]["text"]
            .as_str()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .is_some_and(|echoed| json_eq(&echoed, &args));
    assert_eq!(ran, validator.is_valid(&args), "{request} -> {out}");
});
