//! Mirrored request headers of the 2026-07-28 HTTP transport (SEP-2243): the header-value
//! codec, the `x-mcp-header` schema annotation, and the `Mcp-Param-*` comparison.
//!
//! A 2026-07-28 client mirrors parts of the body into headers (`Mcp-Method`, `Mcp-Name`, and
//! one `Mcp-Param-{token}` per tool argument whose schema property carries
//! `"x-mcp-header": "{token}"`) so that intermediaries can route without parsing JSON. The
//! server must check that the headers agree with the body, after decoding values that the
//! client wrapped as `=?base64?…?=`. Pure: no I/O; headers come in through [`HeaderSource`].

use base64::Engine as _;
use serde_json::{Map, Value};

use super::jsonrpc::{code, ErrorObject};

/// `MCP-Protocol-Version`, lowercase.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method`, lowercase.
pub const METHOD: &str = "mcp-method";
/// `Mcp-Name`, lowercase.
pub const NAME: &str = "mcp-name";
/// The prefix of per-argument headers, lowercase (`mcp-param-{token}`).
pub const PARAM_PREFIX: &str = "mcp-param-";
/// The schema annotation that mirrors a tool argument into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// Read access to a request's headers, by lowercase name. Implemented for `http::HeaderMap`
/// and for lists of `(name, value)` pairs, so the classifier never depends on a transport.
pub trait HeaderSource {
    /// Every value of the header `name` (lowercase), in order. A value that is not valid
    /// text is `None`.
    fn values(&self, name: &str) -> Vec<Option<&str>>;
}

impl HeaderSource for http::HeaderMap {
    fn values(&self, name: &str) -> Vec<Option<&str>> {
        self.get_all(name).iter().map(|v| v.to_str().ok()).collect()
    }
}

impl HeaderSource for [(String, String)] {
    fn values(&self, name: &str) -> Vec<Option<&str>> {
        self.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| Some(v.as_str())).collect()
    }
}

impl HeaderSource for Vec<(String, String)> {
    fn values(&self, name: &str) -> Vec<Option<&str>> {
        self.as_slice().values(name)
    }
}

/// One header's value: absent, present once, or a problem (sent twice, or not text).
pub(crate) enum Single<'a> {
    Absent,
    One(&'a str),
    Duplicated,
    NotText,
}

pub(crate) fn single<'a>(h: &'a (impl HeaderSource + ?Sized), name: &str) -> Single<'a> {
    let v = h.values(name);
    match v.as_slice() {
        [] => Single::Absent,
        // Optional whitespace around a field value is not part of it (RFC 9110).
        [Some(s)] => Single::One(s.trim_matches(|c| c == ' ' || c == '\t')),
        [None] => Single::NotText,
        _ => Single::Duplicated,
    }
}

fn mismatch(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(code::HEADER_MISMATCH, message)
}

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

fn is_sentinel(value: &str) -> bool {
    value.len() >= SENTINEL_START.len() + SENTINEL_END.len()
        && value.starts_with(SENTINEL_START)
        && value.ends_with(SENTINEL_END)
}

/// Encode a value for a mirrored header: visible ASCII without edge whitespace passes as
/// is; anything else (non-ASCII, control characters, edge spaces, or a value that itself
/// looks like the sentinel) becomes `=?base64?{base64(UTF-8)}?=`.
pub fn encode_value(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..=0x7e).contains(&b)) && value.trim() == value && !is_sentinel(value);
    if plain {
        value.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", base64::engine::general_purpose::STANDARD.encode(value))
    }
}

