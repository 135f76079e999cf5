//! The fixtures of the resource-server tests (`auth.rs`): signing keys of each type, an
//! issuer on loopback serving the JWK Set and RFC 7662 introspection, a protected server, and
//! the calls that read back status, challenge, session and body.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{EcdsaKeyPair, Ed25519KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use axum::routing::{get, post};
use axum::Router;
use base64::Engine as _;
use ferrite_core::auth::{AuthConfig, ResourceServer};
use ferrite_core::transport::http::{bind, HttpOptions};
use ferrite_core::{CallToolResult, GetPromptResult, Implementation, Prompt, RequestContext, Resource, Server, Tool};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

pub const ISSUER: &str = "https://as.example.test";

/// A signing key and its public JWK (with its `kid`).
pub struct SigningKey {
    pub alg: Algorithm,
    pub kid: String,
    pub key: EncodingKey,
}

impl SigningKey {
    pub fn rsa(kid: &str) -> Self {
        let pair = aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).unwrap();
        let der: Pkcs8V1Der<'static> = pair.as_der().unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
        let pem = format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n");
        SigningKey { alg: Algorithm::RS256, kid: kid.into(), key: EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap() }
    }
    pub fn p256(kid: &str) -> Self {
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new()).unwrap();
        SigningKey { alg: Algorithm::ES256, kid: kid.into(), key: EncodingKey::from_ec_der(doc.as_ref()) }
    }
    pub fn ed25519(kid: &str) -> Self {
        let doc = Ed25519KeyPair::generate_pkcs8v1(&SystemRandom::new()).unwrap();
        SigningKey { alg: Algorithm::EdDSA, kid: kid.into(), key: EncodingKey::from_ed_der(doc.as_ref()) }
    }
    pub fn jwk(&self) -> Jwk {
        let mut jwk = Jwk::from_encoding_key(&self.key, self.alg).unwrap();
        jwk.common.key_id = Some(self.kid.clone());
        jwk
    }
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        encode(&header, claims, &self.key).unwrap()
    }
    /// The same key under another `kid`.
    pub fn sign_as(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(kid.into());
        encode(&header, claims, &self.key).unwrap()
    }
}

pub fn json_body<T: serde::Serialize>(v: &T) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    ([(axum::http::header::CONTENT_TYPE, "application/json")], serde_json::to_string(v).unwrap())
}

pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// The issuer side: a JWK Set endpoint (its keys replaceable, its fetches counted) and an
/// introspection endpoint answering from a table.
pub struct Issuer {
    pub addr: SocketAddr,
    pub keys: Arc<Mutex<Vec<Jwk>>>,
    pub jwks_fetches: Arc<AtomicUsize>,
    pub introspections: Arc<AtomicUsize>,
    pub active: Arc<Mutex<Vec<(String, Value)>>>,
    pub up: Arc<std::sync::atomic::AtomicBool>,
}

