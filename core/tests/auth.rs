//! Ferrite as an OAuth resource server, end to end over HTTP with real signed JWTs: keys are
//! generated here (RSA, P-256, Ed25519), the JWK Set and an RFC 7662 introspection endpoint
//! are served on loopback by the test, and every refusal is checked for its exact status and
//! `WWW-Authenticate` header, followed by a request that shows the server still serving.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{EcdsaKeyPair, Ed25519KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use axum::routing::{get, post};
use axum::Router;
use base64::Engine as _;
use ferrite_core::auth::{AuthConfig, Identity, ResourceServer};
use ferrite_core::transport::http::{bind, HttpOptions};
use ferrite_core::{CallToolResult, GetPromptResult, Implementation, Prompt, RequestContext, Resource, Server, Tool};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

mod common;
use common::http::{read_response, send_body_late};

const ISSUER: &str = "https://as.example.test";

/// A signing key and its public JWK (with its `kid`).
struct SigningKey {
    alg: Algorithm,
    kid: String,
    key: EncodingKey,
}

impl SigningKey {
    fn rsa(kid: &str) -> Self {
        let pair = aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).unwrap();
        let der: Pkcs8V1Der<'static> = pair.as_der().unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
        let pem = format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n");
        SigningKey { alg: Algorithm::RS256, kid: kid.into(), key: EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap() }
    }
    fn p256(kid: &str) -> Self {
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new()).unwrap();
        SigningKey { alg: Algorithm::ES256, kid: kid.into(), key: EncodingKey::from_ec_der(doc.as_ref()) }
    }
    fn ed25519(kid: &str) -> Self {
        let doc = Ed25519KeyPair::generate_pkcs8v1(&SystemRandom::new()).unwrap();
        SigningKey { alg: Algorithm::EdDSA, kid: kid.into(), key: EncodingKey::from_ed_der(doc.as_ref()) }
    }
    fn jwk(&self) -> Jwk {
        let mut jwk = Jwk::from_encoding_key(&self.key, self.alg).unwrap();
        jwk.common.key_id = Some(self.kid.clone());
        jwk
    }
    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        encode(&header, claims, &self.key).unwrap()
    }
    /// The same key under another `kid`.
    fn sign_as(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(kid.into());
        encode(&header, claims, &self.key).unwrap()
    }
}

fn json_body<T: serde::Serialize>(v: &T) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    ([(axum::http::header::CONTENT_TYPE, "application/json")], serde_json::to_string(v).unwrap())
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// The issuer side: a JWK Set endpoint (its keys replaceable, its fetches counted) and an
/// introspection endpoint answering from a table.
struct Issuer {
    addr: SocketAddr,
    keys: Arc<Mutex<Vec<Jwk>>>,
    jwks_fetches: Arc<AtomicUsize>,
    introspections: Arc<AtomicUsize>,
    active: Arc<Mutex<Vec<(String, Value)>>>,
    up: Arc<std::sync::atomic::AtomicBool>,
}

