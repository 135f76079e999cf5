//! JWT access tokens (RFC 9068), verified with `jsonwebtoken` against static keys or a JWK Set
//! fetched from the issuer, cached, and fetched again on an unknown `kid` no more often than
//! the configured interval.

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::cache::VerifiedCache;
use super::config::{AuthConfigError, JwtConfig};
use super::{AuthError, Identity, TokenVerifier};
use crate::sync::{read, write};

/// The algorithms accepted unless configured otherwise.
const DEFAULT_ALGORITHMS: [Algorithm; 3] = [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA];
/// Every asymmetric algorithm `jsonwebtoken` verifies.
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The accepted algorithms of a configuration.
pub(crate) fn algorithms(config: &JwtConfig) -> Result<Vec<Algorithm>, AuthConfigError> {
    let Some(names) = &config.algorithms else { return Ok(DEFAULT_ALGORITHMS.to_vec()) };
    if names.is_empty() {
        return Err(AuthConfigError::new("jwt.algorithms", "name at least one algorithm"));
    }
    names
        .iter()
        .map(|n| {
            Algorithm::from_str(n).ok().filter(|a| ASYMMETRIC.contains(a)).ok_or_else(|| {
                AuthConfigError::new(
                    "jwt.algorithms",
                    format!(
                        "{n} is not accepted (use RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 or EdDSA)"
                    ),
                )
            })
        })
        .collect()
}

/// One verification key.
struct Key {
    kid: Option<String>,
    /// The algorithm the key is for, when its JWK says.
    alg: Option<Algorithm>,
    key: DecodingKey,
}

impl Key {
    fn from_jwk(jwk: &Jwk) -> Option<Key> {
        if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
            return None;
        }
        let alg = match jwk.common.key_algorithm {
            Some(a) => Some(Algorithm::from_str(&a.to_string()).ok()?),
            None => None,
        };
        let key = DecodingKey::from_jwk(jwk).ok()?;
        Some(Key { kid: jwk.common.key_id.clone(), alg, key })
    }

    fn from_config(value: &Value) -> Result<Key, AuthConfigError> {
        let bad = |m: String| AuthConfigError::new("jwt.keys", m);
        match value {
            Value::String(pem) => {
                let pem = pem.as_bytes();
                let key = DecodingKey::from_rsa_pem(pem)
                    .or_else(|_| DecodingKey::from_ec_pem(pem))
                    .or_else(|_| DecodingKey::from_ed_pem(pem))
                    .map_err(|_| bad("a string key is not a PEM RSA, EC or Ed25519 public key".into()))?;
                Ok(Key { kid: None, alg: None, key })
            }
            Value::Object(_) => {
                let jwk: Jwk = serde_json::from_value(value.clone()).map_err(|e| bad(format!("not a JWK: {e}")))?;
                Key::from_jwk(&jwk).ok_or_else(|| bad("a JWK is not a supported public signing key".into()))
            }
            _ => Err(bad("each key is a JWK object or a PEM string".into())),
        }
    }

    /// Whether this key may check a signature made with `alg` (no algorithm confusion: the
    /// key's family, and its declared algorithm when it has one, must match).
    fn fits(&self, alg: Algorithm) -> bool {
        self.key.family() == alg.family() && self.alg.is_none_or(|a| a == alg)
    }
}

/// A fetched JWK Set.
struct Fetched {
    keys: Arc<Vec<Key>>,
    at: Instant,
}

/// The JWKS source: the cached set and the time of the last fetch attempt.
struct Jwks {
    url: String,
    client: reqwest::Client,
    ttl: Duration,
    min_refresh: Duration,
    cached: std::sync::RwLock<Option<Fetched>>,
    /// Held while fetching, so concurrent misses wait for one fetch; holds the time of the
    /// last attempt (successful or not).
    last_attempt: tokio::sync::Mutex<Option<Instant>>,
}

impl Jwks {
    /// The cached keys, fetched first when there are none or they are older than the TTL.
    async fn keys(&self) -> Result<Arc<Vec<Key>>, AuthError> {
        if let Some(f) = read(&self.cached).as_ref().filter(|f| f.at.elapsed() < self.ttl) {
            return Ok(f.keys.clone());
        }
        self.refresh(false).await
    }

    /// Fetch the set again. `unknown_kid`: a token named a key we lack; then fetch only when
    /// the last attempt is older than the minimum interval (else keep what we have).
    async fn refresh(&self, unknown_kid: bool) -> Result<Arc<Vec<Key>>, AuthError> {
        let mut last = self.last_attempt.lock().await;
        let current = read(&self.cached).as_ref().map(|f| (f.keys.clone(), f.at));
        if let Some((keys, at)) = &current {
            // Someone fetched while we waited, or the interval holds a flood of made-up kids.
            let fresh_enough = if unknown_kid {
                last.is_some_and(|l| l.elapsed() < self.min_refresh)
            } else {
                at.elapsed() < self.ttl
            };
            if fresh_enough {
                return Ok(keys.clone());
            }
        }
        *last = Some(Instant::now());
        match self.fetch().await {
            Ok(keys) => {
                let keys = Arc::new(keys);
                *write(&self.cached) = Some(Fetched { keys: keys.clone(), at: Instant::now() });
                Ok(keys)
            }
            // Keep serving with the keys we have when a refetch fails.
            Err(e) => current.map(|(k, _)| k).ok_or(e),
        }
    }

