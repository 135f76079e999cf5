//! The inbound classifier of the 2026-07-28 revision: the validation ladder a request with
//! a per-request envelope climbs before dispatch, and the one table that maps a JSON-RPC
//! error code to its HTTP status.
//!
//! Pure: it reads a request's method, params and (on HTTP) headers, and returns either the
//! route (the envelope's version and raw values) or the first rung that failed, as the
//! JSON-RPC error to send. Rungs, in order:
//!
//! 1. `params._meta` is an object carrying `io.modelcontextprotocol/protocolVersion` and
//!    `io.modelcontextprotocol/clientCapabilities` (client info is optional), else `-32602`;
//! 2. with headers: `MCP-Protocol-Version` is present once and equals the envelope's
//!    version, else `-32020` (before the version rung, so a client that disagrees with
//!    itself is told so);
//! 3. the version is a string naming a supported modern revision, else `-32022` with
//!    `data: {supported, requested}` (`-32602` for a non-string);
//! 4. with headers: `Mcp-Method`, `Mcp-Name` (decoded) and, for `tools/call`, the tool's
//!    `Mcp-Param-*` headers match the body, else `-32020`.
//!
//! Method existence is not a rung: dispatch owns it.

use std::sync::Arc;

use serde_json::{json, Value};

use super::headers::{self, single, HeaderSource, ParamHeaders, Single};
use super::jsonrpc::{code, CompactJson, ErrorObject};
use super::model::{
    ClientCapabilities, Implementation, LoggingLevel, RequestMeta, VersionField, CLIENT_CAPABILITIES_KEY,
    LOG_LEVEL_KEY, PROTOCOL_VERSION_KEY,
};
use super::version::ProtocolVersion;

/// The HTTP status for a JSON-RPC error code, for classifier and handler errors alike:
/// 400 for `-32700`, `-32600`, `-32602`, `-32020`, `-32021`, `-32022`; 404 for `-32601`;
/// `None` (the caller's default, 200) for anything else.
pub fn http_status(error_code: i32) -> Option<u16> {
    match error_code {
        code::PARSE_ERROR
        | code::INVALID_REQUEST
        | code::INVALID_PARAMS
        | code::HEADER_MISMATCH
        | code::MISSING_REQUIRED_CLIENT_CAPABILITY
        | code::UNSUPPORTED_PROTOCOL_VERSION => Some(400),
        code::METHOD_NOT_FOUND => Some(404),
        _ => None,
    }
}

/// The HTTP status of an error response: [`http_status`] of its code, and 503 for a shared
/// store that is unreachable ([`ErrorObject::is_store_unavailable`]).
pub fn http_status_of(error: &ErrorObject) -> Option<u16> {
    if error.is_store_unavailable() {
        return Some(503);
    }
    http_status(error.code)
}

/// The methods whose `Mcp-Name` header mirrors a body parameter, and which one.
pub fn name_parameter(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // `tasks/result` is gone in 2026-07-28: it is not name-bearing, so it reaches dispatch
        // and its -32601.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// What the ladder needs besides the request.
pub struct Ladder<'a> {
    /// The transport's headers; `None` skips the header rungs (stdio, in-process).
    pub headers: Option<&'a dyn HeaderSource>,
    /// The modern revisions served.
    pub supported: &'a [ProtocolVersion],
    /// The `x-mcp-header` annotations of a tool, by name (for the `Mcp-Param-*` rung).
    pub param_headers: &'a dyn Fn(&str) -> Option<Arc<ParamHeaders>>,
}

/// A request that passed every rung: its revision and the raw envelope values, borrowed from
/// the request (shape is checked by [`ModernRoute::envelope`]).
#[derive(Debug, Clone)]
pub struct ModernRoute<'a> {
    /// The revision of this request.
    pub version: ProtocolVersion,
    /// `io.modelcontextprotocol/clientCapabilities`, as sent.
    pub client_capabilities: &'a Value,
    /// `io.modelcontextprotocol/clientInfo`, if sent (unparsed).
    pub client_info: Option<&'a CompactJson>,
    /// `io.modelcontextprotocol/logLevel`, if sent.
    pub log_level: Option<&'a Value>,
}

