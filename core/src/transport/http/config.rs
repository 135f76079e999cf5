//! The Streamable HTTP configuration as plain data, validated once, here.
//!
//! Every surface takes its HTTP options in its own idiom (Python keyword arguments, a Node
//! options object, C setters, a Go struct) and hands them to this type unchanged in meaning,
//! so one bad value gets one error everywhere and a new option reaches every surface by
//! being added here. [`HttpConfig`] holds only what can be written down (numbers, names,
//! switches); the live parts of [`HttpOptions`] (stores, the shutdown token) are given in
//! code.
//!
//! Keys are snake_case; the camelCase spelling of each key is accepted too, for the
//! surfaces whose idiom it is. Errors name the key in snake_case ([`HttpConfigError::option`]),
//! so a binding can show it in its own spelling ([`camel_case`]).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::security::{check_host_entry, check_origin_entry, HostPolicy};
use super::sse::InMemoryEventStore;
use super::{HttpOptions, ResponseMode};

/// A bad HTTP option: which one (its snake_case key) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid HTTP option {option}: {message}")]
pub struct HttpConfigError {
    /// The option's key, snake_case (`max_body_bytes`); `options` for the object as a whole.
    pub option: String,
    /// Why it was refused.
    pub message: String,
}

impl HttpConfigError {
    fn new(option: &str, message: impl Into<String>) -> Self {
        HttpConfigError { option: option.to_owned(), message: message.into() }
    }

    /// The message with the option's key spelled by `spell` (for example [`camel_case`]).
    pub fn to_string_with(&self, spell: impl Fn(&str) -> String) -> String {
        format!("invalid HTTP option {}: {}", spell(&self.option), self.message)
    }
}

pub use crate::naming::{camel_case, snake_case};

/// How a POST carrying requests is answered, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ResponseModeName {
    /// JSON unless the handler talks first, then SSE (the default).
    #[default]
    Auto,
    /// Always JSON.
    Json,
    /// Always SSE.
    Sse,
}

impl From<ResponseModeName> for ResponseMode {
    fn from(n: ResponseModeName) -> Self {
        match n {
            ResponseModeName::Auto => ResponseMode::Auto,
            ResponseModeName::Json => ResponseMode::Json,
            ResponseModeName::Sse => ResponseMode::Sse,
        }
    }
}