async fn issuer(keys: Vec<Jwk>) -> Issuer {
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
async fn protected(resource_for: impl FnOnce(SocketAddr) -> Value) -> (String, String) {
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

fn jwt_config(issuer: &Issuer, extra: Value) -> Value {
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

fn claims(resource: &str, sub: &str, scope: &str) -> Value {
    json!({"iss": ISSUER, "aud": resource, "sub": sub, "scope": scope, "exp": now() + 600, "iat": now(), "client_id": "app"})
}

struct Reply {
    status: u16,
    challenge: Option<String>,
    session: Option<String>,
    body: Value,
}

async fn call(base: &str, token: Option<&str>, session: Option<&str>, body: Value) -> Reply {
    call_raw(base, "/mcp", token.map(|t| format!("Bearer {t}")).as_deref(), session, body).await
}

async fn call_raw(base: &str, path: &str, authorization: Option<&str>, session: Option<&str>, body: Value) -> Reply {
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

fn init() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn tool_call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

/// A session for `token`, initialized; returns its id.
async fn session(base: &str, token: &str) -> String {
    let r = call(base, Some(token), None, init()).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let id = r.session.unwrap();
    let n = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(call(base, Some(token), Some(&id), n).await.status, 202);
    id
}

fn text_of(r: &Reply) -> String {
    r.body["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

fn metadata_url(base: &str) -> String {
    format!("{base}/.well-known/oauth-protected-resource/mcp")
}

fn invalid(base: &str, why: &str) -> String {
    format!("Bearer error=\"invalid_token\", error_description=\"{why}\", resource_metadata=\"{}\"", metadata_url(base))
}

#[tokio::test]
async fn tokens_from_each_key_type_are_verified_and_the_identity_reaches_handlers() {
    let (rsa, ec, ed) = (SigningKey::rsa("r1"), SigningKey::p256("e1"), SigningKey::ed25519("d1"));
    let iss = issuer(vec![rsa.jwk(), ec.jwk(), ed.jwk()]).await;
    let (base, resource) = protected(|_| jwt_config(&iss, json!({}))).await;
    for key in [&rsa, &ec, &ed] {
        let token = key.sign(&claims(&resource, "alice", "mcp:whoami"));
        let s = session(&base, &token).await;
        let r = call(&base, Some(&token), Some(&s), tool_call("whoami")).await;
        assert_eq!((r.status, text_of(&r)), (200, "alice".to_owned()), "{:?}", key.alg);
    }
    let token = ec.sign(&claims(&resource, "alice", "mcp:whoami extra"));
    let s = session(&base, &token).await;
    let r = call(&base, Some(&token), Some(&s), tool_call("me")).await;
    let id: Value = serde_json::from_str(&text_of(&r)).unwrap();
    assert_eq!(id["subject"], "alice");
    assert_eq!(id["clientId"], "app");
    assert_eq!(id["scopes"], json!(["mcp:whoami", "extra"]));
    assert_eq!(id["issuer"], ISSUER);
    assert_eq!(id["claims"]["aud"], json!(resource));
    assert!(!text_of(&r).contains(&token), "the token never reaches handlers");
    assert_eq!(iss.jwks_fetches.load(Ordering::SeqCst), 1, "the JWK Set is fetched once and cached");
}

#[tokio::test]
async fn a_request_without_a_token_gets_the_challenge_and_the_metadata_is_served_at_both_paths() {
    let key = SigningKey::rsa("r1");
    let iss = issuer(vec![key.jwk()]).await;
    let (base, resource) = protected(|_| jwt_config(&iss, json!({"requiredScopes": ["mcp"]}))).await;
    let r = call(&base, None, None, init()).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.challenge.unwrap(), format!("Bearer scope=\"mcp\", resource_metadata=\"{}\"", metadata_url(&base)));
    assert_eq!(r.body["error"]["code"], -32001);
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let resp = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(resp.status(), 200, "{path}");
        assert_eq!(resp.headers()["access-control-allow-origin"], "*");
        let doc: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
        assert_eq!(doc["resource"], json!(resource), "{path}");
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
        assert_eq!(doc["scopes_supported"], json!(["mcp", "mcp:whoami"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
    // A token without the scope every request needs: 403 naming it.
    let r = call(&base, Some(&key.sign(&claims(&resource, "a", "other"))), None, init()).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.challenge.unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"the request needs the scopes: mcp\", scope=\"mcp\", resource_metadata=\"{}\"",
            metadata_url(&base)
        )
    );
    assert_eq!(call(&base, Some(&key.sign(&claims(&resource, "a", "mcp"))), None, init()).await.status, 200);
}

/// The OAuth client's first steps on one keep-alive connection: a POST without a token whose
/// body arrives after its head (the server can answer 401 from the head alone), then the GET of
/// the metadata the challenge names. The 401 waits for the body, so the GET is answered on the
/// same connection; a body too large to drain gets `Connection: close` on its 401 instead of a
/// connection closed without a word.
#[tokio::test]
async fn a_401_given_before_the_body_arrived_leaves_the_connection_usable_for_the_next_request() {
    let key = SigningKey::rsa("r1");
    let iss = issuer(vec![key.jwk()]).await;
    let (base, _) = protected(|_| jwt_config(&iss, json!({}))).await;
    let addr: SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let body = init().to_string();
    let head = |len: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {len}\r\n\r\n"
        )
    };
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    send_body_late(&mut tcp, &head(body.len()), &body, Duration::from_millis(150)).await;
    let (status, headers, text) = read_response(&mut tcp).await.expect("the 401");
    assert_eq!(status, 401);
    assert!(headers.contains_key("www-authenticate"), "{headers:?}");
    assert_eq!(headers.get("connection"), None, "a drained request keeps its connection");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["error"]["code"], -32001);
    let get = format!("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nhost: {addr}\r\n\r\n");
    send_body_late(&mut tcp, &get, "", Duration::ZERO).await;
    let (status, _, doc) = read_response(&mut tcp).await.expect("the metadata on the same connection");
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&doc).unwrap()["authorization_servers"], json!([ISSUER]));

    // Declared past the body limit: not read, so the 401 says the connection ends with it.
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let over = HttpOptions::default().max_body_bytes + 1;
    send_body_late(&mut tcp, &head(over), "", Duration::ZERO).await;
    let (status, headers, _) = read_response(&mut tcp).await.expect("the 401");
    assert_eq!(status, 401);
    assert_eq!(headers.get("connection").map(String::as_str), Some("close"));
    assert!(read_response(&mut tcp).await.is_none(), "the server closes the connection it said it would");
}

#[tokio::test]
async fn a_2025_03_26_client_reads_the_authorization_servers_metadata_at_the_mcp_servers_base() {
    let key = SigningKey::rsa("r1");
    let iss = issuer(vec![key.jwk()]).await;
    let as_url = format!("http://{}", iss.addr);
    let (base, _) = protected(|_| jwt_config(&iss, json!({"authorizationServers": [as_url]}))).await;
    let url = format!("{base}/.well-known/oauth-authorization-server");
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let doc: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(doc["issuer"], json!(as_url));
    assert_eq!(doc["token_endpoint"], json!(format!("{as_url}/token")), "absolute endpoints of the real server");
    // Kept for five minutes: the authorization server going down does not change the answer.
    iss.up.store(false, Ordering::SeqCst);
    let again: Value = serde_json::from_str(&reqwest::get(&url).await.unwrap().text().await.unwrap()).unwrap();
    assert_eq!(again, doc);
    assert_eq!(reqwest::Client::new().post(&url).send().await.unwrap().status(), 405, "only GET");

    // An authorization server that cannot be reached: 503 with Retry-After, and the server
    // keeps serving.
    let down = issuer(vec![key.jwk()]).await;
    down.up.store(false, Ordering::SeqCst);
    let down_url = format!("http://{}", down.addr);
    let (base, resource) = protected(|_| jwt_config(&down, json!({"authorizationServers": [down_url]}))).await;
    let resp = reqwest::get(format!("{base}/.well-known/oauth-authorization-server")).await.unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "5");
    let body: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], -32603);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the authorization server's metadata could not be fetched: "),
        "{body}"
    );
    down.up.store(true, Ordering::SeqCst);
    let token = key.sign(&claims(&resource, "a", "mcp:whoami"));
    assert_eq!(call(&base, Some(&token), None, init()).await.status, 200);
}

