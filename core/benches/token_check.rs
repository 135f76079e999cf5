//! What verifying a bearer token costs per request, with and without the verified-token cache
//! (`jwt.cache_secs`), for each signature algorithm the JWT verifier takes: the figure the
//! HTTP benchmark's `ferrite (rust, auth)` row cannot show, since its one token is verified
//! once per cache period. Keys are generated per run, the tokens signed here (`jsonwebtoken`),
//! the keys given statically so no JWK Set fetch is timed.
//!
//!     cargo bench -p ferrite-core --bench token_check [-- ITERATIONS]

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{EcdsaKeyPair, Ed25519KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use base64::Engine as _;
use ferrite_core::auth::{AuthConfig, ResourceServer};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::json;

const ISSUER: &str = "https://as.example.test";
const RESOURCE: &str = "https://mcp.example.test/mcp";

fn key(alg: Algorithm) -> EncodingKey {
    use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der};
    match alg {
        Algorithm::RS256 => {
            let pair = aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).expect("RSA key");
            let der: Pkcs8V1Der<'static> = pair.as_der().expect("PKCS#8");
            let b64 = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
            let pem = format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n");
            EncodingKey::from_rsa_pem(pem.as_bytes()).expect("RSA PEM")
        }
        Algorithm::ES256 => {
            let doc =
                EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new()).expect("P-256");
            EncodingKey::from_ec_der(doc.as_ref())
        }
        _ => {
            EncodingKey::from_ed_der(Ed25519KeyPair::generate_pkcs8v1(&SystemRandom::new()).expect("Ed25519").as_ref())
        }
    }
}

fn main() {
    let iterations: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let now = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock").as_secs();
    println!("token check, {iterations} verifications each (one token, ResourceServer::verify)");
    println!("{:<6} {:>16} {:>16} {:>8}", "alg", "no cache µs", "cached µs", "ratio");
    for alg in [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA] {
        let signing = key(alg);
        let mut jwk = Jwk::from_encoding_key(&signing, alg).expect("JWK");
        jwk.common.key_id = Some("k1".into());
        let mut header = Header::new(alg);
        header.kid = Some("k1".into());
        let claims = json!({"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "scope": "mcp:whoami",
            "exp": now + 3600, "iat": now});
        let token = encode(&header, &claims, &signing).expect("sign");
        let per_call = |cache_secs: u64| {
            let config = json!({"resource": RESOURCE, "authorization_servers": [ISSUER],
                "jwt": {"issuer": ISSUER, "keys": [jwk], "cache_secs": cache_secs}});
            let rs = ResourceServer::from_config(AuthConfig::from_value(config).expect("config")).expect("server");
            rt.block_on(async {
                rs.verify(&token).await.expect("a valid token"); // warm-up (and the first cache fill)
                let start = Instant::now();
                for _ in 0..iterations {
                    std::hint::black_box(rs.verify(&token).await.expect("a valid token"));
                }
                start.elapsed().as_secs_f64() * 1e6 / f64::from(iterations)
            })
        };
        let (none, cached) = (per_call(0), per_call(60));
        println!("{:<6} {:>16.2} {:>16.2} {:>8.1}", format!("{alg:?}"), none, cached, none / cached);
    }
}
