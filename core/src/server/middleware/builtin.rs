//! The built-in middleware, named and configured by JSON so that every surface adds them the
//! same way (`Server::add_builtin_middleware(name, config)`), and running in the core, so a
//! built-in costs no language crossing.
//!
//! - `timing`: one `ferrite::request` event per request at debug: method, name, microseconds.
//! - `logging`: one `ferrite::request` event per request at info (`level` to change it):
//!   method, name, outcome (`ok` or the JSON-RPC code), microseconds. Never arguments, results
//!   or who asked (the diagnostics rule: any event can go to any log).
//! - `rate_limit`: a token bucket per key (`governor`, GCRA): `perSecond` requests a second
//!   with bursts of `burst`, keyed by `client` (the verified subject, else the remote address,
//!   else the connection; a sessionless request with neither shares one bucket), `session`
//!   (the connection; for a sessionless request, as `client`) or `global`; over it, `-32000`
//!   with `data: {limit: "rate", retryAfterMs}`. `methods` limits it to some methods.
//! - `cache`: answers the 2026-07-28 results whose caching hints allow it (a complete result
//!   of discovery, a list or a read with a positive `ttlMs`) from memory until the hint's time
//!   is up or the server announces a list change or resource update, keyed by method, revision,
//!   the client's capabilities and params (`_meta` aside), per caller (subject, client and
//!   scopes; not kept for an anonymous caller) unless the hint's `cacheScope` is `public`; a
//!   hit carries the time left as its `ttlMs`; at most `maxEntries` (default 1,000) answers.
//! - `error_masking`: `-32603` errors reach the client as `message` (default "Internal
//!   error"), without data; the original goes to the `ferrite::handler` log at warn.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use serde_json::{json, Value};

use super::{Answer, Middleware, MiddlewareRequest, Next};
use crate::diagnostics::target;
use crate::protocol::{ErrorObject, RawJson};
use crate::server::handler::BoxFuture;
use crate::server::ConfigError;

/// The names of the built-ins.
pub const BUILTINS: [&str; 5] = ["timing", "logging", "rate_limit", "cache", "error_masking"];

/// The target of the `timing` and `logging` events.
pub const REQUEST_TARGET: &str = target::REQUEST;

