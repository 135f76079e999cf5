//! Authorization from JavaScript: the `auth` option of `new NativeServer(...)` is the core's
//! `AuthConfig` as JSON (camelCase or snake_case keys), read and checked by the core, and a
//! JS token verifier becomes an implementation of the core's own [`TokenVerifier`].
//!
//! The verifier crosses like a handler: a weak `ThreadsafeFunction` `(token) => envelope |
//! Promise<envelope>`, called with `call_async_catch` from the HTTP task, so it runs on the JS
//! thread and its promise is awaited without blocking the event loop. The JS layer
//! (`src-ts/auth.ts`) builds the envelope: `{"ok": claims}` for an accepted token, or
//! `{"error": {"message", "unavailable"?}}`; this module maps it to `Identity::from_value` or
//! to the core's `AuthError`. Nothing here logs or keeps the token.

use std::sync::Arc;

use ferrite_core::auth::{AuthConfig, AuthConfigError, AuthError, Identity, ResourceServer, TokenVerifier};
use ferrite_core::naming::camel_case;
use ferrite_core::BoxFuture;
use napi::bindgen_prelude::{Either, Function, Promise};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::{Env, Error, Result, Status};
use serde::Deserialize;
use serde_json::Value;

use crate::errors;

/// What a JS verifier returns: the envelope text, or a promise of it.
pub(crate) type VerifierReturn = Either<String, Promise<String>>;

/// The weak thread-safe function a JS verifier is wrapped in.
type VerifierFunction = ThreadsafeFunction<String, VerifierReturn, String, Status, false, true>;

/// A JS token verifier as the core's [`TokenVerifier`].
struct JsVerifier {
    function: VerifierFunction,
}

/// What the JS layer reports for a token it did not accept.
#[derive(Debug, Deserialize)]
struct Refusal {
    message: String,
    /// The verifier could not decide (a `VerifierUnavailableError`): 503, not 401.
    #[serde(default)]
    unavailable: bool,
}

#[derive(Debug, Deserialize)]
enum Envelope {
    #[serde(rename = "ok")]
    Ok(Value),
    #[serde(rename = "error")]
    Error(Refusal),
}

/// The core's answer for a verifier's envelope.
fn decode(text: &str) -> std::result::Result<Identity, AuthError> {
    match serde_json::from_str::<Envelope>(text) {
        Ok(Envelope::Ok(claims)) => Identity::from_value(claims),
        Ok(Envelope::Error(Refusal { message, unavailable: true })) => Err(AuthError::Unavailable(message)),
        Ok(Envelope::Error(Refusal { message, .. })) => Err(AuthError::InvalidToken(message)),
        Err(e) => Err(AuthError::InvalidToken(format!("the token verifier answered something unreadable: {e}"))),
    }
}

impl TokenVerifier for JsVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, std::result::Result<Identity, AuthError>> {
        Box::pin(async move {
            // The environment is going away (or the queue is closed): nobody could decide.
            let unavailable =
                |e: Error| AuthError::Unavailable(format!("the token verifier could not run: {}", e.reason));
            let text = match self.function.call_async_catch(token.to_owned()).await {
                Ok(Either::A(text)) => text,
                Ok(Either::B(promise)) => promise.await.map_err(unavailable)?,
                Err(e) => return Err(unavailable(e)),
            };
            decode(&text)
        })
    }
}

/// A configuration error as a `TypeError` with the core's text, its key spelled the Node way
/// (`invalid auth option jwt.jwksUrl: ...`).
fn config_error(env: &Env, e: AuthConfigError) -> Error {
    errors::type_error(env, format!("invalid auth option {}: {}", camel_case(&e.option), e.message))
}

/// The resource server of the `auth` option: the core reads the configuration; with a JS
/// verifier it is `ResourceServer::with_verifier`, otherwise the configuration's `jwt` or
/// `introspection` verifier.
pub(crate) fn resource_server(
    env: &Env,
    config: Value,
    verifier: Option<Function<'_, String, VerifierReturn>>,
) -> Result<ResourceServer> {
    let config = AuthConfig::from_value(config).map_err(|e| config_error(env, e))?;
    match verifier {
        Some(f) => {
            let function = f.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
            ResourceServer::with_verifier(config, Arc::new(JsVerifier { function })).map_err(|e| config_error(env, e))
        }
        None => ResourceServer::from_config(config).map_err(|e| config_error(env, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_become_the_identity() {
        let id = decode(&json!({"ok": {"sub": "ada", "scope": "a b", "client_id": "app"}}).to_string()).unwrap();
        assert_eq!((id.subject(), id.client_id(), id.scopes()), ("ada", Some("app"), &["a".into(), "b".into()][..]));
    }

    #[test]
    fn refusals_are_invalid_or_unavailable() {
        assert_eq!(
            decode(r#"{"error":{"message":"revoked"}}"#).unwrap_err(),
            AuthError::InvalidToken("revoked".into())
        );
        assert_eq!(
            decode(r#"{"error":{"message":"down","unavailable":true}}"#).unwrap_err(),
            AuthError::Unavailable("down".into())
        );
        assert!(matches!(decode(r#"{"ok":{"scope":"x"}}"#), Err(AuthError::InvalidToken(_))));
        assert!(matches!(decode("nonsense"), Err(AuthError::InvalidToken(_))));
    }
}
