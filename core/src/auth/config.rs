//! The authorization configuration as plain data, validated once, here: every surface hands
//! the same keys (snake_case, or their camelCase spelling) to [`AuthConfig::from_value`], so a
//! bad value gets the same error everywhere. The verifier is chosen by the configuration
//! (`jwt` or `introspection`) or given in code ([`super::ResourceServer::with_verifier`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::naming::snake_case;

/// A bad authorization option: which one (its snake_case key) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid auth option {option}: {message}")]
pub struct AuthConfigError {
    /// The option's key, snake_case (`jwt.jwks_url`); `auth` for the object as a whole.
    pub option: String,
    /// Why it was refused.
    pub message: String,
}

impl AuthConfigError {
    pub(crate) fn new(option: &str, message: impl Into<String>) -> Self {
        AuthConfigError { option: option.to_owned(), message: message.into() }
    }
}

/// The resource server's configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// The canonical URI of this MCP server (RFC 8707), for example
    /// `https://mcp.example.com/mcp`: the audience tokens must be issued for, and where the
    /// metadata URL is derived from. `https`, or `http` on a loopback host.
    #[serde(default)]
    pub resource: String,
    /// The authorization servers that issue tokens for it (at least one).
    #[serde(default, alias = "authorizationServers")]
    pub authorization_servers: Vec<String>,
    /// The scopes advertised in the metadata (default: every scope named below).
    #[serde(default, alias = "scopesSupported", skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Scopes every request needs.
    #[serde(default, alias = "requiredScopes")]
    pub required_scopes: Vec<String>,
    /// Scopes per tool name.
    #[serde(default, alias = "toolScopes")]
    pub tool_scopes: BTreeMap<String, Vec<String>>,
    /// Scopes per prompt name.
    #[serde(default, alias = "promptScopes")]
    pub prompt_scopes: BTreeMap<String, Vec<String>>,
    /// Scopes per resource URI.
    #[serde(default, alias = "resourceScopes")]
    pub resource_scopes: BTreeMap<String, Vec<String>>,
    /// Leave what the caller lacks a scope for out of `tools/list`, `prompts/list` and
    /// `resources/list` (default false: listed, and a call answers 403 with the scopes to
    /// ask for, so a client can step up).
    #[serde(default, alias = "hideUnauthorized")]
    pub hide_unauthorized: bool,
    /// A human-readable name for the metadata (`resource_name`).
    #[serde(default, alias = "resourceName", skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A documentation URL for the metadata (`resource_documentation`).
    #[serde(default, alias = "resourceDocumentation", skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
    /// With a verifier given in code: also require the identity it answers to carry an `aud`
    /// claim (a string, or an array of them) naming `resource` (RFC 8707), as the JWT
    /// verifier always does; an identity without one, or for another audience, is 401
    /// `invalid_token` (default false: the code verifier decides). The JWT and introspection
    /// verifiers check the audience themselves, so naming it with them is an error.
    #[serde(default, alias = "requireAudience")]
    pub require_audience: bool,
    /// Verify JWT access tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwt: Option<JwtConfig>,
    /// Verify tokens by RFC 7662 introspection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection: Option<IntrospectionConfig>,
}