pub async fn issuer(keys: Vec<Jwk>) -> Issuer {
    let keys = Arc::new(Mutex::new(keys));
    let jwks_fetches = Arc::new(AtomicUsize::new(0));
    let introspections = Arc::new(AtomicUsize::new(0));
    let active: Arc<Mutex<Vec<(String, Value)>>> = Arc::new(Mutex::new(Vec::new()));
    let up = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get({
                let up = up.clone();
                move || async move {
                    if !up.load(Ordering::SeqCst) {
                        return Err(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
                    }
                    let url = format!("http://{addr}");
                    Ok(json_body(&json!({
                        "issuer": url,
                        "authorization_endpoint": format!("{url}/authorize"),
                        "token_endpoint": format!("{url}/token"),
                        "response_types_supported": ["code"],
                    })))
                }
            }),
        )
        .route(
            "/jwks",
            get({
                let (keys, n, up) = (keys.clone(), jwks_fetches.clone(), up.clone());
                move || async move {
                    n.fetch_add(1, Ordering::SeqCst);
                    if !up.load(Ordering::SeqCst) {
                        return Err(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
                    }
                    Ok(json_body(&JwkSet { keys: keys.lock().unwrap().clone() }))
                }
            }),
        )
        .route(
            "/introspect",
            post({
                let (n, active) = (introspections.clone(), active.clone());
                move |headers: axum::http::HeaderMap, body: String| async move {
                    n.fetch_add(1, Ordering::SeqCst);
                    let basic = base64::engine::general_purpose::STANDARD.encode("rs-client:rs-secret");
                    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&format!("Basic {basic}")) {
                        return Err(axum::http::StatusCode::UNAUTHORIZED);
                    }
                    let token = body.split('&').find_map(|kv| kv.strip_prefix("token=")).unwrap_or_default().to_owned();
                    let found = active.lock().unwrap().iter().find(|(t, _)| *t == token).map(|(_, v)| v.clone());
                    Ok(json_body(&found.unwrap_or_else(|| json!({"active": false}))))
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Issuer { addr, keys, jwks_fetches, introspections, active, up }
}

/// A protected server: `whoami` needs `mcp:whoami`; `me` answers the identity handlers see.
pub async fn protected(resource_for: impl FnOnce(SocketAddr) -> Value) -> (String, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let resource = format!("http://{addr}/mcp");
    let mut config = resource_for(addr);
    config["resource"] = json!(resource);
    let rs = ResourceServer::from_config(AuthConfig::from_value(config).unwrap()).unwrap();
    let server = Server::builder(Implementation::new("protected", "1")).auth(rs).build();
    server
        .add_tool(Tool::new("whoami", json!({"type": "object"})), |_a: Value, ctx: RequestContext| async move {
            Ok(CallToolResult::text(ctx.subject().unwrap_or("nobody")))
        })
        .unwrap();
    server
        .add_tool(Tool::new("me", json!({"type": "object"})), |_a: Value, ctx: RequestContext| async move {
            Ok(CallToolResult::text(ctx.request_info().to_json()["identity"].to_string()))
        })
        .unwrap();
    server.add_prompt(Prompt::new("briefing"), |_a: serde_json::Map<String, Value>, _c: RequestContext| async move {
        Ok(GetPromptResult { description: Some("the briefing".into()), messages: vec![], meta: None })
    });
    server.add_text_resource(Resource::new("test://secret", "secret"), "s3cret");
    let http = bind(&server, addr, HttpOptions::default()).await.unwrap();
    tokio::spawn(http.run());
    (format!("http://{addr}"), resource)
}

pub fn jwt_config(issuer: &Issuer, extra: Value) -> Value {
    let mut c = json!({
        "authorizationServers": [ISSUER],
        "toolScopes": {"whoami": ["mcp:whoami"]},
        "jwt": {"issuer": ISSUER, "jwksUrl": format!("http://{}/jwks", issuer.addr), "jwksMinRefreshMs": 2000}
    });
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

pub fn claims(resource: &str, sub: &str, scope: &str) -> Value {
    json!({"iss": ISSUER, "aud": resource, "sub": sub, "scope": scope, "exp": now() + 600, "iat": now(), "client_id": "app"})
}

pub struct Reply {
    pub status: u16,
    pub challenge: Option<String>,
    pub session: Option<String>,
    pub body: Value,
}

pub async fn call(base: &str, token: Option<&str>, session: Option<&str>, body: Value) -> Reply {
    call_raw(base, "/mcp", token.map(|t| format!("Bearer {t}")).as_deref(), session, body).await
}

pub async fn call_raw(
    base: &str,
    path: &str,
    authorization: Option<&str>,
    session: Option<&str>,
    body: Value,
) -> Reply {
    let mut req = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(a) = authorization {
        req = req.header("authorization", a);
    }
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let header = |n: &str| resp.headers().get(n).map(|v| v.to_str().unwrap().to_owned());
    let (challenge, session) = (header("www-authenticate"), header("mcp-session-id"));
    let text = resp.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Reply { status, challenge, session, body }
}

pub fn init() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

pub fn tool_call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

/// A session for `token`, initialized; returns its id.
pub async fn session(base: &str, token: &str) -> String {
    let r = call(base, Some(token), None, init()).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let id = r.session.unwrap();
    let n = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(call(base, Some(token), Some(&id), n).await.status, 202);
    id
}

pub fn text_of(r: &Reply) -> String {
    r.body["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

pub fn metadata_url(base: &str) -> String {
    format!("{base}/.well-known/oauth-protected-resource/mcp")
}

pub fn invalid(base: &str, why: &str) -> String {
    format!("Bearer error=\"invalid_token\", error_description=\"{why}\", resource_metadata=\"{}\"", metadata_url(base))
}
