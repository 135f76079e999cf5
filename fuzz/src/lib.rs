//! What the fuzz targets share: one in-process tokio runtime, the servers the targets drive,
//! and the checks on what comes back. Test scaffolding only: every target calls the core's
//! own entry points, so what is fuzzed is what a peer reaches.

use std::sync::OnceLock;

use ferrite_core::protocol::jsonrpc::{Invalid, Message, Payload};
use serde_json::{json, Value};
use tokio::runtime::Runtime;

pub mod servers;

/// The runtime every async target runs on: one thread, created once per process, with its
/// clock paused so that waits (SSE keep-alives, drain timeouts, idle sweeps) elapse at once
/// whenever nothing else can run.
pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime builds")
    })
}

/// A parsed message as JSON, the shape it had on the wire (params with `_meta` put back).
pub fn message_value(m: &Message) -> Value {
    match m {
        Message::Request(r) => {
            let mut v = json!({"jsonrpc": "2.0", "id": r.id.to_value(), "method": r.method});
            if let Some(p) = r.params_with_meta() {
                v["params"] = p;
            }
            v
        }
        Message::Notification(n) => {
            let mut v = json!({"jsonrpc": "2.0", "method": n.method});
            if let Some(p) = &n.params {
                v["params"] = p.clone();
            }
            v
        }
        Message::Response(r) => match &r.outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": r.id.to_value(), "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": r.id.to_value(), "error": e}),
        },
    }
}

/// One payload element as comparable JSON: the message, or the id and code of the refusal.
pub fn parsed_value(p: &Result<Message, Invalid>) -> Value {
    match p {
        Ok(m) => message_value(m),
        Err(Invalid { id, error }) => json!({"invalid": id.as_ref().map(|i| i.to_value()), "code": error.code}),
    }
}

/// A whole payload as comparable JSON.
pub fn payload_value(p: &Payload) -> Value {
    match p {
        Payload::Single(one) => parsed_value(one),
        Payload::Batch(items) => Value::Array(items.iter().map(parsed_value).collect()),
    }
}

/// JSON equality that forgives the last bits of a float: serde_json parses decimal floats
/// without guaranteed round-tripping, so `0.1` read, written and read again may move an ulp.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || ((x - y).abs() <= f64::EPSILON * 4.0 * x.abs().max(y.abs())),
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Check one answer the server wrote: nothing, or JSON-RPC 2.0 (a response or a batch of
/// them), each with exactly one of `result` and `error`, and an error with an integer code.
pub fn assert_jsonrpc_answer(input: &str, out: &str) {
    if out.is_empty() {
        return;
    }
    let v: Value = match serde_json::from_str(out) {
        Ok(v) => v,
        Err(e) => panic!("the server wrote invalid JSON ({e}) for {input:?}: {out}"),
    };
    let items = match v {
        Value::Array(a) => {
            assert!(!a.is_empty(), "an empty batch answer for {input:?}");
            a
        }
        other => vec![other],
    };
    for item in items {
        assert_eq!(item["jsonrpc"], "2.0", "{input:?} -> {item}");
        assert!(item.get("result").is_some() != item.get("error").is_some(), "{input:?} -> {item}");
        if let Some(e) = item.get("error") {
            assert!(e["code"].is_i64(), "error without an integer code: {input:?} -> {item}");
            assert!(e["message"].is_string(), "error without a message: {input:?} -> {item}");
        }
    }
}
