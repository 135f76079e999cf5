//! Multi round-trip requests (MRTR, SEP-2322): instead of sending the client a request and
//! waiting, a `tools/call`, `prompts/get` or `resources/read` handler answers "input
//! required" with the requests it needs answered (elicitation, sampling, roots) and an opaque
//! `requestState`; the client retries the original request with `inputResponses` and the
//! state echoed back.
//!
//! [`Reply`] is what such a handler returns: the complete result, or [`InputRequired`]. The
//! same handler serves handshake-era clients too: there the core sends the input requests as
//! real server-to-client requests and calls the handler again with the answers.

use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

use super::{CallToolResult, ClientCapabilities, CreateMessageParams, GetPromptResult, ReadResourceResult};

/// The parameters of `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitRequestParams {
    /// A form: the client collects values matching `requested_schema` (a flat object of
    /// primitive properties).
    Form {
        /// What to ask the user.
        message: String,
        /// The form's JSON Schema.
        requested_schema: Value,
    },
    /// Send the user to a URL (2025-11-25 on; needs the client's `elicitation.url`).
    Url {
        /// Why the user should go there.
        message: String,
        /// Where to send the user.
        url: String,
        /// Correlates the completion notification (2025-11-25 only).
        elicitation_id: Option<String>,
    },
}

impl ElicitRequestParams {
    /// A form elicitation.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        ElicitRequestParams::Form { message: message.into(), requested_schema }
    }
    /// A URL elicitation.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitRequestParams::Url { message: message.into(), url: url.into(), elicitation_id: None }
    }
    /// The wire params. `with_mode` adds `"mode"` (2025-11-25 on; earlier revisions only
    /// know forms and have no mode field).
    pub fn to_params(&self, with_mode: bool) -> Value {
        match self {
            ElicitRequestParams::Form { message, requested_schema } => {
                let mut v = json!({"message": message, "requestedSchema": requested_schema});
                if with_mode {
                    v["mode"] = json!("form");
                }
                v
            }
            ElicitRequestParams::Url { message, url, elicitation_id } => {
                let mut v = json!({"mode": "url", "message": message, "url": url});
                if let Some(id) = elicitation_id {
                    v["elicitationId"] = json!(id);
                }
                v
            }
        }
    }
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_params(true).serialize(s)
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            mode: Option<String>,
            message: String,
            requested_schema: Option<Value>,
            url: Option<String>,
            elicitation_id: Option<String>,
        }
        let w = Wire::deserialize(d)?;
        match w.mode.as_deref() {
            None | Some("form") => Ok(ElicitRequestParams::Form {
                message: w.message,
                requested_schema: w
                    .requested_schema
                    .ok_or_else(|| serde::de::Error::missing_field("requestedSchema"))?,
            }),
            Some("url") => Ok(ElicitRequestParams::Url {
                message: w.message,
                url: w.url.ok_or_else(|| serde::de::Error::missing_field("url"))?,
                elicitation_id: w.elicitation_id,
            }),
            Some(other) => Err(serde::de::Error::custom(format!("unknown elicitation mode {other:?}"))),
        }
    }
}

/// A request the server needs the client to answer: the `{method, params}` of
/// `elicitation/create`, `sampling/createMessage` or `roots/list`, without a JSON-RPC id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum InputRequest {
    /// `elicitation/create`.
    #[serde(rename = "elicitation/create")]
    Elicit(ElicitRequestParams),
    /// `sampling/createMessage`.
    #[serde(rename = "sampling/createMessage")]
    Sample(CreateMessageParams),
    /// `roots/list`.
    #[serde(rename = "roots/list")]
    ListRoots,
}