/// The envelope of a modern request, parsed: what a transient connection state is built
/// from.
#[derive(Debug, Clone)]
pub struct RequestEnvelope {
    /// The revision of this request.
    pub version: ProtocolVersion,
    /// The client's capabilities for this request.
    pub client_capabilities: ClientCapabilities,
    /// Who the client says it is, unparsed: display only, so read only when asked for
    /// ([`RequestEnvelope::client_info`]).
    pub client_info: Option<CompactJson>,
    /// The minimum log level; `None` means no log messages for this request.
    pub log_level: Option<LoggingLevel>,
}

impl RequestEnvelope {
    /// Who the client says it is; an unusable `clientInfo` reads as absent (it is
    /// display-only and must never decide behaviour).
    pub fn client_info(&self) -> Option<Implementation> {
        parse_client_info(self.client_info.as_ref())
    }
}

/// A raw `clientInfo`, parsed; `None` when absent or unusable.
pub fn parse_client_info(raw: Option<&CompactJson>) -> Option<Implementation> {
    raw.and_then(|v| serde_json::from_str::<Implementation>(v.get()).ok())
}

impl ModernRoute<'_> {
    /// Parse the envelope's values; a value of the wrong shape is `-32602`. Boxed where it is
    /// made: the request's context keeps it.
    pub fn envelope(&self) -> Result<Box<RequestEnvelope>, ErrorObject> {
        use serde::Deserialize as _;
        let client_capabilities = match self.client_capabilities {
            // The common case, read without a pass through serde.
            Value::Object(m) if m.is_empty() => ClientCapabilities::default(),
            Value::Object(_) => ClientCapabilities::deserialize(self.client_capabilities)
                .map_err(|e| ErrorObject::invalid_params(format!("invalid {CLIENT_CAPABILITIES_KEY}: {e}")))?,
            _ => return Err(ErrorObject::invalid_params(format!("{CLIENT_CAPABILITIES_KEY} must be an object"))),
        };
        let log_level = match self.log_level {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_str().and_then(LoggingLevel::parse).ok_or_else(|| {
                ErrorObject::invalid_params(format!(
                    "invalid {LOG_LEVEL_KEY} {v}: expected one of debug, info, notice, warning, error, critical, alert, emergency"
                ))
            })?),
        };
        Ok(Box::new(RequestEnvelope {
            version: self.version,
            client_capabilities,
            client_info: self.client_info.cloned(),
            log_level,
        }))
    }
}

fn mismatch(message: String) -> ErrorObject {
    ErrorObject::new(code::HEADER_MISMATCH, message)
}

fn header<'h>(h: &'h dyn HeaderSource, name: &str, shown: &str) -> Result<Option<&'h str>, ErrorObject> {
    match single(h, name) {
        Single::Absent => Ok(None),
        Single::One(v) => Ok(Some(v)),
        Single::Duplicated => Err(mismatch(format!("the {shown} header appears more than once"))),
        Single::NotText => Err(mismatch(format!("the {shown} header is not visible ASCII"))),
    }
}

/// The `-32022` error for a revision this server does not serve on the modern path.
pub fn unsupported_version(requested: &str, supported: &[ProtocolVersion]) -> ErrorObject {
    let list: Vec<&str> = supported.iter().map(|v| v.as_str()).collect();
    ErrorObject::new(
        code::UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version {requested:?}; supported: {}", list.join(", ")),
    )
    .with_data(json!({ "supported": list, "requested": requested }))
}