/// Make built-in `name` from its JSON configuration (`null` or `{}` for the defaults).
pub(crate) fn make(name: &str, config: Value) -> Result<Arc<dyn Middleware>, ConfigError> {
    let config = if config.is_null() { json!({}) } else { config };
    let invalid = |reason: String| ConfigError::InvalidMiddleware { name: name.to_owned(), reason };
    fn parse<T: serde::de::DeserializeOwned>(config: Value) -> Result<T, String> {
        serde_json::from_value(config).map_err(|e| e.to_string())
    }
    let made: Result<Arc<dyn Middleware>, String> = match name {
        "timing" => parse::<Empty>(config).map(|_| Arc::new(Timing) as Arc<dyn Middleware>),
        "logging" => parse(config).and_then(Logging::new).map(|m| Arc::new(m) as Arc<dyn Middleware>),
        "rate_limit" => parse(config).and_then(RateLimit::new).map(|m| Arc::new(m) as Arc<dyn Middleware>),
        "cache" => parse(config).map(|c| Arc::new(Cache::new(c)) as Arc<dyn Middleware>),
        "error_masking" => parse(config).map(|c| Arc::new(ErrorMasking(c)) as Arc<dyn Middleware>),
        other => Err(format!("no such built-in middleware {other:?} (there are {})", BUILTINS.join(", "))),
    };
    made.map_err(invalid)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

fn outcome(answer: &Answer) -> String {
    match answer {
        Ok(_) => "ok".to_owned(),
        Err(e) => e.code.to_string(),
    }
}

// ----- timing and logging -----

struct Timing;

impl Middleware for Timing {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        Box::pin(async move {
            let method = request.method.clone();
            let name = request.name().map(str::to_owned);
            let started = Instant::now();
            let answer = next.run(request).await;
            let micros = started.elapsed().as_micros() as u64;
            tracing::debug!(target: REQUEST_TARGET, method = %method, name = name.as_deref().unwrap_or(""), micros, "timing");
            answer
        })
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct LoggingConfig {
    /// `debug`, `info` (the default) or `warn`.
    #[serde(default)]
    level: Option<String>,
}

#[derive(Clone, Copy)]
enum LogLevel {
    Debug,
    Info,
    Warn,
}

struct Logging(LogLevel);

impl Logging {
    fn new(config: LoggingConfig) -> Result<Self, String> {
        Ok(Logging(match config.level.as_deref() {
            Some("debug") => LogLevel::Debug,
            None | Some("info") => LogLevel::Info,
            Some("warn") | Some("warning") => LogLevel::Warn,
            Some(other) => return Err(format!("level must be \"debug\", \"info\" or \"warn\", not {other:?}")),
        }))
    }
}

impl Middleware for Logging {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        let level = self.0;
        Box::pin(async move {
            let method = request.method.clone();
            let name = request.name().map(str::to_owned).unwrap_or_default();
            let started = Instant::now();
            let answer = next.run(request).await;
            let micros = started.elapsed().as_micros() as u64;
            let outcome = outcome(&answer);
            match level {
                LogLevel::Debug => {
                    tracing::debug!(target: REQUEST_TARGET, method = %method, name = %name, outcome = %outcome, micros, "request")
                }
                LogLevel::Info => {
                    tracing::info!(target: REQUEST_TARGET, method = %method, name = %name, outcome = %outcome, micros, "request")
                }
                LogLevel::Warn => {
                    tracing::warn!(target: REQUEST_TARGET, method = %method, name = %name, outcome = %outcome, micros, "request")
                }
            }
            answer
        })
    }
}

// ----- rate limiting -----

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RateLimitConfig {
    /// Requests a second, sustained (may be fractional: 0.5 is one every two seconds).
    per_second: f64,
    /// Requests at once above the rate (default: one second's worth, at least 1).
    #[serde(default)]
    burst: Option<u32>,
    /// `client` (default), `session` or `global`.
    #[serde(default)]
    key: Option<String>,
    /// Only these methods (default: every method through the chain).
    #[serde(default)]
    methods: Option<Vec<String>>,
}

#[derive(Clone, Copy)]
enum RateKey {
    Client,
    Session,
    Global,
}

struct RateLimit {
    limiter: DefaultKeyedRateLimiter<String>,
    key: RateKey,
    methods: Option<Vec<String>>,
    per_second: f64,
    burst: u32,
    checks: AtomicU64,
}

impl RateLimit {
    fn new(c: RateLimitConfig) -> Result<Self, String> {
        if !(c.per_second.is_finite() && c.per_second > 0.0) {
            return Err(format!("perSecond must be a positive number, not {}", c.per_second));
        }
        let burst = c.burst.unwrap_or_else(|| (c.per_second.ceil() as u32).max(1));
        let burst_nz = NonZeroU32::new(burst).ok_or("burst must be at least 1")?;
        let period = Duration::try_from_secs_f64(1.0 / c.per_second).map_err(|_| {
            format!("perSecond is too small: {} (one request in more than 584 billion years)", c.per_second)
        })?;
        let quota = Quota::with_period(period).ok_or("perSecond is too large")?.allow_burst(burst_nz);
        let key = match c.key.as_deref() {
            None | Some("client") => RateKey::Client,
            Some("session") => RateKey::Session,
            Some("global") => RateKey::Global,
            Some(other) => return Err(format!("key must be \"client\", \"session\" or \"global\", not {other:?}")),
        };
        Ok(RateLimit {
            limiter: RateLimiter::keyed(quota),
            key,
            methods: c.methods,
            per_second: c.per_second,
            burst,
            checks: AtomicU64::new(0),
        })
    }

    fn key_of(&self, request: &MiddlewareRequest) -> String {
        let ctx = &request.ctx;
        // A request with no session (2026-07-28, a stateless server) has a connection of its
        // own: keyed by it, it would never be limited.
        let sessionless = ctx.is_stateless();
        match self.key {
            RateKey::Global => String::new(),
            RateKey::Session if !sessionless => format!("c:{}", ctx.connection_id()),
            RateKey::Session | RateKey::Client => match (ctx.subject(), ctx.request_info().remote_addr()) {
                (Some(subject), _) => format!("s:{subject}"),
                (None, Some(addr)) => format!("a:{}", addr.ip()),
                // Nothing tells these callers apart: they share one bucket.
                (None, None) if sessionless => "anonymous".to_owned(),
                (None, None) => format!("c:{}", ctx.connection_id()),
            },
        }
    }
}

impl Middleware for RateLimit {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        if self.methods.as_ref().is_some_and(|m| !m.contains(&request.method)) {
            return next.run(request);
        }
        // Forget keys idle long enough to be full again, now and then, so that many
        // clients do not grow the table without end.
        if self.checks.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            self.limiter.retain_recent();
        }
        match self.limiter.check_key(&self.key_of(&request)) {
            Ok(()) => next.run(request),
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let retry_ms = wait.as_millis().max(1) as u64;
                let err = ErrorObject::new(
                    -32000,
                    format!(
                        "Rate limit exceeded: at most {} requests a second (bursts of {}); retry in {retry_ms} ms",
                        self.per_second, self.burst
                    ),
                )
                .with_data(json!({ "limit": "rate", "retryAfterMs": retry_ms }));
                tracing::info!(target: REQUEST_TARGET, method = %request.method, retry_ms, "rate limited");
                Box::pin(async move { Err(err) })
            }
        }
    }
}

