//! The JSON envelope every value crossing from JS to Rust travels in.
//!
//! A JS handler answers `{"ok": <result>}`, `{"error": {"message", "code"?, "data"?}}` or,
//! when what it returned cannot become its result (a value `JSON.stringify` refuses, a shape
//! its kind does not take), `{"invalid": "<why>"}`; the JS layer builds it, so a thrown
//! `McpError` (a protocol error with a JSON-RPC code) stays distinguishable from an ordinary
//! failure, and both from an invalid result (the core's `-32603`). A tool, prompt or resource handler that returned
//! an `InputRequired` answers `{"inputRequired": {"inputRequests": [[key, request], ...],
//! "requestState"?}}`: each request is the core's own serialization (made by
//! `mrtrInputRequest`), decoded here back into the core's `InputRequest` and assembled into
//! its `InputRequired` in the order asked. Going the other way, the promises the native
//! side hands to JS resolve to the same envelope, with a `kind` naming why a server-to-client
//! request failed, so the JS layer can throw the matching exported error class.

use ferrite_core::{CompleteResult, ErrorObject, HandlerError, InputRequest, InputRequired, PeerError, Reply};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

/// A failure reported by JavaScript.
#[derive(Debug, Deserialize)]
pub(crate) struct JsFailure {
    message: String,
    #[serde(default)]
    code: Option<i32>,
    #[serde(default)]
    data: Option<Value>,
}

#[derive(Debug, Deserialize)]
enum Envelope<T> {
    #[serde(rename = "ok")]
    Ok(T),
    #[serde(rename = "error")]
    Error(JsFailure),
    #[serde(rename = "invalid")]
    Invalid(String),
}

impl From<JsFailure> for HandlerError {
    fn from(f: JsFailure) -> Self {
        match f.code {
            // A code means a protocol error (an `McpError` in JS): sent as that JSON-RPC error.
            Some(code) => {
                let mut e = ErrorObject::new(code, f.message);
                if let Some(d) = f.data {
                    e = e.with_data(d);
                }
                HandlerError::Rpc(e)
            }
            None => HandlerError::Failed(f.message),
        }
    }
}

/// Decode a handler's envelope into the core type `T`, or into the failure it reports.
pub(crate) fn decode<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, HandlerError> {
    match serde_json::from_str::<Envelope<T>>(text) {
        Ok(Envelope::Ok(v)) => Ok(v),
        Ok(Envelope::Error(f)) => Err(f.into()),
        Ok(Envelope::Invalid(why)) => Err(HandlerError::invalid_result(why)),
        Err(e) => Err(HandlerError::invalid_result(format_args!("a {what} result: {e}"))),
    }
}

/// What a completion handler answers: the candidates (capped by the core's
/// `CompleteResult::from_values`), or a whole `CompleteResult`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Completion {
    Values(Vec<String>),
    Result(CompleteResult),
}

/// Decode a completion handler's envelope: a list of candidates becomes the core's capped
/// `CompleteResult` (at most `CompleteResult::MAX_VALUES`, with `total` and `hasMore`).
pub(crate) fn decode_completion(text: &str, what: &str) -> Result<CompleteResult, HandlerError> {
    Ok(match decode::<Completion>(text, what)? {
        Completion::Values(values) => CompleteResult::from_values(values),
        Completion::Result(r) => r,
    })
}

/// What a JS `InputRequired` crosses as: its requests in the order asked, and its state.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsInputRequired {
    input_requests: Vec<(String, InputRequest)>,
    #[serde(default)]
    request_state: Option<String>,
}

#[derive(Debug, Deserialize)]
enum InputRequiredEnvelope {
    #[serde(rename = "inputRequired")]
    InputRequired(JsInputRequired),
}

/// The core's `InputRequired` from a JS `InputRequired`'s envelope.
fn input_required(text: &str, what: &str) -> Result<InputRequired, HandlerError> {
    let invalid = |e: &dyn std::fmt::Display| {
        HandlerError::invalid_result(format_args!("the {what} handler's InputRequired: {e}"))
    };
    let InputRequiredEnvelope::InputRequired(js) =
        serde_json::from_str::<InputRequiredEnvelope>(text).map_err(|e| invalid(&e))?;
    let mut ir = InputRequired::new();
    for (key, request) in js.input_requests {
        ir = ir.ask(key, request);
    }
    if let Some(state) = js.request_state {
        ir = ir.with_state(state);
    }
    if ir.is_empty() {
        return Err(invalid(&"it asks for nothing and carries no state"));
    }
    Ok(ir)
}

/// Decode a tool, resource or prompt handler's envelope into the core's reply: the result,
/// or input required (a JS `InputRequired`, or a plain object in the wire shape with
/// `resultType: "input_required"`, which the core's `Reply::from_value` reads).
pub(crate) fn decode_reply<T: DeserializeOwned>(text: &str, what: &str) -> Result<Reply<T>, HandlerError> {
    if text.starts_with(r#"{"inputRequired":"#) {
        return input_required(text, what).map(Reply::InputRequired);
    }
    if !text.contains("input_required") {
        return decode::<T>(text, what).map(Reply::Complete);
    }
    let v: Value = decode(text, what)?;
    Reply::from_value(v).map_err(|e| HandlerError::invalid_result(format_args!("a {what} result: {e}")))
}

/// `{"ok": value}`.
pub(crate) fn ok(value: &impl serde::Serialize) -> String {
    json!({ "ok": value }).to_string()
}