/// The Streamable HTTP options every surface accepts. Every field is optional; what is left
/// out keeps its default (documented per field and in the README). Unknown keys are refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// The address to bind: an IP address (default `127.0.0.1`; `0.0.0.0` or `::` for every
    /// interface).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The port to bind (default 0: any free port, readable once bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// The endpoint path (default `/mcp`): starts with `/`, a literal path (no `{`, `}`,
    /// `*`, `?` or `#`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `auto` (default), `json` or `sse`.
    #[serde(default, alias = "responseMode", skip_serializing_if = "Option::is_none")]
    pub response_mode: Option<ResponseModeName>,
    /// The largest accepted POST body in bytes, larger ones get 413 (default 4 MiB; at least 1).
    #[serde(default, alias = "maxBodyBytes", skip_serializing_if = "Option::is_none")]
    pub max_body_bytes: Option<u64>,
    /// Sessions idle this many milliseconds end (default 30 minutes; 0: never).
    #[serde(default, alias = "sessionIdleTimeoutMs", skip_serializing_if = "Option::is_none")]
    pub session_idle_timeout_ms: Option<u64>,
    /// The most sessions held at once; a new one evicts the longest idle one that is not
    /// busy, or gets 503 when all are (default 10000; 0: unbounded).
    #[serde(default, alias = "maxSessions", skip_serializing_if = "Option::is_none")]
    pub max_sessions: Option<u64>,
    /// Close a connection whose request head has not arrived this many milliseconds after it
    /// opened or went idle (default 30000; 0: never).
    #[serde(default, alias = "headerReadTimeoutMs", skip_serializing_if = "Option::is_none")]
    pub header_read_timeout_ms: Option<u64>,
    /// Answer 408 to a request whose body has not arrived this many milliseconds after its
    /// head (default 30000; 0: never).
    #[serde(default, alias = "bodyReadTimeoutMs", skip_serializing_if = "Option::is_none")]
    pub body_read_timeout_ms: Option<u64>,
    /// Accepted `Host` names, without port (default: `localhost`, `127.0.0.1`, `[::1]`). Not
    /// empty; each a host name, IPv4 address or bracketed IPv6 address.
    #[serde(default, alias = "allowedHosts", skip_serializing_if = "Option::is_none")]
    pub allowed_hosts: Option<Vec<String>>,
    /// Accepted `Origin`s, `scheme://host` (default: http and https on the default hosts).
    /// Not empty. Requests without `Origin` are always accepted.
    #[serde(default, alias = "allowedOrigins", skip_serializing_if = "Option::is_none")]
    pub allowed_origins: Option<Vec<String>>,
    /// Turn the `Host` and `Origin` checks off (behind a proxy that does them; default
    /// false). Contradicts `allowed_hosts` and `allowed_origins`.
    #[serde(default, alias = "allowAnyHost", skip_serializing_if = "Option::is_none")]
    pub allow_any_host: Option<bool>,
    /// Keep SSE events for `Last-Event-ID` resumption (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumable: Option<bool>,
    /// Events the in-memory event store keeps per stream for resumption, oldest dropped
    /// first (default 1024; at least 1). A shared (Redis) event log has its own bound.
    #[serde(default, alias = "maxEventsPerStream", skip_serializing_if = "Option::is_none")]
    pub max_events_per_stream: Option<u64>,
    /// Streams the in-memory event store keeps events of, least recent dropped first
    /// (default 4096; at least 1).
    #[serde(default, alias = "maxEventStreams", skip_serializing_if = "Option::is_none")]
    pub max_event_streams: Option<u64>,
    /// The reconnection delay advertised in SSE `retry`, milliseconds (default 1000).
    #[serde(default, alias = "sseRetryMs", skip_serializing_if = "Option::is_none")]
    pub sse_retry_ms: Option<u64>,
    /// An SSE comment on a stream idle this many milliseconds (default 15000; 0: never).
    #[serde(default, alias = "sseKeepAliveMs", skip_serializing_if = "Option::is_none")]
    pub sse_keep_alive_ms: Option<u64>,
    /// Events buffered per SSE stream before a slow reader is cut off (default 1024; at
    /// least 1).
    #[serde(default, alias = "streamBuffer", skip_serializing_if = "Option::is_none")]
    pub stream_buffer: Option<u64>,
    /// Also serve the deprecated 2024-11-05 HTTP+SSE transport (default false).
    #[serde(default, alias = "legacySse", skip_serializing_if = "Option::is_none")]
    pub legacy_sse: Option<bool>,
    /// The HTTP+SSE stream path (default `/sse`).
    #[serde(default, alias = "legacySsePath", skip_serializing_if = "Option::is_none")]
    pub legacy_sse_path: Option<String>,
    /// The HTTP+SSE message path (default `/messages`).
    #[serde(default, alias = "legacyMessagesPath", skip_serializing_if = "Option::is_none")]
    pub legacy_messages_path: Option<String>,
}

/// The default bind address.
pub const DEFAULT_HOST: &str = "127.0.0.1";

impl HttpConfig {
    /// Read options from a JSON object (snake_case or camelCase keys). A `null` value is the
    /// same as leaving the key out.
    pub fn from_value(value: Value) -> Result<HttpConfig, HttpConfigError> {
        use crate::naming::{read_options, OptionsError};
        read_options(value, "unknown option").map_err(|e| match e {
            OptionsError::Key(option, message) => HttpConfigError { option, message },
            OptionsError::NotObject => HttpConfigError::new("options", "expected an object of options"),
            OptionsError::Whole(why) => HttpConfigError::new("options", why),
        })
    }

