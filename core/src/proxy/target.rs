//! Where a proxy's upstream is, as every binding describes it (a JSON object), and why a
//! proxy could not be set up.

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

/// Parse the JSON every binding passes for an upstream: the target's keys (see
/// [`UpstreamTarget::from_value`]) and `"era"`: `"auto"` (the default), `"handshake"` or
/// `"modern"`.
pub fn parse_upstream(v: &Value) -> Result<(UpstreamTarget, UpstreamEra), ProxyError> {
    let era = match v.get("era") {
        None | Some(Value::Null) => UpstreamEra::Auto,
        Some(Value::String(e)) if e == "auto" => UpstreamEra::Auto,
        Some(Value::String(e)) if e == "handshake" => UpstreamEra::Handshake,
        Some(Value::String(e)) if e == "modern" => UpstreamEra::Modern,
        Some(other) => {
            return Err(ProxyError::Target(format!("era must be \"auto\", \"handshake\" or \"modern\", not {other}")))
        }
    };
    Ok((UpstreamTarget::from_value(v)?, era))
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