/// JWT verification.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JwtConfig {
    /// The `iss` every token must carry.
    #[serde(default)]
    pub issuer: String,
    /// The `aud` every token must carry (default: the resource URI, as RFC 8707 asks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// Where the issuer publishes its keys (a JWK Set). One of `jwks_url` and `keys`.
    #[serde(default, alias = "jwksUrl", skip_serializing_if = "Option::is_none")]
    pub jwks_url: Option<String>,
    /// Static keys: JWK objects, or PEM public keys (strings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<Value>,
    /// Accepted algorithms (default `["RS256", "ES256", "EdDSA"]`); HMAC ones are refused
    /// (a resource server must not hold the issuer's signing secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithms: Option<Vec<String>>,
    /// Clock skew tolerated on `exp` and `nbf`, seconds (default 60).
    #[serde(default, alias = "leewaySecs", skip_serializing_if = "Option::is_none")]
    pub leeway_secs: Option<u64>,
    /// How long a fetched JWKS is used before it is fetched again, seconds (default 300).
    #[serde(default, alias = "jwksCacheSecs", skip_serializing_if = "Option::is_none")]
    pub jwks_cache_secs: Option<u64>,
    /// The least time between two fetches caused by unknown `kid`s, milliseconds (default
    /// 10000): a flood of tokens with made-up key ids costs one fetch per interval.
    #[serde(default, alias = "jwksMinRefreshMs", skip_serializing_if = "Option::is_none")]
    pub jwks_min_refresh_ms: Option<u64>,
    /// How long a verified token is remembered (by its SHA-256), seconds (default 60; never
    /// past its `exp`; 0 verifies the signature on every request). A client sends the same
    /// token on every request, and a signature check costs far more than the rest of a call.
    #[serde(default, alias = "cacheSecs", skip_serializing_if = "Option::is_none")]
    pub cache_secs: Option<u64>,
    /// How many verified tokens are remembered (default 10000).
    #[serde(default, alias = "cacheCapacity", skip_serializing_if = "Option::is_none")]
    pub cache_capacity: Option<u64>,
}

/// RFC 7662 token introspection. Its `Debug` output leaves the client secret out.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntrospectionConfig {
    /// The introspection endpoint.
    #[serde(default)]
    pub url: String,
    /// This resource server's client id at the authorization server (HTTP Basic).
    #[serde(default, alias = "clientId")]
    pub client_id: String,
    /// Its client secret.
    #[serde(default, alias = "clientSecret")]
    pub client_secret: String,
    /// How long an answer is reused, seconds (default 60; never past the token's `exp`).
    #[serde(default, alias = "cacheSecs", skip_serializing_if = "Option::is_none")]
    pub cache_secs: Option<u64>,
    /// How many answers are kept (default 10000; 0 turns the cache off).
    #[serde(default, alias = "cacheCapacity", skip_serializing_if = "Option::is_none")]
    pub cache_capacity: Option<u64>,
}

impl std::fmt::Debug for IntrospectionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionConfig")
            .field("url", &self.url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("cache_secs", &self.cache_secs)
            .field("cache_capacity", &self.cache_capacity)
            .finish()
    }
}

impl AuthConfig {
    /// Read a configuration from JSON (null values are left out; unknown keys refused).
    pub fn from_value(value: Value) -> Result<AuthConfig, AuthConfigError> {
        let Value::Object(map) = value else {
            return Err(AuthConfigError::new("auth", "expected an object of options"));
        };
        let map: Map<String, Value> = map.into_iter().filter(|(_, v)| !v.is_null()).collect();
        // One key at a time first, so the error names the key it is about.
        for (key, value) in &map {
            let one = Value::Object(Map::from_iter([(key.clone(), value.clone())]));
            if let Err(e) = serde_json::from_value::<AuthConfig>(one) {
                let text = e.to_string();
                let message = if text.starts_with("unknown field") && !matches!(key.as_str(), "jwt" | "introspection") {
                    "unknown option".to_owned()
                } else {
                    text
                };
                return Err(AuthConfigError { option: snake_case(key), message });
            }
        }
        let config: AuthConfig =
            serde_json::from_value(Value::Object(map)).map_err(|e| AuthConfigError::new("auth", e.to_string()))?;
        Ok(config)
    }

    /// Read a configuration from JSON text.
    pub fn from_json(text: &str) -> Result<AuthConfig, AuthConfigError> {
        let value = serde_json::from_str(text).map_err(|e| AuthConfigError::new("auth", format!("not JSON: {e}")))?;
        AuthConfig::from_value(value)
    }