#[tokio::test]
async fn invalid_tokens_get_401_with_the_reason_and_the_server_keeps_serving() {
    let key = SigningKey::rsa("r1");
    let stranger = SigningKey::rsa("r1");
    let iss = issuer(vec![key.jwk()]).await;
    let (base, resource) = protected(|_| jwt_config(&iss, json!({}))).await;
    let good = claims(&resource, "alice", "");
    let with = |patch: Value| {
        let mut c = good.clone();
        for (k, v) in patch.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    };
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let none = format!("{}.{}.", b64(&json!({"alg": "none", "typ": "JWT"})), b64(&good));
    // Algorithm confusion: HS256 keyed with the public key's bytes.
    let hs = encode(&Header::new(Algorithm::HS256), &good, &EncodingKey::from_secret(b"public key bytes")).unwrap();
    let cases = [
        (key.sign(&with(json!({"exp": now() - 600}))), "the token has expired"),
        (key.sign(&with(json!({"nbf": now() + 600}))), "the token is not valid yet (nbf)"),
        (key.sign(&with(json!({"aud": "https://other.example/mcp"}))), "the token is for another audience"),
        (key.sign(&with(json!({"iss": "https://evil.example"}))), "the token's issuer is not trusted"),
        (stranger.sign(&good), "the token's signature does not verify"),
        (none, "the token is not a well-formed signed JWT"),
        (hs, "the token's algorithm HS256 is not accepted"),
        ("not-a-jwt".to_owned(), "the token is not a well-formed signed JWT"),
    ];
    for (token, why) in cases {
        let r = call(&base, Some(&token), None, init()).await;
        assert_eq!((r.status, r.challenge.as_deref()), (401, Some(invalid(&base, why).as_str())), "{why}");
        assert_eq!(call(&base, Some(&key.sign(&good)), None, init()).await.status, 200, "still serving after: {why}");
    }
}

