//! Ferrite as an OAuth 2.1 resource server (MCP authorization, 2025-06-18 onward): who is
//! calling ([`Identity`]), how a bearer token is checked ([`TokenVerifier`]: JWTs against
//! static keys or a JWKS URL, RFC 7662 introspection, or a host-language callback), what each
//! tool, prompt and resource requires ([`AuthConfig`]), and the RFC 9728 metadata that tells a
//! client where to get a token.
//!
//! This module knows nothing of HTTP routing or of dispatch: the HTTP transport asks it to
//! verify the `Authorization` header and to write challenges, the server layer asks it which
//! scopes a target needs. It does its own I/O (fetching a JWKS, calling an introspection
//! endpoint), which is why it is a module of its own.

mod cache;
mod challenge;
mod config;
mod fronted;
mod identity;
mod introspection;
mod jwt;
pub(crate) use jwt::without_url;

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{json, Value};

pub use self::challenge::{bearer_token, www_authenticate, BearerError, Credentials};
pub use self::config::{AuthConfig, AuthConfigError, IntrospectionConfig, JwtConfig};
pub use self::fronted::AS_WELL_KNOWN;
pub(crate) use self::fronted::RETRY_AFTER as FRONTED_RETRY_AFTER;
pub use self::identity::Identity;
pub use self::introspection::IntrospectionVerifier;
pub use self::jwt::JwtVerifier;

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// The token is expired, malformed, not for this resource, or otherwise invalid: 401
    /// `invalid_token`. The text says which, without repeating the token.
    #[error("{0}")]
    InvalidToken(String),
    /// The verifier could not decide (the JWKS or introspection endpoint is unreachable or
    /// answered nonsense): 503, so that a client retries instead of re-authorizing.
    #[error("the token could not be verified: {0}")]
    Unavailable(String),
}

/// Checks a bearer token and says whom it speaks for. Implemented by [`JwtVerifier`],
/// [`IntrospectionVerifier`], and by each binding around a host-language callback.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verify `token` (the credentials of `Authorization: Bearer`, never logged).
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>>;
}

/// An `aud` claim (a string, or an array of them) names `resource`, or the token is for
/// another audience (RFC 8707).
fn check_audience(aud: &Value, resource: &str) -> Result<(), AuthError> {
    let for_us = match aud {
        Value::String(a) => a == resource,
        Value::Array(a) => a.iter().any(|v| v.as_str() == Some(resource)),
        _ => false,
    };
    if for_us {
        Ok(())
    } else {
        Err(AuthError::InvalidToken("the token is for another audience".into()))
    }
}

/// What kind of thing a scope requirement is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A tool, by name.
    Tool,
    /// A prompt, by name.
    Prompt,
    /// A resource, by URI.
    Resource,
}

/// A configured resource server: the validated [`AuthConfig`], its verifier and its metadata
/// document. Built once, shared by every request.
pub struct ResourceServer {
    config: AuthConfig,
    verifier: Arc<dyn TokenVerifier>,
    metadata: Value,
    metadata_url: String,
    metadata_path: String,
    /// The authorization server's metadata for 2025-03-26 clients.
    fronted: fronted::FrontedMetadata,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer").field("resource", &self.config.resource).finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// A resource server whose verifier is the one the configuration names (`jwt` or
    /// `introspection`).
    pub fn from_config(config: AuthConfig) -> Result<Self, AuthConfigError> {
        config.validate(false)?;
        let verifier: Arc<dyn TokenVerifier> = match (&config.jwt, &config.introspection) {
            (Some(j), None) => Arc::new(JwtVerifier::new(j, &config.resource)?),
            (None, Some(i)) => Arc::new(IntrospectionVerifier::new(i, &config.resource)?),
            _ => return Err(AuthConfigError::new("verifier", "exactly one of jwt and introspection is required")),
        };
        Self::build(config, verifier)
    }

    /// A resource server with a verifier given in code (a host-language callback); the
    /// configuration must then name neither `jwt` nor `introspection`.
    pub fn with_verifier(config: AuthConfig, verifier: Arc<dyn TokenVerifier>) -> Result<Self, AuthConfigError> {
        config.validate(true)?;
        Self::build(config, verifier)
    }

    fn build(config: AuthConfig, verifier: Arc<dyn TokenVerifier>) -> Result<Self, AuthConfigError> {
        let (origin, path) = config::split_resource(&config.resource)?;
        let path = path.trim_end_matches('/');
        let metadata_path = format!("{WELL_KNOWN}{path}");
        let metadata_url = format!("{origin}{metadata_path}");
        let mut metadata = json!({
            "resource": config.resource,
            "authorization_servers": config.authorization_servers,
            "scopes_supported": config.scopes_supported(),
            "bearer_methods_supported": ["header"],
        });
        if let Some(name) = &config.resource_name {
            metadata["resource_name"] = json!(name);
        }
        if let Some(doc) = &config.resource_documentation {
            metadata["resource_documentation"] = json!(doc);
        }
        let first = config.authorization_servers.first().map(String::as_str).unwrap_or_default();
        let fronted = fronted::FrontedMetadata::new(first)?;
        Ok(ResourceServer { config, verifier, metadata, metadata_url, metadata_path, fronted })
    }

