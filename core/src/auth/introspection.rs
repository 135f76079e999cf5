//! RFC 7662 token introspection: the authorization server says whether a token is active and
//! what it carries. Answers are cached (bounded, expiring, keyed by the token's SHA-256, never
//! the token) so that a busy client costs one call per cache period.

use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

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
    ttl: Duration,
    cache: Option<quick_cache::sync::Cache<[u8; 32], (Identity, Instant)>>,
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
            ttl: Duration::from_secs(config.cache_secs.unwrap_or(60)),
            cache: (capacity > 0).then(|| quick_cache::sync::Cache::new(capacity as usize)),
        })
    }

    async fn introspect(&self, token: &str) -> Result<Identity, AuthError> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(cache) = &self.cache {
            if let Some((id, until)) = cache.get(&digest) {
                if Instant::now() < until && id.expires_at().is_none_or(|e| e > now_secs()) {
                    return Ok(id);
                }
                cache.remove(&digest);
            }
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
        let for_us = match answer.get("aud") {
            None => true,
            Some(Value::String(a)) => a == &self.resource,
            Some(Value::Array(a)) => a.iter().any(|v| v.as_str() == Some(&self.resource)),
            Some(_) => false,
        };
        if !for_us {
            return Err(AuthError::InvalidToken("the token is for another audience".into()));
        }
        let id = Identity::from_claims(answer)?;
        if id.expires_at().is_some_and(|e| e <= now_secs()) {
            return Err(AuthError::InvalidToken("the token has expired".into()));
        }
        if let Some(cache) = &self.cache {
            let mut until = Instant::now() + self.ttl;
            if let Some(exp) = id.expires_at() {
                until = until.min(Instant::now() + Duration::from_secs(exp.saturating_sub(now_secs())));
            }
            cache.insert(digest, (id.clone(), until));
        }
        Ok(id)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        Box::pin(self.introspect(token))
    }
}
