//! JSON-RPC framing and batches: `parse_payload`, the function the stdio loop and the HTTP POST
//! run on every inbound text, then the whole dispatch over it (`handle_raw_on` on a fresh
//! connection).
//!
//! Invariants: the fast path (straight into the envelope struct) and the general path
//! (`classify` over a `serde_json::Value`) agree; a batch has one element per array item;
//! every refusal is -32700, -32600 or -32602 (by-position params); a parsed message written back as JSON parses again to
//! the same message; the server's answer is nothing or valid JSON-RPC; a lower depth limit
//! refuses exactly the text nested deeper than it, naming the limit, and parses the rest the same.
#![no_main]

use std::sync::{Arc, OnceLock};

use ferrite_core::protocol::jsonrpc::{classify, code, nesting_exceeds, parse_payload, parse_payload_within, Payload};
use ferrite_core::server::NullPeer;
use ferrite_core::{Peer, Server};
use ferrite_fuzz::{assert_jsonrpc_answer, json_eq, message_value, parsed_value, payload_value, runtime, servers};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn server() -> &'static Server {
    static S: OnceLock<Server> = OnceLock::new();
    S.get_or_init(servers::schema_server)
}

fuzz_target!(|data: &[u8]| {
    // Both transports refuse text that is not UTF-8 before parsing.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let payload = parse_payload(text);

    // A depth limit of 3: deeper text is the limit's error, the rest parses as without it.
    let limited = parse_payload_within(text, 3);
    if nesting_exceeds(text, 3) {
        let Payload::Single(Err(refused)) = &limited else { panic!("nested deeper than 3 but parsed: {text:?}") };
        assert_eq!(refused.error.code, code::PARSE_ERROR, "{text:?}");
        let limit = refused.error.data.as_ref().and_then(|d| d.get("limit"));
        assert_eq!(limit.and_then(Value::as_str), Some("max_json_depth"), "{text:?}");
    } else {
        assert!(json_eq(&payload_value(&limited), &payload_value(&payload)), "the depth limit changed {text:?}");
    }

    // The general path agrees with the fast one.
    let trimmed = text.trim_start();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        match (&v, &payload) {
            (Value::Array(items), Payload::Batch(parsed)) => assert_eq!(items.len(), parsed.len(), "{text:?}"),
            (Value::Array(_), Payload::Single(_)) => panic!("an array read as a single message: {text:?}"),
            (_, Payload::Single(one)) => {
                let general = classify(v.clone());
                assert!(
                    json_eq(&parsed_value(one), &parsed_value(&general)),
                    "fast and general paths disagree on {text:?}: {} vs {}",
                    parsed_value(one),
                    parsed_value(&general)
                );
            }
            (_, Payload::Batch(_)) => panic!("a non-array read as a batch: {text:?}"),
        }
    }

    let elements: Vec<_> = match &payload {
        Payload::Single(one) => vec![one],
        Payload::Batch(items) => items.iter().collect(),
    };
    for element in elements {
        match element {
            Err(invalid) => assert!(
                [code::PARSE_ERROR, code::INVALID_REQUEST, code::INVALID_PARAMS].contains(&invalid.error.code),
                "refusal with code {} for {text:?}",
                invalid.error.code
            ),
            // Written back and read again, a message is the same message.
            Ok(m) => {
                let written = message_value(m).to_string();
                let Payload::Single(Ok(again)) = parse_payload(&written) else {
                    panic!("{written} (from {text:?}) does not parse back");
                };
                assert!(json_eq(&message_value(m), &message_value(&again)), "{written} read back as {again:?}");
            }
        }
    }
    let _ = payload_value(&payload);

    // The whole dispatch, on a connection of its own so inputs do not influence each other.
    let s = server();
    let conn = s.new_connection();
    let peer: Arc<dyn Peer> = Arc::new(NullPeer);
    let out = runtime().block_on(s.handle_raw_on(text, &conn, &peer)).unwrap_or_default();
    assert_jsonrpc_answer(text, &out);
});