    /// The configuration.
    pub fn config(&self) -> &AuthConfig {
        &self.config
    }

    /// The Protected Resource Metadata document (RFC 9728).
    pub fn metadata(&self) -> &Value {
        &self.metadata
    }

    /// Where the metadata is served: the resource's origin, `/.well-known/oauth-protected-resource`
    /// and the resource's path (RFC 9728 §3.1). The `resource_metadata` of every challenge.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The paths the metadata is served at: the path-inserted one (`metadata_url`'s path) and
    /// the bare well-known path (for clients that try the root first).
    pub fn metadata_paths(&self) -> Vec<String> {
        let mut paths = vec![self.metadata_path.clone()];
        if self.metadata_path != WELL_KNOWN {
            paths.push(WELL_KNOWN.to_owned());
        }
        paths
    }

    /// The metadata of the (first) authorization server (RFC 8414), as a 2025-03-26 client
    /// reads it from [`AS_WELL_KNOWN`] on the MCP server: fetched from the authorization server
    /// and kept for five minutes; why not while it cannot be fetched.
    pub async fn authorization_server_metadata(&self) -> Result<Value, String> {
        self.fronted.get().await
    }

    /// Verify a bearer token.
    pub async fn verify(&self, token: &str) -> Result<Identity, AuthError> {
        let identity = self.verifier.verify(token).await?;
        if self.config.require_audience {
            let aud = identity
                .claim("aud")
                .ok_or_else(|| AuthError::InvalidToken("the token names no audience (aud)".into()))?;
            check_audience(aud, &self.config.resource)?;
        }
        Ok(identity)
    }

    /// Every scope a request for `target` named `name` needs: those every request needs,
    /// then the target's own.
    pub fn required_scopes(&self, target: Target, name: &str) -> Vec<String> {
        let own = match target {
            Target::Tool => self.config.tool_scopes.get(name),
            Target::Prompt => self.config.prompt_scopes.get(name),
            Target::Resource => self.config.resource_scopes.get(name),
        };
        let mut all = self.config.required_scopes.clone();
        for s in own.into_iter().flatten() {
            if !all.contains(s) {
                all.push(s.clone());
            }
        }
        all
    }

    /// The scopes `identity` lacks for `target` named `name` (empty: allowed).
    pub fn missing_scopes(&self, identity: &Identity, target: Target, name: &str) -> Vec<String> {
        self.required_scopes(target, name).into_iter().filter(|s| !identity.has_scope(s)).collect()
    }

    /// Whether a list shows `name` to `identity`: always, unless `hide_unauthorized` is set
    /// and a scope is missing.
    pub fn visible(&self, identity: &Identity, target: Target, name: &str) -> bool {
        !self.config.hide_unauthorized || self.missing_scopes(identity, target, name).is_empty()
    }

    /// The challenge for a request without a token (RFC 6750 §3: no error code), naming the
    /// scopes every request needs.
    pub fn challenge_missing(&self) -> String {
        www_authenticate(None, &self.config.scopes_to_request(), &self.metadata_url)
    }

    /// The challenge for an invalid token.
    pub fn challenge_invalid(&self, description: &str) -> String {
        www_authenticate(
            Some((BearerError::InvalidToken, description)),
            &self.config.scopes_to_request(),
            &self.metadata_url,
        )
    }

    /// The challenge for a malformed `Authorization` header.
    pub fn challenge_malformed(&self, description: &str) -> String {
        www_authenticate(Some((BearerError::InvalidRequest, description)), &[], &self.metadata_url)
    }

    /// The step-up challenge: every scope the request needs, in one challenge.
    pub fn challenge_insufficient(&self, needed: &[String]) -> String {
        let description = format!("the request needs the scopes: {}", needed.join(" "));
        www_authenticate(Some((BearerError::InsufficientScope, &description)), needed, &self.metadata_url)
    }
}

/// The well-known path of RFC 9728.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The JSON-RPC error code of a request refused for a missing scope where there is no HTTP
/// status to say it (a host driving the server with an identity of its own); its `data` is
/// `{"requiredScopes": [...], "missingScopes": [...]}`.
pub const INSUFFICIENT_SCOPE: i32 = -32003;

/// How long ago the Unix epoch was, in seconds.
pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}
