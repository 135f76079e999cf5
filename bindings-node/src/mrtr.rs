//! Multi round-trip requests (MRTR, 2026-07-28): the core's `InputRequest` built from JS
//! values.
//!
//! The JS `InputRequest` factories (`elicit`, `elicitUrl`, `sample`, `listRoots`) call
//! [`mrtr_input_request`], which decodes the arguments into the core's own types
//! (`ElicitRequestParams`, `CreateMessageParams`) and returns the core's serialization of the
//! `InputRequest`. The JS object keeps that text opaque; when a handler returns an
//! `InputRequired`, the requests cross back in its envelope and are decoded into the core's
//! type again (`envelope::decode_reply`), so the wire shape is the core's alone.

use ferrite_core::{ElicitRequestParams, InputRequest};
use napi::{Env, Result};
use napi_derive::napi;

use crate::context::sampling_params;
use crate::errors;

fn build(kind: &str, args: &str) -> std::result::Result<InputRequest, String> {
    let value: serde_json::Value = serde_json::from_str(args).map_err(|e| format!("invalid {kind} arguments: {e}"))?;
    match kind {
        // Both elicitation modes are the core's `ElicitRequestParams` (`mode: "url"` for URLs).
        "elicit" => serde_json::from_value::<ElicitRequestParams>(value)
            .map(InputRequest::Elicit)
            .map_err(|e| format!("invalid elicitation: {e}")),
        "sample" => {
            sampling_params(value).map(InputRequest::sample).map_err(|e| format!("invalid sampling parameters: {e}"))
        }
        "listRoots" => Ok(InputRequest::list_roots()),
        other => Err(format!("unknown input request kind {other:?}")),
    }
}

/// The core's `InputRequest` of `kind` ("elicit": the core's `ElicitRequestParams`, form or
/// `mode: "url"`; "sample": `CreateMessageParams`, `maxTokens` defaulting to the core's
/// default; "listRoots"), serialized by the core (`{"method", "params"}`). Invalid arguments
/// throw a `TypeError`.
#[napi]
pub fn mrtr_input_request(env: &Env, kind: String, args_json: String) -> Result<String> {
    let request = build(&kind, &args_json).map_err(|e| errors::type_error(env, e))?;
    serde_json::to_string(&request).map_err(|e| errors::type_error(env, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrite_core::CreateMessageParams;
    use serde_json::json;

    #[test]
    fn each_kind_is_the_core_constructor() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "string"}}});
        let args = json!({"message": "Name?", "requestedSchema": schema}).to_string();
        assert_eq!(build("elicit", &args).unwrap(), InputRequest::elicit("Name?", schema));
        let args = json!({"mode": "url", "message": "Go", "url": "https://example.com"}).to_string();
        assert_eq!(build("elicit", &args).unwrap(), InputRequest::elicit_url("Go", "https://example.com"));
        let args = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 7});
        assert_eq!(
            build("sample", &args.to_string()).unwrap(),
            InputRequest::sample(CreateMessageParams::user_text("hi", 7))
        );
        assert_eq!(build("listRoots", "{}").unwrap(), InputRequest::list_roots());
    }

    #[test]
    fn sampling_without_max_tokens_gets_the_core_default() {
        let args = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
        assert_eq!(
            build("sample", &args.to_string()).unwrap(),
            InputRequest::sample(CreateMessageParams::user_text("hi", CreateMessageParams::DEFAULT_MAX_TOKENS))
        );
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        assert!(build("elicit", r#"{"message":"m"}"#).unwrap_err().contains("requestedSchema"));
        assert!(build("sample", r#"{"messages":[],"maxTokens":-1}"#)
            .unwrap_err()
            .contains("invalid sampling parameters"));
        assert!(build("elicit", r#"{"mode":"url","message":"m"}"#).unwrap_err().contains("url"));
        assert!(build("nope", "{}").unwrap_err().contains("unknown input request kind"));
    }
}