    /// Check every value; `custom_verifier` says a verifier is given in code.
    pub(crate) fn validate(&self, custom_verifier: bool) -> Result<(), AuthConfigError> {
        split_resource(&self.resource)?;
        if self.authorization_servers.is_empty() {
            return Err(AuthConfigError::new("authorization_servers", "name at least one authorization server"));
        }
        for s in &self.authorization_servers {
            split_url("authorization_servers", s)?;
        }
        let scope_lists = std::iter::once(("required_scopes", &self.required_scopes))
            .chain(self.tool_scopes.values().map(|v| ("tool_scopes", v)))
            .chain(self.prompt_scopes.values().map(|v| ("prompt_scopes", v)))
            .chain(self.resource_scopes.values().map(|v| ("resource_scopes", v)))
            .chain(self.scopes_supported.iter().map(|v| ("scopes_supported", v)));
        for (key, list) in scope_lists {
            for s in list {
                if s.is_empty()
                    || !s.bytes().all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
                {
                    return Err(AuthConfigError::new(key, format!("{s:?} is not a scope token (RFC 6749 §3.3)")));
                }
            }
        }
        if self.require_audience && !custom_verifier {
            return Err(AuthConfigError::new(
                "require_audience",
                "the jwt and introspection verifiers always check the audience; this is for a verifier given in code",
            ));
        }
        match (&self.jwt, &self.introspection, custom_verifier) {
            (None, None, true) => Ok(()),
            (_, _, true) => Err(AuthConfigError::new(
                "verifier",
                "a verifier given in code replaces jwt and introspection; name neither",
            )),
            (Some(_), Some(_), false) | (None, None, false) => {
                Err(AuthConfigError::new("verifier", "exactly one of jwt and introspection is required"))
            }
            (Some(j), None, false) => j.validate(),
            (None, Some(i), false) => i.validate(),
        }
    }

    /// The scopes the metadata advertises.
    pub fn scopes_supported(&self) -> Vec<String> {
        if let Some(s) = &self.scopes_supported {
            return s.clone();
        }
        let mut all: Vec<String> = Vec::new();
        let lists = std::iter::once(&self.required_scopes)
            .chain(self.tool_scopes.values())
            .chain(self.prompt_scopes.values())
            .chain(self.resource_scopes.values());
        for s in lists.flatten() {
            if !all.contains(s) {
                all.push(s.clone());
            }
        }
        all
    }

    /// The scopes a client without a token is told to ask for (those every request needs).
    pub(crate) fn scopes_to_request(&self) -> Vec<String> {
        self.required_scopes.clone()
    }
}

impl JwtConfig {
    fn validate(&self) -> Result<(), AuthConfigError> {
        if self.issuer.is_empty() {
            return Err(AuthConfigError::new("jwt.issuer", "name the issuer tokens must carry"));
        }
        if let Some(a) = &self.audience {
            if a.is_empty() {
                return Err(AuthConfigError::new("jwt.audience", "must not be empty"));
            }
        }
        match (&self.jwks_url, self.keys.is_empty()) {
            (Some(u), true) => {
                split_url("jwt.jwks_url", u)?;
            }
            (None, false) => {}
            _ => return Err(AuthConfigError::new("jwt", "exactly one of jwks_url and keys is required")),
        }
        super::jwt::algorithms(self)?;
        Ok(())
    }
}

impl IntrospectionConfig {
    fn validate(&self) -> Result<(), AuthConfigError> {
        split_url("introspection.url", &self.url)?;
        if self.client_id.is_empty() {
            return Err(AuthConfigError::new("introspection.client_id", "must not be empty"));
        }
        Ok(())
    }
}

/// A URL's origin (`scheme://authority`) and path; `https`, or `http` on a loopback host.
pub(crate) fn split_url<'a>(key: &str, url: &'a str) -> Result<(&'a str, &'a str), AuthConfigError> {
    let bad = |m: &str| AuthConfigError::new(key, format!("{url:?} {m}"));
    let uri: http::Uri = url.parse().map_err(|_| bad("is not an absolute URL"))?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(bad("is not an absolute URL"));
    };
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().map(|ip| ip.is_loopback()).unwrap_or(false);
    if !(scheme == "https" || (scheme == "http" && loopback)) {
        return Err(bad("must use https (http only on a loopback host)"));
    }
    if uri.query().is_some() || url.contains('#') {
        return Err(bad("must not have a query or a fragment"));
    }
    let origin_len = scheme.len() + 3 + authority.as_str().len();
    Ok((&url[..origin_len], &url[origin_len..]))
}

