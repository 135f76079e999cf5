//! Property tests: the inbound classifier, the header codec and the `x-mcp-header` reader never
//! panic, whatever JSON and headers arrive; the classifier only ever refuses with a ladder
//! code; and the header codec round-trips any text.

use std::sync::Arc;

use ferrite_core::protocol::classifier::{classify, http_status, Ladder};
use ferrite_core::protocol::headers::{decode_value, encode_value, param_headers, ParamHeaders};
use ferrite_core::ProtocolVersion;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Arbitrary JSON, biased towards the shapes the ladder reads.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("2026-07-28"),
            Just("2025-11-25"),
            Just("io.modelcontextprotocol/protocolVersion"),
            Just("io.modelcontextprotocol/clientCapabilities"),
            Just("x-mcp-header"),
            Just("=?base64?AAA?="),
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let key = prop_oneof![
            ".{0,8}".boxed(),
            prop_oneof![
                Just("_meta"),
                Just("name"),
                Just("uri"),
                Just("arguments"),
                Just("properties"),
                Just("type"),
                Just("x-mcp-header"),
                Just("io.modelcontextprotocol/protocolVersion"),
                Just("io.modelcontextprotocol/clientCapabilities"),
                Just("io.modelcontextprotocol/logLevel"),
            ]
            .prop_map(str::to_owned)
            .boxed(),
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn headers() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = prop_oneof![
        Just("mcp-protocol-version".to_owned()),
        Just("mcp-method".to_owned()),
        Just("mcp-name".to_owned()),
        Just("mcp-param-region".to_owned()),
        "[a-z-]{1,12}",
    ];
    let value = prop_oneof![Just("2026-07-28".to_owned()), Just("tools/call".to_owned()), ".{0,16}"];
    prop::collection::vec((name, value), 0..6)
}

fn methods() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("tools/call".to_owned()),
        Just("resources/read".to_owned()),
        Just("prompts/get".to_owned()),
        Just("tools/list".to_owned()),
        ".{0,10}",
    ]
}

const LADDER_CODES: [i32; 4] = [-32602, -32020, -32022, -32600];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn the_classifier_never_panics_and_refuses_only_with_ladder_codes(
        method in methods(), params in json_value(), hs in headers(), with_headers in any::<bool>()
    ) {
        let schema = json!({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}});
        let ph = Arc::new(param_headers(&schema).unwrap());
        let lookup = move |_: &str| -> Option<Arc<ParamHeaders>> { Some(ph.clone()) };
        let ladder = Ladder {
            headers: if with_headers { Some(&hs) } else { None },
            supported: &[ProtocolVersion::V2026_07_28],
            param_headers: &lookup,
        };
        // Split as the parser splits a request: `_meta` travels raw beside the params.
        let mut params = params;
        let meta = params.as_object_mut().and_then(|m| m.remove("_meta"));
        let meta = meta.map(ferrite_core::protocol::model::RequestMeta::from_value);
        if let Err(e) = classify(&method, Some(&params), meta.as_ref(), &ladder).and_then(|r| r.envelope()) {
            prop_assert!(LADDER_CODES.contains(&e.code), "unexpected code {}", e.code);
            prop_assert_eq!(http_status(e.code), Some(400));
        }
    }

    #[test]
    fn the_annotation_reader_never_panics(schema in json_value()) {
        let _ = param_headers(&schema);
    }

    #[test]
    fn header_values_round_trip(text in "\\PC{0,40}") {
        prop_assert_eq!(decode_value(&encode_value(&text)), Some(text));
    }

    #[test]
    fn decoding_never_panics(text in ".{0,60}") {
        let _ = decode_value(&text);
        let _ = decode_value(&format!("=?base64?{text}?="));
    }
}
