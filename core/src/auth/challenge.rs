//! RFC 6750 on the wire: reading `Authorization: Bearer <token>` and writing the
//! `WWW-Authenticate` challenges (with RFC 9728's `resource_metadata`).

/// What a request's `Authorization` header says.
#[derive(Debug, PartialEq, Eq)]
pub enum Credentials<'a> {
    /// No `Authorization` header, or another scheme (`Basic …`): RFC 6750 §3 answers these
    /// with a bare challenge (no error code), since the client may not know auth is needed.
    Missing,
    /// `Bearer <token>`.
    Bearer(&'a str),
    /// A malformed header: `Bearer` without a token, a token with characters outside
    /// RFC 6750's `b64token`, extra parts, or the header twice (`invalid_request`, 400).
    Malformed(&'static str),
}

/// Read the `Authorization` header values of a request (every occurrence).
pub fn bearer_token<'a>(values: &[&'a [u8]]) -> Credentials<'a> {
    let value = match values {
        [] => return Credentials::Missing,
        [one] => *one,
        _ => return Credentials::Malformed("the Authorization header appears more than once"),
    };
    let Ok(value) = std::str::from_utf8(value) else {
        return Credentials::Malformed("the Authorization header is not visible ASCII");
    };
    let (scheme, rest) = match value.split_once(' ') {
        Some((s, r)) => (s, Some(r)),
        None => (value, None),
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Credentials::Missing;
    }
    let token = rest.map(|r| r.trim_matches(' ')).unwrap_or("");
    if token.is_empty() {
        return Credentials::Malformed("the Bearer credentials carry no token");
    }
    if !is_b64token(token) {
        return Credentials::Malformed("the bearer token has characters RFC 6750 does not allow (b64token)");
    }
    Credentials::Bearer(token)
}

/// RFC 6750 §2.1: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_b64token(t: &str) -> bool {
    let body = t.trim_end_matches('=');
    !body.is_empty() && body.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// The RFC 6750 error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BearerError {
    /// 400: the request is malformed.
    InvalidRequest,
    /// 401: the token is expired, revoked, malformed or invalid.
    InvalidToken,
    /// 403: the token lacks scopes the request needs.
    InsufficientScope,
}

impl BearerError {
    /// The code as written in the challenge.
    pub fn as_str(self) -> &'static str {
        match self {
            BearerError::InvalidRequest => "invalid_request",
            BearerError::InvalidToken => "invalid_token",
            BearerError::InsufficientScope => "insufficient_scope",
        }
    }
}

/// Keep only the characters RFC 6750 allows in `error_description` (and in a `scope`
/// value): `%x20-21 / %x23-5B / %x5D-7E`, so no quote or backslash can break the header.
fn quotable(s: &str) -> String {
    s.chars().filter(|c| matches!(*c as u32, 0x20..=0x21 | 0x23..=0x5B | 0x5D..=0x7E)).collect()
}

/// A `WWW-Authenticate: Bearer …` value: `error` and `error_description` when there is an
/// error, then `scope` (when any scope is named) and `resource_metadata`.
pub fn www_authenticate(error: Option<(BearerError, &str)>, scopes: &[String], resource_metadata: &str) -> String {
    let mut params = Vec::with_capacity(4);
    if let Some((code, description)) = error {
        params.push(format!("error=\"{}\"", code.as_str()));
        let d = quotable(description);
        if !d.is_empty() {
            params.push(format!("error_description=\"{d}\""));
        }
    }
    let scope = quotable(&scopes.join(" "));
    if !scope.is_empty() {
        params.push(format!("scope=\"{scope}\""));
    }
    params.push(format!("resource_metadata=\"{}\"", quotable(resource_metadata)));
    format!("Bearer {}", params.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_read_strictly() {
        assert_eq!(bearer_token(&[]), Credentials::Missing);
        assert_eq!(bearer_token(&[b"Basic dXNlcjpwdw=="]), Credentials::Missing);
        assert_eq!(bearer_token(&[b"Bearer abc.DEF-_~+/=="]), Credentials::Bearer("abc.DEF-_~+/=="));
        assert_eq!(bearer_token(&[b"bearer  abc"]), Credentials::Bearer("abc"));
        for bad in
            [&b"Bearer"[..], b"Bearer ", b"Bearer a b", b"Bearer a,b", b"Bearer \"a\"", b"Bearer ==", b"Bearer \xff"]
        {
            assert!(matches!(bearer_token(&[bad]), Credentials::Malformed(_)), "{:?}", String::from_utf8_lossy(bad));
        }
        assert!(matches!(bearer_token(&[b"Bearer a", b"Bearer b"]), Credentials::Malformed(_)));
    }

    #[test]
    fn challenges_have_the_rfc_shape() {
        let url = "https://rs/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            www_authenticate(None, &["a".into(), "b".into()], url),
            format!("Bearer scope=\"a b\", resource_metadata=\"{url}\"")
        );
        assert_eq!(
            www_authenticate(Some((BearerError::InvalidToken, "bad \"quote\"\\")), &[], url),
            format!("Bearer error=\"invalid_token\", error_description=\"bad quote\", resource_metadata=\"{url}\"")
        );
    }
}
