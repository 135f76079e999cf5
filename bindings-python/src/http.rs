//! The keyword arguments of `Core.serve_http` turned into the core's `HttpOptions`.
//!
//! Validation lives here, in one place, so a mistake (a zero body limit, a host with a port
//! that could never match, contradictory response modes) is a `ConfigError` when `run()` is
//! called rather than a server that silently rejects every request. Every option left out
//! keeps the core's default.

use std::time::Duration;

use ferrite_core::transport::http::security::{check_host_entry, check_origin_entry, HostPolicy};
use ferrite_core::transport::http::{HttpOptions, ResponseMode};
use pyo3::prelude::*;

use crate::errors;

/// The core's default idle timeout of sessions, in seconds (`None`: sessions never expire);
/// exported so the Python signature shows the real default instead of a sentinel.
pub fn default_session_idle_timeout() -> Option<f64> {
    HttpOptions::default().session_idle_timeout.map(|d| d.as_secs_f64())
}

/// What `serve_http` was given besides the address and the shutdown token.
pub struct HttpArgs {
    pub path: String,
    pub json_response: bool,
    pub response_mode: Option<String>,
    pub max_body_bytes: Option<i64>,
    pub session_idle_timeout: Option<f64>,
    pub allowed_hosts: Option<Vec<String>>,
    pub allowed_origins: Option<Vec<String>>,
    pub allow_any_host: bool,
    pub legacy_sse: bool,
    pub sse_retry: Option<f64>,
    pub resumable: bool,
}

impl HttpArgs {
    /// Validate and build the options; any bad value is a `ConfigError` naming the argument.
    pub fn into_options(self, py: Python<'_>) -> PyResult<HttpOptions> {
        self.build().map_err(|message| errors::message_err(py, "ConfigError", &message))
    }

    fn build(self) -> Result<HttpOptions, String> {
        let mut o = HttpOptions::default();
        if !self.path.starts_with('/') || self.path.contains(['{', '}', '*', '?', '#']) {
            return Err(format!("path {:?} is not a literal path starting with '/'", self.path));
        }
        if self.legacy_sse && [&o.legacy_sse_path, &o.legacy_messages_path].contains(&&self.path) {
            return Err(format!("path {:?} is taken by the legacy HTTP+SSE endpoints (legacy_sse=True)", self.path));
        }
        o.path = self.path;
        o.response_mode = response_mode(self.response_mode.as_deref(), self.json_response)?;
        if let Some(n) = self.max_body_bytes {
            o.max_body_bytes = usize::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("max_body_bytes must be a positive number of bytes, not {n}"))?;
        }
        o.session_idle_timeout = match self.session_idle_timeout {
            None => None,
            Some(s) if s > 0.0 => Some(seconds(s, "session_idle_timeout")?),
            Some(s) => return Err(format!("session_idle_timeout must be positive (None: never), not {s}")),
        };
        if let Some(s) = self.sse_retry {
            o.sse_retry = seconds(s, "sse_retry")?;
        }
        if self.allow_any_host {
            if self.allowed_hosts.is_some() || self.allowed_origins.is_some() {
                return Err("allow_any_host=True turns the Host and Origin checks off: \
                            do not also pass allowed_hosts or allowed_origins"
                    .to_owned());
            }
            o.host_policy = HostPolicy::permissive();
        }
        if let Some(hosts) = self.allowed_hosts {
            o.host_policy.allowed_hosts = Some(names(hosts, "allowed_hosts", check_host_entry)?);
        }
        if let Some(origins) = self.allowed_origins {
            o.host_policy.allowed_origins = Some(names(origins, "allowed_origins", check_origin_entry)?);
        }
        o.legacy_sse = self.legacy_sse;
        if !self.resumable {
            o.event_store = None;
        }
        Ok(o)
    }
}

/// `response_mode` by name; `json_response=True` is the older spelling of `"json"`.
fn response_mode(mode: Option<&str>, json_response: bool) -> Result<ResponseMode, String> {
    let mode = match mode {
        None => None,
        Some("auto") => Some(ResponseMode::Auto),
        Some("json") => Some(ResponseMode::Json),
        Some("sse") => Some(ResponseMode::Sse),
        Some(other) => return Err(format!("response_mode must be 'auto', 'json' or 'sse', not {other:?}")),
    };
    match (mode, json_response) {
        (Some(m), true) if m != ResponseMode::Json => {
            Err("json_response=True contradicts the response_mode given; pass only response_mode".to_owned())
        }
        (Some(m), _) => Ok(m),
        (None, true) => Ok(ResponseMode::Json),
        (None, false) => Ok(ResponseMode::Auto),
    }
}

/// A non-negative, finite number of seconds as a `Duration`.
fn seconds(s: f64, what: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| format!("{what} must be a finite, non-negative number of seconds, not {s}"))
}

/// A non-empty allow-list whose entries all pass the core's `check` (an empty list would
/// refuse everything, which is never what is meant: `allow_any_host` is the way to turn a
/// check off).
fn names(list: Vec<String>, what: &str, check: fn(&str) -> Result<(), &'static str>) -> Result<Vec<String>, String> {
    if list.is_empty() {
        return Err(format!("{what} is empty, which would refuse every request (allow_any_host=True accepts any)"));
    }
    for entry in &list {
        check(entry).map_err(|why| format!("invalid {what} entry {entry:?}: {why}"))?;
    }
    Ok(list)
}
