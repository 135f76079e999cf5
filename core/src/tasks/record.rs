//! A task as data: what a [`TaskStore`](super::TaskStore) keeps, and the changes it may apply.
//! The rules of change (terminal states never change, answered input keys never come back,
//! status derives from pending input) live in [`TaskRecord::apply`], one pure function, so
//! that every store, in memory or across the network, applies exactly the same semantics.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::protocol::model::{TaskStatus, TaskView};
use crate::protocol::ErrorObject;

/// Which generation of tasks created the task; it decides the wire shapes and how a tool
/// result with `isError` is classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Generation {
    /// 2025-11-25 experimental tasks (`params.task`).
    Legacy,
    /// The 2026-07-28 tasks extension.
    Extension,
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// The request's result (a `CallToolResult` for `tools/call`).
    Result(Value),
    /// The JSON-RPC error the request would have answered.
    Error(ErrorObject),
}

/// One task. Times are milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// Unguessable id (128 bits from the OS CSPRNG).
    pub id: String,
    /// Who may see it: `sub:<subject>`, `session:<id>` or `anonymous`.
    pub owner: String,
    /// Which generation created it.
    pub generation: Generation,
    /// The tool it runs.
    pub tool: String,
    /// The stored status; while not terminal, the reported one derives from pending input
    /// ([`TaskRecord::status`]).
    pub state: TaskStatus,
    /// A message about the status.
    pub status_message: Option<String>,
    /// Creation time.
    pub created_at_ms: u64,
    /// Time of the last change.
    pub updated_at_ms: u64,
    /// How long the task is kept after creation, and after it ended (`None`: unlimited).
    pub ttl_ms: Option<u64>,
    /// The suggested polling interval.
    pub poll_interval_ms: Option<u64>,
    /// How it ended, once it has.
    pub outcome: Option<TaskOutcome>,
    /// Input requests the client has not answered yet, by key: `{method, params}`.
    pub input_requests: IndexMap<String, Value>,
    /// Answers received and not yet taken by the task's handler, by key.
    pub input_responses: Map<String, Value>,
    /// How many input keys the task has used (keys are never reused).
    pub inputs_issued: u64,
}

/// A change to a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TaskChange {
    /// The handler asks the client for input under a fresh key (`input-<n>`, n counted per
    /// task); the key is returned through [`TaskRecord::inputs_issued`].
    AskInput {
        /// `{method, params}`.
        request: Value,
    },
    /// The client answered some input requests. Keys that are not pending are ignored.
    Answer(Map<String, Value>),
    /// The handler took the answer for `key`.
    TakeAnswer(String),
    /// The task ended (ignored when it already had).
    Finish {
        /// How.
        outcome: TaskOutcome,
        /// The terminal status.
        status: TaskStatus,
        /// A message for the status.
        message: Option<String>,
    },
    /// Cancelled by the client (ignored when already terminal).
    Cancel,
}

impl TaskRecord {
    /// The status as reported: terminal states as stored; otherwise `input_required` while
    /// input requests are pending, else `working`.
    pub fn status(&self) -> TaskStatus {
        if self.state.is_terminal() {
            self.state
        } else if self.input_requests.is_empty() {
            TaskStatus::Working
        } else {
            TaskStatus::InputRequired
        }
    }

    /// The key the `n`-th input request of a task gets.
    pub fn input_key(n: u64) -> String {
        format!("input-{n}")
    }

    /// Whether the task may be removed at `now` (ended, and its ttl since the end passed).
    pub fn expired(&self, now_ms: u64) -> bool {
        match self.ttl_ms {
            Some(ttl) if self.state.is_terminal() => now_ms >= self.updated_at_ms.saturating_add(ttl),
            _ => false,
        }
    }

    /// Whether a task still running has outlived its ttl (it is then ended as failed).
    pub fn overdue(&self, now_ms: u64) -> bool {
        match self.ttl_ms {
            Some(ttl) if !self.state.is_terminal() => now_ms >= self.created_at_ms.saturating_add(ttl),
            _ => false,
        }
    }