#[tokio::test]
async fn malformed_authorization_headers_and_query_tokens_are_400() {
    let key = SigningKey::rsa("r1");
    let iss = issuer(vec![key.jwk()]).await;
    let (base, resource) = protected(|_| jwt_config(&iss, json!({}))).await;
    let meta = metadata_url(&base);
    let cases = [
        ("Bearer", "the Bearer credentials carry no token"),
        ("Bearer a b", "the bearer token has characters RFC 6750 does not allow (b64token)"),
    ];
    for (header, why) in cases {
        let r = call_raw(&base, "/mcp", Some(header), None, init()).await;
        assert_eq!(r.status, 400, "{header}");
        assert_eq!(
            r.challenge.unwrap(),
            format!("Bearer error=\"invalid_request\", error_description=\"{why}\", resource_metadata=\"{meta}\"")
        );
    }
    let token = key.sign(&claims(&resource, "a", ""));
    let r = call_raw(&base, &format!("/mcp?access_token={token}"), None, None, init()).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.challenge.unwrap(),
        format!("Bearer error=\"invalid_request\", error_description=\"access tokens are accepted only in the Authorization header\", resource_metadata=\"{meta}\"")
    );
    // Another scheme is no bearer token at all: the bare challenge.
    let r = call_raw(&base, "/mcp", Some("Basic dXNlcjpwdw=="), None, init()).await;
    assert_eq!((r.status, r.challenge.unwrap()), (401, format!("Bearer resource_metadata=\"{meta}\"")));
    assert_eq!(call(&base, Some(&token), None, init()).await.status, 200);
}

