//! The 2026-07-28 inbound classifier (`protocol::classifier::classify` and its `Ladder`) on a
//! request's method and params, with headers built by `arbitrary`.
//!
//! Input: `method`, a newline, the params as JSON text, a newline, then bytes from which
//! `arbitrary` builds the headers (absent = stdio; a set consistent with the body; extra
//! pairs). Invariants: every refusal is -32602, -32020 or -32022, each mapped to HTTP 400; a
//! request that passes with headers passes without them, at the same revision; headers that
//! mirror the body faithfully change nothing.
#![no_main]

use std::sync::Arc;

use arbitrary::{Arbitrary, Unstructured};
use ferrite_core::protocol::classifier::{classify, http_status, name_parameter, Ladder};
use ferrite_core::protocol::headers::{encode_value, param_headers, HeaderSource, ParamHeaders};
use ferrite_core::protocol::jsonrpc::{code, parse_payload, Message, Payload};
use ferrite_core::protocol::model::RequestMeta;
use ferrite_core::protocol::ProtocolVersion;
use ferrite_fuzz::servers::everything_tools;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

/// Header names worth trying more often than random text.
const NAMES: &[&str] = &[
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-param-region",
    "mcp-param-count",
    "mcp-param-flag",
    "mcp-param-deep",
    "MCP-Protocol-Version",
    "Mcp-Name",
];

/// Values worth trying more often than random text.
const VALUES: &[&str] = &[
    "2026-07-28",
    "2025-11-25",
    "tools/call",
    "tools/list",
    "add",
    "test_x_mcp_header",
    "=?base64?",
    "?=",
    " ",
    "42",
    "true",
];

#[derive(Arbitrary, Debug)]
enum Text {
    Known(u8),
    Any(String),
}

impl Text {
    fn get<'a>(&'a self, known: &'a [&'a str]) -> &'a str {
        match self {
            Text::Known(i) => known[usize::from(*i) % known.len()],
            Text::Any(s) => s,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Headers {
    /// Start from headers that mirror the body.
    consistent: bool,
    /// Then append these.
    extra: Vec<(Text, Text)>,
}

fn params_tools() -> Vec<(String, Arc<ParamHeaders>)> {
    let mut schemas = everything_tools();
    // A tool mirroring an integer, a boolean and a nested string too.
    schemas.push((
        "mirrors".to_owned(),
        json!({"type": "object", "properties": {
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "outer": {"type": "object", "properties": {"deep": {"type": "string", "x-mcp-header": "Deep"}}}
        }}),
    ));
    schemas
        .into_iter()
        .filter_map(|(name, schema)| {
            let p = param_headers(&schema).ok()?;
            (!p.is_empty()).then(|| (name, Arc::new(p)))
        })
        .collect()
}

/// How a client renders an argument into its mirrored header (the spec's rule).
fn render(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Headers that mirror the body, or `None` when the body cannot be mirrored faithfully.
fn mirror(
    method: &str,
    params: &Value,
    meta: Option<&RequestMeta>,
    tools: &[(String, Arc<ParamHeaders>)],
) -> Option<Vec<(String, String)>> {
    let edge = |s: &str| s.trim_matches(|c| c == ' ' || c == '\t') != s;
    let mut h = Vec::new();
    if let Some(v) = meta.and_then(|m| m.protocol_version.as_ref()) {
        // A version that is not text has no header rendering.
        let v = v.as_str()?;
        if edge(v) {
            return None;
        }
        h.push(("mcp-protocol-version".to_owned(), v.to_owned()));
    }
    if edge(method) {
        return None;
    }
    h.push(("mcp-method".to_owned(), method.to_owned()));
    if let Some(key) = name_parameter(method) {
        match params.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => h.push(("mcp-name".to_owned(), encode_value(s))),
            Some(_) => return None,
        }
    }
    if method == "tools/call" {
        let tool = params.get("name").and_then(Value::as_str);
        if let Some((_, p)) = tools.iter().find(|(n, _)| Some(n.as_str()) == tool) {
            let args = params.get("arguments").and_then(Value::as_object).cloned().unwrap_or_default();
            for ph in p.iter() {
                let mut cur = args.get(ph.path.first()?);
                for k in &ph.path[1..] {
                    cur = cur.and_then(Value::as_object).and_then(|o| o.get(k));
                }
                match cur.filter(|v| !v.is_null()) {
                    None => {}
                    Some(v) => h.push((ph.header_name().to_ascii_lowercase(), encode_value(&render(v)?))),
                }
            }
        }
    }
    Some(h)
}

fn outcome(
    r: &Result<ferrite_core::protocol::classifier::ModernRoute<'_>, ferrite_core::ErrorObject>,
) -> Result<(ProtocolVersion, Option<i32>), i32> {
    match r {
        Ok(route) => Ok((route.version, route.envelope().err().map(|e| e.code))),
        Err(e) => Err(e.code),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == b'\n');
    let (Some(method), Some(params), rest) = (parts.next(), parts.next(), parts.next()) else { return };
    let Ok(method) = std::str::from_utf8(method) else { return };
    let Ok(params) = std::str::from_utf8(params) else { return };
    let Ok(params) = serde_json::from_str::<Value>(params) else { return };
    let mut u = Unstructured::new(rest.unwrap_or_default());
    let Ok(headers) = Option::<Headers>::arbitrary(&mut u) else { return };

    // Split params as the parser does: `_meta` read into a RequestMeta, the rest kept.
    let text = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let Payload::Single(Ok(Message::Request(req))) = parse_payload(&text) else { return };
    let rest_params = req.params.clone().unwrap_or_else(|| Value::Object(Map::new()));

    let tools = params_tools();
    let lookup = |name: &str| tools.iter().find(|(n, _)| n == name).map(|(_, p)| p.clone());
    let supported = [ProtocolVersion::V2026_07_28];
    let run = |h: Option<&Vec<(String, String)>>| {
        let ladder =
            Ladder { headers: h.map(|h| h as &dyn HeaderSource), supported: &supported, param_headers: &lookup };
        outcome(&classify(method, req.params.as_ref(), req.meta.as_deref(), &ladder))
    };

    let bare = run(None);
    let check = |r: &Result<(ProtocolVersion, Option<i32>), i32>| {
        let codes = [code::INVALID_PARAMS, code::HEADER_MISMATCH, code::UNSUPPORTED_PROTOCOL_VERSION];
        match r {
            Err(c) => {
                assert!(codes.contains(c), "refusal {c} for {text}");
                assert_eq!(http_status(*c), Some(400), "{text}");
            }
            Ok((v, env)) => {
                assert!(supported.contains(v));
                assert!(env.is_none_or(|c| c == code::INVALID_PARAMS), "{text}");
            }
        }
    };
    check(&bare);

    let Some(headers) = headers else { return };
    let mut h = if headers.consistent {
        mirror(method, &rest_params, req.meta.as_deref(), &tools).unwrap_or_default()
    } else {
        Vec::new()
    };
    let faithful = headers.consistent && !h.is_empty() && headers.extra.is_empty();
    for (n, v) in &headers.extra {
        h.push((n.get(NAMES).to_owned(), v.get(VALUES).to_owned()));
    }
    let with = run(Some(&h));
    check(&with);
    if let Ok((v, env)) = &with {
        assert_eq!(bare, Ok((*v, *env)), "passes with headers {h:?} but not without: {text}");
    }
    if faithful {
        assert_eq!(with, bare, "mirroring headers {h:?} changed the outcome of {text}");
    }
});
