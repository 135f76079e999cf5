//! Bounds on what one peer, or all of them, can make the server hold, as plain data every
//! surface sets the same way (a JSON object of snake_case or camelCase keys, like the HTTP
//! options).
//!
//! The transports bound what they read (`max_line_bytes`, `max_body_bytes`, sessions, read
//! timeouts: [`crate::transport`]); these bound what dispatch runs. A peer over a limit gets
//! a JSON-RPC error naming it (`data.limit`), the others are untouched. Each bound is read
//! from an atomic on every request, so changing one at run time is safe and costs nothing.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::naming::{read_options, OptionsError};
use crate::protocol::jsonrpc::MAX_JSON_DEPTH;
use crate::protocol::ErrorObject;

/// The bounds, with their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Messages in one JSON-RPC batch (2025-03-26); a longer batch is refused whole with
    /// -32600. Default 100.
    pub max_batch_len: usize,
    /// Requests running at once on one connection (an HTTP session, a C or in-process
    /// connection); one more gets -32603 with `data.limit`. Over stdio the transport stops
    /// reading at this many instead (back-pressure: its one client is slowed, not refused).
    /// Default 256.
    pub max_in_flight_per_connection: usize,
    /// Requests running at once in the whole server (every connection, both eras, tasks'
    /// first run included); one more gets -32603 with `data.limit`. Default 10,000.
    pub max_in_flight: usize,
    /// Objects and arrays nested inside one another in one inbound message (the outermost
    /// counted); deeper text gets -32700 with `data.limit` (HTTP: 400), on every transport
    /// and in both eras. At most and by default 127, serde_json's own limit, which costs
    /// nothing; a lower value costs one scan of each message's bytes.
    pub max_json_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_batch_len: 100,
            max_in_flight_per_connection: 256,
            max_in_flight: 10_000,
            max_json_depth: MAX_JSON_DEPTH,
        }
    }
}

/// A bad limits option: which one (snake_case) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid limit {option}: {message}")]
pub struct LimitsError {
    /// The option's key, snake_case; `limits` for the object as a whole.
    pub option: String,
    /// Why it was refused.
    pub message: String,
}

/// The JSON form: every key optional (left out: unchanged), each at least 1.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct LimitsConfig {
    #[serde(default, alias = "maxBatchLen")]
    max_batch_len: Option<u64>,
    #[serde(default, alias = "maxInFlightPerConnection")]
    max_in_flight_per_connection: Option<u64>,
    #[serde(default, alias = "maxInFlight")]
    max_in_flight: Option<u64>,
    #[serde(default, alias = "maxJsonDepth")]
    max_json_depth: Option<u64>,
}