// ----- caching -----

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CacheConfig {
    #[serde(default)]
    max_entries: Option<usize>,
}

struct Cached {
    answer: RawJson,
    until: Instant,
    /// The server's change count when it was made: a list change or resource update since
    /// makes it stale.
    changes: u64,
}

struct Cache {
    entries: Arc<Mutex<HashMap<String, Cached>>>,
    max_entries: usize,
}

/// The methods whose results carry caching hints (2026-07-28): discovery, the lists, reads.
const HINTED: [&str; 8] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "skills/list",
    "skills/get",
];

impl Cache {
    fn new(c: CacheConfig) -> Self {
        Cache { entries: Arc::new(Mutex::new(HashMap::new())), max_entries: c.max_entries.unwrap_or(1000).max(1) }
    }

    /// The key of a request for a given scope: the method, the revision and the client's
    /// declared capabilities (the answer's shape depends on both), the params without
    /// `_meta`, and (unless public) who asks.
    fn key(request: &MiddlewareRequest, caller: Option<&str>) -> String {
        let mut params = request.params.clone().unwrap_or(Value::Null);
        if let Some(p) = params.as_object_mut() {
            p.remove("_meta");
        }
        let capabilities = serde_json::to_string(&request.ctx.client_capabilities()).unwrap_or_default();
        let version = request.ctx.protocol_version().as_str();
        format!("{}\u{0}{version}\u{0}{capabilities}\u{0}{}\u{0}{params}", request.method, caller.unwrap_or(""))
    }

    /// Who asks, for answers that are theirs alone: the verified subject, with the client
    /// and the scopes the token grants (lists hide what a token may not use). `None` when
    /// nothing identifies the caller beyond this request.
    fn caller(request: &MiddlewareRequest) -> Option<String> {
        let identity = request.ctx.identity()?;
        let mut scopes: Vec<&str> = identity.scopes().iter().map(String::as_str).collect();
        scopes.sort_unstable();
        Some(format!("s:{}\u{0}{}\u{0}{}", identity.subject(), identity.client_id().unwrap_or(""), scopes.join(" ")))
    }
}

