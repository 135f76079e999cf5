//! A `Core` as one instance of a fleet: the state instances share kept in Redis (the core's
//! `Server::use_redis`: tasks of both generations, and the fleet-wide notifications). The
//! `#[pymethods]` entry points are in `server.rs`; this is what they call. The core opens the
//! store and decides what goes there; this only enters the server's runtime (the Redis client
//! reconnects on it) and keeps the store for its round-trip count.

use ferrite_core::stores::redis::RedisStore;
use ferrite_core::sync::lock;
use pyo3::prelude::*;

use super::Core;
use crate::errors;

impl Core {
    /// Keep the fleet's shared state in Redis at `url`, keys under `key_prefix`: a bad URL,
    /// or a task already created, raises `ConfigError` with the core's message.
    pub(super) fn open_redis(&self, py: Python<'_>, url: &str, key_prefix: &str) -> PyResult<()> {
        self.check_open(py)?;
        let opened = {
            let _in_runtime = self.handle.enter();
            self.server.use_redis(url, key_prefix)
        };
        let store = opened.map_err(|e| errors::config_err(py, &e))?;
        *lock(&self.redis) = Some(store);
        Ok(())
    }

    /// How many round trips to Redis the server made; `None` without `use_redis`.
    pub(super) fn round_trips(&self) -> Option<u64> {
        lock(&self.redis).as_ref().map(RedisStore::round_trips)
    }
}
