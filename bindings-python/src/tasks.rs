//! Tasks from Python: a tool's task support from the `task_support=` keyword (or the official
//! SDK's `execution=` descriptor field) into the core's [`TaskSupport`], and the server's
//! `task_*` options into the core's [`TaskOptions`]. The core decides everything else (when a
//! call becomes a task, its lifecycle, both wire generations). Each conversion reports a
//! mistake as text that `server.rs` raises as `ConfigError`.

use std::time::Duration;

use ferrite_core::{TaskOptions, TaskSupport, Tool};
use serde_json::Value;

/// The core's task support from its wire word; the error names the three words.
fn support_of(word: &Value, tool: &str, what: &str) -> Result<TaskSupport, String> {
    serde_json::from_value(word.clone())
        .map_err(|_| format!("tool {tool}: invalid {what} {word}: use \"forbidden\", \"optional\" or \"required\""))
}

/// Set `tool`'s `execution.taskSupport` from the `task_support=` keyword, after checking the
/// value the descriptor already carries (`execution=`): each must be one of the three words,
/// and the two must agree.
pub fn apply_support(tool: Tool, keyword: Option<&str>) -> Result<Tool, String> {
    let declared = match &tool.execution {
        None => None,
        Some(Value::Object(e)) => match e.get("taskSupport") {
            Some(word) => Some(support_of(word, &tool.name, "execution.taskSupport")?),
            None => None,
        },
        Some(other) => return Err(format!("tool {}: execution must be an object, not {other}", tool.name)),
    };
    let Some(keyword) = keyword else { return Ok(tool) };
    let wanted = support_of(&Value::String(keyword.to_owned()), &tool.name, "task_support")?;
    if declared.is_some_and(|d| d != wanted) {
        return Err(format!(
            "tool {}: task_support={:?} disagrees with execution.taskSupport {:?}",
            tool.name,
            wanted.as_str(),
            declared.map_or("", TaskSupport::as_str)
        ));
    }
    Ok(tool.with_task_support(wanted))
}

/// A positive, finite number of seconds as a `Duration`, for option `name`.
fn seconds(name: &str, value: f64) -> Result<Duration, String> {
    match Duration::try_from_secs_f64(value) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(format!("{name} must be a positive, finite number of seconds, not {value}")),
    }
}

/// The core's task options with the given settings (seconds) replacing its defaults.
pub fn options(ttl: Option<f64>, max_ttl: Option<f64>, poll_interval: Option<f64>) -> Result<TaskOptions, String> {
    let mut o = TaskOptions::default();
    if let Some(s) = ttl {
        o.default_ttl = seconds("task_ttl", s)?;
    }
    if let Some(s) = max_ttl {
        o.max_ttl = seconds("task_max_ttl", s)?;
    }
    if let Some(s) = poll_interval {
        o.poll_interval = seconds("task_poll_interval", s)?;
    }
    Ok(o)
}
