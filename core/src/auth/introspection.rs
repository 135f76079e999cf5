//! RFC 7662 token introspection: the authorization server says whether a token is active and
//! what it carries. Answers are cached (bounded, expiring, keyed by the token's SHA-256, never
//! the token) so that a busy client costs one call per cache period.

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use super::cache::VerifiedCache;
use super::config::{AuthConfigError, IntrospectionConfig};
use super::jwt::{http_client, without_url};
use super::{now_secs, AuthError, Identity, TokenVerifier};

/// Verifies tokens by asking the authorization server's introspection endpoint.
pub struct IntrospectionVerifier {
    url: String,
    client_id: String,
    client_secret: String,
    resource: String,
    client: reqwest::Client,
    cache: VerifiedCache,
}

impl IntrospectionVerifier {
    /// A verifier for `config`; tokens whose answer names an audience must name `resource`.
    pub fn new(config: &IntrospectionConfig, resource: &str) -> Result<Self, AuthConfigError> {
        let capacity = config.cache_capacity.unwrap_or(10_000);
        Ok(IntrospectionVerifier {
            url: config.url.clone(),
            client_id: config.client_id.clone(),
            client_secret: config.client_secret.clone(),
            resource: resource.to_owned(),
            client: http_client().map_err(|e| AuthConfigError::new("introspection.url", e))?,
            cache: VerifiedCache::new(Duration::from_secs(config.cache_secs.unwrap_or(60)), capacity),
        })
    }

    async fn introspect(&self, token: &str) -> Result<Identity, AuthError> {
        if let Some(id) = self.cache.get(token) {
            return Ok(id);
        }
        let unavailable = |m: String| AuthError::Unavailable(m);
        let resp = self
            .client
            .post(&self.url)
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await
            .map_err(|e| unavailable(format!("calling the introspection endpoint failed: {}", without_url(&e))))?;
        if !resp.status().is_success() {
            return Err(unavailable(format!("the introspection endpoint answered {}", resp.status())));
        }
        let body = resp
            .bytes()
            .await
            .map_err(|e| unavailable(format!("reading the introspection answer failed: {}", without_url(&e))))?;
        let answer: Map<String, Value> = serde_json::from_slice(&body)
            .map_err(|e| unavailable(format!("the introspection answer is not a JSON object: {e}")))?;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(AuthError::InvalidToken("the token is not active".into()));
        }
        if let Some(aud) = answer.get("aud") {
            super::check_audience(aud, &self.resource)?;
        }
        let id = Identity::from_claims(answer)?;
        if id.expires_at().is_some_and(|e| e <= now_secs()) {
            return Err(AuthError::InvalidToken("the token has expired".into()));
        }
        self.cache.insert(token, &id);
        Ok(id)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        Box::pin(self.introspect(token))
    }
}
