//! What the transport knows about a request besides its JSON, for handlers to read: the HTTP
//! request head (method, path, headers, extensions an outer middleware inserted), the remote
//! address, values the host application attached, and the caller's verified identity. Empty
//! for stdio and in-process calls.
//!
//! A host that mounts the HTTP endpoint in its own app passes these along in the request's
//! extensions: [`RemoteAddr`] for the peer address and [`HostValues`] for anything it wants
//! handlers to see (an ASGI scope entry, an express `req` property, a tenant id).

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::auth::Identity;

/// The peer address of an HTTP request, as a request extension. Ferrite's own listener inserts
/// it; a host server that mounts the endpoint inserts it when it knows the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteAddr(pub SocketAddr);

/// Values the host application attached to an HTTP request (as a request extension), by
/// name. Handlers read them with [`RequestInfo::host_value`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostValues(pub Map<String, Value>);

/// What the transport knows about a request besides its JSON. Cheap to clone.
#[derive(Clone, Default)]
pub struct RequestInfo {
    http: Option<Arc<http::request::Parts>>,
    identity: Option<Arc<Identity>>,
}

/// Headers never shown by `Debug` (credentials).
pub const SENSITIVE_HEADERS: [&str; 5] = ["authorization", "cookie", "proxy-authorization", "set-cookie", "x-api-key"];

impl std::fmt::Debug for RequestInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("RequestInfo");
        if let Some(p) = &self.http {
            let headers: Vec<(&str, &str)> = p
                .headers
                .iter()
                .map(|(n, v)| {
                    let shown = if SENSITIVE_HEADERS.contains(&n.as_str()) {
                        "<redacted>"
                    } else {
                        v.to_str().unwrap_or("<binary>")
                    };
                    (n.as_str(), shown)
                })
                .collect();
            d.field("method", &p.method).field("uri", &p.uri).field("headers", &headers);
            if let Some(addr) = self.remote_addr() {
                d.field("remote_addr", &addr);
            }
        }
        d.field("identity", &self.identity).finish()
    }
}