/// The resource URI split as [`split_url`], under the key `resource`.
pub(crate) fn split_resource(resource: &str) -> Result<(&str, &str), AuthConfigError> {
    if resource.is_empty() {
        return Err(AuthConfigError::new("resource", "name the canonical URI of this server"));
    }
    split_url("resource", resource)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> Value {
        json!({
            "resource": "https://mcp.example.com/mcp",
            "authorizationServers": ["https://as.example.com"],
            "toolScopes": {"whoami": ["mcp:whoami"]},
            "jwt": {"issuer": "https://as.example.com", "jwksUrl": "https://as.example.com/jwks"}
        })
    }

    #[test]
    fn debug_output_leaves_the_introspection_secret_out() {
        let c = IntrospectionConfig {
            url: "https://as.example.com/introspect".into(),
            client_id: "rs".into(),
            client_secret: "hunter2-secret".into(),
            ..Default::default()
        };
        let shown = format!("{c:?}");
        assert!(!shown.contains("hunter2-secret") && shown.contains("client_secret: \"<redacted>\""), "{shown}");
    }

    #[test]
    fn camel_and_snake_keys_read_the_same() {
        let c = AuthConfig::from_value(base()).unwrap();
        assert_eq!(c.tool_scopes["whoami"], ["mcp:whoami"]);
        assert_eq!(c.jwt.as_ref().unwrap().jwks_url.as_deref(), Some("https://as.example.com/jwks"));
        c.validate(false).unwrap();
        assert_eq!(c.scopes_supported(), ["mcp:whoami"]);
    }

    #[test]
    fn bad_values_name_their_key() {
        let err = |patch: Value| {
            let mut v = base();
            for (k, x) in patch.as_object().unwrap() {
                v[k] = x.clone();
            }
            match AuthConfig::from_value(v) {
                Err(e) => e.to_string(),
                Ok(c) => c.validate(false).unwrap_err().to_string(),
            }
        };
        assert_eq!(err(json!({"bogus": 1})), "invalid auth option bogus: unknown option");
        assert_eq!(
            err(json!({"resource": "http://mcp.example.com/mcp"})),
            "invalid auth option resource: \"http://mcp.example.com/mcp\" must use https (http only on a loopback host)"
        );
        assert_eq!(
            err(json!({"authorizationServers": []})),
            "invalid auth option authorization_servers: name at least one authorization server"
        );
        assert_eq!(
            err(json!({"toolScopes": {"t": ["a b"]}})),
            "invalid auth option tool_scopes: \"a b\" is not a scope token (RFC 6749 §3.3)"
        );
        assert_eq!(
            err(json!({"jwt": {"issuer": "i", "jwksUrl": "https://as/jwks", "algorithms": ["HS256"]}})),
            "invalid auth option jwt.algorithms: HS256 is not accepted (use RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 or EdDSA)"
        );
        assert_eq!(
            err(json!({"jwt": {"issuer": "i"}})),
            "invalid auth option jwt: exactly one of jwks_url and keys is required"
        );
        assert_eq!(
            err(json!({"jwt": null})),
            "invalid auth option verifier: exactly one of jwt and introspection is required"
        );
    }

    #[test]
    fn urls_split_into_origin_and_path() {
        assert_eq!(split_resource("https://h:8443/a/mcp").unwrap(), ("https://h:8443", "/a/mcp"));
        assert_eq!(split_resource("http://127.0.0.1:9/mcp").unwrap(), ("http://127.0.0.1:9", "/mcp"));
        assert_eq!(split_resource("https://h").unwrap(), ("https://h", ""));
        assert!(split_resource("https://h/mcp?x=1").is_err());
        assert!(split_resource("mcp").is_err());
    }
}