impl InputRequest {
    /// A form elicitation.
    pub fn elicit(message: impl Into<String>, requested_schema: Value) -> Self {
        InputRequest::Elicit(ElicitRequestParams::form(message, requested_schema))
    }
    /// A URL elicitation.
    pub fn elicit_url(message: impl Into<String>, url: impl Into<String>) -> Self {
        InputRequest::Elicit(ElicitRequestParams::url(message, url))
    }
    /// A form made from `T`'s JSON Schema (a flat struct of primitive and enum fields); read
    /// the answer with `RequestContext::elicited_as::<T>(key)`.
    pub fn elicit_for<T: schemars::JsonSchema>(message: impl Into<String>) -> Self {
        InputRequest::elicit(message, super::elicit_schema::normalize(crate::server::typed::schema_of::<T>()))
    }
    /// A sampling request.
    pub fn sample(params: CreateMessageParams) -> Self {
        InputRequest::Sample(params)
    }
    /// A roots request.
    pub fn list_roots() -> Self {
        InputRequest::ListRoots
    }

    /// The JSON-RPC method.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => "elicitation/create",
            InputRequest::Sample(_) => "sampling/createMessage",
            InputRequest::ListRoots => "roots/list",
        }
    }

    /// The client capability this request needs, as the `ClientCapabilities` object a
    /// `-32021` error names, and as the dotted path [`ClientCapabilities::supports`] reads.
    pub fn required_capability(&self) -> (Value, &'static str) {
        match self {
            InputRequest::Elicit(ElicitRequestParams::Form { .. }) => (json!({"elicitation": {}}), "elicitation.form"),
            InputRequest::Elicit(ElicitRequestParams::Url { .. }) => {
                (json!({"elicitation": {"url": {}}}), "elicitation.url")
            }
            InputRequest::Sample(p) if p.tools.is_some() => (json!({"sampling": {"tools": {}}}), "sampling.tools"),
            InputRequest::Sample(_) => (json!({"sampling": {}}), "sampling"),
            InputRequest::ListRoots => (json!({"roots": {}}), "roots"),
        }
    }

    /// Whether a client with `caps` can answer this request.
    pub fn is_supported_by(&self, caps: &ClientCapabilities) -> bool {
        caps.supports(self.required_capability().1)
    }
}

/// The client's answers to input requests, keyed like the requests: each value is the bare
/// result of the request (`{action, content}`, `{role, content, model}`, `{roots}`).
pub type InputResponses = Map<String, Value>;

/// "Input required": what the handler needs before it can finish, and the state it wants
/// back when the client retries. At least one of the two is present.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputRequired {
    /// The requests to answer, by key (unique within the request).
    pub input_requests: IndexMap<String, InputRequest>,
    /// State the handler wants back on the retry, as text. Ferrite seals it before it
    /// leaves the server and opens it when it comes back, so handlers only see what they
    /// wrote.
    pub request_state: Option<String>,
}

impl InputRequired {
    /// Nothing asked yet; add requests with [`InputRequired::ask`].
    pub fn new() -> Self {
        Self::default()
    }
    /// Ask the client `request` under `key`.
    pub fn ask(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.input_requests.insert(key.into(), request);
        self
    }
    /// Carry `state` (text) to the retry.
    pub fn with_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
    /// Carry `state` serialized as JSON to the retry (read it back with
    /// `RequestContext::request_state_as`).
    pub fn with_state_json<T: Serialize>(self, state: &T) -> Result<Self, serde_json::Error> {
        Ok(self.with_state(serde_json::to_string(state)?))
    }
    /// Whether it asks for nothing and carries no state (an invalid reply).
    pub fn is_empty(&self) -> bool {
        self.input_requests.is_empty() && self.request_state.is_none()
    }
    /// Parse the wire shape `{inputRequests?, requestState?}` (extra keys such as
    /// `resultType` are ignored).
    pub fn from_value(v: &Value) -> Result<Self, String> {
        let m = v.as_object().ok_or("an input-required result must be an object")?;
        let input_requests = match m.get("inputRequests") {
            None | Some(Value::Null) => IndexMap::new(),
            Some(r) => serde_json::from_value(r.clone()).map_err(|e| format!("invalid inputRequests: {e}"))?,
        };
        let request_state = match m.get("requestState") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err("requestState must be a string".into()),
        };
        let r = InputRequired { input_requests, request_state };
        if r.is_empty() {
            return Err("an input-required result needs inputRequests or requestState".into());
        }
        Ok(r)
    }
}

