//! Handshake-era sessions over Redis: each record is one JSON string with a `PX` expiry (the
//! idle timeout, renewed by every load with `GETEX`, so no session outlives it), each SSE
//! stream one sorted set of its numbered events (bounded, expiring), and the bus between the
//! instances two pub/sub channels: one per instance (answers to the server-to-client requests
//! it sent: `PUBLISH` says whether it still listens) and one for everyone (cancellations, record
//! changes, ended sessions).

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::{unavailable, RedisStore};
use crate::stores::{
    EventLog, Events, MessageSink, Recipient, SessionMessage, SessionRecord, SessionStore, StoreError,
};
use crate::sync::lock;

#[derive(Serialize, Deserialize)]
struct Envelope {
    origin: String,
    message: SessionMessage,
}

/// The session records of a fleet in Redis, and its bus (see the module doc).
pub struct RedisSessions {
    redis: RedisStore,
    inner: Arc<Inner>,
}

struct Inner {
    instance: String,
    sinks: Mutex<Vec<MessageSink>>,
}

impl std::fmt::Debug for RedisSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessions").field("instance", &self.inner.instance).finish_non_exhaustive()
    }
}

impl RedisSessions {
    /// The sessions of the fleet sharing `redis`'s key prefix; this instance gets a random
    /// id and starts listening (inside a tokio runtime) until the store is dropped.
    pub fn start(redis: &RedisStore) -> RedisSessions {
        let mut id = [0u8; 8];
        let instance = match getrandom::fill(&mut id) {
            Ok(()) => id.iter().map(|b| format!("{b:02x}")).collect(),
            Err(_) => format!("pid{}", std::process::id()),
        };
        let inner = Arc::new(Inner { instance, sinks: Mutex::new(Vec::new()) });
        let channels = [redis.key(&format!("instance:{}", inner.instance)), redis.key("sessions")];
        tokio::spawn(subscribe(redis.client.clone(), channels, Arc::downgrade(&inner)));
        RedisSessions { redis: redis.clone(), inner }
    }

    fn record_key(&self, id: &str) -> String {
        self.redis.key(&format!("session:{id}"))
    }
}

fn ttl_ms(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl SessionStore for RedisSessions {
    fn instance(&self) -> &str {
        &self.inner.instance
    }

    fn save(
        &self,
        id: &str,
        record: &SessionRecord,
        ttl: Option<Duration>,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        let key = self.record_key(id);
        let text = serde_json::to_string(record);
        let mut c = self.redis.conn();
        Box::pin(async move {
            let text = text.map_err(|e| StoreError::Unavailable(format!("session record: {e}")))?;
            let mut cmd = redis::cmd("SET");
            cmd.arg(&key).arg(text);
            if let Some(t) = ttl {
                cmd.arg("PX").arg(ttl_ms(t));
            }
            cmd.query_async::<()>(&mut c).await.map_err(unavailable)
        })
    }

    fn load(&self, id: &str, ttl: Option<Duration>) -> BoxFuture<'static, Result<Option<SessionRecord>, StoreError>> {
        let key = self.record_key(id);
        let mut c = self.redis.conn();
        Box::pin(async move {
            let mut cmd = redis::cmd("GETEX");
            cmd.arg(&key);
            if let Some(t) = ttl {
                cmd.arg("PX").arg(ttl_ms(t));
            }
            let text: Option<String> = cmd.query_async(&mut c).await.map_err(unavailable)?;
            match text {
                None => Ok(None),
                // A record this build cannot read is treated as gone, not as a failure of
                // every request of that session.
                Some(t) => Ok(serde_json::from_str(&t).ok()),
            }
        })
    }

    fn touch(&self, ids: Vec<String>, ttl: Duration) -> BoxFuture<'static, Result<(), StoreError>> {
        let mut pipe = redis::pipe();
        for id in &ids {
            pipe.cmd("PEXPIRE").arg(self.record_key(id)).arg(ttl_ms(ttl)).ignore();
        }
        let mut c = self.redis.conn();
        Box::pin(async move { pipe.query_async::<()>(&mut c).await.map_err(unavailable) })
    }

    fn remove(&self, id: &str) -> BoxFuture<'static, Result<bool, StoreError>> {
        let key = self.record_key(id);
        let mut c = self.redis.conn();
        Box::pin(async move {
            let n: i64 = redis::cmd("DEL").arg(&key).query_async(&mut c).await.map_err(unavailable)?;
            Ok(n > 0)
        })
    }

    fn send(&self, to: Recipient<'_>, message: &SessionMessage) -> BoxFuture<'static, Result<usize, StoreError>> {
        let channel = match to {
            Recipient::Instance(i) => self.redis.key(&format!("instance:{i}")),
            Recipient::Others => self.redis.key("sessions"),
        };
        let text = serde_json::to_string(&Envelope { origin: self.inner.instance.clone(), message: message.clone() });
        let mut c = self.redis.conn();
        Box::pin(async move {
            let text = text.map_err(|e| StoreError::Unavailable(format!("session message: {e}")))?;
            let n: i64 =
                redis::cmd("PUBLISH").arg(&channel).arg(text).query_async(&mut c).await.map_err(unavailable)?;
            Ok(usize::try_from(n).unwrap_or(0))
        })
    }

    fn receive(&self, sink: MessageSink) {
        lock(&self.inner.sinks).push(sink);
    }
}