#[tokio::test]
async fn a_missing_tool_scope_is_403_with_the_step_up_challenge_or_hidden_as_configured() {
    let key = SigningKey::p256("e1");
    let iss = issuer(vec![key.jwk()]).await;
    for hide in [false, true] {
        let (base, resource) = protected(|_| jwt_config(&iss, json!({"hideUnauthorized": hide}))).await;
        let token = key.sign(&claims(&resource, "bob", "other"));
        let s = session(&base, &token).await;
        let r = call(&base, Some(&token), Some(&s), tool_call("whoami")).await;
        assert_eq!(r.status, 403);
        assert_eq!(
            r.challenge.unwrap(),
            format!(
                "Bearer error=\"insufficient_scope\", error_description=\"the request needs the scopes: mcp:whoami\", scope=\"mcp:whoami\", resource_metadata=\"{}\"",
                metadata_url(&base)
            )
        );
        let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
        let r = call(&base, Some(&token), Some(&s), list.clone()).await;
        let names: Vec<&str> =
            r.body["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names.contains(&"whoami"), !hide, "hide_unauthorized = {hide}");
        // With the scope: listed and callable.
        let token = key.sign(&claims(&resource, "bob", "mcp:whoami"));
        let s = session(&base, &token).await;
        let r = call(&base, Some(&token), Some(&s), list).await;
        assert!(r.body["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "whoami"));
        let r = call(&base, Some(&token), Some(&s), tool_call("whoami")).await;
        assert_eq!((r.status, text_of(&r)), (200, "bob".to_owned()));
    }
}

#[tokio::test]
async fn prompt_and_resource_scopes_are_403_or_hidden_and_scp_and_leeway_are_honoured() {
    let key = SigningKey::rsa("r1");
    let iss = issuer(vec![key.jwk()]).await;
    let get_prompt = json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "briefing"}});
    let read = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "test://secret"}});
    let step_up = |base: &str, scope: &str| {
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"the request needs the scopes: {scope}\", scope=\"{scope}\", resource_metadata=\"{}\"",
            metadata_url(base)
        )
    };
    for hide in [false, true] {
        let extra = json!({
            "promptScopes": {"briefing": ["mcp:prompts"]},
            "resourceScopes": {"test://secret": ["mcp:secrets"]},
            "hideUnauthorized": hide,
        });
        let (base, resource) = protected(|_| jwt_config(&iss, extra)).await;
        let token = key.sign(&claims(&resource, "bob", "mcp:whoami"));
        let s = session(&base, &token).await;
        let r = call(&base, Some(&token), Some(&s), get_prompt.clone()).await;
        assert_eq!((r.status, r.challenge.unwrap()), (403, step_up(&base, "mcp:prompts")), "prompts/get");
        let r = call(&base, Some(&token), Some(&s), read.clone()).await;
        assert_eq!((r.status, r.challenge.unwrap()), (403, step_up(&base, "mcp:secrets")), "resources/read");
        let lists =
            [("prompts/list", "prompts", "name", "briefing"), ("resources/list", "resources", "uri", "test://secret")];
        for (method, key_, field, name) in lists {
            let r = call(&base, Some(&token), Some(&s), json!({"jsonrpc": "2.0", "id": 6, "method": method})).await;
            let listed = r.body["result"][key_].as_array().unwrap().iter().any(|e| e[field] == name);
            assert_eq!(listed, !hide, "{method} with hide_unauthorized = {hide}");
        }
        // The scopes in an `scp` array (as some issuers write them): allowed.
        let scp = json!({"iss": ISSUER, "aud": resource, "sub": "bob", "scp": ["mcp:prompts", "mcp:secrets"], "exp": now() + 600});
        let token = key.sign(&scp);
        let s = session(&base, &token).await;
        let r = call(&base, Some(&token), Some(&s), get_prompt.clone()).await;
        assert_eq!((r.status, r.body["result"]["description"].clone()), (200, json!("the briefing")));
        let r = call(&base, Some(&token), Some(&s), read.clone()).await;
        assert_eq!((r.status, r.body["result"]["contents"][0]["text"].clone()), (200, json!("s3cret")));
    }
    // Leeway (60 s by default): a token expired 30 s ago still passes, one expired 120 s ago not.
    let (base, resource) = protected(|_| jwt_config(&iss, json!({}))).await;
    let expired = |ago: u64| key.sign(&json!({"iss": ISSUER, "aud": resource, "sub": "bob", "exp": now() - ago}));
    assert_eq!(call(&base, Some(&expired(30)), None, init()).await.status, 200, "within the leeway");
    let r = call(&base, Some(&expired(120)), None, init()).await;
    assert_eq!(r.status, 401, "past the leeway");
    assert!(r.challenge.unwrap().contains("the token has expired"));
}

#[tokio::test]
async fn a_session_belongs_to_its_subject() {
    let key = SigningKey::ed25519("d1");
    let iss = issuer(vec![key.jwk()]).await;
    let (base, resource) = protected(|_| jwt_config(&iss, json!({}))).await;
    let alice = key.sign(&claims(&resource, "alice", "mcp:whoami"));
    let mallory = key.sign(&claims(&resource, "mallory", "mcp:whoami"));
    let s = session(&base, &alice).await;
    let r = call(&base, Some(&mallory), Some(&s), tool_call("whoami")).await;
    assert_eq!(r.status, 404, "another subject's token on the session");
    assert_eq!(r.body["error"]["message"], "Session not found: it expired or was terminated; initialize a new one");
    let r = call(&base, Some(&alice), Some(&s), tool_call("whoami")).await;
    assert_eq!((r.status, text_of(&r)), (200, "alice".to_owned()), "the owner keeps its session");
}

