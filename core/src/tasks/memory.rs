//! The default task store: one process's memory, bounded, expiring tasks a ttl after they
//! ended. Expired tasks are swept at most once a second, on the next write, so a store with
//! many tasks does not pay a scan per request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use futures::future::BoxFuture;
use indexmap::IndexMap;

use super::{now_ms, StoreError, TaskChange, TaskRecord, TaskStore};
use crate::sync::lock;

/// How often, at most, expired tasks are swept.
const SWEEP_EVERY_MS: u64 = 1_000;

/// Tasks in this process's memory.
pub struct InMemoryTaskStore {
    capacity: usize,
    tasks: Mutex<IndexMap<String, TaskRecord>>,
    last_sweep_ms: AtomicU64,
}

impl std::fmt::Debug for InMemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryTaskStore").field("capacity", &self.capacity).field("len", &self.len()).finish()
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

impl InMemoryTaskStore {
    /// How many tasks the default store holds.
    pub const DEFAULT_CAPACITY: usize = 100_000;

    /// A store holding at most `capacity` tasks (running and ended, until they expire).
    pub fn new(capacity: usize) -> Self {
        InMemoryTaskStore {
            capacity: capacity.max(1),
            tasks: Mutex::new(IndexMap::new()),
            last_sweep_ms: AtomicU64::new(0),
        }
    }

    /// How many tasks are stored (expired ones may still count until swept).
    pub fn len(&self) -> usize {
        lock(&self.tasks).len()
    }

    /// Whether the store holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn sweep(&self, tasks: &mut IndexMap<String, TaskRecord>, now: u64, force: bool) {
        let last = self.last_sweep_ms.load(Ordering::Relaxed);
        if !force && now < last.saturating_add(SWEEP_EVERY_MS) {
            return;
        }
        self.last_sweep_ms.store(now, Ordering::Relaxed);
        tasks.retain(|_, r| !r.expired(now));
    }

    fn visible(r: &TaskRecord, owner: &str, now: u64) -> bool {
        r.owner == owner && !r.expired(now)
    }
}

impl TaskStore for InMemoryTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let now = now_ms();
        let mut tasks = lock(&self.tasks);
        self.sweep(&mut tasks, now, false);
        if tasks.len() >= self.capacity {
            self.sweep(&mut tasks, now, true);
        }
        let result = if tasks.len() >= self.capacity {
            Err(StoreError::Full(self.capacity))
        } else {
            tasks.insert(record.id.clone(), record);
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, owner: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let now = now_ms();
        let found = lock(&self.tasks).get(id).filter(|r| Self::visible(r, owner, now)).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn apply<'a>(
        &'a self,
        owner: &'a str,
        id: &'a str,
        change: TaskChange,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let mut tasks = lock(&self.tasks);
        let out = match tasks.get_mut(id).filter(|r| Self::visible(r, owner, now_ms)) {
            Some(r) => {
                r.apply(change, now_ms);
                Some(r.clone())
            }
            None => None,
        };
        self.sweep(&mut tasks, now_ms, false);
        Box::pin(std::future::ready(Ok(out)))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Option<(Vec<TaskRecord>, Option<String>)>, StoreError>> {
        let now = now_ms();
        let tasks = lock(&self.tasks);
        let start = match cursor {
            None => 0,
            Some(c) => match tasks.get_index_of(c).filter(|&i| tasks[i].owner == owner) {
                Some(i) => i + 1,
                None => return Box::pin(std::future::ready(Ok(None))),
            },
        };
        let mut page = Vec::new();
        let mut more = false;
        for (_, r) in tasks.iter().skip(start).filter(|(_, r)| Self::visible(r, owner, now)) {
            if page.len() == limit.max(1) {
                more = true;
                break;
            }
            page.push(r.clone());
        }
        let next = if more { page.last().map(|r| r.id.clone()) } else { None };
        Box::pin(std::future::ready(Ok(Some((page, next)))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::model::TaskStatus;
    use crate::tasks::{Generation, TaskOutcome};
    use futures::executor::block_on;
    use serde_json::json;

    fn task(id: &str, owner: &str, ttl_ms: Option<u64>) -> TaskRecord {
        let now = now_ms();
        TaskRecord {
            id: id.into(),
            owner: owner.into(),
            generation: Generation::Legacy,
            tool: "t".into(),
            state: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms,
            poll_interval_ms: None,
            outcome: None,
            input_requests: IndexMap::new(),
            input_responses: serde_json::Map::new(),
            inputs_issued: 0,
        }
    }

    #[test]
    fn another_owner_sees_nothing() {
        let s = InMemoryTaskStore::default();
        block_on(s.create(task("a", "session:1", None))).unwrap();
        assert!(block_on(s.get("session:1", "a")).unwrap().is_some());
        assert_eq!(block_on(s.get("session:2", "a")).unwrap(), None);
        assert_eq!(block_on(s.apply("session:2", "a", TaskChange::Cancel, now_ms())).unwrap(), None);
        assert_eq!(block_on(s.get("session:1", "a")).unwrap().unwrap().status(), TaskStatus::Working);
        let (page, _) = block_on(s.list("session:2", None, 10)).unwrap().unwrap();
        assert!(page.is_empty());
    }

    #[test]
    fn a_full_store_refuses_and_frees_room_as_tasks_expire() {
        let s = InMemoryTaskStore::new(2);
        block_on(s.create(task("a", "o", Some(0)))).unwrap();
        block_on(s.create(task("b", "o", Some(0)))).unwrap();
        assert_eq!(block_on(s.create(task("c", "o", Some(0)))), Err(StoreError::Full(2)));
        let done = TaskChange::Finish {
            outcome: TaskOutcome::Result(json!({})),
            status: TaskStatus::Completed,
            message: None,
        };
        block_on(s.apply("o", "a", done, now_ms())).unwrap();
        // "a" ended with a ttl of 0: it is gone, and its room is free.
        block_on(s.create(task("c", "o", Some(0)))).unwrap();
        assert_eq!(block_on(s.get("o", "a")).unwrap(), None);
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn pages_follow_creation_order_and_a_bad_cursor_is_refused() {
        let s = InMemoryTaskStore::default();
        for id in ["1", "2", "3"] {
            block_on(s.create(task(id, "o", None))).unwrap();
        }
        block_on(s.create(task("x", "other", None))).unwrap();
        let (page, next) = block_on(s.list("o", None, 2)).unwrap().unwrap();
        assert_eq!(page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["1", "2"]);
        assert_eq!(next.as_deref(), Some("2"));
        let (page, next) = block_on(s.list("o", Some("2"), 2)).unwrap().unwrap();
        assert_eq!(page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["3"]);
        assert_eq!(next, None);
        assert!(block_on(s.list("o", Some("x"), 2)).unwrap().is_none(), "another owner's id is no cursor");
        assert!(block_on(s.list("o", Some("nope"), 2)).unwrap().is_none());
    }
}