impl Limits {
    /// These limits with the options of a JSON object applied (snake_case or camelCase keys;
    /// `null` is the same as leaving a key out). Nothing changes when one is bad.
    pub fn with_json(self, value: Value) -> Result<Limits, LimitsError> {
        let bad = |option: &str, message: String| LimitsError { option: option.to_owned(), message };
        let c: LimitsConfig = read_options(value, "unknown limit").map_err(|e| match e {
            OptionsError::Key(key, why) => bad(&key, why),
            OptionsError::NotObject => bad("limits", "expected an object of limits".to_owned()),
            OptionsError::Whole(why) => bad("limits", why),
        })?;
        let at_least_one = |key: &str, n: Option<u64>, current: usize| -> Result<usize, LimitsError> {
            match n {
                None => Ok(current),
                Some(0) => Err(bad(key, "must be at least 1".to_owned())),
                Some(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            }
        };
        Ok(Limits {
            max_batch_len: at_least_one("max_batch_len", c.max_batch_len, self.max_batch_len)?,
            max_in_flight_per_connection: at_least_one(
                "max_in_flight_per_connection",
                c.max_in_flight_per_connection,
                self.max_in_flight_per_connection,
            )?,
            max_in_flight: at_least_one("max_in_flight", c.max_in_flight, self.max_in_flight)?,
            max_json_depth: match at_least_one("max_json_depth", c.max_json_depth, self.max_json_depth)? {
                d if d > MAX_JSON_DEPTH => {
                    return Err(bad("max_json_depth", format!("must be at most {MAX_JSON_DEPTH}")));
                }
                d => d,
            },
        })
    }

    /// The limits as a JSON object (snake_case keys).
    pub fn to_json(&self) -> Value {
        json!({
            "max_batch_len": self.max_batch_len,
            "max_in_flight_per_connection": self.max_in_flight_per_connection,
            "max_in_flight": self.max_in_flight,
            "max_json_depth": self.max_json_depth,
        })
    }
}

/// The error a peer gets over a limit: -32603, naming the limit and its value in `data`.
pub(crate) fn over_limit(limit: &str, value: usize, what: &str) -> ErrorObject {
    ErrorObject::internal(format!("Server busy: {what} (the {limit} limit is {value}); retry later"))
        .with_data(json!({ "limit": limit, "value": value }))
}

/// The live limits of a server, and the server-wide count they bound.
#[derive(Debug)]
pub(crate) struct LiveLimits {
    max_batch_len: AtomicUsize,
    max_in_flight_per_connection: AtomicUsize,
    max_in_flight: AtomicUsize,
    max_json_depth: AtomicUsize,
    in_flight: AtomicUsize,
}

impl Default for LiveLimits {
    fn default() -> Self {
        let d = Limits::default();
        LiveLimits {
            max_batch_len: AtomicUsize::new(d.max_batch_len),
            max_in_flight_per_connection: AtomicUsize::new(d.max_in_flight_per_connection),
            max_in_flight: AtomicUsize::new(d.max_in_flight),
            max_json_depth: AtomicUsize::new(d.max_json_depth),
            in_flight: AtomicUsize::new(0),
        }
    }
}

impl LiveLimits {
    pub(crate) fn get(&self) -> Limits {
        Limits {
            max_batch_len: self.max_batch_len.load(Ordering::Relaxed),
            max_in_flight_per_connection: self.max_in_flight_per_connection.load(Ordering::Relaxed),
            max_in_flight: self.max_in_flight.load(Ordering::Relaxed),
            max_json_depth: self.max_json_depth.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn set(&self, l: Limits) {
        self.max_batch_len.store(l.max_batch_len, Ordering::Relaxed);
        self.max_in_flight_per_connection.store(l.max_in_flight_per_connection, Ordering::Relaxed);
        self.max_in_flight.store(l.max_in_flight, Ordering::Relaxed);
        self.max_json_depth.store(l.max_json_depth.min(MAX_JSON_DEPTH), Ordering::Relaxed);
    }

    pub(crate) fn max_json_depth(&self) -> usize {
        self.max_json_depth.load(Ordering::Relaxed)
    }

    pub(crate) fn max_batch_len(&self) -> usize {
        self.max_batch_len.load(Ordering::Relaxed)
    }

    /// Admit one more request server-wide: a guard that counts it until dropped, or the
    /// error for `max_in_flight`.
    pub(crate) fn admit(&self) -> Result<InFlight<'_>, ErrorObject> {
        let max = self.max_in_flight.load(Ordering::Relaxed);
        if self.in_flight.fetch_add(1, Ordering::AcqRel) >= max {
            self.in_flight.fetch_sub(1, Ordering::AcqRel);
            return Err(over_limit("max_in_flight", max, "too many requests running in this server"));
        }
        Ok(InFlight(&self.in_flight))
    }

    /// The per-connection bound (checked where the connection registers the request).
    pub(crate) fn max_in_flight_per_connection(&self) -> usize {
        self.max_in_flight_per_connection.load(Ordering::Relaxed)
    }

    /// The error for one request more than `max_in_flight_per_connection` on a connection.
    pub(crate) fn connection_full(&self) -> ErrorObject {
        let per = self.max_in_flight_per_connection();
        over_limit("max_in_flight_per_connection", per, "too many requests running on this connection")
    }

    /// Requests running now, server-wide.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }
}

/// One admitted request; uncounted when dropped (also when its future is dropped).
pub(crate) struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keys_in_either_spelling_zero_and_unknown_are_refused() {
        let l = Limits::default()
            .with_json(json!({"maxBatchLen": 5, "max_in_flight": 7, "max_in_flight_per_connection": null}))
            .unwrap();
        assert_eq!((l.max_batch_len, l.max_in_flight, l.max_in_flight_per_connection), (5, 7, 256));
        let e = Limits::default().with_json(json!({"maxInFlight": 0})).unwrap_err();
        assert_eq!((e.option.as_str(), e.message.as_str()), ("max_in_flight", "must be at least 1"));
        let e = Limits::default().with_json(json!({"maxSessions": 3})).unwrap_err();
        assert_eq!((e.option.as_str(), e.message.as_str()), ("max_sessions", "unknown limit"));
        assert_eq!(Limits::default().with_json(json!([])).unwrap_err().option, "limits");
        assert_eq!(Limits::default().with_json(json!({"maxJsonDepth": 16})).unwrap().max_json_depth, 16);
        let e = Limits::default().with_json(json!({"max_json_depth": 128})).unwrap_err();
        assert_eq!((e.option.as_str(), e.message.as_str()), ("max_json_depth", "must be at most 127"));
    }

    #[test]
    fn admission_counts_server_wide_and_uncounts_on_drop() {
        let live = LiveLimits::default();
        live.set(Limits { max_in_flight: 2, max_in_flight_per_connection: 1, ..Limits::default() });
        assert_eq!(live.connection_full().data.unwrap(), json!({"limit": "max_in_flight_per_connection", "value": 1}));
        let a = live.admit().unwrap();
        let b = live.admit().unwrap();
        let e = live.admit().err().unwrap();
        assert_eq!(e.data.unwrap()["limit"], "max_in_flight");
        drop(a);
        assert_eq!(live.in_flight(), 1);
        let _c = live.admit().unwrap();
        drop(b);
        assert_eq!(live.in_flight(), 1);
    }
}