#[tokio::test]
async fn an_unknown_kid_refetches_the_jwks_once_per_interval() {
    let old = SigningKey::rsa("old");
    let iss = issuer(vec![old.jwk()]).await;
    // No verified-token cache here: every request checks its signature against the set.
    let (base, resource) = protected(|_| {
        let mut c = jwt_config(&iss, json!({}));
        c["jwt"]["cacheSecs"] = json!(0);
        c
    })
    .await;
    let c = claims(&resource, "alice", "");
    assert_eq!(call(&base, Some(&old.sign(&c)), None, init()).await.status, 200);
    assert_eq!(iss.jwks_fetches.load(Ordering::SeqCst), 1);
    // The issuer rotates to a new key; the first token naming it makes Ferrite refetch
    // (once the minimum interval since the last fetch has passed).
    let new = SigningKey::rsa("new");
    *iss.keys.lock().unwrap() = vec![new.jwk()];
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(call(&base, Some(&new.sign(&c)), None, init()).await.status, 200);
    assert_eq!(iss.jwks_fetches.load(Ordering::SeqCst), 2);
    // A flood of made-up kids within the interval costs no further fetch.
    for i in 0..20 {
        let r = call(&base, Some(&new.sign_as(&format!("made-up-{i}"), &c)), None, init()).await;
        assert_eq!(r.challenge.as_deref(), Some(invalid(&base, "no key of the issuer verifies this token").as_str()));
    }
    assert_eq!(iss.jwks_fetches.load(Ordering::SeqCst), 2, "unknown kids are rate-limited to one fetch per interval");
    // The old key is gone from the set, its tokens with it.
    let r = call(&base, Some(&old.sign(&c)), None, init()).await;
    assert_eq!(r.status, 401);
    assert_eq!(call(&base, Some(&new.sign(&c)), None, init()).await.status, 200);
}

#[tokio::test]
async fn a_verified_token_is_remembered_until_its_cache_time_passes() {
    let key = SigningKey::rsa("k");
    let iss = issuer(vec![key.jwk()]).await;
    let (base, resource) = protected(|_| {
        let mut c = jwt_config(&iss, json!({}));
        c["jwt"]["cacheSecs"] = json!(1);
        c["jwt"]["jwksCacheSecs"] = json!(0);
        c
    })
    .await;
    let token = key.sign(&claims(&resource, "alice", ""));
    assert_eq!(call(&base, Some(&token), None, init()).await.status, 200);
    // The issuer drops the key: the remembered token still passes (no JWKS fetch needed) ...
    *iss.keys.lock().unwrap() = vec![];
    let fetches = iss.jwks_fetches.load(Ordering::SeqCst);
    assert_eq!(call(&base, Some(&token), None, init()).await.status, 200);
    assert_eq!(iss.jwks_fetches.load(Ordering::SeqCst), fetches, "a remembered token needs no key");
    // ... until its cache time has passed; then the signature is checked again, and fails.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = call(&base, Some(&token), None, init()).await;
    assert_eq!(
        (r.status, r.challenge.as_deref()),
        (401, Some(invalid(&base, "no key of the issuer verifies this token").as_str()))
    );
}

#[tokio::test]
async fn an_unreachable_jwks_is_503_not_401() {
    let key = SigningKey::rsa("r1");
    let iss = issuer(vec![key.jwk()]).await;
    iss.up.store(false, Ordering::SeqCst);
    let (base, resource) = protected(|_| jwt_config(&iss, json!({}))).await;
    let token = key.sign(&claims(&resource, "a", ""));
    let r = call(&base, Some(&token), None, init()).await;
    assert_eq!(r.status, 503);
    assert_eq!(r.challenge, None);
    assert_eq!(
        r.body["error"]["message"],
        "the token could not be verified: the JWKS endpoint answered 500 Internal Server Error"
    );
    iss.up.store(true, Ordering::SeqCst);
    assert_eq!(call(&base, Some(&token), None, init()).await.status, 200);
}

