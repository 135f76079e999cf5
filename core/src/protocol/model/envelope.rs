//! The 2026-07-28 per-request envelope: the reserved `_meta` keys a modern request carries
//! in place of the `initialize` handshake, `resultType` on every modern result, and the
//! `server/discover` result.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{CacheScope, Implementation, ServerCapabilities};
use crate::protocol::{CompactJson, ProtocolVersion};

/// The visits of a value that is not what a field's visitor looks for: each scalar, array
/// or object is kept whole as a [`Value`], wrapped by `$wrap`.
macro_rules! visit_other_values {
    ($wrap:expr) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($wrap(Value::Null))
        }
        fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
            Ok($wrap(Value::Bool(v)))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map($wrap)
        }
    };
}

/// `params._meta` key: the revision of this request (required).
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `params._meta` key: the client's capabilities for this request (required).
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `params._meta` key: who the client is (optional, display only).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `params._meta` key: the minimum log level for this request (optional; absent means no
/// `notifications/message` at all).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key: who the server is.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// Notification and result `_meta` key: the `subscriptions/listen` request a message
/// belongs to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// Whether notification `params` carry a modern envelope (a `_meta` object with the
/// protocol-version key). For requests, see `Request::carries_envelope`.
pub fn carries_envelope(params: Option<&Value>) -> bool {
    params.and_then(|p| p.get("_meta")).and_then(Value::as_object).is_some_and(|m| m.contains_key(PROTOCOL_VERSION_KEY))
}

/// An object key, borrowed from the input when it has no escapes (serde's own `Cow<str>`
/// always allocates): the envelope's keys are long and ride on every modern request.
pub(crate) struct Key<'de>(pub std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v)))
            }
        }
        d.deserialize_str(Visitor)
    }
}

/// `io.modelcontextprotocol/protocolVersion` as sent: a revision Ferrite knows, read without
/// allocating (it rides on every modern request), or any other value, kept for the error
/// that names it.
#[derive(Debug, Clone, PartialEq)]
pub enum VersionField {
    /// A string naming a known revision (not necessarily one served on the modern path).
    Known(ProtocolVersion),
    /// Anything else: an unknown string, or not a string at all.
    Other(Value),
}

impl VersionField {
    /// Read a value.
    pub fn from_value(v: Value) -> VersionField {
        match v.as_str().and_then(ProtocolVersion::known) {
            Some(known) => VersionField::Known(known),
            None => VersionField::Other(v),
        }
    }

    /// The version as text, when it is a JSON string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            VersionField::Known(v) => Some(v.as_str()),
            VersionField::Other(v) => v.as_str(),
        }
    }

    /// The value as sent.
    pub fn to_value(&self) -> Value {
        match self {
            VersionField::Known(v) => Value::String(v.as_str().to_owned()),
            VersionField::Other(v) => v.clone(),
        }
    }
}

/// As JSON text (a string shows with its quotes).
impl std::fmt::Display for VersionField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VersionField::Known(v) => write!(f, "\"{}\"", v.as_str()),
            VersionField::Other(v) => v.fmt(f),
        }
    }
}

impl<'de> Deserialize<'de> for VersionField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = VersionField;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a protocol version")
            }
            fn visit_str<E>(self, v: &str) -> Result<VersionField, E> {
                Ok(match ProtocolVersion::known(v) {
                    Some(known) => VersionField::Known(known),
                    None => VersionField::Other(Value::from(v)),
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<VersionField, A::Error> {
                Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(VersionField::Other)
            }
            visit_other_values!(VersionField::Other);
        }
        d.deserialize_any(Visitor)
    }
}

/// A request's `_meta`, read once as it is parsed: the keys Ferrite reads kept apart (the
/// 2026-07-28 envelope rides on every modern request, so reading it must be cheap), every
/// other key as a value.
#[derive(Debug, Clone, Default)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`, as sent.
    pub protocol_version: Option<VersionField>,
    /// `io.modelcontextprotocol/clientCapabilities`, as sent.
    pub client_capabilities: Option<Value>,
    /// `io.modelcontextprotocol/clientInfo`, unparsed (display only, rarely read).
    pub client_info: Option<CompactJson>,
    /// `io.modelcontextprotocol/logLevel`, as sent.
    pub log_level: Option<Value>,
    /// `progressToken`, as sent.
    pub progress_token: Option<Value>,
    /// Every other key.
    pub other: Map<String, Value>,
    /// `_meta` was not an object (this value instead).
    pub not_an_object: Option<Value>,
}