    /// Apply `change` at `now`; returns whether anything changed.
    pub fn apply(&mut self, change: TaskChange, now_ms: u64) -> bool {
        let changed = match change {
            _ if self.state.is_terminal() => false,
            TaskChange::AskInput { request } => {
                self.inputs_issued += 1;
                self.input_requests.insert(Self::input_key(self.inputs_issued), request);
                true
            }
            TaskChange::Answer(answers) => {
                let mut any = false;
                for (key, value) in answers {
                    if self.input_requests.shift_remove(&key).is_some() {
                        self.input_responses.insert(key, value);
                        any = true;
                    }
                }
                any
            }
            TaskChange::TakeAnswer(key) => self.input_responses.remove(&key).is_some(),
            TaskChange::Finish { outcome, status, message } => {
                self.state = if status.is_terminal() { status } else { TaskStatus::Failed };
                self.outcome = Some(outcome);
                self.status_message = message;
                self.input_requests.clear();
                self.input_responses.clear();
                true
            }
            TaskChange::Cancel => {
                self.state = TaskStatus::Cancelled;
                self.status_message = Some("The task was cancelled by request.".to_owned());
                self.input_requests.clear();
                self.input_responses.clear();
                true
            }
        };
        if changed {
            self.updated_at_ms = self.updated_at_ms.max(now_ms);
        }
        changed
    }

    /// The task's wire fields.
    pub fn view(&self) -> TaskView<'_> {
        TaskView {
            task_id: &self.id,
            status: self.status(),
            status_message: self.status_message.as_deref(),
            created_at: rfc3339(self.created_at_ms),
            last_updated_at: rfc3339(self.updated_at_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
        }
    }
}

/// Milliseconds since the epoch as RFC 3339 UTC with milliseconds.
pub fn rfc3339(ms: u64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let format =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    t.format(&format).unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".to_owned())
}

/// Now, in milliseconds since the epoch.
pub fn now_ms() -> u64 {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn record() -> TaskRecord {
        TaskRecord {
            id: "t".into(),
            owner: "anonymous".into(),
            generation: Generation::Extension,
            tool: "slow".into(),
            state: TaskStatus::Working,
            status_message: None,
            created_at_ms: 1_000,
            updated_at_ms: 1_000,
            ttl_ms: Some(10_000),
            poll_interval_ms: Some(500),
            outcome: None,
            input_requests: IndexMap::new(),
            input_responses: Map::new(),
            inputs_issued: 0,
        }
    }

    #[test]
    fn status_follows_pending_input_and_partial_answers() {
        let mut r = record();
        r.apply(TaskChange::AskInput { request: json!({"method": "elicitation/create"}) }, 1_100);
        r.apply(TaskChange::AskInput { request: json!({"method": "roots/list"}) }, 1_100);
        assert_eq!(r.status(), TaskStatus::InputRequired);
        assert_eq!(r.input_requests.keys().collect::<Vec<_>>(), ["input-1", "input-2"]);
        let unknown_is_ignored = Map::from_iter([("nope".to_owned(), json!({"ignored": true}))]);
        assert!(!r.apply(TaskChange::Answer(unknown_is_ignored), 1_200));
        r.apply(TaskChange::Answer(Map::from_iter([("input-1".to_owned(), json!({"action": "accept"}))])), 1_300);
        assert_eq!(r.status(), TaskStatus::InputRequired);
        assert!(!r.input_requests.contains_key("input-1"));
        r.apply(TaskChange::Answer(Map::from_iter([("input-2".to_owned(), json!({"roots": []}))])), 1_400);
        assert_eq!(r.status(), TaskStatus::Working);
        assert_eq!(r.updated_at_ms, 1_400);
        // An answered key is not pending any more: answering again changes nothing.
        assert!(!r.apply(TaskChange::Answer(Map::from_iter([("input-1".to_owned(), json!({}))])), 1_500));
    }

    #[test]
    fn terminal_states_never_change() {
        let mut r = record();
        r.apply(TaskChange::Cancel, 2_000);
        assert_eq!(r.status(), TaskStatus::Cancelled);
        let late = TaskChange::Finish {
            outcome: TaskOutcome::Result(json!({"content": []})),
            status: TaskStatus::Completed,
            message: None,
        };
        assert!(!r.apply(late, 3_000));
        assert_eq!(r.status(), TaskStatus::Cancelled);
        assert_eq!(r.outcome, None);
        assert_eq!(r.updated_at_ms, 2_000);
    }

    #[test]
    fn a_task_expires_a_ttl_after_it_ended_and_is_overdue_a_ttl_after_creation() {
        let mut r = record();
        assert!(!r.expired(100_000), "a running task is never removed");
        assert!(r.overdue(11_000));
        assert!(!r.overdue(10_999));
        r.apply(
            TaskChange::Finish {
                outcome: TaskOutcome::Result(json!({})),
                status: TaskStatus::Completed,
                message: None,
            },
            5_000,
        );
        assert!(!r.expired(14_999));
        assert!(r.expired(15_000));
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_000_000_123), "2026-11-18T11:06:40.123Z");
    }
}
