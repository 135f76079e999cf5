//! Tasks through a proxy. The proxy's own task engine serves its clients' tasks: the mirrored
//! tools keep the upstream's `execution.taskSupport`, so a client's task-augmented call (either
//! generation) becomes a task of the proxy's whose body forwards the call. That body calls a
//! tool the upstream runs only as a task as a task upstream too (`params.task` on the handshake
//! era, the extension declared on 2026-07-28) and waits it out here: `tasks/result` (handshake
//! era: the upstream's input requests arrive meanwhile and are asked in the proxy's task), or
//! `tasks/get` at the upstream's poll interval, with `tasks/update` for each of its input
//! requests as the client answers it (2026-07-28). Cancelling the proxy's task cancels the
//! upstream's with `tasks/cancel`. The upstream's task ids never reach the client.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::forward::Forwarded;
use super::link::{Failure, Forward, Link};
use super::Mirror;
use crate::protocol::model::{CallToolResult, Reply, TaskStatus, RELATED_TASK_KEY, TASKS_EXTENSION};
use crate::protocol::ErrorObject;
use crate::server::{BoxFuture, HandlerError, HandlerResult, PeerError, RequestContext};

/// The shortest and longest wait between two `tasks/get` of an upstream task, whatever
/// interval the upstream suggests.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(20), Duration::from_secs(5));

/// How long the answer of a cancelled call that may create a task is awaited (within the
/// engine's grace for a cancelled handler).
const LATE_ANSWER: Duration = Duration::from_secs(4);

/// A task the upstream made of a call.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum UpstreamTask {
    /// 2025-11-25: `{task: {taskId, ...}}`; its result comes from `tasks/result`.
    Legacy(String),
    /// 2026-07-28: `{resultType: "task", taskId, pollIntervalMs?, ...}`; polled with
    /// `tasks/get`.
    Extension {
        /// The upstream's task id.
        id: String,
        /// How long to wait between two `tasks/get`.
        poll: Duration,
    },
}

impl UpstreamTask {
    /// The task an upstream answer creates, if it is a create-task result.
    pub(super) fn of(answer: &Value) -> Option<UpstreamTask> {
        if answer.get("resultType").and_then(Value::as_str) == Some("task") {
            let id = answer.get("taskId")?.as_str()?.to_owned();
            let poll =
                answer.get("pollIntervalMs").and_then(Value::as_u64).map_or(POLL_BOUNDS.1, Duration::from_millis);
            return Some(UpstreamTask::Extension { id, poll: poll.clamp(POLL_BOUNDS.0, POLL_BOUNDS.1) });
        }
        // A tool result never has `task`; a 2025-11-25 create-task result has only that.
        let task = answer.get("task")?;
        if answer.get("content").is_some() {
            return None;
        }
        Some(UpstreamTask::Legacy(task.get("taskId")?.as_str()?.to_owned()))
    }

    fn id(&self) -> &str {
        match self {
            UpstreamTask::Legacy(id) | UpstreamTask::Extension { id, .. } => id,
        }
    }
}

/// The client's capabilities with the tasks extension declared: what a 2026-07-28 call the
/// proxy makes as a task (and every `tasks/*` request about it) declares upstream.
pub(super) fn declaring_tasks(ctx: &RequestContext) -> Value {
    let mut caps = serde_json::to_value(ctx.client_capabilities()).unwrap_or_else(|_| json!({}));
    if let Some(m) = caps.as_object_mut() {
        let exts = m.entry("extensions").or_insert_with(|| json!({}));
        if let Some(e) = exts.as_object_mut() {
            e.entry(TASKS_EXTENSION).or_insert_with(|| json!({}));
        }
    }
    caps
}

/// Whether an upstream error says the call runs only as a task (`-32021` naming the tasks
/// extension among the required capabilities).
pub(super) fn asks_for_tasks(e: &ErrorObject) -> bool {
    e.code == crate::protocol::code::MISSING_REQUIRED_CLIENT_CAPABILITY
        && e.data
            .as_ref()
            .and_then(|d| d.pointer("/requiredCapabilities/extensions"))
            .and_then(|x| x.get(TASKS_EXTENSION))
            .is_some()
}