/// The hint a complete result carries: its `ttlMs` and whether its `cacheScope` is `public`.
/// (A task's result carries its own `ttlMs`, the task's lifetime: no caching hint.)
fn hint_of(answer: &RawJson) -> Option<(u64, bool)> {
    // Most results carry no hint: skip parsing them.
    if !answer.get().contains("\"ttlMs\"") {
        return None;
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Hint {
        #[serde(default)]
        result_type: Option<String>,
        #[serde(default)]
        ttl_ms: Option<u64>,
        #[serde(default)]
        cache_scope: Option<String>,
    }
    let hint: Hint = serde_json::from_str(answer.get()).ok()?;
    if hint.result_type.as_deref() != Some("complete") {
        return None;
    }
    let ttl = hint.ttl_ms.filter(|t| *t > 0)?;
    Some((ttl, hint.cache_scope.as_deref() == Some("public")))
}

/// `answer` with its top-level `ttlMs` (the first, written in the result's opening) set to
/// `left`: a client caching a cached answer keeps it no longer than the server said.
fn with_ttl_left(answer: &RawJson, left: u64) -> RawJson {
    let text = answer.get();
    let Some(at) = text.find("\"ttlMs\":") else { return answer.clone() };
    let digits = at + "\"ttlMs\":".len();
    let end = text[digits..].find(|c: char| !c.is_ascii_digit()).map_or(text.len(), |n| digits + n);
    RawJson::trusted(format!("{}{left}{}", &text[..digits], &text[end..]))
}

impl Middleware for Cache {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        // Only 2026-07-28 results carry hints; a handshake-era request is never answered from
        // here (nor is anything else the core would refuse or shape differently).
        if !request.ctx.is_modern() || !HINTED.contains(&request.method.as_str()) {
            return next.run(request);
        }
        let changes = next.server.changes();
        let caller = Cache::caller(&request);
        let public_key = Cache::key(&request, None);
        let private_key = caller.as_deref().map(|c| Cache::key(&request, Some(c)));
        {
            let mut entries = crate::sync::lock(&self.entries);
            let now = Instant::now();
            for key in std::iter::once(&public_key).chain(private_key.as_ref()) {
                match entries.get(key) {
                    Some(hit) if hit.until > now && hit.changes == changes => {
                        let left = hit.until.saturating_duration_since(now).as_millis().max(1) as u64;
                        let answer = with_ttl_left(&hit.answer, left);
                        return Box::pin(async move { Ok(answer) });
                    }
                    Some(_) => {
                        entries.remove(key);
                    }
                    None => {}
                }
            }
        }
        let (entries, max) = (self.entries.clone(), self.max_entries);
        Box::pin(async move {
            let answer = next.run(request).await;
            if let Ok(raw) = &answer {
                if let Some((ttl, public)) = hint_of(raw) {
                    // A private answer is kept only for a caller known beyond this request.
                    let key = if public { Some(public_key) } else { private_key };
                    if let Some(key) = key {
                        let mut entries = crate::sync::lock(&entries);
                        if entries.len() >= max {
                            // Full: drop what is stale, and if nothing was, the whole table
                            // (simple, and bounded; hints are short-lived anyway).
                            let now = Instant::now();
                            entries.retain(|_, c| c.until > now);
                            if entries.len() >= max {
                                entries.clear();
                            }
                        }
                        let until = Instant::now() + Duration::from_millis(ttl);
                        entries.insert(key, Cached { answer: raw.clone(), until, changes });
                    }
                }
            }
            answer
        })
    }
}

// ----- error masking -----

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ErrorMaskingConfig {
    /// What the client reads instead of the error's own message.
    #[serde(default)]
    message: Option<String>,
}

struct ErrorMasking(ErrorMaskingConfig);

impl Middleware for ErrorMasking {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        let message = self.0.message.clone().unwrap_or_else(|| "Internal error".to_owned());
        Box::pin(async move {
            let method = request.method.clone();
            match next.run(request).await {
                Err(e) if e.code == crate::protocol::code::INTERNAL_ERROR => {
                    tracing::warn!(target: target::HANDLER, method = %method, "internal error masked: {}", e.message);
                    Err(ErrorObject::new(e.code, message))
                }
                other => other,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(v: Value) -> RawJson {
        RawJson::serialize(&v).unwrap()
    }

    #[test]
    fn only_a_complete_results_ttl_is_a_caching_hint() {
        let complete = raw(json!({"resultType": "complete", "ttlMs": 5000, "cacheScope": "public", "tools": []}));
        assert_eq!(hint_of(&complete), Some((5000, true)));
        // A task's lifetime is no caching hint, nor is a handshake-era result's stray field.
        let task = raw(json!({"resultType": "task", "ttlMs": 300000, "taskId": "t", "status": "working"}));
        assert_eq!(hint_of(&task), None);
        assert_eq!(hint_of(&raw(json!({"ttlMs": 5000}))), None);
        assert_eq!(hint_of(&raw(json!({"resultType": "complete", "ttlMs": 0}))), None);
    }

    #[test]
    fn a_hit_says_the_time_left() {
        let cached = raw(json!({"resultType": "complete", "ttlMs": 60000, "x": {"ttlMs": 7}}));
        let hit: Value = serde_json::from_str(with_ttl_left(&cached, 1234).get()).unwrap();
        assert_eq!(hit, json!({"resultType": "complete", "ttlMs": 1234, "x": {"ttlMs": 7}}));
    }
}