/// Decode a mirrored header value. A value without the sentinel is returned as is; a
/// sentinel whose payload is not canonical base64 of UTF-8 text is `None`, so a corrupt
/// header never matches a body value by accident.
pub fn decode_value(value: &str) -> Option<String> {
    if !is_sentinel(value) {
        return Some(value.to_owned());
    }
    let payload = &value[SENTINEL_START.len()..value.len() - SENTINEL_END.len()];
    let engine = &base64::engine::general_purpose::STANDARD;
    let bytes = engine.decode(payload).ok()?;
    // Only the canonical encoding is accepted (no stray trailing bits).
    if engine.encode(&bytes) != payload {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The JSON type an `x-mcp-header` property may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`: compared numerically (`42` matches `42.0`).
    Integer,
    /// `"type": "boolean"`: `true` / `false`.
    Boolean,
}

/// One argument a tool mirrors into a `Mcp-Param-{token}` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The chain of `properties` keys from the schema root to the argument.
    pub path: Vec<String>,
    /// The token as written in the schema.
    pub token: String,
    /// The argument's declared type.
    pub kind: ParamKind,
    header: String,
}

impl ParamHeader {
    /// The header name, `Mcp-Param-{token}`.
    pub fn header_name(&self) -> String {
        format!("Mcp-Param-{}", self.token)
    }
}

/// The `x-mcp-header` annotations of a tool's input schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamHeaders(Vec<ParamHeader>);

impl ParamHeaders {
    /// Whether the schema mirrors no argument.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The mirrored arguments.
    pub fn iter(&self) -> impl Iterator<Item = &ParamHeader> {
        self.0.iter()
    }
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Schema keywords whose values are subschemas; crossing any of them leaves the chain of
/// `properties`, where an annotation is not allowed. `$ref` is deliberately not followed.
const SINGLE: &[&str] = &[
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: &[&str] = &["patternProperties", "dependentSchemas", "$defs", "definitions"];

/// Why a tool's `x-mcp-header` annotations are invalid (a client must drop such a tool, so
/// the server refuses it at registration).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidParamHeader(pub String);

/// Read the `x-mcp-header` annotations of an input schema, checking the spec's rules: each
/// sits on a property reached from the root through `properties` keys only, names an RFC
/// 9110 token unique within the schema (case-insensitively), and annotates a `string`,
/// `integer` or `boolean` property (never `number`).
pub fn param_headers(schema: &Value) -> Result<ParamHeaders, InvalidParamHeader> {
    let mut found: Vec<ParamHeader> = Vec::new();
    // (path from the root through `properties` only, or None once another keyword was crossed)
    let mut stack: Vec<(Option<Vec<String>>, &Value)> = vec![(Some(Vec::new()), schema)];
    while let Some((path, node)) = stack.pop() {
        let Value::Object(m) = node else { continue };
        if let Some(annotation) = m.get(X_MCP_HEADER) {
            let path = match &path {
                Some(p) if !p.is_empty() => p.clone(),
                _ => {
                    return Err(InvalidParamHeader(format!(
                        "{X_MCP_HEADER} sits where no argument is reached through `properties` alone"
                    )))
                }
            };
            let at = path.join(".");
            let Value::String(token) = annotation else {
                return Err(InvalidParamHeader(format!("property {at:?}: {X_MCP_HEADER} must be a string")));
            };
            if !is_token(token) {
                return Err(InvalidParamHeader(format!(
                    "property {at:?}: {X_MCP_HEADER} {token:?} is not an RFC 9110 token"
                )));
            }
            let kind = match m.get("type").and_then(Value::as_str) {
                Some("string") => ParamKind::String,
                Some("integer") => ParamKind::Integer,
                Some("boolean") => ParamKind::Boolean,
                other => {
                    return Err(InvalidParamHeader(format!(
                    "property {at:?}: {X_MCP_HEADER} is allowed only on string, integer or boolean properties, not {}",
                    other.map_or_else(|| "an untyped one".to_owned(), |t| format!("{t:?}"))
                )))
                }
            };
            let header = format!("{PARAM_PREFIX}{}", token.to_ascii_lowercase());
            if let Some(dup) = found.iter().find(|f| f.header == header) {
                return Err(InvalidParamHeader(format!(
                    "{X_MCP_HEADER} {token:?} on {at:?} repeats the one on {:?}",
                    dup.path.join(".")
                )));
            }
            found.push(ParamHeader { path, token: token.clone(), kind, header });
        }
        for (k, v) in m {
            if k == "properties" {
                if let Value::Object(props) = v {
                    for (name, sub) in props {
                        let p = path.as_ref().map(|p| {
                            let mut p = p.clone();
                            p.push(name.clone());
                            p
                        });
                        stack.push((p, sub));
                    }
                }
            } else if SINGLE.contains(&k.as_str()) {
                stack.push((None, v));
            } else if LIST.contains(&k.as_str()) {
                if let Value::Array(items) = v {
                    stack.extend(items.iter().map(|s| (None, s)));
                }
            } else if MAP.contains(&k.as_str()) {
                if let Value::Object(subs) = v {
                    stack.extend(subs.values().map(|s| (None, s)));
                }
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ParamHeaders(found))
}

fn value_at<'a>(arguments: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut cur = arguments.get(first)?;
    for key in rest {
        cur = cur.as_object()?.get(key)?;
    }
    (!cur.is_null()).then_some(cur)
}

/// How a client renders an argument into its header (before encoding), or `None` when it
/// has no rendering (objects, arrays).
fn render(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `42`, `42.0` and `42.000` are the same integer; anything else is compared as text.
fn integer_matches(value: &Value, decoded: &str) -> Option<bool> {
    let Value::Number(n) = value else { return None };
    let body: i128 = if let Some(i) = n.as_i64() {
        i128::from(i)
    } else if let Some(u) = n.as_u64() {
        i128::from(u)
    } else {
        let f = n.as_f64()?;
        if f.fract() != 0.0 || f.abs() > 9.007_199_254_740_991e15 {
            return None;
        }
        f as i128
    };
    let (sign, digits) = match decoded.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, decoded),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let canonical = !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && (digits.contains('.') != fraction.is_empty());
    if !canonical {
        return None;
    }
    if fraction.bytes().any(|b| b != b'0') {
        return Some(false);
    }
    Some(whole.parse::<i128>().ok().map(|w| w * sign) == Some(body))
}

/// The `Mcp-Param-*` headers a client sends with a `tools/call` of these `arguments`: one per
/// mirrored argument that is present (and not `null`), its value encoded for a header.
pub fn param_header_values(params: &ParamHeaders, arguments: &Map<String, Value>) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|p| {
            let rendered = value_at(arguments, &p.path).and_then(render)?;
            Some((p.header_name(), encode_value(&rendered)))
        })
        .collect()
}

/// Check a `tools/call`'s `Mcp-Param-*` headers against its arguments: for each mirrored
/// argument, header and value are present together and equal (after decoding), or absent
/// together (`null` counts as absent). The first disagreement is `-32020`.
pub fn check_param_headers(
    params: &ParamHeaders,
    arguments: &Map<String, Value>,
    headers: &(impl HeaderSource + ?Sized),
) -> Result<(), ErrorObject> {
    for p in params.iter() {
        let name = p.header_name();
        let raw = match single(headers, &p.header) {
            Single::Absent => None,
            Single::One(v) => Some(v),
            Single::Duplicated => return Err(mismatch(format!("{name} header appears more than once"))),
            Single::NotText => return Err(mismatch(format!("{name} header is not visible ASCII"))),
        };
        let at = p.path.join(".");
        let rendered = value_at(arguments, &p.path).and_then(|v| render(v).map(|r| (v, r)));
        match (raw, rendered) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(format!("{name} header is present but argument {at:?} is absent")));
            }
            (None, Some(_)) => {
                return Err(mismatch(format!("{name} header is missing but argument {at:?} is present")));
            }
            (Some(raw), Some((value, rendered))) => {
                let decoded = decode_value(raw)
                    .ok_or_else(|| mismatch(format!("{name} header carries a malformed base64 value")))?;
                let equal = match p.kind {
                    ParamKind::Integer => integer_matches(value, &decoded).unwrap_or(decoded == rendered),
                    _ => decoded == rendered,
                };
                if !equal {
                    return Err(mismatch(format!("{name} header does not match argument {at:?}")));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn values_round_trip_through_the_codec() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        for v in ["日本", " padded", "tab\there", "=?base64?abc?=", "line\nbreak", "trail "] {
            let e = encode_value(v);
            assert!(e.starts_with("=?base64?") && e.ends_with("?="), "{v:?} -> {e}");
            assert_eq!(decode_value(&e).as_deref(), Some(v));
        }
        assert_eq!(decode_value("=?base64?5pel5pys?=").as_deref(), Some("日本"));
    }

    #[test]
    fn malformed_sentinels_decode_to_none() {
        assert_eq!(decode_value("=?base64?!!!?="), None, "not base64");
        assert_eq!(decode_value("=?base64?/w==?="), None, "not UTF-8");
        assert_eq!(decode_value("=?base64?YR==?="), None, "non-canonical trailing bits");
        assert_eq!(decode_value("plain").as_deref(), Some("plain"));
    }

    #[test]
    fn annotations_are_read_from_properties_chains() {
        let s = json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "cfg":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}});
        let p = param_headers(&s).unwrap();
        let names: Vec<_> = p.iter().map(|p| (p.path.join("."), p.header_name(), p.kind)).collect();
        assert_eq!(
            names,
            vec![
                ("cfg.n".to_owned(), "Mcp-Param-N".to_owned(), ParamKind::Integer),
                ("region".to_owned(), "Mcp-Param-Region".to_owned(), ParamKind::String)
            ]
        );
    }

    #[test]
    fn invalid_annotations_are_refused_with_a_reason() {
        let cases = [
            (json!({"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}), "number"),
            (json!({"type":"object","properties":{"x":{"type":"string","x-mcp-header":"bad name"}}}), "token"),
            (json!({"type":"object","properties":{"x":{"type":"string","x-mcp-header":""}}}), "token"),
            (json!({"type":"object","properties":{"x":{"type":"string","x-mcp-header":7}}}), "must be a string"),
            (
                json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"r"}}}),
                "repeats",
            ),
            (
                json!({"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}),
                "properties",
            ),
            (
                json!({"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}),
                "properties",
            ),
            (json!({"type":"object","x-mcp-header":"Root"}), "properties"),
            (json!({"type":"object","properties":{"x":{"x-mcp-header":"X"}}}), "untyped"),
        ];
        for (schema, why) in cases {
            let e = param_headers(&schema).unwrap_err();
            assert!(e.0.contains(why), "{schema}: {e}");
        }
    }

    #[test]
    fn param_headers_must_agree_with_arguments() {
        let p = param_headers(&json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "n":{"type":"integer","x-mcp-header":"N"},
            "b":{"type":"boolean","x-mcp-header":"B"}}}))
        .unwrap();
        let args = |v: Value| v.as_object().unwrap().clone();
        let ok = |a: Value, hs: &[(&str, &str)]| check_param_headers(&p, &args(a), &h(hs));
        assert!(ok(
            json!({"region":"eu","n":42,"b":true}),
            &[("Mcp-Param-Region", "eu"), ("mcp-param-n", "42.0"), ("MCP-PARAM-B", "true")]
        )
        .is_ok());
        assert!(ok(json!({"region":"日本"}), &[("mcp-param-region", "=?base64?5pel5pys?=")]).is_ok());
        assert!(ok(json!({"region":null}), &[]).is_ok(), "null counts as absent");
        assert!(ok(json!({}), &[]).is_ok());
        for (a, hs) in [
            (json!({"region":"eu"}), vec![]),
            (json!({}), vec![("mcp-param-region", "eu")]),
            (json!({"region":"eu"}), vec![("mcp-param-region", "us")]),
            (json!({"region":"eu"}), vec![("mcp-param-region", "eu"), ("mcp-param-region", "eu")]),
            (json!({"n":42}), vec![("mcp-param-n", "42.5")]),
            (json!({"n":42}), vec![("mcp-param-n", "4.2e1")]),
            (json!({"b":true}), vec![("mcp-param-b", "True")]),
            (json!({"region":"eu"}), vec![("mcp-param-region", "=?base64?!!?=")]),
        ] {
            let e = ok(a.clone(), &hs).unwrap_err();
            assert_eq!(e.code, code::HEADER_MISMATCH, "{a} {hs:?}");
        }
    }
}
