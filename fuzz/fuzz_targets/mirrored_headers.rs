//! The mirrored-header codec and the `Mcp-Param-*` rung: `protocol::headers::decode_value`,
//! `encode_value`, `param_headers(schema)` and `check_param_headers`.
//!
//! Input: sections split by a line `---`: a header value, a tool input schema (JSON), the
//! call's arguments (JSON), then `name: value` header lines. Invariants: `decode(encode(x))`
//! is `x` for any text and the encoding is visible ASCII without edge spaces; a decoded value
//! re-encodes to something that decodes to it again; for a schema whose annotations are
//! valid, headers rendered from the arguments pass the check, and any refusal is -32020.
#![no_main]

use ferrite_core::protocol::headers::{check_param_headers, decode_value, encode_value, param_headers};
use ferrite_core::protocol::jsonrpc::code;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fn assert_roundtrip(x: &str) {
    let e = encode_value(x);
    assert!(e.bytes().all(|b| (0x20..=0x7e).contains(&b)), "{x:?} encodes to {e:?}");
    assert_eq!(e.trim(), e, "{x:?} encodes with edge whitespace");
    assert_eq!(decode_value(&e).as_deref(), Some(x), "{x:?} -> {e:?} does not decode back");
}

fn render(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sections = text.split("\n---\n");
    let value = sections.next().unwrap_or_default();
    assert_roundtrip(value);
    if let Some(decoded) = decode_value(value) {
        assert_roundtrip(&decoded);
    }

    let Some(Ok(schema)) = sections.next().map(serde_json::from_str::<Value>) else { return };
    let args = sections.next().and_then(|a| serde_json::from_str::<Map<String, Value>>(a).ok()).unwrap_or_default();
    let headers: Vec<(String, String)> = sections
        .next()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.to_owned()))
        .collect();
    let Ok(params) = param_headers(&schema) else { return };
    for p in params.iter() {
        assert!(!p.path.is_empty() && !p.token.is_empty(), "{p:?}");
        let name = p.header_name();
        assert!(name.bytes().all(|b| b.is_ascii_graphic()), "{name:?}");
    }

    // Arbitrary headers: accepted or -32020, never anything else.
    if let Err(e) = check_param_headers(&params, &args, &headers) {
        assert_eq!(e.code, code::HEADER_MISMATCH, "{e:?}");
    }

    // Headers rendered from the arguments, as a conforming client sends them, pass.
    let mut faithful = Vec::new();
    for p in params.iter() {
        let mut cur = args.get(&p.path[0]);
        for k in &p.path[1..] {
            cur = cur.and_then(Value::as_object).and_then(|o| o.get(k));
        }
        match cur.filter(|v| !v.is_null()) {
            None => {}
            Some(v) => match render(v) {
                Some(r) => faithful.push((p.header_name().to_ascii_lowercase(), encode_value(&r))),
                // Objects and arrays have no rendering: nothing to mirror faithfully.
                None => return,
            },
        }
    }
    if let Err(e) = check_param_headers(&params, &args, &faithful) {
        panic!("faithful headers {faithful:?} refused for {args:?}: {e:?}");
    }
});
