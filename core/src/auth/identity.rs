//! Who is calling: what a verified access token says about its bearer.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::AuthError;

/// The verified identity behind a request: subject, client, scopes, expiry and every claim of
/// the token (or of the introspection answer). It never holds the token itself.
#[derive(Clone, PartialEq)]
pub struct Identity {
    subject: Arc<str>,
    client_id: Option<String>,
    scopes: Vec<String>,
    expires_at: Option<u64>,
    issuer: Option<String>,
    claims: Map<String, Value>,
}

/// The subject and the claims' values are personal data: `Debug` shows the client, scopes,
/// expiry, issuer and the names of the claims only.
impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("subject", &"<redacted>")
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("expires_at", &self.expires_at)
            .field("issuer", &self.issuer)
            .field("claims", &self.claims.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Identity {
    /// An identity with only a subject.
    pub fn new(subject: impl Into<Arc<str>>) -> Self {
        Identity {
            subject: subject.into(),
            client_id: None,
            scopes: Vec::new(),
            expires_at: None,
            issuer: None,
            claims: Map::new(),
        }
    }

    /// The same identity with these scopes (duplicates dropped, order kept).
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.clear();
        for s in scopes {
            let s = s.into();
            if !s.is_empty() && !self.scopes.contains(&s) {
                self.scopes.push(s);
            }
        }
        self
    }

    /// The same identity with this client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The same identity expiring at this time (seconds since the Unix epoch).
    pub fn with_expires_at(mut self, expires_at: u64) -> Self {
        self.expires_at = Some(expires_at);
        self
    }

    /// Build an identity from a token's claims (a JWT payload, an RFC 7662 introspection
    /// answer, or what a host verifier returns): `sub` is the subject (a token without one is
    /// a client acting for itself: `client_id` is its subject then); `client_id` (or `azp`)
    /// the client; the scopes from `scope` (space-separated) or else `scp` (an array or a
    /// space-separated string); `exp` the expiry; `iss` the issuer. Every claim is kept.
    pub fn from_claims(claims: Map<String, Value>) -> Result<Self, AuthError> {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let client_id = text("client_id").or_else(|| text("azp"));
        let subject = text("sub")
            .or_else(|| client_id.clone())
            .ok_or_else(|| AuthError::InvalidToken("the token names no subject (no sub or client_id claim)".into()))?;
        let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(s)), _) => s.split(' ').map(str::to_owned).collect(),
            (Some(_), _) => return Err(AuthError::InvalidToken("the scope claim is not a string".into())),
            (None, Some(Value::String(s))) => s.split(' ').map(str::to_owned).collect(),
            (None, Some(Value::Array(a))) => a
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| AuthError::InvalidToken("the scp claim holds something other than strings".into()))?,
            (None, Some(_)) => {
                return Err(AuthError::InvalidToken("the scp claim is neither a string nor an array".into()))
            }
            (None, None) => Vec::new(),
        };
        let expires_at = match claims.get("exp") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .or_else(|| v.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as u64))
                    .ok_or_else(|| AuthError::InvalidToken("the exp claim is not a number of seconds".into()))?,
            ),
        };
        let issuer = text("iss");
        let mut id = Identity::new(subject).with_scopes(scopes);
        id.client_id = client_id;
        id.expires_at = expires_at;
        id.issuer = issuer;
        id.claims = claims;
        Ok(id)
    }

    /// [`Identity::from_claims`] of a JSON object (what a host-language verifier returns).
    pub fn from_value(value: Value) -> Result<Self, AuthError> {
        match value {
            Value::Object(claims) => Self::from_claims(claims),
            _ => Err(AuthError::InvalidToken("the verifier's answer is not an object of claims".into())),
        }
    }

    /// The subject (`sub`, or the client id of a token without one).
    pub fn subject(&self) -> &str {
        &self.subject
    }
    /// The client the token was issued to (`client_id` or `azp`).
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }
    /// The granted scopes.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
    /// When the token expires (seconds since the Unix epoch).
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }
    /// Who issued the token (`iss`).
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }
    /// Every claim of the token (or of the introspection answer).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
    /// One claim by name.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// The identity as JSON for a host language: `{"subject", "clientId", "scopes",
    /// "expiresAt", "issuer", "claims"}` (absent values are `null`).
    pub fn to_json(&self) -> Value {
        json!({
            "subject": &*self.subject,
            "clientId": self.client_id,
            "scopes": self.scopes,
            "expiresAt": self.expires_at,
            "issuer": self.issuer,
            "claims": self.claims,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn claims_give_subject_client_scopes_and_expiry() {
        let id = Identity::from_claims(claims(json!({
            "sub": "alice", "azp": "app", "scope": "a b a", "exp": 2000000000, "iss": "https://as", "email": "a@x"
        })))
        .unwrap();
        assert_eq!(
            (id.subject(), id.client_id(), id.scopes(), id.expires_at(), id.issuer()),
            ("alice", Some("app"), &["a".to_owned(), "b".to_owned()][..], Some(2000000000), Some("https://as"))
        );
        assert_eq!(id.claim("email"), Some(&json!("a@x")));
        assert!(id.has_scope("b") && !id.has_scope("c"));
    }

    #[test]
    fn scp_is_read_as_an_array_or_a_string_and_scope_wins() {
        let scp = |v: Value| Identity::from_claims(claims(json!({"sub": "s", "scp": v}))).unwrap().scopes().to_vec();
        assert_eq!(scp(json!(["x", "y"])), ["x", "y"]);
        assert_eq!(scp(json!("x y")), ["x", "y"]);
        let both = Identity::from_claims(claims(json!({"sub": "s", "scope": "a", "scp": ["b"]}))).unwrap();
        assert_eq!(both.scopes(), ["a"]);
    }

    #[test]
    fn a_client_token_without_sub_is_its_client() {
        let id = Identity::from_claims(claims(json!({"client_id": "svc"}))).unwrap();
        assert_eq!((id.subject(), id.client_id()), ("svc", Some("svc")));
        assert!(matches!(Identity::from_claims(Map::new()), Err(AuthError::InvalidToken(_))));
        assert!(matches!(Identity::from_value(json!({"sub": "s", "scp": [1]})), Err(AuthError::InvalidToken(_))));
    }

    #[test]
    fn debug_hides_the_subject_and_claim_values() {
        let id = Identity::from_claims(claims(json!({"sub": "alice", "email": "alice@example.com"}))).unwrap();
        let shown = format!("{id:?}");
        assert!(!shown.contains("alice"), "{shown}");
        assert!(shown.contains("email"), "{shown}");
    }
}
