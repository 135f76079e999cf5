//! Multi round-trip requests (MRTR, 2026-07-28): the core's `InputRequest` built from JS
//! values.
//!
//! The JS `InputRequest` factories (`elicit`, `elicitUrl`, `sample`, `listRoots`) call
//! [`mrtr_input_request`], which builds the core's `InputRequest` with its own constructors
//! (checking sampling parameters against `CreateMessageParams`) and returns the core's
//! serialization of it. The JS object keeps that text opaque; when a handler returns an
//! `InputRequired`, the requests cross back in its envelope and are decoded into the core's
//! type again (`envelope::decode_reply`), so the wire shape is the core's alone.

use ferrite_core::{CreateMessageParams, InputRequest};
use napi::{Env, Result};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;

use crate::errors;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Elicit {
    message: String,
    requested_schema: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ElicitUrl {
    message: String,
    url: String,
}

fn build(kind: &str, args: &str) -> std::result::Result<InputRequest, String> {
    let parse = |what: &str| -> std::result::Result<Value, String> {
        serde_json::from_str(args).map_err(|e| format!("invalid {what}: {e}"))
    };
    match kind {
        "elicit" => {
            let e: Elicit =
                serde_json::from_value(parse("elicitation")?).map_err(|e| format!("invalid elicitation: {e}"))?;
            if !e.requested_schema.is_object() {
                return Err("an elicitation's schema must be a JSON Schema object".into());
            }
            Ok(InputRequest::elicit(e.message, e.requested_schema))
        }
        "elicitUrl" => {
            let e: ElicitUrl = serde_json::from_value(parse("URL elicitation")?)
                .map_err(|e| format!("invalid URL elicitation: {e}"))?;
            Ok(InputRequest::elicit_url(e.message, e.url))
        }
        "sample" => {
            let p: CreateMessageParams = serde_json::from_value(parse("sampling parameters")?)
                .map_err(|e| format!("invalid sampling parameters: {e}"))?;
            Ok(InputRequest::sample(p))
        }
        "listRoots" => Ok(InputRequest::list_roots()),
        other => Err(format!("unknown input request kind {other:?}")),
    }
}

/// The core's `InputRequest` of `kind` ("elicit": `{message, requestedSchema}`, "elicitUrl":
/// `{message, url}`, "sample": `CreateMessageParams`, "listRoots"), serialized by the core
/// (`{"method", "params"}`). Invalid arguments throw a `TypeError`.
#[napi]
pub fn mrtr_input_request(env: &Env, kind: String, args_json: String) -> Result<String> {
    let request = build(&kind, &args_json).map_err(|e| errors::type_error(env, e))?;
    serde_json::to_string(&request).map_err(|e| errors::type_error(env, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_kind_is_the_core_constructor() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "string"}}});
        let args = json!({"message": "Name?", "requestedSchema": schema}).to_string();
        assert_eq!(build("elicit", &args).unwrap(), InputRequest::elicit("Name?", schema));
        let args = json!({"message": "Go", "url": "https://example.com"}).to_string();
        assert_eq!(build("elicitUrl", &args).unwrap(), InputRequest::elicit_url("Go", "https://example.com"));
        let args = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 7});
        assert_eq!(
            build("sample", &args.to_string()).unwrap(),
            InputRequest::sample(CreateMessageParams::user_text("hi", 7))
        );
        assert_eq!(build("listRoots", "{}").unwrap(), InputRequest::list_roots());
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        assert!(build("elicit", r#"{"message":"m","requestedSchema":[]}"#).unwrap_err().contains("JSON Schema object"));
        assert!(build("sample", r#"{"messages":[]}"#).unwrap_err().contains("maxTokens"));
        assert!(build("elicitUrl", r#"{"message":"m"}"#).unwrap_err().contains("url"));
        assert!(build("nope", "{}").unwrap_err().contains("unknown input request kind"));
    }
}
