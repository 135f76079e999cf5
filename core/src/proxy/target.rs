//! Where a proxy's upstream is, as every binding describes it (a JSON object), and why a
//! proxy could not be set up.

use std::time::Duration;

use serde_json::Value;

use super::link::UpstreamEra;
use crate::protocol::ErrorObject;

/// Where the upstream server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamTarget {
    /// A program to start, speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables added to the proxy's.
        env: Vec<(String, String)>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// Its URL (`http://host:port/mcp`).
        url: String,
        /// Headers sent with every request (an `Authorization`, say).
        headers: Vec<(String, String)>,
    },
}

impl UpstreamTarget {
    /// Parse the JSON form every binding passes: `{"command": "prog", "args": [...],
    /// "env": {...}}` or `{"url": "http://...", "headers": {...}}`.
    pub fn from_value(v: &Value) -> Result<Self, ProxyError> {
        let bad = |what: &str| ProxyError::Target(what.to_owned());
        let pairs = |key: &str| -> Result<Vec<(String, String)>, ProxyError> {
            match v.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| {
                        v.as_str()
                            .map(|s| (k.clone(), s.to_owned()))
                            .ok_or_else(|| bad(&format!("{key} values must be strings")))
                    })
                    .collect(),
                Some(_) => Err(bad(&format!("{key} must be an object of strings"))),
            }
        };
        match (v.get("command"), v.get("url")) {
            (Some(Value::String(program)), None) => {
                let args = match v.get("args") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|x| x.as_str().map(str::to_owned).ok_or_else(|| bad("args must be strings")))
                        .collect::<Result<_, _>>()?,
                    Some(_) => return Err(bad("args must be an array of strings")),
                };
                Ok(UpstreamTarget::Stdio { program: program.clone(), args, env: pairs("env")? })
            }
            (None, Some(Value::String(url))) => {
                Ok(UpstreamTarget::Http { url: url.clone(), headers: pairs("headers")? })
            }
            _ => Err(bad("give either command (a string) or url (a string)")),
        }
    }
}

/// How the proxy talks to its upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpstreamOptions {
    /// The revision spoken upstream.
    pub era: UpstreamEra,
    /// How long a request to the upstream may go without an answer, a progress notification
    /// for it, or a question of the upstream's open with the client. Past it the request is
    /// cancelled upstream and fails with `-32001` (the official TypeScript SDK client's code).
    pub timeout: Duration,
}

/// The upstream request timeout when none is given: the official TypeScript SDK's client's.
pub const DEFAULT_UPSTREAM_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for UpstreamOptions {
    fn default() -> Self {
        UpstreamOptions { era: UpstreamEra::Auto, timeout: DEFAULT_UPSTREAM_TIMEOUT }
    }
}

impl UpstreamOptions {
    /// The default options in `era`.
    pub fn era(era: UpstreamEra) -> Self {
        UpstreamOptions { era, ..Self::default() }
    }

    /// These options with `timeout`.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        UpstreamOptions { timeout, ..self }
    }
}

/// Parse the JSON every binding passes for an upstream: the target's keys (see
/// [`UpstreamTarget::from_value`]), `"era"`: `"auto"` (the default), `"handshake"` or
/// `"modern"`, and `"timeout_ms"`: a positive whole number of milliseconds (see
/// [`UpstreamOptions::timeout`]; [`DEFAULT_UPSTREAM_TIMEOUT`] when absent or null).
pub fn parse_upstream(v: &Value) -> Result<(UpstreamTarget, UpstreamOptions), ProxyError> {
    let era = match v.get("era") {
        None | Some(Value::Null) => UpstreamEra::Auto,
        Some(Value::String(e)) if e == "auto" => UpstreamEra::Auto,
        Some(Value::String(e)) if e == "handshake" => UpstreamEra::Handshake,
        Some(Value::String(e)) if e == "modern" => UpstreamEra::Modern,
        Some(other) => {
            return Err(ProxyError::Target(format!("era must be \"auto\", \"handshake\" or \"modern\", not {other}")))
        }
    };
    let timeout = match v.get("timeout_ms") {
        None | Some(Value::Null) => DEFAULT_UPSTREAM_TIMEOUT,
        Some(t) => match t.as_u64() {
            Some(ms) if ms > 0 => Duration::from_millis(ms),
            _ => return Err(ProxyError::Target(format!("timeout_ms must be a positive whole number, not {t}"))),
        },
    };
    Ok((UpstreamTarget::from_value(v)?, UpstreamOptions { era, timeout }))
}

/// Why a proxy could not be set up.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// The target does not describe an upstream.
    #[error("invalid upstream: {0}")]
    Target(String),
    /// The upstream could not be started or reached.
    #[error("cannot reach the upstream server: {0}")]
    Connect(String),
    /// The upstream refused a request the proxy needs.
    #[error("the upstream server answered {method} with an error: {error}")]
    Upstream {
        /// The method.
        method: String,
        /// Its error.
        error: ErrorObject,
    },
    /// An answer of the upstream does not have the shape the protocol gives it.
    #[error("the upstream server's {method} answer is malformed: {detail}")]
    Malformed {
        /// The method.
        method: String,
        /// What is wrong.
        detail: String,
    },
}
