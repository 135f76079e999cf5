//! The 2026-07-28 path: a request carrying the per-request envelope is classified (the
//! ladder of [`crate::protocol::classifier`]), served against a transient connection state
//! built from its envelope, and answered with `resultType`, cache hints and the server info
//! spliced into its result. Nothing is kept between requests, so any process can answer any
//! request.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::dispatch::{Outcome, Setup};
use super::{read, ConnectionState, Peer, Server};
use crate::protocol::classifier::{classify, name_parameter, Ladder, RequestEnvelope};
use crate::protocol::headers::HeaderSource;
use crate::protocol::model::{CacheHint, CacheScope, Meta, RequestMeta, ResultType, SERVER_INFO_KEY};
use serde::Serialize;

use crate::protocol::{ErrorObject, OutboundResponse, ProtocolVersion, RawJson, Request};
use crate::request_state::Binding;

use super::context::{MrtrInput, RequestConnection};
use super::request_info::RequestInfo;

/// The modern revisions this server serves.
pub const MODERN_VERSIONS: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

/// Methods of the handshake revisions that 2026-07-28 removed (answered `-32601`).
const REMOVED: [&str; 5] = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// The methods that may answer `input_required`, and so read `inputResponses` and
/// `requestState`.
fn takes_input(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

impl Server {
    pub(crate) async fn handle_modern(
        &self,
        req: Request,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
    ) -> Option<OutboundResponse> {
        let Request { id, method, params, meta } = req;
        let fail = |e: ErrorObject| Some(OutboundResponse::error(Some(id.clone()), e));
        let envelope = match self.classify(&method, params.as_ref(), meta.as_deref(), info) {
            Ok(e) => e,
            Err(e) => return fail(e),
        };
        if REMOVED.contains(&method.as_str()) {
            return fail(ErrorObject::method_not_found(&method));
        }
        let mrtr = if takes_input(&method) {
            match self.mrtr_input(&method, params.as_ref(), info.subject()) {
                Ok(m) => m,
                Err(e) => return fail(e),
            }
        } else {
            MrtrInput::default()
        };
        let version = envelope.version;
        let setup = Setup { state: RequestConnection::transient(envelope), version, modern: true, mrtr };
        self.run(id, &method, params, meta, conn, peer, info, setup).await
    }

    /// The ladder, then the envelope's values.
    fn classify(
        &self,
        method: &str,
        params: Option<&Value>,
        meta: Option<&RequestMeta>,
        info: &RequestInfo,
    ) -> Result<Box<RequestEnvelope>, ErrorObject> {
        let headers = info.headers().map(|h| h as &dyn HeaderSource);
        let lookup = |name: &str| read(&self.inner.registry).tool_param_headers(name);
        let ladder = Ladder { headers, supported: &MODERN_VERSIONS, param_headers: &lookup };
        classify(method, params, meta, &ladder).and_then(|r| r.envelope())
    }

    /// Read `inputResponses` and open `requestState` of a retried request.
    fn mrtr_input(
        &self,
        method: &str,
        params: Option<&Value>,
        subject: Option<&str>,
    ) -> Result<MrtrInput, ErrorObject> {
        let Some(p) = params.and_then(Value::as_object) else { return Ok(MrtrInput::default()) };
        // Most requests carry neither key: a small object is passed over once, its keys told
        // apart by length, rather than searched twice.
        if p.len() <= 8 && !p.keys().any(|k| matches!(k.as_str(), "inputResponses" | "requestState")) {
            return Ok(MrtrInput::default());
        }
        let input_responses = match p.get("inputResponses") {
            None => Map::new(),
            Some(Value::Object(m)) => {
                if let Some((k, _)) = m.iter().find(|(_, v)| !v.is_object()) {
                    return Err(ErrorObject::invalid_params(format!(
                        "inputResponses.{k} must be the result object of the input request it answers"
                    )));
                }
                m.clone()
            }
            Some(_) => return Err(ErrorObject::invalid_params("inputResponses must be an object")),
        };
        let request_state = match p.get("requestState") {
            None => None,
            Some(Value::String(sealed)) => {
                let key = name_parameter(method).unwrap_or("name");
                let target = p.get(key).and_then(Value::as_str).unwrap_or("");
                let binding = Binding { subject: subject.unwrap_or(""), method, target };
                let plain = self
                    .sealer()
                    .open(sealed, binding)
                    .map_err(|e| ErrorObject::invalid_params(format!("invalid requestState: {e}")))?;
                Some(plain)
            }
            Some(_) => return Err(ErrorObject::invalid_params("requestState must be a string")),
        };
        Ok(MrtrInput { input_responses, request_state })
    }

    /// The opening of a modern result: `{"resultType":…[,"ttlMs":…,"cacheScope":…],"_meta":{…}`,
    /// with the server info and then the result's own `_meta` keys.
    fn modern_prefix(&self, result_type: ResultType, hint: Option<CacheHint>, meta: Option<&Meta>) -> Vec<u8> {
        let info = &self.inner.modern_server_info;
        // Room for the result too, which `splice` writes after this prefix.
        let mut s = Vec::with_capacity(info.len() + 384);
        match (result_type, hint) {
            // The common opening, written once when the server was built.
            (ResultType::Complete, None) => s.extend_from_slice(&self.inner.modern_complete_head),
            _ => result_head(&mut s, result_type, hint, info),
        }
        for (k, v) in meta.into_iter().flatten().filter(|(k, _)| k.as_str() != SERVER_INFO_KEY) {
            s.push(b',');
            // Writing strings and JSON values into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut s, k);
            s.push(b':');
            let _ = serde_json::to_writer(&mut s, v);
        }
        s.push(b'}');
        s
    }

    /// `prefix` followed by the fields of `result` (a serialized object): one buffer, one
    /// serialization.
    fn splice<T: Serialize + ?Sized>(mut prefix: Vec<u8>, result: &T) -> Outcome {
        let at = prefix.len();
        serde_json::to_writer(&mut prefix, result)
            .map_err(|e| ErrorObject::internal(format!("failed to serialize the result: {e}")))?;
        match prefix.get(at..) {
            Some(b"{}") => {
                prefix.truncate(at);
                prefix.push(b'}');
            }
            Some([b'{', ..]) => prefix[at] = b',',
            _ => return Err(ErrorObject::internal("a result must be a JSON object")),
        }
        // SAFETY: `prefix` holds only UTF-8: the literals and `&str` bytes `modern_prefix`
        // writes, and what serde_json wrote, which is always UTF-8; the edits above replace
        // or remove single ASCII bytes at the start of serde_json's output.
        let text = unsafe { String::from_utf8_unchecked(prefix) };
        Ok(RawJson::trusted(text))
    }

    /// Serialize a complete 2026-07-28 result: `resultType`, the cache hint and `_meta` (the
    /// server info, then `meta`) ahead of the result's fields.
    pub(crate) fn modern_result<T: Serialize + ?Sized>(
        &self,
        result: &T,
        result_type: ResultType,
        hint: Option<CacheHint>,
        meta: Option<&Meta>,
    ) -> Outcome {
        Self::splice(self.modern_prefix(result_type, hint, meta), result)
    }

    /// A custom method's result on the 2026-07-28 path: `resultType` added unless the
    /// handler set one, the server info merged into `_meta`.
    pub(crate) fn decorate_value(&self, mut value: Value) -> Outcome {
        let Some(m) = value.as_object_mut() else {
            return Err(ErrorObject::internal("a result must be a JSON object"));
        };
        m.entry("resultType").or_insert_with(|| Value::String(ResultType::Complete.as_str().to_owned()));
        let info: Value = serde_json::from_str(&self.inner.modern_server_info).unwrap_or(Value::Null);
        match m.entry("_meta").or_insert_with(|| Value::Object(Map::new())) {
            Value::Object(meta) => {
                meta.entry(SERVER_INFO_KEY).or_insert(info);
            }
            other => *other = Value::Object(Map::from_iter([(SERVER_INFO_KEY.to_owned(), info)])),
        }
        super::dispatch::to_raw(&value)
    }

    /// An empty complete result whose `_meta` carries `extra` besides the server info (the
    /// graceful close of a listen stream).
    pub(crate) fn empty_modern_result(&self, extra: Map<String, Value>) -> Outcome {
        self.modern_result(&Map::new(), ResultType::Complete, None, Some(&extra))
    }
}

/// The opening of a modern result up to the server info:
/// `{"resultType":…[,"ttlMs":…,"cacheScope":…],"_meta":{"io.modelcontextprotocol/serverInfo":…`.
pub(super) fn result_head(s: &mut Vec<u8>, result_type: ResultType, hint: Option<CacheHint>, info: &str) {
    s.extend_from_slice(b"{\"resultType\":\"");
    s.extend_from_slice(result_type.as_str().as_bytes());
    s.push(b'"');
    if let Some(h) = hint {
        s.extend_from_slice(b",\"ttlMs\":");
        s.extend_from_slice(h.ttl_ms.to_string().as_bytes());
        s.extend_from_slice(match h.cache_scope {
            CacheScope::Public => b",\"cacheScope\":\"public\"",
            CacheScope::Private => b",\"cacheScope\":\"private\"",
        });
    }
    s.extend_from_slice(b",\"_meta\":{\"");
    s.extend_from_slice(SERVER_INFO_KEY.as_bytes());
    s.extend_from_slice(b"\":");
    s.extend_from_slice(info.as_bytes());
}
