//! Authorization from Python: the `auth` argument of `Core(...)` is the core's `AuthConfig`
//! as a dict (snake_case keys), read and checked by the core, and a Python token verifier
//! becomes an implementation of the core's own [`TokenVerifier`].
//!
//! The verifier runs like a handler, on the same machinery (`def` on the worker pool, `async
//! def` on the package's event loop): the package's wrapper (`ferrite_mcp/auth.py`) calls the
//! user's verifier and never raises; it answers an envelope, `{"ok": claims}` for an accepted
//! token or `{"error": {"message", "unavailable"?}}`, which this module maps to
//! `Identity::from_value` or to the core's `AuthError`. Nothing here logs or keeps the token.

use std::sync::{Arc, OnceLock};

use ferrite_core::auth::{AuthConfig, AuthConfigError, AuthError, Identity, ResourceServer, TokenVerifier};
use ferrite_core::BoxFuture;
use pyo3::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use crate::bridge::{Executor, Input, PyCallable, Returned};
use crate::{convert, errors};

/// A Python token verifier as the core's [`TokenVerifier`]. The executor is set once the
/// server (which needs the resource server first) and its executor exist.
pub struct PyVerifier {
    handler: Arc<PyCallable>,
    exec: Arc<OnceLock<Arc<Executor>>>,
}

/// What the wrapper reports for a token it did not accept.
#[derive(Debug, Deserialize)]
struct Refusal {
    message: String,
    /// The verifier could not decide (`VerifierUnavailableError`): 503, not 401.
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

/// The core's answer for the wrapper's envelope.
fn decode(value: Value) -> Result<Identity, AuthError> {
    match serde_json::from_value::<Envelope>(value) {
        Ok(Envelope::Ok(claims)) => Identity::from_value(claims),
        Ok(Envelope::Error(Refusal { message, unavailable: true })) => Err(AuthError::Unavailable(message)),
        Ok(Envelope::Error(Refusal { message, .. })) => Err(AuthError::InvalidToken(message)),
        Err(e) => Err(AuthError::InvalidToken(format!("the token verifier answered something unreadable: {e}"))),
    }
}

impl TokenVerifier for PyVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        Box::pin(async move {
            let Some(exec) = self.exec.get() else {
                return Err(AuthError::Unavailable("the token verifier is not ready".into()));
            };
            match exec.run(self.handler.clone(), Input::Token(token.to_owned()), None).await {
                Ok(Returned::Json(v)) => decode(v),
                Ok(Returned::Input(_)) => {
                    Err(AuthError::InvalidToken("the token verifier returned neither claims nor an AccessToken".into()))
                }
                // The wrapper never raises: this is the server closing (or the interpreter).
                Err(e) => Err(AuthError::Unavailable(format!("the token verifier could not run: {e}"))),
            }
        })
    }
}

/// A configuration error as `ferrite_mcp.ConfigError` with the core's text (snake_case keys,
/// Python's spelling too).
fn config_error(py: Python<'_>, e: &AuthConfigError) -> PyErr {
    errors::config_msg(py, &e.to_string())
}

/// The resource server of the `auth` argument: the core reads the configuration; with a
/// Python verifier (`(wrapper, is_async)`) it is `ResourceServer::with_verifier`, otherwise
/// the configuration's `jwt` or `introspection` verifier.
pub fn resource_server(
    py: Python<'_>,
    config: &Bound<'_, PyAny>,
    verifier: Option<(Py<PyAny>, bool)>,
    exec: &Arc<OnceLock<Arc<Executor>>>,
) -> PyResult<ResourceServer> {
    let config = AuthConfig::from_value(convert::from_py(config)?).map_err(|e| config_error(py, &e))?;
    match verifier {
        Some((callable, is_async)) => {
            let handler = Arc::new(PyCallable { callable, is_async, wants_context: false });
            let verifier = PyVerifier { handler, exec: exec.clone() };
            ResourceServer::with_verifier(config, Arc::new(verifier)).map_err(|e| config_error(py, &e))
        }
        None => ResourceServer::from_config(config).map_err(|e| config_error(py, &e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_become_the_identity() {
        let id = decode(json!({"ok": {"sub": "ada", "scope": "a b", "client_id": "app"}})).unwrap();
        assert_eq!((id.subject(), id.client_id(), id.scopes()), ("ada", Some("app"), &["a".into(), "b".into()][..]));
    }

    #[test]
    fn refusals_are_invalid_or_unavailable() {
        assert_eq!(
            decode(json!({"error": {"message": "revoked"}})).unwrap_err(),
            AuthError::InvalidToken("revoked".into())
        );
        assert_eq!(
            decode(json!({"error": {"message": "down", "unavailable": true}})).unwrap_err(),
            AuthError::Unavailable("down".into())
        );
        assert!(matches!(decode(json!({"ok": {"scope": "x"}})), Err(AuthError::InvalidToken(_))));
        assert!(matches!(decode(json!("nonsense")), Err(AuthError::InvalidToken(_))));
    }
}
