//! A `NativeServer` as one instance of a fleet: the state instances share kept in Redis (the
//! core's `Server::use_redis`: tasks of both generations, and the fleet-wide notifications).
//! The core opens the store and decides what goes there; this enters the server's runtime
//! (where the Redis client reconnects) and keeps the store for its round-trip count.

use ferrite_core::stores::redis::RedisStore;
use ferrite_core::sync::lock;
use napi::{Env, Result};
use napi_derive::napi;

use crate::errors;
use crate::server::NativeServer;

#[napi]
impl NativeServer {
    /// Keep the fleet's shared state in Redis at `url`, under keys starting with `keyPrefix`.
    /// Connects lazily. A bad URL throws a `TypeError` with the core's message; a task that
    /// already exists an `Error` (`ERR_INVALID_STATE`).
    #[napi]
    pub fn use_redis(&self, env: &Env, url: String, key_prefix: String) -> Result<()> {
        let handle = self.handle()?;
        let opened = {
            let _in_runtime = handle.enter();
            self.server.use_redis(&url, &key_prefix)
        };
        let store = opened.map_err(|e| errors::config(env, e))?;
        *lock(&self.redis) = Some(store);
        Ok(())
    }

    /// Round trips to Redis so far; `null` without `useRedis`.
    #[napi]
    pub fn redis_round_trips(&self) -> Option<f64> {
        // A count well below 2^53: exact as a JS number.
        lock(&self.redis).as_ref().map(|r| RedisStore::round_trips(r) as f64)
    }
}