/// A result of the upstream's task without the upstream's task id (the proxy's engine ties
/// on its own task's).
fn untied(mut result: Value) -> Value {
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.remove(RELATED_TASK_KEY);
        if meta.is_empty() {
            result.as_object_mut().map(|m| m.remove("_meta"));
        }
    }
    result
}

fn complete(result: Value) -> HandlerResult<Reply<CallToolResult>> {
    serde_json::from_value(untied(result)).map(Reply::Complete).map_err(HandlerError::invalid_result)
}

fn failure(e: Failure) -> HandlerError {
    match e {
        Failure::Rpc(e) => HandlerError::Rpc(e),
        Failure::NeedsInput(_) => HandlerError::failed("the upstream asked for input outside its task"),
    }
}

impl Mirror {
    /// Wait out a task the upstream made of a `tools/call` for `ctx`'s client, declaring
    /// `capabilities` upstream (2026-07-28), and answer what the call would have answered.
    pub(super) async fn await_task(
        &self,
        link: &Arc<Link>,
        task: UpstreamTask,
        ctx: &RequestContext,
        capabilities: Option<Value>,
    ) -> HandlerResult<Reply<CallToolResult>> {
        let forward = Forward::declaring(ctx.clone(), Vec::new(), capabilities, true);
        let outcome = match &task {
            UpstreamTask::Legacy(id) => {
                *crate::sync::lock(&forward.upstream_task) = Some(id.clone());
                link.request("tasks/result", Some(json!({"taskId": id})), Some(&forward)).await.map_err(failure)
            }
            UpstreamTask::Extension { id, poll } => self.poll_task(link, id, *poll, ctx, &forward).await,
        };
        if ctx.is_cancelled() {
            // `tasks/cancel`, never `notifications/cancelled`, ends a task; nobody waits for
            // its answer.
            let _ = link.request_beside("tasks/cancel", Some(json!({"taskId": task.id()})), &forward).await;
            return Err(HandlerError::Rpc(ErrorObject::new(-32800, "Request cancelled")));
        }
        complete(outcome?)
    }

    /// A 2026-07-28 `tools/call` the upstream may answer with a task. A client's cancellation
    /// cannot reach that call upstream (a POST answered with JSON is not cancelled by closing
    /// it), and abandoning it would leave the task its answer creates running: its answer is
    /// awaited (the upstream gives it within its promotion window), and a task in it cancelled.
    pub(super) async fn call_creating_task(
        &self,
        link: &Arc<Link>,
        params: Map<String, Value>,
        ctx: &RequestContext,
        headers: Vec<(String, String)>,
        capabilities: Option<Value>,
    ) -> HandlerResult<Forwarded> {
        let call = self.forward_raw("tools/call", params, ctx, headers, capabilities.clone(), false);
        tokio::pin!(call);
        tokio::select! {
            answer = &mut call => answer,
            () = ctx.cancelled() => {
                if let Ok(Ok(Forwarded::Answer(v))) = tokio::time::timeout(LATE_ANSWER, call).await {
                    if let Some(task) = UpstreamTask::of(&v) {
                        let forward = Forward::declaring(ctx.clone(), Vec::new(), capabilities, true);
                        let _ = link.request_beside("tasks/cancel", Some(json!({"taskId": task.id()})), &forward).await;
                    }
                }
                Err(HandlerError::Rpc(ErrorObject::new(-32800, "Request cancelled")))
            }
        }
    }

