//! The task engine: turns a `tools/call` into a task when the tool and the request call for
//! one, runs the tool's ordinary handler as the task's body, and keeps what cannot go in a
//! store (the running future, its cancellation, wake-ups) beside the [`TaskStore`].
//!
//! When a call becomes a task ([`Server::task_mode`]):
//! - 2025-11-25: the client asked (`params.task`) and the tool allows it, or the tool requires
//!   it (a call without `task` then gets `-32601`, as one with `task` to a tool that forbids
//!   it). Below 2025-11-25, and when the server offers no tasks, calls run inline.
//! - 2026-07-28: the server decides. A tool that allows tasks runs as one when the request
//!   declares the extension; a tool that requires them answers `-32021` to a request that
//!   does not. The handler first runs inline for [`TaskOptions::promote_after`]: an
//!   `input_required` reply in that time goes to the client as is (MRTR before the task, as
//!   the extension recommends), a result in that time is returned inline (optional tools) or
//!   as a task born finished (required tools); a handler still running becomes a task.
//!
//! Inside a task the handler is the same handler: its context's cancellation is the task's,
//! and input it asks for (an `InputRequired` reply, or `elicit`/`sample`/`list_roots`) waits
//! in the task as pending input requests: shown by `tasks/get` and answered by `tasks/update`
//! (2026-07-28), or sent to the client as real requests tied to the task while it waits in
//! `tasks/result` (2025-11-25). Notifications a task's handler sends (progress, logs) are
//! dropped: the extension does not carry them, and the request they were tied to has ended.

mod methods;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use futures::FutureExt as _;
use serde_json::{json, Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::context::{ContextInner, Peer, PeerError};
use super::dispatch::{missing_capability, panic_message, Outcome};
use super::handler::{BoxFuture, HandlerError, HandlerResult, NOT_AN_OBJECT};
use super::registry::ToolEntry;
use super::reply::{Finished, RoundInput};
use super::{lock, read, RequestContext, Server, WeakServer};
use crate::protocol::model::{
    input_request_entry, CallToolResult, ForVersion as _, Reply, ResultType, TaskStatus, TaskSupport, TASKS_EXTENSION,
};
use crate::protocol::{code, ErrorObject, ProtocolVersion};
use crate::tasks::{now_ms, Generation, InMemoryTaskStore, StoreError, TaskChange, TaskOutcome, TaskRecord, TaskStore};

/// How long a cancelled or expired task's handler may take to wind down before it is dropped.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// How a server runs tasks.
#[derive(Clone)]
pub struct TaskOptions {
    /// Where tasks are kept (default: [`InMemoryTaskStore`], 100,000 tasks).
    pub store: Arc<dyn TaskStore>,
    /// How long a task is kept after it was created and after it ended, when the client asks
    /// for nothing else (default 5 minutes).
    pub default_ttl: Duration,
    /// The longest ttl a client may ask for (2025-11-25 `task.ttl`; default 1 hour).
    pub max_ttl: Duration,
    /// The polling interval suggested to clients (default 1 second). Also how often a task
    /// waiting for input re-reads a store that another instance may have changed.
    pub poll_interval: Duration,
    /// How long a 2026-07-28 call runs inline before it becomes a task (default 100 ms).
    pub promote_after: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            store: Arc::new(InMemoryTaskStore::default()),
            default_ttl: Duration::from_secs(300),
            max_ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_secs(1),
            promote_after: Duration::from_millis(100),
        }
    }
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("default_ttl", &self.default_ttl)
            .field("max_ttl", &self.max_ttl)
            .field("poll_interval", &self.poll_interval)
            .field("promote_after", &self.promote_after)
            .finish_non_exhaustive()
    }
}

/// What a running task has in this process.
pub(crate) struct Live {
    cancel: CancellationToken,
    changed: Notify,
    started: AtomicBool,
    started_signal: Notify,
}

impl Live {
    fn new() -> Arc<Live> {
        Arc::new(Live {
            cancel: CancellationToken::new(),
            changed: Notify::new(),
            started: AtomicBool::new(false),
            started_signal: Notify::new(),
        })
    }
}

/// The engine's state in a server.
pub(crate) struct TaskEngine {
    options: RwLock<Arc<TaskOptions>>,
    /// Set when the first call of a tool that may run as a task arrives: from then on the
    /// options are fixed (a task's store must stay where its tasks are).
    used: AtomicBool,
    live: Mutex<HashMap<String, Arc<Live>>>,
}

impl TaskEngine {
    pub(crate) fn new(options: TaskOptions) -> Self {
        TaskEngine {
            options: RwLock::new(Arc::new(options)),
            used: AtomicBool::new(false),
            live: Mutex::new(HashMap::new()),
        }
    }