/// `{"error": {"kind", "message", ...}}` for a server-to-client request that failed.
pub(crate) fn peer_error(e: &PeerError) -> String {
    let kind = match e {
        PeerError::NoChannel => "noChannel",
        PeerError::Stateless => "stateless",
        PeerError::MissingCapability(_) => "missingCapability",
        PeerError::Closed => "closed",
        PeerError::Rpc(_) => "rpc",
        PeerError::Malformed(_) | PeerError::InvalidAnswer(_) => "malformed",
        PeerError::Timeout => "timeout",
        PeerError::Cancelled => "cancelled",
        PeerError::UseInputRequired => "useInputRequired",
        PeerError::InvalidElicitation(_) => "invalidElicitation",
        _ => "other",
    };
    let mut err = json!({ "kind": kind, "message": e.to_string() });
    if let PeerError::Rpc(obj) = e {
        err["code"] = json!(obj.code);
        err["message"] = json!(obj.message);
        if let Some(d) = &obj.data {
            err["data"] = d.clone();
        }
    }
    json!({ "error": err }).to_string()
}

/// `{"error": {"kind", "message"}}` for a native-side failure.
pub(crate) fn error(kind: &str, message: impl std::fmt::Display) -> String {
    json!({ "error": { "kind": kind, "message": message.to_string() } }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrite_core::CallToolResult;

    #[test]
    fn ok_envelope_decodes_to_the_core_type() {
        let r: CallToolResult = decode(r#"{"ok":{"content":[{"type":"text","text":"5"}]}}"#, "tool").unwrap();
        assert_eq!(r, CallToolResult::text("5"));
    }

    #[test]
    fn error_without_code_is_a_handler_failure() {
        let e = decode::<CallToolResult>(r#"{"error":{"message":"boom"}}"#, "tool").unwrap_err();
        assert!(matches!(e, HandlerError::Failed(m) if m == "boom"));
    }

    #[test]
    fn error_with_code_is_a_protocol_error_with_data() {
        let e = decode::<CallToolResult>(r#"{"error":{"message":"nope","code":-32602,"data":{"x":1}}}"#, "tool")
            .unwrap_err();
        match e {
            HandlerError::Rpc(o) => {
                assert_eq!((o.code, o.message.as_str(), o.data), (-32602, "nope", Some(json!({"x": 1}))))
            }
            other => panic!("expected Rpc, got {other:?}"),
        }
    }

    #[test]
    fn a_malformed_result_is_an_invalid_result_naming_the_handler_kind() {
        let e = decode::<CallToolResult>(r#"{"ok":{"content":"not a list"}}"#, "tool").unwrap_err();
        assert!(
            matches!(&e, HandlerError::Rpc(o) if o.code == -32603
                && o.message.starts_with("the handler's result is not valid: a tool result: invalid type")),
            "{e:?}"
        );
    }

    #[test]
    fn an_invalid_envelope_is_the_cores_invalid_result() {
        let e = decode::<CallToolResult>(r#"{"invalid":"Do not know how to serialize a BigInt"}"#, "tool").unwrap_err();
        assert!(
            matches!(&e, HandlerError::Rpc(o) if o.code == -32603
                && o.message == "the handler's result is not valid: Do not know how to serialize a BigInt"),
            "{e:?}"
        );
    }

    #[test]
    fn a_js_input_required_keeps_the_order_asked_and_its_state() {
        let text = r#"{"inputRequired":{"inputRequests":[["zeta",{"method":"roots/list"}],["alpha",{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}]],"requestState":"s"}}"#;
        let Reply::InputRequired(ir) = decode_reply::<CallToolResult>(text, "tool").unwrap() else {
            panic!("expected input required")
        };
        assert_eq!(ir.input_requests.keys().collect::<Vec<_>>(), ["zeta", "alpha"]);
        assert_eq!(ir.input_requests["zeta"], InputRequest::list_roots());
        assert_eq!(ir.input_requests["alpha"], InputRequest::elicit("m", json!({"type": "object"})));
        assert_eq!(ir.request_state.as_deref(), Some("s"));
    }

    #[test]
    fn an_empty_js_input_required_is_an_invalid_result() {
        let e = decode_reply::<CallToolResult>(r#"{"inputRequired":{"inputRequests":[]}}"#, "tool").unwrap_err();
        assert!(
            matches!(&e, HandlerError::Rpc(o) if o.code == -32603 && o.message
                == "the handler's result is not valid: the tool handler's InputRequired: it asks for nothing and carries no state"),
            "{e:?}"
        );
    }

    #[test]
    fn completion_candidates_are_capped_by_the_core() {
        let values: Vec<String> = (0..CompleteResult::MAX_VALUES + 5).map(|i| i.to_string()).collect();
        let text = json!({ "ok": values }).to_string();
        assert_eq!(decode_completion(&text, "completion").unwrap(), CompleteResult::from_values(values));
        let whole = r#"{"ok":{"completion":{"values":["a"],"total":9,"hasMore":true}}}"#;
        let r = decode_completion(whole, "completion").unwrap();
        assert_eq!(
            (r.completion.values, r.completion.total, r.completion.has_more),
            (vec!["a".into()], Some(9), Some(true))
        );
    }

    #[test]
    fn a_refused_form_has_its_own_kind_and_the_cores_text() {
        let e = PeerError::InvalidElicitation(ferrite_core::ElicitSchemaError("property \"x\": bad".into()));
        let v: Value = serde_json::from_str(&peer_error(&e)).unwrap();
        assert_eq!(
            v,
            json!({"error": {"kind": "invalidElicitation", "message": "invalid elicitation schema: property \"x\": bad"}})
        );
    }

    #[test]
    fn peer_rpc_error_keeps_the_client_code() {
        let text = peer_error(&PeerError::Rpc(ErrorObject::new(-1, "declined")));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v, json!({"error": {"kind": "rpc", "code": -1, "message": "declined"}}));
    }
}