    /// `tasks/get` every `poll` until the task ends; its result, or its error. Each input
    /// request the task shows is asked of the client once, beside the polling, and its answer
    /// sent back with `tasks/update` as it comes: an upstream task whose requests appear one
    /// poll apart (two elicitations made together, seen between the two) shows the client
    /// both, rather than one the client may be holding until it sees the other.
    async fn poll_task(
        &self,
        link: &Arc<Link>,
        id: &str,
        poll: Duration,
        ctx: &RequestContext,
        forward: &Arc<Forward>,
    ) -> Result<Value, HandlerError> {
        let mut asked: HashSet<String> = HashSet::new();
        let mut asks: FuturesUnordered<BoxFuture<'static, (String, Result<Value, PeerError>)>> =
            FuturesUnordered::new();
        let mut next_poll = Instant::now();
        loop {
            tokio::select! {
                biased;
                () = ctx.cancelled() => return Err(HandlerError::failed("cancelled")),
                Some((key, answer)) = asks.next(), if !asks.is_empty() => {
                    let answer = answer.map_err(|e| match e {
                        PeerError::Rpc(e) => HandlerError::Rpc(e),
                        other => HandlerError::failed(format!("the upstream task asked for input: {other}")),
                    })?;
                    let update = json!({"taskId": id, "inputResponses": {key: answer}});
                    link.request("tasks/update", Some(update), Some(forward)).await.map_err(failure)?;
                    // The task resumes: see where it went without waiting a poll out.
                    next_poll = Instant::now();
                    continue;
                }
                () = tokio::time::sleep_until(next_poll) => {}
            }
            let got = link.request("tasks/get", Some(json!({"taskId": id})), Some(forward)).await.map_err(failure)?;
            let status = got.get("status").cloned().and_then(|s| serde_json::from_value::<TaskStatus>(s).ok());
            match status {
                Some(TaskStatus::Completed) => {
                    return got
                        .get("result")
                        .cloned()
                        .ok_or_else(|| HandlerError::invalid_result("a completed upstream task without its result"))
                }
                Some(TaskStatus::Failed) => {
                    return match (got.get("error"), got.get("result")) {
                        (Some(e), _) => Err(HandlerError::Rpc(
                            serde_json::from_value(e.clone()).map_err(HandlerError::invalid_result)?,
                        )),
                        (None, Some(r)) => Ok(r.clone()),
                        (None, None) => Err(HandlerError::failed("the upstream task failed")),
                    }
                }
                Some(TaskStatus::Cancelled) => return Err(HandlerError::failed("the upstream cancelled the task")),
                Some(TaskStatus::InputRequired) => {
                    let shown = got.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
                    for (key, request) in shown {
                        if !asked.insert(key.clone()) {
                            continue;
                        }
                        let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
                        let params = request.get("params").cloned();
                        let ctx = ctx.clone();
                        asks.push(Box::pin(async move { (key, ctx.send_request(&method, params).await) }));
                    }
                }
                Some(TaskStatus::Working) | None => {}
            }
            next_poll = Instant::now() + poll;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_task_results_of_both_generations_are_told_from_tool_results() {
        assert_eq!(
            UpstreamTask::of(&json!({"task": {"taskId": "u1", "status": "working"}})),
            Some(UpstreamTask::Legacy("u1".into()))
        );
        assert_eq!(
            UpstreamTask::of(
                &json!({"resultType": "task", "taskId": "u2", "status": "working", "pollIntervalMs": 250})
            ),
            Some(UpstreamTask::Extension { id: "u2".into(), poll: Duration::from_millis(250) })
        );
        // The upstream's interval is kept within bounds.
        assert_eq!(
            UpstreamTask::of(&json!({"resultType": "task", "taskId": "u3", "pollIntervalMs": 0})),
            Some(UpstreamTask::Extension { id: "u3".into(), poll: POLL_BOUNDS.0 })
        );
        assert_eq!(UpstreamTask::of(&json!({"content": [], "task": {"taskId": "x"}})), None);
        assert_eq!(UpstreamTask::of(&json!({"content": [{"type": "text", "text": "5"}]})), None);
        assert_eq!(UpstreamTask::of(&json!({"resultType": "complete", "content": []})), None);
    }

    #[test]
    fn the_upstream_task_id_is_taken_off_its_result() {
        let r = untied(json!({"content": [], "_meta": {RELATED_TASK_KEY: {"taskId": "u1"}}}));
        assert_eq!(r, json!({"content": []}));
        let r = untied(json!({"content": [], "_meta": {RELATED_TASK_KEY: {"taskId": "u1"}, "k": 1}}));
        assert_eq!(r, json!({"content": [], "_meta": {"k": 1}}));
    }
}
