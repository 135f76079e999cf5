//! JSON-RPC 2.0 framing: ids, errors, and the classification of an inbound payload.
//!
//! Parsing is deliberately two-step: first the payload is checked against the JSON-RPC
//! envelope (so a malformed message gets the exact error code the spec asks for, with id
//! `null` when no id could be read), and only then are `params` interpreted by the method.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::model::{Key, RequestMeta};

pub use super::rpc_error::{code, ErrorObject};

/// A request id: a string or an integer, never null.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::from(*n),
            RequestId::String(s) => Value::from(s.as_str()),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(s),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// An inbound request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params (`None` when absent), without `_meta`.
    pub params: Option<Value>,
    /// `params._meta`, read once as the request was parsed (the 2026-07-28 envelope rides
    /// here on every modern request; boxed, so that a request without one stays small).
    pub meta: Option<Box<RequestMeta>>,
}

impl Request {
    /// A request; a `_meta` in `params` is moved to [`Request::meta`].
    pub fn new(id: RequestId, method: String, params: Option<Value>) -> Self {
        let (params, meta) = split_meta(params);
        Request { id, method, params, meta }
    }

    /// Whether the request carries a 2026-07-28 envelope (`_meta` with the protocol-version
    /// key): such a request is served on the modern path.
    pub fn carries_envelope(&self) -> bool {
        self.meta.as_ref().is_some_and(|m| m.protocol_version.is_some())
    }

    /// The params with `_meta` put back (for code that wants the whole object).
    pub fn params_with_meta(&self) -> Option<Value> {
        join_meta(self.params.clone(), self.meta.as_deref())
    }
}

/// Move a `_meta` out of an object `params`.
fn split_meta(params: Option<Value>) -> (Option<Value>, Option<Box<RequestMeta>>) {
    match params {
        Some(Value::Object(mut m)) => {
            let meta = m.remove("_meta").map(|v| Box::new(RequestMeta::from_value(v)));
            (Some(Value::Object(m)), meta)
        }
        other => (other, None),
    }
}

/// Put a `_meta` back into `params`.
fn join_meta(params: Option<Value>, meta: Option<&RequestMeta>) -> Option<Value> {
    let Some(meta) = meta else { return params };
    let mut p = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    p.insert("_meta".to_owned(), meta.to_value());
    Some(Value::Object(p))
}

/// An inbound notification.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The params (`None` when absent).
    pub params: Option<Value>,
}

/// A response from the peer to a request this side sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request it answers.
    pub id: RequestId,
    /// The result, or the error.
    pub outcome: Result<Value, ErrorObject>,
}

/// One well-formed JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request (has an id and a method).
    Request(Request),
    /// A notification (a method and no id).
    Notification(Notification),
    /// A response (an id and a result or an error).
    Response(Response),
}

impl Message {
    /// Build a request message (a `_meta` in `params` goes to [`Request::meta`]).
    pub fn request(id: impl Into<RequestId>, method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Request(Request::new(id.into(), method.into(), params))
    }
    /// Build a notification message.
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Notification(Notification { method: method.into(), params })
    }
}

/// An element that could not be read as a JSON-RPC message, with the id when one was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// The id, when the element had a usable one.
    pub id: Option<RequestId>,
    /// The error to answer with.
    pub error: ErrorObject,
}

/// One element of an inbound payload: a message, or why it is not one.
pub type Parsed = Result<Message, Invalid>;

/// A whole inbound payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// A single element.
    Single(Parsed),
    /// A JSON array (a batch); may be empty.
    Batch(Vec<Parsed>),
}

/// The deepest nesting a payload may have: serde_json's recursion limit, which no setting
/// raises (objects and arrays inside one another, the outermost counted).
pub const MAX_JSON_DEPTH: usize = 127;

/// Parse raw text into a payload. Invalid JSON is a `-32700` element with no id.
pub fn parse_payload(text: &str) -> Payload {
    parse_payload_within(text, MAX_JSON_DEPTH)
}