/// Run the ladder over one request: its `method`, its `params` (without `_meta`) and its
/// raw `_meta`.
pub fn classify<'a>(
    method: &str,
    params: Option<&Value>,
    meta: Option<&'a RequestMeta>,
    ladder: &Ladder<'_>,
) -> Result<ModernRoute<'a>, ErrorObject> {
    // Rung 1: the envelope keys.
    let view = meta.filter(|m| m.not_an_object.is_none()).ok_or_else(|| {
        ErrorObject::invalid_params(format!(
            "params._meta must be an object carrying the {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY} keys"
        ))
    })?;
    let (version, capabilities) = match (&view.protocol_version, &view.client_capabilities) {
        (Some(v), Some(c)) => (v, c),
        (v, c) => {
            let missing: Vec<&str> = [(PROTOCOL_VERSION_KEY, v.is_none()), (CLIENT_CAPABILITIES_KEY, c.is_none())]
                .into_iter()
                .filter_map(|(k, absent)| absent.then_some(k))
                .collect();
            return Err(ErrorObject::invalid_params(format!(
                "params._meta is missing the required envelope key(s): {}",
                missing.join(", ")
            )));
        }
    };
    // The version as text, when it is a JSON string.
    let requested = version.as_str();

    // Rung 2: the version header agrees with the body.
    if let Some(h) = ladder.headers {
        let header_version = header(h, headers::PROTOCOL_VERSION, "MCP-Protocol-Version")?;
        if header_version.is_none() || header_version != requested {
            return Err(mismatch(format!(
                "the MCP-Protocol-Version header ({}) does not match the request's {PROTOCOL_VERSION_KEY} ({version})",
                header_version.unwrap_or("absent"),
            )));
        }
    }

    // Rung 3: the version is served.
    let Some(requested) = requested else {
        return Err(ErrorObject::invalid_params(format!("{PROTOCOL_VERSION_KEY} must be a string")));
    };
    let version = match version {
        VersionField::Known(v) if ladder.supported.contains(v) => *v,
        _ => return Err(unsupported_version(requested, ladder.supported)),
    };

    // Rung 4: the mirrored routing headers agree with the body.
    if let Some(h) = ladder.headers {
        let m = header(h, headers::METHOD, "Mcp-Method")?;
        if m != Some(method) {
            return Err(mismatch(format!(
                "the Mcp-Method header ({}) does not match the request's method ({method})",
                m.unwrap_or("absent")
            )));
        }
        let raw_name = header(h, headers::NAME, "Mcp-Name")?;
        if let Some(key) = name_parameter(method) {
            if let Some(body) = params.and_then(|p| p.get(key)).filter(|v| !v.is_null()) {
                let decoded = raw_name.and_then(headers::decode_value);
                if decoded.as_deref() != body.as_str() {
                    return Err(mismatch(format!("the Mcp-Name header does not match the request's {key}")));
                }
            }
        }
        if method == "tools/call" {
            let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str);
            if let Some(p) = tool.and_then(|t| (ladder.param_headers)(t)) {
                let empty = serde_json::Map::new();
                let args = params.and_then(|p| p.get("arguments")).and_then(Value::as_object).unwrap_or(&empty);
                headers::check_param_headers(&p, args, h)?;
            }
        }
    }

    Ok(ModernRoute {
        version,
        client_capabilities: capabilities,
        client_info: view.client_info.as_ref(),
        log_level: view.log_level.as_ref(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::headers::param_headers;

    const V: &str = "2026-07-28";
    const SUPPORTED: &[ProtocolVersion] = &[ProtocolVersion::V2026_07_28];

    fn no_params(_: &str) -> Option<Arc<ParamHeaders>> {
        None
    }

    fn params(extra: Value) -> Value {
        let mut p = json!({"_meta": {PROTOCOL_VERSION_KEY: V, CLIENT_CAPABILITIES_KEY: {}}});
        if let Value::Object(m) = extra {
            for (k, v) in m {
                p[k] = v;
            }
        }
        p
    }

    fn hdrs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    }

    /// `p` split as the parser splits a request: params without `_meta`, and `_meta` read.
    fn split(p: &Value) -> (Value, Option<RequestMeta>) {
        let mut rest = p.clone();
        let meta = rest.as_object_mut().and_then(|m| m.remove("_meta"));
        (rest, meta.map(RequestMeta::from_value))
    }

    /// The ladder and the envelope's values, over `p` as a whole params object.
    fn run(method: &str, p: &Value, h: Option<&Vec<(String, String)>>) -> Result<Box<RequestEnvelope>, ErrorObject> {
        let ladder =
            Ladder { headers: h.map(|h| h as &dyn HeaderSource), supported: SUPPORTED, param_headers: &no_params };
        let (rest, meta) = split(p);
        classify(method, Some(&rest), meta.as_ref(), &ladder).and_then(|r| r.envelope())
    }

    fn code_of(r: Result<Box<RequestEnvelope>, ErrorObject>) -> i32 {
        r.expect_err("the ladder should refuse").code
    }

    #[test]
    fn rung_one_needs_meta_with_version_and_capabilities() {
        assert_eq!(code_of(run("tools/list", &json!({}), None)), code::INVALID_PARAMS);
        assert_eq!(code_of(run("tools/list", &json!({"_meta": []}), None)), code::INVALID_PARAMS);
        let no_caps = json!({"_meta": {PROTOCOL_VERSION_KEY: V}});
        let e = run("tools/list", &no_caps, None).unwrap_err();
        assert_eq!(e.code, code::INVALID_PARAMS);
        assert!(e.message.contains(CLIENT_CAPABILITIES_KEY), "{}", e.message);
        let no_version = json!({"_meta": {CLIENT_CAPABILITIES_KEY: {}}});
        assert_eq!(code_of(run("tools/list", &no_version, None)), code::INVALID_PARAMS);
        // clientInfo is optional.
        let p = params(json!({}));
        let r = run("tools/list", &p, None).unwrap();
        assert_eq!(r.version, ProtocolVersion::V2026_07_28);
        assert!(r.client_info.is_none());
    }

    #[test]
    fn rung_two_version_header_must_match() {
        let p = params(json!({}));
        let ok = hdrs(&[("mcp-protocol-version", V), ("mcp-method", "tools/list")]);
        assert!(run("tools/list", &p, Some(&ok)).is_ok());
        for h in [
            hdrs(&[("mcp-method", "tools/list")]),
            hdrs(&[("mcp-protocol-version", "2025-11-25"), ("mcp-method", "tools/list")]),
            hdrs(&[("mcp-protocol-version", V), ("MCP-Protocol-Version", V), ("mcp-method", "tools/list")]),
        ] {
            assert_eq!(code_of(run("tools/list", &p, Some(&h))), code::HEADER_MISMATCH, "{h:?}");
        }
    }

    #[test]
    fn rung_three_unsupported_version_names_supported_and_requested() {
        let p = json!({"_meta": {PROTOCOL_VERSION_KEY: "1999-01-01", CLIENT_CAPABILITIES_KEY: {}}});
        let e = run("tools/list", &p, None).unwrap_err();
        assert_eq!(e.code, code::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(e.data, Some(json!({"supported": [V], "requested": "1999-01-01"})));
        // A handshake revision is not served on the modern path either.
        let p = json!({"_meta": {PROTOCOL_VERSION_KEY: "2025-11-25", CLIENT_CAPABILITIES_KEY: {}}});
        assert_eq!(code_of(run("tools/list", &p, None)), code::UNSUPPORTED_PROTOCOL_VERSION);
        let p = json!({"_meta": {PROTOCOL_VERSION_KEY: 20260728, CLIENT_CAPABILITIES_KEY: {}}});
        assert_eq!(code_of(run("tools/list", &p, None)), code::INVALID_PARAMS);
    }

    #[test]
    fn header_mismatch_is_checked_before_the_version() {
        // The conformance suite's case: header says 2026-07-28, body says something else.
        let p = json!({"_meta": {PROTOCOL_VERSION_KEY: "v999.0.0", CLIENT_CAPABILITIES_KEY: {}}});
        let h = hdrs(&[("mcp-protocol-version", V), ("mcp-method", "tools/list")]);
        assert_eq!(code_of(run("tools/list", &p, Some(&h))), code::HEADER_MISMATCH);
        // And the envelope rung comes first of all.
        assert_eq!(code_of(run("tools/list", &json!({}), Some(&h))), code::INVALID_PARAMS);
        // The version rung comes before the method and name rungs.
        let p = json!({"_meta": {PROTOCOL_VERSION_KEY: "v999", CLIENT_CAPABILITIES_KEY: {}}});
        let h = hdrs(&[("mcp-protocol-version", "v999"), ("mcp-method", "wrong")]);
        assert_eq!(code_of(run("tools/list", &p, Some(&h))), code::UNSUPPORTED_PROTOCOL_VERSION);
    }

    #[test]
    fn rung_four_method_and_name_headers_must_match() {
        let p = params(json!({"name": "日本"}));
        let base = [("mcp-protocol-version", V), ("mcp-method", "tools/call")];
        let with = |extra: &[(&str, &str)]| {
            let mut v: Vec<(&str, &str)> = base.to_vec();
            v.extend_from_slice(extra);
            hdrs(&v)
        };
        assert!(run("tools/call", &p, Some(&with(&[("mcp-name", "=?base64?5pel5pys?=")]))).is_ok());
        for h in [
            with(&[]),
            with(&[("mcp-name", "日本x")]),
            with(&[("mcp-name", "=?base64?bad?=")]),
            with(&[("mcp-name", "a"), ("mcp-name", "a")]),
            hdrs(&[("mcp-protocol-version", V), ("mcp-method", "tools/list"), ("mcp-name", "a")]),
        ] {
            assert_eq!(code_of(run("tools/call", &p, Some(&h))), code::HEADER_MISMATCH, "{h:?}");
        }
        // resources/read mirrors the uri.
        let p = params(json!({"uri": "test://x"}));
        let h = hdrs(&[("mcp-protocol-version", V), ("mcp-method", "resources/read"), ("mcp-name", "test://x")]);
        assert!(run("resources/read", &p, Some(&h)).is_ok());
        // Without headers (stdio) the header rungs do not apply.
        assert!(run("tools/call", &params(json!({"name": "x"})), None).is_ok());
    }

    #[test]
    fn param_headers_are_the_last_rung() {
        let schema = json!({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}});
        let ph = Arc::new(param_headers(&schema).unwrap());
        let lookup = move |name: &str| (name == "geo").then(|| ph.clone());
        let p = params(json!({"name": "geo", "arguments": {"region": "eu"}}));
        let h = |region: Option<&str>| {
            let mut v = hdrs(&[("mcp-protocol-version", V), ("mcp-method", "tools/call"), ("mcp-name", "geo")]);
            if let Some(r) = region {
                v.push(("Mcp-Param-Region".into(), r.into()));
            }
            v
        };
        let (rest, meta) = split(&p);
        let go = |hs: Vec<(String, String)>| {
            classify(
                "tools/call",
                Some(&rest),
                meta.as_ref(),
                &Ladder { headers: Some(&hs), supported: SUPPORTED, param_headers: &lookup },
            )
            .map(|r| r.version)
        };
        assert!(go(h(Some("eu"))).is_ok());
        assert_eq!(go(h(Some("us"))).unwrap_err().code, code::HEADER_MISMATCH);
        assert_eq!(go(h(None)).unwrap_err().code, code::HEADER_MISMATCH);
    }

    #[test]
    fn envelope_values_are_parsed_with_clear_errors() {
        let info = CompactJson::serialize(&json!({"name": "c", "version": "1"})).unwrap();
        let envelope = |caps: Value, level: Option<Value>| {
            ModernRoute {
                version: ProtocolVersion::V2026_07_28,
                client_capabilities: &caps,
                client_info: Some(&info),
                log_level: level.as_ref(),
            }
            .envelope()
        };
        let e = envelope(json!({"sampling": {}}), Some(json!("warning"))).unwrap();
        assert!(e.client_capabilities.supports("sampling"));
        assert_eq!(e.log_level, Some(LoggingLevel::Warning));
        assert_eq!(e.client_info().map(|i| i.name), Some("c".to_owned()));
        assert_eq!(envelope(json!([]), None).unwrap_err().code, code::INVALID_PARAMS);
        assert_eq!(envelope(json!({}), Some(json!("loud"))).unwrap_err().code, code::INVALID_PARAMS);
        assert_eq!(envelope(json!({}), None).unwrap().log_level, None);
    }

    #[test]
    fn each_code_has_its_http_status() {
        for (c, s) in [
            (code::PARSE_ERROR, Some(400)),
            (code::INVALID_REQUEST, Some(400)),
            (code::INVALID_PARAMS, Some(400)),
            (code::HEADER_MISMATCH, Some(400)),
            (code::MISSING_REQUIRED_CLIENT_CAPABILITY, Some(400)),
            (code::UNSUPPORTED_PROTOCOL_VERSION, Some(400)),
            (code::METHOD_NOT_FOUND, Some(404)),
            (code::INTERNAL_ERROR, None),
            (code::RESOURCE_NOT_FOUND, None),
            (-1, None),
        ] {
            assert_eq!(http_status(c), s, "code {c}");
        }
        assert_eq!(http_status_of(&ErrorObject::store_unavailable("redis: down")), Some(503));
        assert_eq!(http_status_of(&ErrorObject::internal("boom")), None);
        assert_eq!(http_status_of(&ErrorObject::invalid_params("bad")), Some(400));
    }
}
