//! The `tasks/*` methods of both generations. Which exist depends on the era of the request:
//! 2025-11-25 sessions have `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`;
//! 2026-07-28 requests have `tasks/get`, `tasks/update` and `tasks/cancel` (the other two
//! answer `-32601`), each refused with `-32021` when the request does not declare the
//! extension, before the task id is even looked at.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::{store_error, task_not_found, Server};
use crate::protocol::model::{ResultType, TaskStatus, RELATED_TASK_KEY, TASKS_EXTENSION};
use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::server::dispatch::{missing_capability, params_map, required_str, to_raw, Outcome};
use crate::server::RequestContext;
use crate::tasks::{now_ms, Generation, TaskChange, TaskOutcome, TaskRecord};

impl Server {
    /// Serve a `tasks/*` request.
    pub(crate) async fn task_method(&self, method: &str, params: Option<Value>, ctx: RequestContext) -> Outcome {
        let offered = crate::server::read(&self.inner.registry).offers_tasks();
        let served = if ctx.is_modern() {
            offered && matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel")
        } else {
            offered
                && ctx.protocol_version() >= ProtocolVersion::V2025_11_25
                && matches!(method, "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel")
        };
        if !served {
            return Err(ErrorObject::method_not_found(method));
        }
        if ctx.is_modern() && ctx.client_extension(TASKS_EXTENSION).is_none() {
            return Err(missing_capability(true, method, json!({ "extensions": { TASKS_EXTENSION: {} } })));
        }
        let mut p = params_map(params, method)?;
        let owner = self.task_owner(&ctx);
        if method == "tasks/list" {
            return self.list_tasks(&owner, &p).await;
        }
        let id = required_str(&mut p, "taskId", method)?;
        let store = self.task_engine().options().store.clone();
        let record = store.get(&owner, &id).await.map_err(store_error)?.ok_or_else(|| task_not_found(&id))?;
        let record = self.settle_overdue(record).await?;
        match (method, ctx.is_modern()) {
            ("tasks/get", true) => self.modern_result(&detailed(&record), ResultType::Complete, None, None),
            ("tasks/get", false) => to_raw(&record.view().legacy()),
            ("tasks/update", _) => {
                let answers = match p.remove("inputResponses") {
                    Some(Value::Object(m)) => m,
                    _ => return Err(ErrorObject::invalid_params("tasks/update: inputResponses must be an object")),
                };
                // Keys that are not pending (never asked, answered, or the task ended) are
                // ignored, whatever their value.
                let after =
                    store.apply(&owner, &id, TaskChange::Answer(answers), now_ms()).await.map_err(store_error)?;
                if let Some(after) = after.filter(|a| a.status() != record.status()) {
                    self.task_changed(&after);
                }
                self.task_engine().wake(&id);
                self.empty_modern_result(Map::new())
            }
            ("tasks/cancel", modern) => {
                if record.state.is_terminal() {
                    if modern {
                        // Cancelling a finished task is acknowledged, and changes nothing.
                        return self.empty_modern_result(Map::new());
                    }
                    return Err(ErrorObject::invalid_params(format!(
                        "Cannot cancel task {id}: it is already {}",
                        record.state.as_str()
                    )));
                }
                let after = store.apply(&owner, &id, TaskChange::Cancel, now_ms()).await.map_err(store_error)?;
                if let Some(a) = &after {
                    self.task_changed(a);
                }
                if let Some(live) = self.task_engine().live(&id) {
                    live.cancel.cancel();
                    live.changed.notify_waiters();
                }
                if modern {
                    return self.empty_modern_result(Map::new());
                }
                let after = after.ok_or_else(|| task_not_found(&id))?;
                to_raw(&after.view().legacy())
            }
            ("tasks/result", _) => self.task_result(&owner, &id, &ctx).await,
            _ => Err(ErrorObject::method_not_found(method)),
        }
    }

    /// End a task that outlived its ttl (its worker may live in another process, or none).
    async fn settle_overdue(&self, record: TaskRecord) -> Result<TaskRecord, ErrorObject> {
        let now = now_ms();
        if !record.overdue(now) {
            return Ok(record);
        }
        let change = TaskChange::Finish {
            outcome: TaskOutcome::Error(ErrorObject::internal("task expired: its ttl passed before it finished")),
            status: TaskStatus::Failed,
            message: Some("task expired: its ttl passed before it finished".to_owned()),
        };
        let store = self.task_engine().options().store.clone();
        let after = store.apply(&record.owner, &record.id, change, now).await.map_err(store_error)?;
        if let Some(live) = self.task_engine().live(&record.id) {
            live.cancel.cancel();
        }
        after.ok_or_else(|| task_not_found(&record.id))
    }