impl RequestInfo {
    /// Info for a request that came over HTTP with this head.
    pub fn from_http(parts: Arc<http::request::Parts>) -> Self {
        RequestInfo { http: Some(parts), identity: None }
    }
    /// The same info with the caller's verified identity (what the HTTP transport sets after
    /// verifying a bearer token; a host that authenticates by other means may set its own).
    pub fn with_identity(mut self, identity: impl Into<Arc<Identity>>) -> Self {
        self.identity = Some(identity.into());
        self
    }
    /// The same info with an identity that has only this subject.
    pub fn with_subject(self, subject: impl Into<Arc<str>>) -> Self {
        self.with_identity(Identity::new(subject))
    }
    /// The HTTP request head, when the request came over HTTP.
    pub fn http(&self) -> Option<&http::request::Parts> {
        self.http.as_deref()
    }
    /// The HTTP method (`POST` for every MCP request over HTTP).
    pub fn method(&self) -> Option<&str> {
        self.http.as_deref().map(|p| p.method.as_str())
    }
    /// The request path as the client sent it (with the mount prefix a host router may have
    /// stripped).
    pub fn path(&self) -> Option<&str> {
        self.http.as_deref().map(|p| p.uri.path())
    }
    /// The HTTP headers, when the request came over HTTP (read-only).
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.http.as_deref().map(|p| &p.headers)
    }
    /// One header by case-insensitive name, when it is visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers().and_then(|h| h.get(name)).and_then(|v| v.to_str().ok())
    }
    /// The peer address, when the transport knows it.
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.extension::<RemoteAddr>().map(|a| a.0)
    }
    /// Everything the host attached.
    pub fn host_values(&self) -> Option<&Map<String, Value>> {
        self.extension::<HostValues>().map(|v| &v.0)
    }
    /// One value the host attached, by name.
    pub fn host_value(&self, name: &str) -> Option<&Value> {
        self.host_values().and_then(|m| m.get(name))
    }
    /// A request extension of type `T` that an outer middleware inserted.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.http.as_deref().and_then(|p| p.extensions.get::<T>())
    }
    /// The caller's verified identity, when the request was authenticated.
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_deref()
    }
    /// The caller's verified subject (the identity's), when the request was authenticated.
    pub fn subject(&self) -> Option<&str> {
        self.identity.as_deref().map(Identity::subject)
    }
    /// The request head as JSON for a host language: `{"method", "path", "headers": {name:
    /// value, ...} (sensitive ones included: the handler is trusted), "remoteAddr",
    /// "hostValues", "identity"}` (the identity as [`Identity::to_json`], or `null`; never the
    /// token); `null` for stdio and in-process calls.
    pub fn to_json(&self) -> Value {
        let Some(p) = self.http.as_deref() else { return Value::Null };
        let mut headers = Map::new();
        for (name, value) in &p.headers {
            if let Ok(v) = value.to_str() {
                match headers.get_mut(name.as_str()) {
                    // Repeated headers are joined as RFC 9110 allows for list-valued ones.
                    Some(Value::String(prev)) => {
                        prev.push_str(", ");
                        prev.push_str(v);
                    }
                    _ => {
                        headers.insert(name.as_str().to_owned(), Value::String(v.to_owned()));
                    }
                }
            }
        }
        let mut m = Map::new();
        m.insert("method".into(), Value::String(p.method.as_str().to_owned()));
        m.insert("path".into(), Value::String(p.uri.path().to_owned()));
        m.insert("headers".into(), Value::Object(headers));
        m.insert("remoteAddr".into(), self.remote_addr().map_or(Value::Null, |a| Value::String(a.to_string())));
        m.insert("hostValues".into(), Value::Object(self.host_values().cloned().unwrap_or_default()));
        m.insert("identity".into(), self.identity.as_deref().map_or(Value::Null, Identity::to_json));
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info() -> RequestInfo {
        let mut req = http::Request::builder()
            .method("POST")
            .uri("http://h/mcp?x=1")
            .header("authorization", "Bearer secret")
            .header("x-tenant", "acme")
            .header("accept", "a")
            .header("accept", "b")
            .body(())
            .unwrap();
        req.extensions_mut().insert(RemoteAddr("10.0.0.1:5000".parse().unwrap()));
        req.extensions_mut().insert(HostValues(Map::from_iter([("user".to_owned(), json!("ada"))])));
        RequestInfo::from_http(Arc::new(req.into_parts().0))
    }

    #[test]
    fn the_head_is_readable() {
        let i = info();
        assert_eq!((i.method(), i.path(), i.header("X-Tenant")), (Some("POST"), Some("/mcp"), Some("acme")));
        assert_eq!(i.remote_addr(), Some("10.0.0.1:5000".parse().unwrap()));
        assert_eq!(i.host_value("user"), Some(&json!("ada")));
        let j = i.to_json();
        assert_eq!(j["headers"]["accept"], "a, b");
        assert_eq!(j["remoteAddr"], "10.0.0.1:5000");
        assert_eq!(j["hostValues"], json!({"user": "ada"}));
        assert_eq!(j["identity"], Value::Null);
        assert_eq!(RequestInfo::default().to_json(), Value::Null);
        let with = i.with_identity(Identity::new("ada").with_scopes(["s"]));
        assert_eq!((with.subject(), with.to_json()["identity"]["scopes"].clone()), (Some("ada"), json!(["s"])));
    }

    #[test]
    fn debug_redacts_credentials_and_the_subject() {
        let shown = format!("{:?}", info().with_subject("alice"));
        assert!(!shown.contains("secret") && !shown.contains("alice"), "{shown}");
        assert!(shown.contains("<redacted>") && shown.contains("acme"), "{shown}");
    }
}