    /// The options in force.
    pub(crate) fn options(&self) -> Arc<TaskOptions> {
        read(&self.options).clone()
    }

    /// Tasks running in this process now.
    pub(crate) fn running(&self) -> usize {
        lock(&self.live).len()
    }

    fn live(&self, id: &str) -> Option<Arc<Live>> {
        lock(&self.live).get(id).cloned()
    }

    /// Wake whatever waits on task `id` in this process (a handler waiting for an answer,
    /// a `tasks/result` waiting for the end).
    fn wake(&self, id: &str) {
        if let Some(l) = self.live(id) {
            l.changed.notify_waiters();
        }
    }
}

/// How one `tools/call` runs.
pub(crate) enum TaskMode {
    Inline,
    Task { generation: Generation, ttl: Duration },
}

/// A new task id: 128 bits from the OS CSPRNG, as hex.
fn new_task_id() -> Result<String, ErrorObject> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ErrorObject::internal(format!("no randomness for a task id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn store_error(e: StoreError) -> ErrorObject {
    match e {
        StoreError::Unavailable(_) => ErrorObject::store_unavailable(e.to_string()),
        StoreError::Full(_) => ErrorObject::internal(e.to_string()),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The ttl a 2025-11-25 client asked for in `params.task`, if any.
fn requested_ttl(task: &Value) -> Result<Option<Duration>, ErrorObject> {
    let Some(m) = task.as_object() else {
        return Err(ErrorObject::invalid_params("tools/call: task must be an object"));
    };
    match m.get("ttl") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().filter(|&n| n > 0).map(|n| Some(Duration::from_millis(n))).ok_or_else(|| {
            ErrorObject::invalid_params("tools/call: task.ttl must be a positive integer (milliseconds)")
        }),
    }
}

impl Server {
    pub(crate) fn task_engine(&self) -> &TaskEngine {
        &self.inner.tasks
    }

    /// Replace the task options given to the builder (for hosts that configure a live server,
    /// such as the C ABI), before serving: once a tool that may run as a task has been called,
    /// tasks may live in the store in force, so this is [`ConfigError::TasksStarted`].
    pub fn set_task_options(&self, options: TaskOptions) -> Result<(), super::ConfigError> {
        let engine = self.task_engine();
        let mut current = super::write(&engine.options);
        if engine.used.load(Ordering::Acquire) {
            return Err(super::ConfigError::TasksStarted);
        }
        *current = Arc::new(options);
        Ok(())
    }

    /// The task options in force.
    pub fn task_options(&self) -> TaskOptions {
        (*self.task_engine().options()).clone()
    }

    /// Who owns the tasks a request creates and may see: its verified subject, else its
    /// handshake session, else everyone holding the id.
    pub(crate) fn task_owner(&self, ctx: &RequestContext) -> String {
        if let Some(s) = ctx.subject() {
            format!("sub:{s}")
        } else if !ctx.is_modern() && !self.is_stateless() {
            format!("session:{}", ctx.inner.transport.id())
        } else {
            "anonymous".to_owned()
        }
    }

    /// Whether this call of `entry` runs as a task, or the error its task policy gives.
    pub(crate) fn task_mode(
        &self,
        ctx: &RequestContext,
        entry: &ToolEntry,
        task_param: Option<&Value>,
    ) -> Result<TaskMode, ErrorObject> {
        let support = entry.task_support;
        if support == TaskSupport::Forbidden && (ctx.is_modern() || task_param.is_none()) {
            return Ok(TaskMode::Inline);
        }
        let opts = self.task_engine().options();
        self.task_engine().used.store(true, Ordering::Release);
        let name = &entry.tool.name;
        if ctx.is_modern() {
            // The legacy `task` parameter means nothing on 2026-07-28 and is ignored.
            let declared = ctx.client_extension(TASKS_EXTENSION).is_some();
            return match (support, declared) {
                (_, true) => Ok(TaskMode::Task { generation: Generation::Extension, ttl: opts.default_ttl }),
                (TaskSupport::Required, false) => Err(missing_capability(
                    true,
                    &format!("tool {name} (it runs only as a task)"),
                    json!({ "extensions": { TASKS_EXTENSION: {} } }),
                )),
                _ => Ok(TaskMode::Inline),
            };
        }
        if ctx.protocol_version() < ProtocolVersion::V2025_11_25 {
            return Ok(TaskMode::Inline);
        }
        match (support, task_param) {
            (TaskSupport::Forbidden, Some(_)) => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("tool {name} does not support task-augmented calls (execution.taskSupport is forbidden)"),
            )),
            (TaskSupport::Required, None) => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("tool {name} must be called as a task: add params.task (execution.taskSupport is required)"),
            )),
            (_, Some(t)) => {
                let ttl = requested_ttl(t)?.unwrap_or(opts.default_ttl).min(opts.max_ttl);
                Ok(TaskMode::Task { generation: Generation::Legacy, ttl })
            }
            (_, None) => Ok(TaskMode::Inline),
        }
    }

    /// Run `tools/call` of `entry` as a task (or, on 2026-07-28, inline when the handler
    /// answers within the promotion window).
    pub(crate) async fn call_tool_as_task(
        &self,
        ctx: RequestContext,
        entry: Arc<ToolEntry>,
        arguments: Value,
        generation: Generation,
        ttl: Duration,
    ) -> Outcome {
        let id = new_task_id()?;
        let owner = self.task_owner(&ctx);
        let live = Live::new();
        let peer: Arc<dyn Peer> =
            Arc::new(TaskPeer { server: self.downgrade(), owner: owner.clone(), id: id.clone(), live: live.clone() });
        let task_ctx =
            RequestContext { inner: Arc::new(ContextInner::for_task(&ctx.inner, peer, live.cancel.clone())) };
        let name = entry.tool.name.clone();
        let handler = entry.handler.clone();
        let input = Arc::new(RoundInput::new(arguments, &task_ctx));
        let first: BoxFuture<'static, HandlerResult<Reply<CallToolResult>>> = match input.take() {
            Ok(a) => handler.call(a, task_ctx.clone()),
            Err(e) => return Err(e.into_rpc()),
        };
        let mut first = AssertUnwindSafe(first).catch_unwind();
        let mut born: Option<(TaskOutcome, TaskStatus)> = None;
        if generation == Generation::Extension {
            let window = self.task_engine().options().promote_after;
            let early = tokio::select! {
                early = tokio::time::timeout(window, &mut first) => early.ok(),
                // Cancelled before a task exists: no task is made, and the handler sees its
                // cancellation and winds down on its own (nobody reads what it answers).
                () = ctx.cancelled() => {
                    live.cancel.cancel();
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(CANCEL_GRACE, first).await;
                    });
                    return Err(ErrorObject::internal("the request was cancelled before its task was created"));
                }
            };
            if let Some(early) = early {
                let reply = early.unwrap_or_else(|p| Err(HandlerError::panicked(&*p)));
                match (reply, entry.task_support) {
                    (Ok(Reply::InputRequired(ir)), _) => {
                        // Input before the task exists: an ordinary MRTR round.
                        self.check_input_capabilities(&ctx, &format!("tool {name}"), &ir)
                            .map_err(HandlerError::into_rpc)?;
                        return self
                            .input_required_result(&ctx, "tools/call", &name, &ir)
                            .map_err(HandlerError::into_rpc);
                    }
                    (Ok(Reply::Complete(r)), TaskSupport::Optional) => {
                        return self.finish_tool_result(&ctx, &entry, r);
                    }
                    (Err(HandlerError::Failed(m)), TaskSupport::Optional) => {
                        return self.finish(&ctx, CallToolResult::error(m), None);
                    }
                    (Err(HandlerError::Rpc(e)), TaskSupport::Optional) => return Err(e),
                    (Ok(Reply::Complete(r)), _) => {
                        born = Some(self.task_outcome(&ctx, generation, Ok(Finished::Complete(r))));
                    }
                    (Err(e), _) => born = Some(self.task_outcome(&ctx, generation, Err(e))),
                }
            }
        }
        let opts = self.task_engine().options();
        let now = now_ms();
        let mut record = TaskRecord {
            id: id.clone(),
            owner: owner.clone(),
            generation,
            tool: name.clone(),
            state: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms: Some(millis(ttl)),
            poll_interval_ms: Some(millis(opts.poll_interval).max(1)),
            outcome: None,
            input_requests: Default::default(),
            input_responses: Map::new(),
            inputs_issued: 0,
        };
        if let Some((outcome, status)) = born {
            record.apply(TaskChange::Finish { outcome, status, message: None }, now);
        }
        let finished = record.state.is_terminal();
        let created = self.create_task_result(&record)?;
        opts.store.create(record).await.map_err(store_error)?;
        self.task_created();
        if finished {
            return Ok(created);
        }
        lock(&self.task_engine().live).insert(id.clone(), live.clone());
        live.started.store(true, Ordering::Release);
        live.started_signal.notify_waiters();
        let server = self.clone();
        let overdue = ttl;
        tokio::spawn(async move {
            let first = Mutex::new(Some(first));
            let call = move |c: RequestContext| -> BoxFuture<'static, HandlerResult<Reply<CallToolResult>>> {
                if let Some(f) = lock(&first).take() {
                    return Box::pin(f.map(|r| r.unwrap_or_else(|p| Err(HandlerError::panicked(&*p)))));
                }
                match input.take() {
                    Ok(a) => handler.call(a, c),
                    Err(e) => Box::pin(std::future::ready(Err(e))),
                }
            };
            let body = AssertUnwindSafe(server.reply_loop(&task_ctx, "tools/call", "tool", &name, call)).catch_unwind();
            tokio::pin!(body);
            let mut finished = false;
            let ended = tokio::select! {
                r = &mut body => {
                    finished = true;
                    Some(match r {
                        Ok(r) => server.task_outcome(&task_ctx, generation, r),
                        Err(p) => (
                            TaskOutcome::Error(ErrorObject::internal(format!("tool {name} panicked: {}", panic_message(&*p)))),
                            TaskStatus::Failed,
                        ),
                    })
                }
                // Cancelled by tasks/cancel: the store already says so.
                () = live.cancel.cancelled() => None,
                // Cancelled (or ended) on another instance sharing the store.
                () = server.ended_elsewhere(&owner, &id) => None,
                () = tokio::time::sleep(overdue) => Some((
                    TaskOutcome::Error(ErrorObject::internal("task expired: its ttl passed before it finished")),
                    TaskStatus::Failed,
                )),
            };
            let engine = server.task_engine();
            if let Some((outcome, status)) = ended {
                let message = match &outcome {
                    TaskOutcome::Error(e) => Some(e.message.clone()),
                    TaskOutcome::Result(_) => None,
                };
                let change = TaskChange::Finish { outcome, status, message };
                // A store that went away loses this outcome; the task then expires with it.
                if let Ok(Some(after)) = engine.options().store.apply(&owner, &id, change, now_ms()).await {
                    server.task_changed(&after);
                }
            }
            if !finished {
                // The handler sees its cancellation and gets a moment to wind down (what it
                // answers then is ignored: the task has ended) before it is dropped.
                live.cancel.cancel();
                let _ = tokio::time::timeout(CANCEL_GRACE, &mut body).await;
            }
            live.cancel.cancel();
            live.changed.notify_waiters();
            lock(&engine.live).remove(&id);
        });
        Ok(created)
    }

    /// Wait until the stored task `id` is terminal or gone, re-reading a shared store at the
    /// poll interval; never, for a store in this process (whose changes all pass through here).
    async fn ended_elsewhere(&self, owner: &str, id: &str) {
        let options = self.task_engine().options();
        if !options.store.is_shared() {
            return std::future::pending().await;
        }
        loop {
            tokio::time::sleep(options.poll_interval).await;
            match options.store.get(owner, id).await {
                Ok(Some(r)) if !r.state.is_terminal() => {}
                Ok(_) => return,
                // A store that went away: keep running, and look again.
                Err(_) => {}
            }
        }
    }

    /// How a task's handler ended, as its stored outcome and status.
    fn task_outcome(
        &self,
        ctx: &RequestContext,
        generation: Generation,
        ended: Result<Finished<CallToolResult>, HandlerError>,
    ) -> (TaskOutcome, TaskStatus) {
        match ended {
            Ok(Finished::Complete(r)) if !r.structured_is_object() => {
                (TaskOutcome::Error(HandlerError::invalid_result(NOT_AN_OBJECT).into_rpc()), TaskStatus::Failed)
            }
            Ok(Finished::Complete(mut r)) => {
                r.strip_for(ctx.protocol_version());
                let is_error = r.is_error();
                match serde_json::to_value(&r) {
                    // 2025-11-25 classifies a tool error as a failed task; the extension as a
                    // completed one whose result says so.
                    Ok(v) if is_error && generation == Generation::Legacy => {
                        (TaskOutcome::Result(v), TaskStatus::Failed)
                    }
                    Ok(v) => (TaskOutcome::Result(v), TaskStatus::Completed),
                    Err(e) => (
                        TaskOutcome::Error(ErrorObject::internal(format!("unserializable tool result: {e}"))),
                        TaskStatus::Failed,
                    ),
                }
            }
            Ok(Finished::InputRequired(_)) => (
                TaskOutcome::Error(ErrorObject::internal("the task's handler asked for input it could not be given")),
                TaskStatus::Failed,
            ),
            Err(HandlerError::Rpc(e)) => (TaskOutcome::Error(e), TaskStatus::Failed),
            Err(HandlerError::Failed(m)) => (TaskOutcome::Error(ErrorObject::internal(m)), TaskStatus::Failed),
        }
    }

    /// The create result for `record`, in its generation's shape.
    fn create_task_result(&self, record: &TaskRecord) -> Outcome {
        let view = record.view();
        match record.generation {
            Generation::Extension => self.modern_result(&view.extension(), ResultType::Task, None, None),
            Generation::Legacy => super::dispatch::to_raw(&json!({ "task": view.legacy() })),
        }
    }
}