/// Whether a result value is an input-required reply (`resultType: "input_required"`).
pub fn is_input_required(v: &Value) -> bool {
    v.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// What a `tools/call`, `prompts/get` or `resources/read` handler replies.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply<T> {
    /// The final result.
    Complete(T),
    /// The handler needs input first.
    InputRequired(InputRequired),
}

impl<T: DeserializeOwned> Reply<T> {
    /// Parse a handler's result as it crossed a language boundary: an input-required reply
    /// (`{"resultType": "input_required", "inputRequests"?, "requestState"?}`) or the
    /// result itself. This is how every binding reads what its host handler returned.
    pub fn from_value(v: Value) -> Result<Reply<T>, String> {
        if is_input_required(&v) {
            InputRequired::from_value(&v).map(Reply::InputRequired)
        } else {
            serde_json::from_value(v).map(Reply::Complete).map_err(|e| e.to_string())
        }
    }
}

impl<T> Reply<T> {
    /// Map the complete result.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Reply<U> {
        match self {
            Reply::Complete(t) => Reply::Complete(f(t)),
            Reply::InputRequired(i) => Reply::InputRequired(i),
        }
    }
}

/// Converts a handler's return value into a [`Reply`], so handlers may return the plain
/// result, [`InputRequired`], or a `Reply`.
pub trait IntoReply<T> {
    /// The reply.
    fn into_reply(self) -> Reply<T>;
}

impl<T> IntoReply<T> for Reply<T> {
    fn into_reply(self) -> Reply<T> {
        self
    }
}

macro_rules! into_reply {
    ($($t:ty),*) => {$(
        impl IntoReply<$t> for $t {
            fn into_reply(self) -> Reply<$t> {
                Reply::Complete(self)
            }
        }
        impl IntoReply<$t> for InputRequired {
            fn into_reply(self) -> Reply<$t> {
                Reply::InputRequired(self)
            }
        }
    )*};
}
into_reply!(CallToolResult, GetPromptResult, ReadResourceResult);

/// Decode one input response into a result type (`ElicitResult`, `CreateMessageResult`,
/// `ListRootsResult`, or any `Deserialize` type).
pub fn decode_response<T: DeserializeOwned>(responses: &InputResponses, key: &str) -> Option<Result<T, String>> {
    responses.get(key).map(|v| serde_json::from_value(v.clone()).map_err(|e| format!("input response {key:?}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_requests_use_the_wire_shape() {
        let r = InputRequired::new()
            .ask("who", InputRequest::elicit("Name?", json!({"type":"object","properties":{}})))
            .ask("roots", InputRequest::list_roots())
            .with_state("s");
        let v = serde_json::to_value(&r.input_requests).unwrap();
        assert_eq!(
            v,
            json!({
                "who": {"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{}}}},
                "roots": {"method":"roots/list"}
            })
        );
        let back = InputRequired::from_value(&json!({"inputRequests": v, "requestState": "s"})).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn an_empty_input_required_is_refused() {
        assert!(InputRequired::from_value(&json!({"resultType":"input_required"})).is_err());
        assert!(InputRequired::from_value(&json!({"requestState": 3})).is_err());
        assert!(InputRequired::from_value(&json!({"inputRequests": {"a": {"method": "nope"}}})).is_err());
    }

    #[test]
    fn required_capabilities_name_the_submode() {
        assert_eq!(
            InputRequest::elicit_url("go", "https://x").required_capability().0,
            json!({"elicitation":{"url":{}}})
        );
        let mut p = CreateMessageParams::user_text("hi", 10);
        p.tools = Some(vec![]);
        assert_eq!(InputRequest::sample(p).required_capability().1, "sampling.tools");
        let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation":{}})).unwrap();
        assert!(InputRequest::elicit("m", json!({})).is_supported_by(&caps));
        assert!(!InputRequest::elicit_url("m", "u").is_supported_by(&caps));
        assert!(!InputRequest::list_roots().is_supported_by(&caps));
    }
}
