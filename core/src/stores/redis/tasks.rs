//! Tasks in Redis, so that a task created on one instance is read, answered and cancelled on
//! any other.
//!
//! Keys (under the store's prefix): `task:<id>` holds the record as JSON, expiring when the
//! record would (a ttl after it ended; a running task is kept for twice its ttl so the
//! instance running it can still end it as overdue); `tasks:<owner>` is a sorted set of the
//! owner's task ids by creation time, for `tasks/list`, expiring with the last of them (ids of
//! expired tasks are dropped from it when a listing meets them). A change is a
//! read-apply-compare-and-set: [`TaskRecord::apply`] runs here, and a script writes the result
//! only if the stored record is still the one read (retried when another instance won).

use futures::future::BoxFuture;
use redis::{AsyncCommands, Script};

use super::{unavailable, RedisStore};
use crate::tasks::{now_ms, StoreError, TaskChange, TaskRecord, TaskStore};

/// How often a change is retried when other instances keep changing the same task (with a
/// short random pause that grows with each attempt, so that contenders spread out).
const CAS_ATTEMPTS: u32 = 64;
/// How many index entries a listing reads at a time.
const LIST_BATCH: isize = 64;

/// Set KEYS[1] to ARGV[2] (expiring at ARGV[3] ms, 0: never) only if it still holds ARGV[1].
const COMPARE_AND_SET: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '0' then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[3]) end
return 1
";

/// Tasks kept in Redis.
#[derive(Debug, Clone)]
pub struct RedisTaskStore {
    redis: RedisStore,
    cas: Script,
}

impl RedisTaskStore {
    /// Tasks in `redis`.
    pub fn new(redis: RedisStore) -> Self {
        RedisTaskStore { redis, cas: Script::new(COMPARE_AND_SET) }
    }

    fn task_key(&self, id: &str) -> String {
        self.redis.key(&format!("task:{id}"))
    }

    fn index_key(&self, owner: &str) -> String {
        self.redis.key(&format!("tasks:{owner}"))
    }

    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, StoreError> {
        let text: Option<String> = self.redis.conn().get(self.task_key(id)).await.map_err(unavailable)?;
        text.map(|t| decode(&t).map(|r| (t, r))).transpose()
    }
}

/// When Redis may drop the record (ms since the epoch), if ever.
fn expires_at(r: &TaskRecord) -> Option<u64> {
    let ttl = r.ttl_ms?;
    Some(if r.state.is_terminal() {
        r.updated_at_ms.saturating_add(ttl)
    } else {
        r.created_at_ms.saturating_add(ttl.saturating_mul(2))
    })
}

/// A pause of up to `attempt` ms (at most 20), picked at random.
fn backoff(attempt: u32) -> std::time::Duration {
    let mut b = [0u8; 2];
    let r = getrandom::fill(&mut b).map(|()| u16::from_le_bytes(b)).unwrap_or(0);
    let cap = u64::from(attempt.min(20)) * 1000;
    std::time::Duration::from_micros(u64::from(r) % cap.max(1))
}

fn decode(text: &str) -> Result<TaskRecord, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Unavailable(format!("a task record in redis is corrupt: {e}")))
}

fn encode(r: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(r).map_err(|e| StoreError::Unavailable(format!("a task record cannot be written: {e}")))
}

fn visible(r: &TaskRecord, owner: &str, now: u64) -> bool {
    r.owner == owner && !r.expired(now)
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let text = encode(&record)?;
            let key = self.task_key(&record.id);
            let index = self.index_key(&record.owner);
            let mut pipe = redis::pipe();
            pipe.atomic();
            match expires_at(&record) {
                Some(at) => {
                    pipe.cmd("SET").arg(&key).arg(&text).arg("PXAT").arg(at).ignore();
                    pipe.zadd(&index, &record.id, record.created_at_ms).ignore();
                    // The index lives as long as its longest-lived task.
                    pipe.cmd("PEXPIREAT").arg(&index).arg(at).arg("NX").ignore();
                    pipe.cmd("PEXPIREAT").arg(&index).arg(at).arg("GT").ignore();
                }
                None => {
                    pipe.set(&key, &text).ignore();
                    pipe.zadd(&index, &record.id, record.created_at_ms).ignore();
                    pipe.persist(&index).ignore();
                }
            }
            pipe.query_async::<()>(&mut self.redis.conn()).await.map_err(unavailable)
        })
    }

    fn get<'a>(&'a self, owner: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let now = now_ms();
            Ok(self.read(id).await?.map(|(_, r)| r).filter(|r| visible(r, owner, now)))
        })
    }

    fn apply<'a>(
        &'a self,
        owner: &'a str,
        id: &'a str,
        change: TaskChange,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            for attempt in 0..CAS_ATTEMPTS {
                if attempt > 0 {
                    tokio::time::sleep(backoff(attempt)).await;
                }
                let Some((before, mut record)) = self.read(id).await? else { return Ok(None) };
                if !visible(&record, owner, now_ms) {
                    return Ok(None);
                }
                if !record.apply(change.clone(), now_ms) {
                    return Ok(Some(record));
                }
                let after = encode(&record)?;
                let at = expires_at(&record).unwrap_or(0);
                let written: i64 = self
                    .cas
                    .key(self.task_key(id))
                    .arg(&before)
                    .arg(&after)
                    .arg(at.to_string())
                    .invoke_async(&mut self.redis.conn())
                    .await
                    .map_err(unavailable)?;
                if written == 1 {
                    return Ok(Some(record));
                }
            }
            Err(StoreError::Unavailable(format!("task {id} kept changing under {CAS_ATTEMPTS} attempts to change it")))
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Option<(Vec<TaskRecord>, Option<String>)>, StoreError>> {
        Box::pin(async move {
            let now = now_ms();
            let index = self.index_key(owner);
            let mut start: isize = match cursor {
                None => 0,
                Some(c) => {
                    let rank: Option<isize> = self.redis.conn().zrank(&index, c).await.map_err(unavailable)?;
                    match rank {
                        Some(r) => r + 1,
                        None => return Ok(None),
                    }
                }
            };
            let limit = limit.max(1);
            let mut page = Vec::new();
            loop {
                let ids: Vec<String> =
                    self.redis.conn().zrange(&index, start, start + LIST_BATCH - 1).await.map_err(unavailable)?;
                if ids.is_empty() {
                    return Ok(Some((page, None)));
                }
                start += LIST_BATCH;
                let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
                let texts: Vec<Option<String>> = self.redis.conn().mget(&keys).await.map_err(unavailable)?;
                let mut gone = Vec::new();
                for (id, text) in ids.iter().zip(texts) {
                    let record = match text {
                        Some(t) => decode(&t)?,
                        None => {
                            gone.push(id.clone());
                            continue;
                        }
                    };
                    if !visible(&record, owner, now) {
                        continue;
                    }
                    if page.len() == limit {
                        let next = page.last().map(|r: &TaskRecord| r.id.clone());
                        return Ok(Some((page, next)));
                    }
                    page.push(record);
                }
                if !gone.is_empty() {
                    // Expired tasks leave the index; the ranks after them shift back.
                    let removed: isize = self.redis.conn().zrem(&index, &gone).await.map_err(unavailable)?;
                    start -= removed;
                }
            }
        })
    }

    fn is_shared(&self) -> bool {
        true
    }
}