#[tokio::test]
async fn introspection_answers_are_checked_and_cached() {
    let iss = issuer(vec![]).await;
    let (base, resource) = protected(|_| {
        json!({
            "authorizationServers": [ISSUER],
            "toolScopes": {"whoami": ["mcp:whoami"]},
            "introspection": {"url": format!("http://{}/introspect", iss.addr), "clientId": "rs-client", "clientSecret": "rs-secret"}
        })
    })
    .await;
    iss.active.lock().unwrap().extend([
        (
            "opaque-good".to_owned(),
            json!({"active": true, "sub": "carol", "scope": "mcp:whoami", "aud": resource, "exp": now() + 600}),
        ),
        ("opaque-other-aud".to_owned(), json!({"active": true, "sub": "carol", "aud": "https://other/mcp"})),
    ]);
    let s = session(&base, "opaque-good").await;
    let r = call(&base, Some("opaque-good"), Some(&s), tool_call("whoami")).await;
    assert_eq!((r.status, text_of(&r)), (200, "carol".to_owned()));
    assert_eq!(iss.introspections.load(Ordering::SeqCst), 1, "three requests, one introspection (cached)");
    for (token, why) in
        [("opaque-revoked", "the token is not active"), ("opaque-other-aud", "the token is for another audience")]
    {
        let r = call(&base, Some(token), None, init()).await;
        assert_eq!((r.status, r.challenge.as_deref()), (401, Some(invalid(&base, why).as_str())));
    }
    assert_eq!(call(&base, Some("opaque-good"), None, init()).await.status, 200);
}

#[test]
fn identity_debug_never_shows_the_subject_or_claim_values() {
    let id = Identity::new("alice@example.com").with_scopes(["s"]);
    assert!(!format!("{id:?}").contains("alice"));
}

/// A verifier given in code answering each token with the claims of that name.
struct ClaimsByToken;

impl ferrite_core::auth::TokenVerifier for ClaimsByToken {
    fn verify<'a>(
        &'a self,
        token: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<Identity, ferrite_core::auth::AuthError>> {
        let claims = match token {
            "for-us" => json!({"sub": "alice", "aud": "https://mcp.example/mcp"}),
            "for-us-among-others" => {
                json!({"sub": "alice", "aud": ["https://other.example", "https://mcp.example/mcp"]})
            }
            "for-another" => json!({"sub": "alice", "aud": "https://other.example"}),
            _ => json!({"sub": "alice"}),
        };
        Box::pin(async move { Identity::from_claims(claims.as_object().cloned().unwrap_or_default()) })
    }
}

#[tokio::test]
async fn require_audience_makes_the_core_check_a_code_verifiers_aud() {
    let config = |require: bool| -> AuthConfig {
        serde_json::from_value(json!({
            "resource": "https://mcp.example/mcp",
            "authorization_servers": ["https://as.example"],
            "requireAudience": require,
        }))
        .unwrap()
    };
    let checked = ResourceServer::with_verifier(config(true), Arc::new(ClaimsByToken)).unwrap();
    assert_eq!(checked.verify("for-us").await.unwrap().subject(), "alice");
    assert_eq!(checked.verify("for-us-among-others").await.unwrap().subject(), "alice");
    let refused = |token| {
        let checked = &checked;
        async move { checked.verify(token).await.unwrap_err().to_string() }
    };
    assert_eq!(refused("for-another").await, "the token is for another audience");
    assert_eq!(refused("no-aud").await, "the token names no audience (aud)");
    // Off by default: the code verifier decides.
    let unchecked = ResourceServer::with_verifier(config(false), Arc::new(ClaimsByToken)).unwrap();
    assert_eq!(unchecked.verify("for-another").await.unwrap().subject(), "alice");
    assert_eq!(unchecked.verify("no-aud").await.unwrap().subject(), "alice");
    // The JWT and introspection verifiers always check it: naming it with them is an error.
    let mut with_jwt = serde_json::to_value(config(true)).unwrap();
    with_jwt["jwt"] = json!({"issuer": "https://as.example", "jwks_url": "https://as.example/jwks"});
    let err = ResourceServer::from_config(serde_json::from_value(with_jwt).unwrap()).unwrap_err();
    assert_eq!(err.option, "require_audience");
}