/// Deliver the messages for this instance to its sinks, until the store is gone.
async fn subscribe(client: redis::Client, channels: [String; 2], inner: Weak<Inner>) {
    let deliver = |inner: &Arc<Inner>, text: String| {
        let Ok(e) = serde_json::from_str::<Envelope>(&text) else { return };
        if e.origin == inner.instance {
            return;
        }
        let sinks: Vec<MessageSink> = lock(&inner.sinks).clone();
        for sink in sinks {
            sink(e.message.clone());
        }
    };
    super::pubsub::listen(client, channels.to_vec(), || inner.upgrade(), deliver).await;
}

/// The SSE events of a fleet's session streams in Redis: one sorted set per stream, scored by
/// event number, holding at most `max_events` events and expiring `ttl` after its last event.
#[derive(Debug, Clone)]
pub struct RedisEventLog {
    redis: RedisStore,
    max_events: usize,
    ttl: Duration,
}

impl RedisEventLog {
    /// Keep at most `max_events` events per stream, each stream for `ttl` after its last
    /// event.
    pub fn new(redis: &RedisStore, max_events: usize, ttl: Duration) -> RedisEventLog {
        RedisEventLog { redis: redis.clone(), max_events: max_events.max(1), ttl }
    }

    fn key(&self, stream: &str) -> String {
        self.redis.key(&format!("events:{stream}"))
    }
}

impl EventLog for RedisEventLog {
    fn append(&self, stream: &str, seq: u64, data: &str) -> BoxFuture<'static, Result<(), StoreError>> {
        let key = self.key(stream);
        let mut pipe = redis::pipe();
        pipe.cmd("ZADD").arg(&key).arg(seq).arg(format!("{seq}:{data}")).ignore();
        let keep = i64::try_from(self.max_events).unwrap_or(i64::MAX);
        pipe.cmd("ZREMRANGEBYRANK").arg(&key).arg(0).arg(-keep - 1).ignore();
        pipe.cmd("PEXPIRE").arg(&key).arg(ttl_ms(self.ttl)).ignore();
        let mut c = self.redis.conn();
        Box::pin(async move { pipe.query_async::<()>(&mut c).await.map_err(unavailable) })
    }

    fn replay_after(&self, stream: &str, seq: u64) -> BoxFuture<'static, Result<Option<Events>, StoreError>> {
        let key = self.key(stream);
        let mut pipe = redis::pipe();
        pipe.cmd("EXISTS").arg(&key);
        pipe.cmd("ZRANGEBYSCORE").arg(&key).arg(format!("({seq}")).arg("+inf");
        let mut c = self.redis.conn();
        Box::pin(async move {
            let (exists, members): (i64, Vec<String>) = pipe.query_async(&mut c).await.map_err(unavailable)?;
            if exists == 0 {
                return Ok(None);
            }
            let events = members
                .into_iter()
                .filter_map(|m| {
                    let (n, data) = m.split_once(':')?;
                    Some((n.parse().ok()?, data.to_owned()))
                })
                .collect();
            Ok(Some(events))
        })
    }
}