/// Parse raw text into a payload nested at most `max_depth` deep (capped at
/// [`MAX_JSON_DEPTH`]). Deeper text is a `-32700` element with no id whose `data` names the
/// limit (`{"limit": "max_json_depth", "value": N}`). At the cap the text is not scanned
/// twice: serde_json's own limit refuses it, and the scan only names the error.
pub fn parse_payload_within(text: &str, max_depth: usize) -> Payload {
    let max_depth = max_depth.min(MAX_JSON_DEPTH);
    let too_deep = || {
        let error = ErrorObject::parse_error(format!("Parse error: JSON nested deeper than {max_depth} levels"))
            .with_data(serde_json::json!({ "limit": "max_json_depth", "value": max_depth }));
        Payload::Single(Err(Invalid { id: None, error }))
    };
    if max_depth < MAX_JSON_DEPTH && nesting_exceeds(text, max_depth) {
        return too_deep();
    }
    let trimmed = text.trim_start();
    let parse_error = |e: serde_json::Error| {
        if nesting_exceeds(text, max_depth) {
            return too_deep();
        }
        Payload::Single(Err(Invalid { id: None, error: ErrorObject::parse_error(format!("Parse error: {e}")) }))
    };
    if trimmed.starts_with('[') {
        match serde_json::from_str::<Vec<Value>>(trimmed) {
            Ok(items) => Payload::Batch(items.into_iter().map(classify).collect()),
            Err(e) => parse_error(e),
        }
    } else {
        // Fast paths: the common shapes read by this crate's reader, then serde_json straight
        // into the envelope's fields, without building a map for the envelope. Anything
        // unusual (not an object, duplicate keys, bad JSON) takes the general path, which
        // produces the precise error.
        if let Some(env) = super::message_reader::read_message(trimmed) {
            return Payload::Single(env.classify());
        }
        if let Ok(env) = serde_json::from_str::<Envelope>(trimmed) {
            return Payload::Single(env.classify());
        }
        match serde_json::from_str::<Value>(trimmed) {
            Ok(v) => Payload::Single(classify(v)),
            Err(e) => parse_error(e),
        }
    }
}