impl PartialEq for RequestMeta {
    fn eq(&self, other: &Self) -> bool {
        self.protocol_version == other.protocol_version
            && self.client_capabilities == other.client_capabilities
            && self.client_info == other.client_info
            && self.log_level == other.log_level
            && self.progress_token == other.progress_token
            && self.other == other.other
            && self.not_an_object == other.not_an_object
    }
}

impl RequestMeta {
    pub(crate) fn put(&mut self, key: std::borrow::Cow<'_, str>, value: Value) {
        match key.as_ref() {
            PROTOCOL_VERSION_KEY => self.protocol_version = Some(VersionField::from_value(value)),
            CLIENT_CAPABILITIES_KEY => self.client_capabilities = Some(value),
            CLIENT_INFO_KEY => self.client_info = CompactJson::serialize(&value).ok(),
            LOG_LEVEL_KEY => self.log_level = Some(value),
            "progressToken" => self.progress_token = Some(value),
            _ => {
                self.other.insert(key.into_owned(), value);
            }
        }
    }

    /// Read a `_meta` value.
    pub fn from_value(v: Value) -> RequestMeta {
        let mut m = RequestMeta::default();
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    m.put(k.into(), v);
                }
            }
            other => m.not_an_object = Some(other),
        }
        m
    }

    /// The whole `_meta` object as sent (`None` when it was not an object).
    pub fn to_map(&self) -> Option<Map<String, Value>> {
        if self.not_an_object.is_some() {
            return None;
        }
        let mut m = self.other.clone();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k.to_owned(), v);
            }
        };
        put(PROTOCOL_VERSION_KEY, self.protocol_version.as_ref().map(VersionField::to_value));
        put(CLIENT_CAPABILITIES_KEY, self.client_capabilities.clone());
        put(CLIENT_INFO_KEY, self.client_info.as_ref().and_then(|r| serde_json::from_str(r.get()).ok()));
        put(LOG_LEVEL_KEY, self.log_level.clone());
        put("progressToken", self.progress_token.clone());
        Some(m)
    }

    /// The `_meta` value as sent.
    pub fn to_value(&self) -> Value {
        match (&self.not_an_object, self.to_map()) {
            (Some(v), _) => v.clone(),
            (None, m) => Value::Object(m.unwrap_or_default()),
        }
    }
}

impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RequestMeta;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a _meta object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RequestMeta, A::Error> {
                let mut m = RequestMeta::default();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    match key.as_ref() {
                        PROTOCOL_VERSION_KEY => m.protocol_version = Some(map.next_value()?),
                        CLIENT_INFO_KEY => {
                            let raw = map.next_value::<Box<RawValue>>()?;
                            m.client_info = Some(CompactJson::trusted(raw.get()));
                        }
                        _ => {
                            let v = map.next_value::<Value>()?;
                            m.put(key, v);
                        }
                    }
                }
                Ok(m)
            }
            fn visit_str<E>(self, v: &str) -> Result<RequestMeta, E> {
                Ok(RequestMeta { not_an_object: Some(Value::from(v)), ..Default::default() })
            }
            visit_other_values!(|v| RequestMeta { not_an_object: Some(v), ..Default::default() });
        }
        d.deserialize_any(Visitor)
    }
}

/// What a modern result is (`resultType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// A final result.
    Complete,
    /// The server needs input from the client before it can finish (MRTR).
    InputRequired,
    /// A task was created (tasks extension).
    Task,
}

impl ResultType {
    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
        }
    }
}

/// The result of `server/discover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The revisions this server serves, newest first.
    pub supported_versions: Vec<String>,
    /// What the server offers on the modern path.
    pub capabilities: ServerCapabilities,
    /// How to use the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Cache freshness hint, in milliseconds.
    pub ttl_ms: u64,
    /// Who may share a cached copy.
    pub cache_scope: CacheScope,
    /// `{"io.modelcontextprotocol/serverInfo": ...}`.
    #[serde(rename = "_meta")]
    pub meta: Map<String, Value>,
}

impl DiscoverResult {
    /// The server info carried in `_meta`.
    pub fn server_info(&self) -> Option<Implementation> {
        self.meta.get(SERVER_INFO_KEY).and_then(|v| serde_json::from_value(v.clone()).ok())
    }
}