/// The peer a task's handler talks to: its input requests become the task's pending input.
struct TaskPeer {
    server: WeakServer,
    owner: String,
    id: String,
    live: Arc<Live>,
}

impl Peer for TaskPeer {
    fn send(&self, _frame: String) {}

    fn can_request(&self) -> bool {
        true
    }

    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        let server = self.server.clone();
        let (owner, id, live) = (self.owner.clone(), self.id.clone(), self.live.clone());
        let request = input_request_entry(method, params);
        Box::pin(async move {
            // A handler still in its promotion window asks only once the task exists.
            while !live.started.load(Ordering::Acquire) {
                let started = live.started_signal.notified();
                tokio::pin!(started);
                started.as_mut().enable();
                if live.started.load(Ordering::Acquire) {
                    break;
                }
                tokio::select! {
                    () = started => {}
                    () = live.cancel.cancelled() => return Err(PeerError::Closed),
                }
            }
            let server = server.upgrade().ok_or(PeerError::Closed)?;
            server.ask_task_input(&owner, &id, &live, request).await
        })
    }
}

impl Server {
    /// Put one input request in task `id` and wait for its answer.
    async fn ask_task_input(&self, owner: &str, id: &str, live: &Live, request: Value) -> Result<Value, PeerError> {
        let engine = self.task_engine();
        let store = engine.options().store.clone();
        let unavailable = |e: StoreError| PeerError::Rpc(store_error(e));
        let record = store.apply(owner, id, TaskChange::AskInput { request }, now_ms()).await.map_err(unavailable)?;
        let record = record.ok_or(PeerError::Closed)?;
        if record.state.is_terminal() {
            return Err(PeerError::Closed);
        }
        let key = TaskRecord::input_key(record.inputs_issued);
        self.task_changed(&record);
        live.changed.notify_waiters();
        loop {
            let changed = live.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let record = store.get(owner, id).await.map_err(unavailable)?.ok_or(PeerError::Closed)?;
            if record.state.is_terminal() {
                return Err(PeerError::Closed);
            }
            if let Some(answer) = record.input_responses.get(&key).cloned() {
                store.apply(owner, id, TaskChange::TakeAnswer(key), now_ms()).await.map_err(unavailable)?;
                return Ok(answer);
            }
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep(engine.options().poll_interval) => {}
                () = live.cancel.cancelled() => return Err(PeerError::Closed),
            }
        }
    }
}

