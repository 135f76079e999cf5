//! Tasks on the wire, both generations: the experimental tasks of 2025-11-25 (`params.task`
//! on `tools/call`, `tasks/get|result|list|cancel`, a nested `{task}` create result with `ttl`
//! and `pollInterval`) and the 2026-07-28 extension `io.modelcontextprotocol/tasks`
//! (server-directed, a flat `resultType: "task"` create result with `ttlMs` and
//! `pollIntervalMs`, `tasks/get|update|cancel`, results inlined on `tasks/get`).
//!
//! What a task *is* lives in [`crate::tasks`]; this module only names the wire vocabulary and
//! projects a stored task onto either generation, so the two shapes cannot drift apart.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::tools::Tool;

/// The tasks extension's identifier (2026-07-28 `extensions` key).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` key that ties a message to a task (2025-11-25).
pub const RELATED_TASK_KEY: &str = "io.modelcontextprotocol/related-task";

/// Where a task stands. `working` and `input_required` may change; the other three never do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for answers from the client.
    InputRequired,
    /// Finished with a result (on 2026-07-28 also a tool result with `isError`).
    Completed,
    /// Finished with a JSON-RPC error (on 2025-11-25 also a tool result with `isError`).
    Failed,
    /// Cancelled by the client (or expired before it finished).
    Cancelled,
}

impl TaskStatus {
    /// Whether the status is final.
    pub const fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// Whether a tool runs as a task: `Tool.execution.taskSupport` on the 2025-11-25 wire, and the
/// server's own policy on 2026-07-28 (where the server decides and the tool shows no field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client asks for one (2025-11-25) or declares the extension (2026-07-28).
    Optional,
    /// Only as a task: a client that cannot take one gets an error.
    Required,
}

impl TaskSupport {
    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

impl Tool {
    /// The same tool with `execution.taskSupport` set (other `execution` keys are kept).
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        let mut execution = match self.execution.take() {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        execution.insert("taskSupport".into(), Value::String(support.as_str().into()));
        self.execution = Some(Value::Object(execution));
        self
    }

    /// The tool's task support (`forbidden` when absent or not one of the three words).
    pub fn task_support(&self) -> TaskSupport {
        self.execution
            .as_ref()
            .and_then(|e| e.get("taskSupport"))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }
}

/// The common fields of a task on the wire, in either generation.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView<'a> {
    /// The task id.
    pub task_id: &'a str,
    /// The status.
    pub status: TaskStatus,
    /// A message about the status.
    pub status_message: Option<&'a str>,
    /// Creation time, RFC 3339.
    pub created_at: String,
    /// Time of the last change, RFC 3339.
    pub last_updated_at: String,
    /// How long the task is kept, in milliseconds (`None`: unlimited).
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    pub poll_interval_ms: Option<u64>,
}

impl TaskView<'_> {
    fn base(&self, ttl_key: &str, poll_key: &str) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), Value::String(self.task_id.to_owned()));
        m.insert("status".into(), Value::String(self.status.as_str().to_owned()));
        if let Some(s) = self.status_message {
            m.insert("statusMessage".into(), Value::String(s.to_owned()));
        }
        m.insert("createdAt".into(), Value::String(self.created_at.clone()));
        m.insert("lastUpdatedAt".into(), Value::String(self.last_updated_at.clone()));
        m.insert(ttl_key.into(), self.ttl_ms.map_or(Value::Null, Value::from));
        if let Some(p) = self.poll_interval_ms {
            m.insert(poll_key.into(), Value::from(p));
        }
        m
    }

    /// The 2025-11-25 `Task` object (`ttl`, `pollInterval`).
    pub fn legacy(&self) -> Map<String, Value> {
        self.base("ttl", "pollInterval")
    }

    /// The 2026-07-28 extension's `Task` object (`ttlMs`, `pollIntervalMs`), without the
    /// detail a `tasks/get` adds.
    pub fn extension(&self) -> Map<String, Value> {
        self.base("ttlMs", "pollIntervalMs")
    }
}

/// An entry of a 2026-07-28 task's `inputRequests`: `{method, params}`.
pub fn input_request_entry(method: &str, params: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("method".into(), Value::String(method.to_owned()));
    m.insert("params".into(), params.unwrap_or_else(|| Value::Object(Map::new())));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn view() -> TaskView<'static> {
        TaskView {
            task_id: "t1",
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-11-23T10:00:00.000Z".into(),
            last_updated_at: "2026-11-23T10:00:01.000Z".into(),
            ttl_ms: Some(60_000),
            poll_interval_ms: Some(500),
        }
    }

    #[test]
    fn the_two_generations_name_ttl_and_poll_interval_differently() {
        let legacy = Value::Object(view().legacy());
        assert_eq!(legacy["ttl"], json!(60_000));
        assert_eq!(legacy["pollInterval"], json!(500));
        assert!(legacy.get("ttlMs").is_none());
        let ext = Value::Object(view().extension());
        assert_eq!(ext["ttlMs"], json!(60_000));
        assert_eq!(ext["pollIntervalMs"], json!(500));
        assert!(ext.get("ttl").is_none() && ext.get("pollInterval").is_none());
    }

    #[test]
    fn an_unlimited_ttl_is_null_not_absent() {
        let v = TaskView { ttl_ms: None, ..view() };
        assert_eq!(Value::Object(v.extension())["ttlMs"], Value::Null);
        assert_eq!(Value::Object(v.legacy())["ttl"], Value::Null);
    }

    #[test]
    fn task_support_reads_and_writes_execution() {
        let t = Tool::new("slow", json!({"type": "object"}));
        assert_eq!(t.task_support(), TaskSupport::Forbidden);
        let t = t.with_task_support(TaskSupport::Required);
        assert_eq!(t.execution, Some(json!({"taskSupport": "required"})));
        assert_eq!(t.task_support(), TaskSupport::Required);
        let odd = Tool { execution: Some(json!({"taskSupport": "sometimes"})), ..t };
        assert_eq!(odd.task_support(), TaskSupport::Forbidden);
    }
}