/// Whether `text` opens more than `max` objects or arrays inside one another (brackets in
/// strings do not count). One pass over the bytes; stops at the first level too deep.
pub fn nesting_exceeds(text: &str, max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The envelope fields of one message; `Some(Value::Null)` means present and null.
#[derive(Default, Deserialize)]
pub(super) struct Envelope {
    #[serde(default, deserialize_with = "present")]
    pub(super) jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(super) id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(super) method: Option<Value>,
    #[serde(default, deserialize_with = "present_params")]
    pub(super) params: Option<ParamsField>,
    #[serde(default, deserialize_with = "present")]
    pub(super) result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(super) error: Option<Value>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn present_params<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<ParamsField>, D::Error> {
    ParamsField::deserialize(d).map(Some)
}

/// `params` as read off the wire: an object's `_meta` read into [`RequestMeta`] in the same
/// pass, everything else as values.
pub(super) enum ParamsField {
    Object { rest: Map<String, Value>, meta: Option<Box<RequestMeta>> },
    Other(Value),
}

impl ParamsField {
    fn from_value(v: Value) -> ParamsField {
        match v {
            Value::Object(mut m) => {
                let meta = m.remove("_meta").map(|v| Box::new(RequestMeta::from_value(v)));
                ParamsField::Object { rest: m, meta }
            }
            other => ParamsField::Other(other),
        }
    }
}

impl<'de> Deserialize<'de> for ParamsField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ParamsField;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON-RPC params")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ParamsField, A::Error> {
                let mut rest = Map::new();
                let mut meta = None;
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    if key == "_meta" {
                        meta = Some(Box::new(map.next_value::<RequestMeta>()?));
                    } else {
                        let v = map.next_value::<Value>()?;
                        rest.insert(key.into_owned(), v);
                    }
                }
                Ok(ParamsField::Object { rest, meta })
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<ParamsField, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(ParamsField::Other)
            }
            fn visit_unit<E>(self) -> Result<ParamsField, E> {
                Ok(ParamsField::Other(Value::Null))
            }
            fn visit_none<E>(self) -> Result<ParamsField, E> {
                Ok(ParamsField::Other(Value::Null))
            }
            fn visit_bool<E>(self, v: bool) -> Result<ParamsField, E> {
                Ok(ParamsField::Other(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<ParamsField, E> {
                Ok(ParamsField::Other(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<ParamsField, E> {
                Ok(ParamsField::Other(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ParamsField, E> {
                Ok(ParamsField::Other(Value::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<ParamsField, E> {
                Ok(ParamsField::Other(Value::from(v)))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// Classify one JSON value as a JSON-RPC message.
pub fn classify(value: Value) -> Parsed {
    let Value::Object(mut obj) = value else {
        return Err(Invalid {
            id: None,
            error: ErrorObject::invalid_request("Invalid Request: a JSON-RPC message must be an object"),
        });
    };
    Envelope {
        jsonrpc: obj.remove("jsonrpc"),
        id: obj.remove("id"),
        method: obj.remove("method"),
        params: obj.remove("params").map(ParamsField::from_value),
        result: obj.remove("result"),
        error: obj.remove("error"),
    }
    .classify()
}

impl Envelope {
    pub(super) fn classify(self) -> Parsed {
        // Read the id first, so that later errors can carry it.
        let id = match &self.id {
            None => None,
            Some(v) => match RequestId::from_value(v) {
                Some(id) => Some(id),
                None => {
                    return Err(Invalid {
                        id: None,
                        error: ErrorObject::invalid_request("Invalid Request: id must be a string or an integer"),
                    })
                }
            },
        };
        let invalid = |id: Option<RequestId>, msg: &str| {
            Err(Invalid { id, error: ErrorObject::invalid_request(format!("Invalid Request: {msg}")) })
        };
        match &self.jsonrpc {
            Some(Value::String(s)) if s == "2.0" => {}
            _ => return invalid(id, "jsonrpc must be \"2.0\""),
        }
        match self.method {
            Some(Value::String(method)) => {
                let (params, meta) = match self.params {
                    None => (None, None),
                    Some(ParamsField::Object { rest, meta }) => (Some(Value::Object(rest)), meta),
                    // A notification is never answered: lenient with what it carries.
                    Some(ParamsField::Other(Value::Null)) if id.is_none() => (None, None),
                    Some(ParamsField::Other(p @ Value::Array(_))) if id.is_none() => (Some(p), None),
                    // JSON-RPC allows by-position params; every MCP method takes an object.
                    Some(ParamsField::Other(Value::Array(_))) => {
                        return Err(Invalid {
                            id,
                            error: ErrorObject::invalid_params(
                                "Invalid params: MCP params are an object (by name), not an array",
                            ),
                        })
                    }
                    Some(ParamsField::Other(_)) => {
                        return invalid(id, "params must be an object or left out (not null, a string or a number)")
                    }
                };
                Ok(match id {
                    Some(id) => Message::Request(Request { id, method, params, meta }),
                    // Notifications keep their params whole.
                    None => Message::Notification(Notification { method, params: join_meta(params, meta.as_deref()) }),
                })
            }
            Some(_) => invalid(id, "method must be a string"),
            None => {
                let Some(id) = id else {
                    return invalid(None, "a message needs a method, or an id with a result or an error");
                };
                if let Some(result) = self.result {
                    Ok(Message::Response(Response { id, outcome: Ok(result) }))
                } else if let Some(err) = self.error {
                    match serde_json::from_value::<ErrorObject>(err) {
                        Ok(e) => Ok(Message::Response(Response { id, outcome: Err(e) })),
                        Err(_) => invalid(Some(id), "malformed error object"),
                    }
                } else {
                    invalid(Some(id), "a response needs a result or an error")
                }
            }
        }
    }
}

/// A JSON text Ferrite serialized itself, so valid by construction: results are serialized
/// once, decorated by splicing (2026-07-28 `resultType`, cache hints, server info) and
/// embedded in the response without being parsed again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawJson {
    text: Box<str>,
    /// For a tool result the core made: whether it reports an error (`isError`), known from
    /// the result itself, so telemetry need not search the text for it. `None` for any other
    /// text (other results, and what a middleware or a proxied server made).
    tool_error: Option<bool>,
}

impl RawJson {
    /// Serialize `value`.
    pub fn serialize<T: Serialize + ?Sized>(value: &T) -> Result<RawJson, serde_json::Error> {
        serde_json::to_string(value).map(RawJson::trusted)
    }
    /// Wrap text the caller produced with a JSON serializer (not checked).
    pub(crate) fn trusted(text: String) -> RawJson {
        RawJson { text: text.into_boxed_str(), tool_error: None }
    }
    /// The JSON text.
    pub fn get(&self) -> &str {
        &self.text
    }
    /// This text as the tool result the core serialized, which reports an error or not.
    pub(crate) fn tool_result(self, is_error: bool) -> RawJson {
        RawJson { tool_error: Some(is_error), ..self }
    }
    /// Whether this is a tool result reporting an error, when the core made it (`None`: not
    /// known without reading the text).
    pub(crate) fn tool_error(&self) -> Option<bool> {
        self.tool_error
    }
}

/// Short JSON text with more than one owner (a modern request's `clientInfo`, kept by its
/// `_meta` and by the request's transient connection state): up to [`CompactJson::INLINE`]
/// bytes held in place, longer text shared, so that neither making nor cloning one allocates
/// in the usual case.
#[derive(Clone)]
pub struct CompactJson(Compact);

#[derive(Clone)]
enum Compact {
    Inline { len: u8, bytes: [u8; CompactJson::INLINE] },
    Shared(std::sync::Arc<str>),
}

impl CompactJson {
    /// The longest text held in place.
    pub const INLINE: usize = 62;

    /// Serialize `value`.
    pub fn serialize<T: Serialize + ?Sized>(value: &T) -> Result<CompactJson, serde_json::Error> {
        serde_json::to_string(value).map(|s| CompactJson::trusted(&s))
    }
    /// Wrap text known to be one JSON value (not checked).
    pub(crate) fn trusted(text: &str) -> CompactJson {
        let mut bytes = [0u8; CompactJson::INLINE];
        match (bytes.get_mut(..text.len()), u8::try_from(text.len())) {
            (Some(room), Ok(len)) => {
                room.copy_from_slice(text.as_bytes());
                CompactJson(Compact::Inline { len, bytes })
            }
            _ => CompactJson(Compact::Shared(text.into())),
        }
    }
    /// The JSON text.
    pub fn get(&self) -> &str {
        match &self.0 {
            // Always whole UTF-8: a copy of a `&str`.
            Compact::Inline { len, bytes } => {
                bytes.get(..usize::from(*len)).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or_default()
            }
            Compact::Shared(s) => s,
        }
    }
}

impl PartialEq for CompactJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for CompactJson {}

impl fmt::Debug for CompactJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CompactJson").field(&self.get()).finish()
    }
}

/// An outbound response: a serialized result or an error, for one request id.
///
/// The result is kept as raw JSON so that it is serialized exactly once on the hot path.
#[derive(Debug, Clone)]
pub struct OutboundResponse {
    /// The id being answered; `None` only for errors about unreadable messages (`id: null`).
    pub id: Option<RequestId>,
    /// The serialized result, or the error.
    pub outcome: Result<RawJson, ErrorObject>,
}

impl OutboundResponse {
    /// A successful response.
    pub fn result(id: RequestId, result: RawJson) -> Self {
        OutboundResponse { id: Some(id), outcome: Ok(result) }
    }
    /// An error response.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        OutboundResponse { id, outcome: Err(error) }
    }
    /// The result parsed as a JSON value (for tests and in-process callers).
    pub fn result_value(&self) -> Option<Value> {
        self.outcome.as_ref().ok().and_then(|r| serde_json::from_str(r.get()).ok())
    }
    /// The error, if this is an error response.
    pub fn error_object(&self) -> Option<&ErrorObject> {
        self.outcome.as_ref().err()
    }
    /// Serialize to wire text (no trailing newline).
    pub fn to_json_string(&self) -> String {
        let body = match &self.outcome {
            Ok(r) => r.get(),
            Err(_) => "",
        };
        let mut s = String::with_capacity(body.len() + 48);
        s.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
        match &self.id {
            Some(RequestId::Number(n)) => s.push_str(&n.to_string()),
            // Serializing a string cannot fail.
            Some(RequestId::String(id)) => s.push_str(&serde_json::to_string(id).unwrap_or_default()),
            None => s.push_str("null"),
        }
        match &self.outcome {
            Ok(r) => {
                s.push_str(",\"result\":");
                s.push_str(r.get());
            }
            Err(e) => {
                s.push_str(",\"error\":");
                s.push_str(&serde_json::to_string(e).unwrap_or_default());
            }
        }
        s.push('}');
        s
    }
    /// The response as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.to_json_string()).unwrap_or(Value::Null)
    }
}

/// Serialize a notification to wire text.
pub fn notification_text(method: &str, params: Option<&Value>) -> String {
    #[derive(Serialize)]
    struct Wire<'a> {
        jsonrpc: &'static str,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a Value>,
    }
    serde_json::to_string(&Wire { jsonrpc: "2.0", method, params }).unwrap_or_default()
}

/// Serialize a request to wire text.
pub fn request_text(id: &RequestId, method: &str, params: Option<&Value>) -> String {
    #[derive(Serialize)]
    struct Wire<'a> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a Value>,
    }
    serde_json::to_string(&Wire { jsonrpc: "2.0", id, method, params }).unwrap_or_default()
}

/// Params as an object map; `None` params read as an empty object. Arrays are refused.
pub fn params_object(params: Option<&Value>) -> Result<Option<&Map<String, Value>>, ErrorObject> {
    match params {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(ErrorObject::invalid_params("params must be an object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compact_json_holds_short_text_in_place_and_shares_long_text() {
        let short = r#"{"name":"c","version":"1"}"#;
        let at_limit = format!(r#""{}""#, "x".repeat(CompactJson::INLINE - 2));
        let long = format!(r#"{{"name":"{}"}}"#, "é".repeat(40));
        for text in [short, at_limit.as_str(), long.as_str(), ""] {
            let c = CompactJson::trusted(text);
            assert_eq!(c.get(), text);
            assert_eq!(c.clone(), c);
        }
        assert!(matches!(CompactJson::trusted(short).0, Compact::Inline { len: 26, .. }));
        assert!(matches!(CompactJson::trusted(&at_limit).0, Compact::Inline { len: 62, .. }));
        assert!(matches!(CompactJson::trusted(&long).0, Compact::Shared(_)));
        assert_ne!(CompactJson::trusted(short), CompactJson::trusted(&long));
        assert_eq!(CompactJson::serialize(&json!({"a": 1})).unwrap().get(), r#"{"a":1}"#);
    }

    #[test]
    fn classifies_request_notification_response() {
        let r = classify(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).unwrap();
        assert!(matches!(r, Message::Request(Request { id: RequestId::Number(1), .. })));
        // _meta travels beside the params, whichever path parsed the message.
        let text = r#"{"jsonrpc":"2.0","id":2,"method":"m","params":{"a":1,"_meta":{"k":[1, 2]}}}"#;
        let from_text = match parse_payload(text) {
            Payload::Single(Ok(Message::Request(r))) => r,
            other => panic!("{other:?}"),
        };
        assert_eq!(from_text.params, Some(json!({"a": 1})));
        assert_eq!(
            from_text.meta.as_ref().map(|m| m.other.clone()),
            Some(json!({"k": [1, 2]}).as_object().cloned().unwrap())
        );
        assert_eq!(from_text.params_with_meta(), Some(json!({"a": 1, "_meta": {"k": [1, 2]}})));
        let from_value = match classify(serde_json::from_str(text).unwrap()).unwrap() {
            Message::Request(r) => r,
            other => panic!("{other:?}"),
        };
        assert_eq!(from_value.params_with_meta(), from_text.params_with_meta());
        let n = parse_payload(r#"{"jsonrpc":"2.0","method":"n","params":{"_meta":{"x":1}}}"#);
        assert_eq!(n, Payload::Single(Ok(Message::notification("n", Some(json!({"_meta": {"x": 1}}))))));
        let n = classify(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).unwrap();
        assert!(matches!(n, Message::Notification(_)));
        let s = classify(json!({"jsonrpc":"2.0","id":"a","result":{}})).unwrap();
        assert!(matches!(s, Message::Response(Response { outcome: Ok(_), .. })));
    }

    #[test]
    fn bad_envelopes_are_invalid_request() {
        for v in [
            json!({"id":1,"method":"ping"}),
            json!({"jsonrpc":"1.0","id":1,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":null,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":1.5,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":true,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":1,"method":7}),
            json!({"jsonrpc":"2.0","id":1,"method":"x","params":3}),
            json!({"jsonrpc":"2.0"}),
            json!(42),
        ] {
            let e = classify(v.clone()).unwrap_err();
            assert_eq!(e.error.code, code::INVALID_REQUEST, "{v}");
        }
    }

    /// A request whose `params.a` holds arrays nested so the whole text is `depth` deep.
    fn nested_request(depth: usize) -> String {
        let inner = depth - 2; // the envelope and `params` are two levels
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":{}1{}}}}}"#,
            "[".repeat(inner),
            "]".repeat(inner)
        )
    }

    fn depth_error(p: Payload) -> Option<Value> {
        match p {
            Payload::Single(Err(Invalid { id: None, error })) if error.code == code::PARSE_ERROR => error.data,
            _ => None,
        }
    }

    #[test]
    fn nesting_up_to_serde_s_limit_parses_and_one_more_names_the_limit() {
        assert!(matches!(parse_payload(&nested_request(MAX_JSON_DEPTH)), Payload::Single(Ok(Message::Request(_)))));
        let data = depth_error(parse_payload(&nested_request(MAX_JSON_DEPTH + 1)));
        assert_eq!(data, Some(json!({"limit": "max_json_depth", "value": MAX_JSON_DEPTH})));
        // A batch too, and a limit above the cap is the cap.
        let batch = format!("[{}]", nested_request(MAX_JSON_DEPTH));
        assert_eq!(depth_error(parse_payload_within(&batch, 1000)).unwrap()["value"], MAX_JSON_DEPTH);
    }

    #[test]
    fn a_lower_depth_limit_refuses_deeper_text_and_ignores_brackets_in_strings() {
        assert!(matches!(parse_payload_within(&nested_request(5), 5), Payload::Single(Ok(_))));
        let data = depth_error(parse_payload_within(&nested_request(6), 5));
        assert_eq!(data, Some(json!({"limit": "max_json_depth", "value": 5})));
        let strings = r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"[[[[{{{{\"[["}}"#;
        assert!(matches!(parse_payload_within(strings, 2), Payload::Single(Ok(_))));
        assert!(!nesting_exceeds(r#"["\\", "]]]", [1]]"#, 2));
        assert!(nesting_exceeds(r#"["\\", [[1]]]"#, 2));
    }

    #[test]
    fn parse_error_has_no_id() {
        match parse_payload("{not json") {
            Payload::Single(Err(inv)) => {
                assert_eq!(inv.error.code, code::PARSE_ERROR);
                assert!(inv.id.is_none());
            }
            other => panic!("{other:?}"),
        }
        let out = OutboundResponse::error(None, ErrorObject::parse_error("x")).to_value();
        assert_eq!(out["id"], Value::Null);
    }
}