impl Server {
    /// Tell listen streams that asked for an extension task its new status
    /// (`notifications/tasks`, what `tasks/get` would answer; the spec's MAY, polling stays the
    /// way to know). 2025-11-25's `notifications/tasks/status` is not sent: a session's
    /// channel also carries the task's input requests, and clients written against the SDKs
    /// read the next message there as the request.
    pub(crate) fn task_changed(&self, record: &TaskRecord) {
        if record.generation == Generation::Extension {
            let params = Value::Object(methods::detailed(record));
            self.deliver_everywhere(super::fanout::FanoutEvent::Task { id: record.id.clone(), params });
        }
    }

    /// The task ids of a listen filter this caller may watch: its own tasks that exist. The
    /// extension must be declared (`-32021` otherwise).
    pub(crate) async fn honour_task_ids(
        &self,
        ctx: &RequestContext,
        ids: &[String],
    ) -> Result<Option<Vec<String>>, ErrorObject> {
        if ctx.client_extension(TASKS_EXTENSION).is_none() {
            return Err(missing_capability(
                true,
                "subscriptions/listen with taskIds",
                json!({ "extensions": { TASKS_EXTENSION: {} } }),
            ));
        }
        let owner = self.task_owner(ctx);
        let store = self.task_engine().options().store.clone();
        let mut own = Vec::new();
        for id in ids {
            if store.get(&owner, id).await.map_err(store_error)?.is_some() {
                own.push(id.clone());
            }
        }
        Ok((!own.is_empty()).then_some(own))
    }
}

/// `-32602` for a task id the caller cannot see (unknown, expired, or another owner's: the
/// same answer, so ids do not leak).
fn task_not_found(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Task not found: {id}")).with_data(json!({ "taskId": id }))
}
