//! Tasks from Python: a tool's task support from the `task_support=` keyword (or the official
//! SDK's `execution=` descriptor field) into the descriptor's `execution.taskSupport`, and the
//! server's `task_*` options into the core's [`TaskOptions`]. The core judges the word (a
//! `ConfigError::InvalidTaskSupport` at registration) and decides everything else (when a call
//! becomes a task, its lifecycle, both wire generations). Each conversion reports a mistake as
//! text that `server.rs` raises as `ConfigError`.

use std::time::Duration;

use ferrite_core::{TaskOptions, Tool};
use serde_json::{Map, Value};

/// Put the `task_support=` keyword into `tool`'s `execution.taskSupport` as given (the core
/// checks it is one of the three words). Given both ways (`execution=` carrying a
/// `taskSupport` too), the two must say the same.
pub fn apply_support(mut tool: Tool, keyword: Option<&str>) -> Result<Tool, String> {
    let Some(keyword) = keyword else { return Ok(tool) };
    let word = Value::String(keyword.to_owned());
    match &mut tool.execution {
        None => tool.execution = Some(Value::Object(Map::from_iter([("taskSupport".to_owned(), word)]))),
        Some(Value::Object(e)) => match e.get("taskSupport") {
            Some(declared) if *declared != word => {
                return Err(format!(
                    "tool {}: task_support={word} disagrees with execution.taskSupport {declared}",
                    tool.name
                ))
            }
            _ => {
                e.insert("taskSupport".to_owned(), word);
            }
        },
        // Not an object: the core refuses the descriptor as it is.
        Some(_) => {}
    }
    Ok(tool)
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