    async fn fetch(&self) -> Result<Vec<Key>, AuthError> {
        let unavailable = |m: String| AuthError::Unavailable(m);
        let resp = self
            .client
            .get(&self.url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| unavailable(format!("fetching the JWKS failed: {}", without_url(&e))))?;
        if !resp.status().is_success() {
            return Err(unavailable(format!("the JWKS endpoint answered {}", resp.status())));
        }
        let body =
            resp.bytes().await.map_err(|e| unavailable(format!("reading the JWKS failed: {}", without_url(&e))))?;
        let set: JwkSet =
            serde_json::from_slice(&body).map_err(|e| unavailable(format!("the JWKS is not a JWK Set: {e}")))?;
        Ok(set.keys.iter().filter_map(Key::from_jwk).collect())
    }
}

/// The error text of a reqwest error without the URL (which may carry credentials).
pub(crate) fn without_url(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    if let Some(u) = e.url() {
        s = s.replace(u.as_str(), "<url>");
    }
    s
}

/// Verifies JWT access tokens: signature, `iss`, `aud`, `exp` and `nbf` (with leeway).
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    leeway: u64,
    static_keys: Arc<Vec<Key>>,
    jwks: Option<Jwks>,
    cache: VerifiedCache,
}

impl JwtVerifier {
    /// A verifier for `config`; `resource` is the audience when the configuration names none.
    pub fn new(config: &JwtConfig, resource: &str) -> Result<Self, AuthConfigError> {
        let algorithms = algorithms(config)?;
        let static_keys = config.keys.iter().map(Key::from_config).collect::<Result<Vec<_>, _>>()?;
        let jwks = match &config.jwks_url {
            Some(url) => Some(Jwks {
                url: url.clone(),
                client: http_client().map_err(|e| AuthConfigError::new("jwt.jwks_url", e))?,
                ttl: Duration::from_secs(config.jwks_cache_secs.unwrap_or(300)),
                min_refresh: Duration::from_millis(config.jwks_min_refresh_ms.unwrap_or(10_000)),
                cached: std::sync::RwLock::new(None),
                last_attempt: tokio::sync::Mutex::new(None),
            }),
            None => None,
        };
        Ok(JwtVerifier {
            issuer: config.issuer.clone(),
            audience: config.audience.clone().unwrap_or_else(|| resource.to_owned()),
            algorithms,
            leeway: config.leeway_secs.unwrap_or(60),
            static_keys: Arc::new(static_keys),
            jwks,
            cache: VerifiedCache::new(
                Duration::from_secs(config.cache_secs.unwrap_or(60)),
                config.cache_capacity.unwrap_or(10_000),
            ),
        })
    }

    async fn verify_token(&self, token: &str) -> Result<Identity, AuthError> {
        if let Some(id) = self.cache.get(token) {
            return Ok(id);
        }
        let id = self.verify_signed(token).await?;
        self.cache.insert(token, &id);
        Ok(id)
    }

    async fn verify_signed(&self, token: &str) -> Result<Identity, AuthError> {
        let invalid = |m: &str| AuthError::InvalidToken(m.to_owned());
        // `alg: none` fails here: it is not an algorithm jsonwebtoken knows.
        let header = decode_header(token).map_err(|_| invalid("the token is not a well-formed signed JWT"))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(AuthError::InvalidToken(format!("the token's algorithm {:?} is not accepted", header.alg)));
        }
        let kid = header.kid.as_deref();
        let keys = match &self.jwks {
            Some(j) => j.keys().await?,
            None => self.static_keys.clone(),
        };
        let key = match find(&keys, kid, header.alg) {
            Some(k) => k,
            None => match &self.jwks {
                Some(j) if kid.is_some() => {
                    let keys = j.refresh(true).await?;
                    return self.check(token, find(&keys, kid, header.alg), header.alg);
                }
                _ => return Err(invalid("no key of the issuer verifies this token")),
            },
        };
        self.check(token, Some(key), header.alg)
    }

    fn check(&self, token: &str, key: Option<&Key>, alg: Algorithm) -> Result<Identity, AuthError> {
        let key = key.ok_or_else(|| AuthError::InvalidToken("no key of the issuer verifies this token".into()))?;
        let mut v = Validation::new(alg);
        v.set_issuer(&[&self.issuer]);
        v.set_audience(&[&self.audience]);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        v.leeway = self.leeway;
        v.validate_nbf = true;
        let data = decode::<Map<String, Value>>(token, &key.key, &v).map_err(|e| {
            AuthError::InvalidToken(
                match e.kind() {
                    ErrorKind::ExpiredSignature => "the token has expired",
                    ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)",
                    ErrorKind::InvalidAudience => "the token is for another audience",
                    ErrorKind::InvalidIssuer => "the token's issuer is not trusted",
                    ErrorKind::InvalidSignature => "the token's signature does not verify",
                    ErrorKind::MissingRequiredClaim(_) => "the token lacks a required claim (exp, iss, aud)",
                    ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key",
                    _ => "the token is malformed",
                }
                .to_owned(),
            )
        })?;
        Identity::from_claims(data.claims)
    }
}

/// The key a token names (`kid`), or the only key that fits its algorithm when it names none.
fn find<'a>(keys: &'a [Key], kid: Option<&str>, alg: Algorithm) -> Option<&'a Key> {
    match kid {
        Some(kid) => keys.iter().find(|k| k.kid.as_deref() == Some(kid) && k.fits(alg)),
        None => {
            let mut fitting = keys.iter().filter(|k| k.fits(alg));
            let first = fitting.next()?;
            fitting.next().is_none().then_some(first)
        }
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        Box::pin(self.verify_token(token))
    }
}

/// The HTTP client for JWKS and introspection: rustls, bounded time, no redirects to other
/// hosts' credentials (reqwest strips `Authorization` across hosts).
pub(crate) fn http_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(5))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}
