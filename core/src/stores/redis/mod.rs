//! Redis as the shared store (`redis-server` or anything that speaks its protocol, 7.0 or
//! later). One [`RedisStore`] is a reconnecting, multiplexed client with a key prefix (so
//! fleets and tests can share a server) and a count of the round trips it made (requests that
//! touch no shared state make none, and the benchmark prints the count per request). The
//! stores of each kind of state are built on it ([`RedisTaskStore`]), and so is the
//! notification fan-out between instances ([`RedisFanout`], pub/sub).
//!
//! Failure: every call has a response timeout; a Redis that is down is
//! [`StoreError::Unavailable`] for the requests that needed it, and the client reconnects on
//! its own when Redis is back.

mod fanout;
mod pubsub;
mod sessions;
mod tasks;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use crate::tasks::StoreError;

pub use fanout::RedisFanout;
pub use sessions::{RedisEventLog, RedisSessions};
pub use tasks::RedisTaskStore;

/// How long one Redis call may take before the request that needed it gets an error.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
/// The events kept per SSE stream for resumption, and for how long after the last one.
const EVENTS_PER_STREAM: usize = 1024;
const EVENTS_TTL: Duration = Duration::from_secs(30 * 60);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection to Redis shared by the stores of one server.
#[derive(Clone)]
pub struct RedisStore {
    client: redis::Client,
    conn: ConnectionManager,
    prefix: String,
    round_trips: std::sync::Arc<AtomicU64>,
}

/// `url` with the password of its userinfo (`redis://user:secret@host`) replaced by `***`,
/// for messages that may be logged.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            let masked = if userinfo.contains(':') { format!("{user}:***") } else { "***".to_owned() };
            format!("{scheme}://{masked}@{host}{}", &rest[authority_end..])
        }
        None => url.to_owned(),
    }
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store at `url` (`redis://host:port/db`, `rediss://` for TLS is not built in) whose
    /// keys start with `prefix` (for example `"ferrite:"`). Connects lazily: a Redis that is not
    /// up yet is an error for the first requests that need it, not for the server's start.
    /// Call it inside a tokio runtime (the client's reconnection task runs there).
    pub fn open(url: &str, prefix: &str) -> Result<RedisStore, StoreError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(StoreError::Unavailable("opening a Redis store needs a tokio runtime".to_owned()));
        }
        let client = redis::Client::open(url)
            .map_err(|e| StoreError::Unavailable(format!("redis URL {:?}: {e}", redact_url(url))))?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let conn = ConnectionManager::new_lazy_with_config(client.clone(), config).map_err(unavailable)?;
        Ok(RedisStore { client, conn, prefix: prefix.to_owned(), round_trips: Default::default() })
    }

    /// The key `name` under this store's prefix.
    pub(crate) fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// A connection handle for one call (cheap: the connection is multiplexed); counts the
    /// round trip.
    pub(crate) fn conn(&self) -> ConnectionManager {
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        self.conn.clone()
    }

    /// How many round trips to Redis this store (and its clones) made.
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }

    /// Check that Redis answers (`PING`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut c = self.conn();
        redis::cmd("PING").query_async::<String>(&mut c).await.map(|_| ()).map_err(unavailable)
    }
}

/// A Redis failure as the store error requests see.
pub(crate) fn unavailable(e: redis::RedisError) -> StoreError {
    // Every request fails so while Redis is away: a warning a second, with a count.
    static REPORTED: crate::diagnostics::Throttle = crate::diagnostics::Throttle::new();
    if let Some(held) = REPORTED.pass() {
        tracing::warn!(target: crate::diagnostics::target::STORE, "redis: {e}{}", crate::diagnostics::held_back(held));
    }
    StoreError::Unavailable(format!("redis: {e}"))
}

impl crate::Server {
    /// Keep the state that instances of a fleet share in Redis at `url`, under keys starting
    /// with `key_prefix` (instances of one fleet use the same prefix): the tasks of both
    /// generations, the handshake-era HTTP sessions (records, SSE events for resumption on
    /// any instance, answers and cancellations routed to the instance that waits), and the
    /// fleet-wide notifications (resource updates, task status, custom notifications) through
    /// pub/sub. Call it before serving (the task options are fixed once a task exists, and
    /// HTTP endpoints take the session stores when they are made).
    /// Connects lazily; the returned store counts its round trips. Call it inside a tokio
    /// runtime.
    pub fn use_redis(&self, url: &str, key_prefix: &str) -> Result<RedisStore, crate::ConfigError> {
        let redis = RedisStore::open(url, key_prefix).map_err(|e| {
            crate::ConfigError::Store(match e {
                StoreError::Unavailable(why) => why,
                other => other.to_string(),
            })
        })?;
        let options = crate::TaskOptions {
            store: std::sync::Arc::new(RedisTaskStore::new(redis.clone())),
            ..self.task_options()
        };
        self.set_task_options(options)?;
        self.count_store_round_trips(redis.round_trips.clone());
        self.set_fanout(std::sync::Arc::new(RedisFanout::start(&redis, self)));
        self.set_shared_stores(crate::stores::SharedStores {
            sessions: std::sync::Arc::new(RedisSessions::start(&redis)),
            events: std::sync::Arc::new(RedisEventLog::new(&redis, EVENTS_PER_STREAM, EVENTS_TTL)),
        });
        Ok(redis)
    }
}

#[cfg(test)]
mod redaction_tests {
    use super::redact_url;

    #[test]
    fn passwords_in_redis_urls_are_masked() {
        assert_eq!(redact_url("redis://:hunter2@db:6379/0"), "redis://:***@db:6379/0");
        assert_eq!(redact_url("redis://app:hunter2@db/1"), "redis://app:***@db/1");
        assert_eq!(redact_url("redis://hunter2@db"), "redis://***@db");
        assert_eq!(redact_url("redis://db:6379"), "redis://db:6379");
        assert_eq!(redact_url("not a url"), "not a url");
    }
}
