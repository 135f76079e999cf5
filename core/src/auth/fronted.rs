//! The authorization server's metadata, served from the MCP server for 2025-03-26 clients.
//!
//! A 2025-03-26 client treats the MCP server as the authorization server (or its front): it
//! reads RFC 8414 metadata at `{base}/.well-known/oauth-authorization-server`, base being the
//! server URL without its path, and knows nothing of Protected Resource Metadata. A resource
//! server answers that path with the metadata of its (first) authorization server, fetched from
//! the authorization server itself (RFC 8414's well-known URL, then OpenID Connect discovery)
//! and kept for five minutes; its endpoints are absolute URLs, so such a client registers,
//! authorizes and gets tokens at the real authorization server.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::config::split_url;
use super::jwt::{http_client, without_url};
use super::AuthConfigError;

/// The path a 2025-03-26 client reads the authorization server's metadata from.
pub const AS_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";

/// How long a fetched document is served before it is fetched again.
const KEEP: Duration = Duration::from_secs(300);

/// How long a failed fetch is remembered (the 503's `Retry-After`): an unreachable authorization
/// server costs one fetch per this long, however many clients ask.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(5);

/// The authorization server's metadata, fetched on first use and kept for [`KEEP`].
pub(crate) struct FrontedMetadata {
    client: reqwest::Client,
    /// Where to look, in order.
    urls: Vec<String>,
    /// The last answer and when it was had (fetches are serialized by this lock).
    kept: tokio::sync::Mutex<Option<(Instant, Result<Value, String>)>>,
}

impl FrontedMetadata {
    pub(crate) fn new(issuer: &str) -> Result<Self, AuthConfigError> {
        let (origin, path) = split_url("authorization_servers", issuer)?;
        let path = path.trim_end_matches('/');
        let urls = vec![
            // RFC 8414 §3.1: the well-known segment goes between the host and the issuer's path.
            format!("{origin}{AS_WELL_KNOWN}{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ];
        let client = http_client().map_err(|e| AuthConfigError::new("authorization_servers", e))?;
        Ok(FrontedMetadata { client, urls, kept: tokio::sync::Mutex::new(None) })
    }

    /// The document, from memory while it is fresh, else fetched; why not when no URL
    /// answered a JSON object.
    pub(crate) async fn get(&self) -> Result<Value, String> {
        let mut kept = self.kept.lock().await;
        if let Some((at, answer)) = kept.as_ref() {
            let fresh = if answer.is_ok() { KEEP } else { RETRY_AFTER };
            if at.elapsed() < fresh {
                return answer.clone();
            }
        }
        let mut answer = Err(String::new());
        for url in &self.urls {
            match self.fetch(url).await {
                Ok(doc) => {
                    answer = Ok(doc);
                    break;
                }
                Err(e) => answer = Err(format!("the authorization server's metadata could not be fetched: {e}")),
            }
        }
        *kept = Some((Instant::now(), answer.clone()));
        answer
    }

    async fn fetch(&self, url: &str) -> Result<Value, String> {
        let resp =
            self.client.get(url).header("accept", "application/json").send().await.map_err(|e| without_url(&e))?;
        if !resp.status().is_success() {
            return Err(format!("HTTP {}", resp.status().as_u16()));
        }
        let body = resp.bytes().await.map_err(|e| without_url(&e))?;
        let doc: Value = serde_json::from_slice(&body).map_err(|e| format!("the document is not JSON: {e}"))?;
        if doc.is_object() {
            Ok(doc)
        } else {
            Err("the document is not a JSON object".to_owned())
        }
    }
}