    /// `tasks/list` (2025-11-25): the caller's tasks, a page at a time.
    async fn list_tasks(&self, owner: &str, p: &Map<String, Value>) -> Outcome {
        let cursor = match p.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => return Err(ErrorObject::invalid_params("tasks/list: cursor must be a string")),
        };
        let page_size = self.inner.flags.page_size.load(std::sync::atomic::Ordering::Relaxed).max(1);
        let store = self.task_engine().options().store.clone();
        let (tasks, next) = store
            .list(owner, cursor, page_size)
            .await
            .map_err(store_error)?
            .ok_or_else(|| ErrorObject::invalid_params("tasks/list: invalid cursor"))?;
        let tasks: Vec<Value> = tasks.iter().map(|r| Value::Object(r.view().legacy())).collect();
        let mut out = Map::from_iter([("tasks".to_owned(), Value::Array(tasks))]);
        if let Some(n) = next {
            out.insert("nextCursor".into(), Value::String(n));
        }
        to_raw(&out)
    }

    /// `tasks/result` (2025-11-25): wait until the task ends, sending its input requests to
    /// the client meanwhile (on this request's stream, tied to the task), then answer what
    /// the call would have answered.
    async fn task_result(&self, owner: &str, id: &str, ctx: &RequestContext) -> Outcome {
        let engine = self.task_engine();
        let store = engine.options().store.clone();
        let mut asked: HashSet<String> = HashSet::new();
        let mut answers = futures::stream::FuturesUnordered::new();
        loop {
            let live = engine.live(id);
            let changed = live.as_ref().map(|l| l.changed.notified());
            let record = store.get(owner, id).await.map_err(store_error)?.ok_or_else(|| task_not_found(id))?;
            let record = self.settle_overdue(record).await?;
            if record.state.is_terminal() {
                return related_outcome(&record);
            }
            for (key, request) in &record.input_requests {
                if asked.insert(key.clone()) {
                    let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
                    let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
                    tie_to_task(&mut params, id);
                    let (key, ctx) = (key.clone(), ctx.clone());
                    answers.push(async move { (key, ctx.send_request(&method, Some(params)).await) });
                }
            }
            let poll = tokio::time::sleep(engine.options().poll_interval);
            tokio::select! {
                Some((key, answer)) = futures::StreamExt::next(&mut answers) => {
                    let change = match answer {
                        Ok(v) => TaskChange::Answer(Map::from_iter([(key, v)])),
                        Err(e) => TaskChange::Finish {
                            outcome: TaskOutcome::Error(ErrorObject::internal(format!("the client did not answer the task's input request: {e}"))),
                            status: TaskStatus::Failed,
                            message: Some(format!("the client did not answer an input request: {e}")),
                        },
                    };
                    if let Some(after) = store.apply(owner, id, change, now_ms()).await.map_err(store_error)? {
                        self.task_changed(&after);
                    }
                    engine.wake(id);
                }
                () = async { if let Some(c) = changed { c.await } else { std::future::pending().await } } => {}
                () = poll => {}
                () = ctx.cancelled() => return Err(ErrorObject::internal("tasks/result was cancelled")),
            }
        }
    }
}

/// `params._meta["io.modelcontextprotocol/related-task"] = {taskId}`.
fn tie_to_task(params: &mut Value, id: &str) {
    if let Some(m) = params.as_object_mut() {
        let meta = m.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(RELATED_TASK_KEY.to_owned(), json!({ "taskId": id }));
        }
    }
}

/// What `tasks/result` answers for an ended task: the call's result tied to the task, or its
/// error. A cancelled task has no result: `-32602`, saying so.
fn related_outcome(record: &TaskRecord) -> Outcome {
    match &record.outcome {
        Some(TaskOutcome::Result(v)) => {
            let mut v = v.clone();
            tie_to_task(&mut v, &record.id);
            to_raw(&v)
        }
        Some(TaskOutcome::Error(e)) => Err(e.clone()),
        None => Err(ErrorObject::invalid_params(format!("Task {} was cancelled: it has no result", record.id))
            .with_data(json!({ "taskId": record.id, "status": record.state.as_str() }))),
    }
}

/// The 2026-07-28 `tasks/get` body: the task and, by status, its pending input requests, its
/// result or its error.
pub(super) fn detailed(record: &TaskRecord) -> Map<String, Value> {
    let mut m = record.view().extension();
    match (record.status(), &record.outcome) {
        (TaskStatus::InputRequired, _) => {
            let requests: Map<String, Value> =
                record.input_requests.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            m.insert("inputRequests".into(), Value::Object(requests));
        }
        (TaskStatus::Completed, Some(TaskOutcome::Result(v))) => {
            m.insert("result".into(), v.clone());
        }
        (TaskStatus::Failed, Some(TaskOutcome::Error(e))) => {
            m.insert("error".into(), serde_json::to_value(e).unwrap_or(Value::Null));
        }
        (TaskStatus::Failed, Some(TaskOutcome::Result(v))) if record.generation == Generation::Legacy => {
            m.insert("result".into(), v.clone());
        }
        _ => {}
    }
    m
}