    /// Read options from JSON text.
    pub fn from_json(text: &str) -> Result<HttpConfig, HttpConfigError> {
        let value =
            serde_json::from_str(text).map_err(|e| HttpConfigError::new("options", format!("not JSON: {e}")))?;
        HttpConfig::from_value(value)
    }

    /// The address to bind.
    pub fn socket_addr(&self) -> Result<SocketAddr, HttpConfigError> {
        let host = self.host.as_deref().unwrap_or(DEFAULT_HOST);
        let ip: IpAddr = host.trim_start_matches('[').trim_end_matches(']').parse().map_err(|_| {
            HttpConfigError::new("host", format!("{host:?} is not an IP address (bind to 127.0.0.1, 0.0.0.0 or ::)"))
        })?;
        Ok(SocketAddr::new(ip, self.port.unwrap_or(0)))
    }

    /// Check every option and apply them to `options` (whose other fields, such as stores
    /// and the shutdown token, are kept). Nothing is changed when an option is bad.
    pub fn apply(&self, options: &mut HttpOptions) -> Result<(), HttpConfigError> {
        let mut o = options.clone();
        self.socket_addr()?;
        if let Some(p) = &self.path {
            o.path = literal_path("path", p)?;
        }
        if let Some(p) = &self.legacy_sse_path {
            o.legacy_sse_path = literal_path("legacy_sse_path", p)?;
        }
        if let Some(p) = &self.legacy_messages_path {
            o.legacy_messages_path = literal_path("legacy_messages_path", p)?;
        }
        if let Some(on) = self.legacy_sse {
            o.legacy_sse = on;
        }
        if o.legacy_sse {
            for (key, p) in [("legacy_sse_path", &o.legacy_sse_path), ("legacy_messages_path", &o.legacy_messages_path)]
            {
                if *p == o.path {
                    return Err(HttpConfigError::new(key, format!("{p:?} is also the endpoint path")));
                }
            }
            if o.legacy_sse_path == o.legacy_messages_path {
                return Err(HttpConfigError::new("legacy_messages_path", "is the same as legacy_sse_path"));
            }
        }
        if let Some(m) = self.response_mode {
            o.response_mode = m.into();
        }
        if let Some(n) = self.max_body_bytes {
            o.max_body_bytes = usize::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| HttpConfigError::new("max_body_bytes", format!("must be at least 1 byte, not {n}")))?;
        }
        if let Some(ms) = self.session_idle_timeout_ms {
            o.session_idle_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(n) = self.max_sessions {
            o.max_sessions = (n > 0).then(|| usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(ms) = self.header_read_timeout_ms {
            o.header_read_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(ms) = self.body_read_timeout_ms {
            o.body_read_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(ms) = self.sse_retry_ms {
            o.sse_retry = Duration::from_millis(ms);
        }
        if let Some(ms) = self.sse_keep_alive_ms {
            o.sse_keep_alive = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(n) = self.stream_buffer {
            o.stream_buffer = usize::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| HttpConfigError::new("stream_buffer", format!("must be at least 1 event, not {n}")))?;
        }
        if self.allow_any_host == Some(true) {
            for (key, given) in
                [("allowed_hosts", self.allowed_hosts.is_some()), ("allowed_origins", self.allowed_origins.is_some())]
            {
                if given {
                    return Err(HttpConfigError::new(
                        key,
                        "contradicts allow_any_host, which turns the Host and Origin checks off",
                    ));
                }
            }
            o.host_policy = HostPolicy::permissive();
        } else if self.allow_any_host == Some(false) && o.host_policy == HostPolicy::permissive() {
            o.host_policy = HostPolicy::default();
        }
        if let Some(hosts) = &self.allowed_hosts {
            o.host_policy.allowed_hosts = Some(allow_list("allowed_hosts", hosts, check_host_entry)?);
        }
        if let Some(origins) = &self.allowed_origins {
            o.host_policy.allowed_origins = Some(allow_list("allowed_origins", origins, check_origin_entry)?);
        }
        let at_least_one = |key: &str, n: Option<u64>| -> Result<Option<usize>, HttpConfigError> {
            match n {
                None => Ok(None),
                Some(0) => Err(HttpConfigError::new(key, "must be at least 1, not 0")),
                Some(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
            }
        };
        let per_stream = at_least_one("max_events_per_stream", self.max_events_per_stream)?;
        let streams = at_least_one("max_event_streams", self.max_event_streams)?;
        match self.resumable {
            Some(false) => o.event_store = None,
            Some(true) if o.event_store.is_none() => o.event_store = HttpOptions::default().event_store,
            _ => {}
        }
        if (per_stream.is_some() || streams.is_some()) && o.event_store.is_some() {
            let store = InMemoryEventStore::new(
                per_stream.unwrap_or(InMemoryEventStore::DEFAULT_EVENTS_PER_STREAM),
                streams.unwrap_or(InMemoryEventStore::DEFAULT_STREAMS),
            );
            o.event_store = Some(std::sync::Arc::new(store));
        }
        *options = o;
        Ok(())
    }

    /// Options with every default except what this config says.
    pub fn to_options(&self) -> Result<HttpOptions, HttpConfigError> {
        let mut o = HttpOptions::default();
        self.apply(&mut o)?;
        Ok(o)
    }
}

fn literal_path(key: &str, p: &str) -> Result<String, HttpConfigError> {
    if !p.starts_with('/') || p.contains(['{', '}', '*', '?', '#']) || p.chars().any(char::is_whitespace) {
        return Err(HttpConfigError::new(key, format!("{p:?} is not a literal path starting with '/'")));
    }
    Ok(p.to_owned())
}

/// A non-empty allow-list whose entries all pass `check` (an empty list would refuse every
/// request; `allow_any_host` is the way to turn a check off).
fn allow_list(
    key: &str,
    list: &[String],
    check: fn(&str) -> Result<(), &'static str>,
) -> Result<Vec<String>, HttpConfigError> {
    if list.is_empty() {
        return Err(HttpConfigError::new(
            key,
            "is empty, which would refuse every request (allow_any_host accepts any)",
        ));
    }
    for entry in list {
        check(entry).map_err(|why| HttpConfigError::new(key, format!("entry {entry:?}: {why}")))?;
    }
    Ok(list.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> HttpConfigError {
        match HttpConfig::from_value(v) {
            Ok(c) => c.to_options().map(|_| ()).expect_err("a bad option"),
            Err(e) => e,
        }
    }

    #[test]
    fn defaults_are_the_transports() {
        let o = HttpConfig::default().to_options().unwrap();
        let d = HttpOptions::default();
        assert_eq!(
            (o.path.as_str(), o.max_body_bytes, o.session_idle_timeout),
            (d.path.as_str(), d.max_body_bytes, d.session_idle_timeout)
        );
        assert_eq!(HttpConfig::default().socket_addr().unwrap(), "127.0.0.1:0".parse().unwrap());
    }

    #[test]
    fn both_spellings_are_read_and_null_is_left_out() {
        let a = HttpConfig::from_value(json!({"max_body_bytes": 10, "sse_retry_ms": null})).unwrap();
        let b = HttpConfig::from_value(json!({"maxBodyBytes": 10})).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_options().unwrap().max_body_bytes, 10);
    }

    #[test]
    fn zero_means_never_for_timeouts() {
        let o = HttpConfig::from_value(json!({"session_idle_timeout_ms": 0, "sse_keep_alive_ms": 0})).unwrap();
        let o = o.to_options().unwrap();
        assert_eq!((o.session_idle_timeout, o.sse_keep_alive), (None, None));
    }

    #[test]
    fn the_hardening_limits_read_and_apply() {
        let c = HttpConfig::from_value(json!({
            "maxSessions": 0, "header_read_timeout_ms": 0, "bodyReadTimeoutMs": 5,
            "max_events_per_stream": 2, "maxEventStreams": 3
        }))
        .unwrap();
        let o = c.to_options().unwrap();
        assert_eq!((o.max_sessions, o.header_read_timeout), (None, None));
        assert_eq!(o.body_read_timeout, Some(Duration::from_millis(5)));
        let d = HttpOptions::default();
        assert_eq!(
            (d.max_sessions, d.header_read_timeout, d.body_read_timeout),
            (Some(10_000), Some(Duration::from_secs(30)), Some(Duration::from_secs(30)))
        );
        // The store built from the two bounds keeps two events of a stream.
        let store = o.event_store.unwrap();
        for n in 0..5 {
            store.append("s", &format!("e{n}"));
        }
        assert_eq!(store.replay_after("s", 0).map(|v| v.len()), Some(2));
        let e = HttpConfig::from_value(json!({"max_event_streams": 0})).unwrap().to_options().unwrap_err();
        assert_eq!(e.option, "max_event_streams");
        let o = HttpConfig::from_value(json!({"resumable": false, "max_events_per_stream": 2}))
            .unwrap()
            .to_options()
            .unwrap();
        assert!(o.event_store.is_none(), "not resumable: no store, whatever its bounds");
    }

    #[test]
    fn each_bad_option_names_itself() {
        let cases = [
            (json!({"max_body_bytes": 0}), "max_body_bytes"),
            (json!({"max_body_bytes": -1}), "max_body_bytes"),
            (json!({"maxBodyBytes": "big"}), "max_body_bytes"),
            (json!({"path": "mcp"}), "path"),
            (json!({"path": "/a/{b}"}), "path"),
            (json!({"response_mode": "xml"}), "response_mode"),
            (json!({"allowed_hosts": []}), "allowed_hosts"),
            (json!({"allowed_hosts": ["localhost:8000"]}), "allowed_hosts"),
            (json!({"allowed_origins": ["localhost"]}), "allowed_origins"),
            (json!({"allow_any_host": true, "allowed_hosts": ["a"]}), "allowed_hosts"),
            (json!({"host": "localhost"}), "host"),
            (json!({"stream_buffer": 0}), "stream_buffer"),
            (json!({"legacy_sse": true, "path": "/sse"}), "legacy_sse_path"),
            (json!({"nope": 1}), "nope"),
            (json!([1]), "options"),
        ];
        for (v, option) in cases {
            assert_eq!(err(v.clone()).option, option, "{v}");
        }
        assert_eq!(err(json!({"nope": 1})).message, "unknown option");
        assert_eq!(
            err(json!({"maxBodyBytes": 0})).to_string_with(camel_case),
            "invalid HTTP option maxBodyBytes: must be at least 1 byte, not 0"
        );
    }

    #[test]
    fn a_bad_option_changes_nothing() {
        let mut o = HttpOptions::default();
        let c = HttpConfig::from_value(json!({"path": "/x", "max_body_bytes": 0})).unwrap();
        assert!(c.apply(&mut o).is_err());
        assert_eq!(o.path, "/mcp");
    }

    #[test]
    fn host_policy_switches() {
        let o = HttpConfig::from_value(json!({"allow_any_host": true})).unwrap().to_options().unwrap();
        assert_eq!(o.host_policy, HostPolicy::permissive());
        let o = HttpConfig::from_value(json!({"allowed_hosts": ["example.com"]})).unwrap().to_options().unwrap();
        assert_eq!(o.host_policy.allowed_hosts, Some(vec!["example.com".to_owned()]));
        assert_eq!(o.host_policy.allowed_origins, HostPolicy::default().allowed_origins);
        let o = HttpConfig::from_value(json!({"resumable": false})).unwrap().to_options().unwrap();
        assert!(o.event_store.is_none());
    }

    #[test]
    fn camel_case_spells_keys() {
        assert_eq!(camel_case("session_idle_timeout_ms"), "sessionIdleTimeoutMs");
        assert_eq!(camel_case("path"), "path");
    }
}
