//! Ferrite as an OAuth resource server, end to end over HTTP with real signed JWTs: keys are
//! generated per run (RSA, P-256, Ed25519), the JWK Set and an RFC 7662 introspection endpoint
//! are served on loopback by the test (the fixtures are in `resource_server/`), and every refusal is checked for its exact status and
//! `WWW-Authenticate` header, followed by a request that shows the server still serving.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use ferrite_core::auth::{AuthConfig, Identity, ResourceServer};
use ferrite_core::transport::http::HttpOptions;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

mod common;
mod resource_server;
use common::http::{read_response, send_body_late};
use resource_server::*;

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
