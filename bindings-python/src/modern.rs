//! The 2026-07-28 server settings, from Python values into the core's types: request-state
//! sealing keys and lifetime, cache hints, skills. Each conversion reports a mistake as text
//! that `server.rs` raises as `ConfigError`.

use std::collections::HashMap;
use std::time::Duration;

use ferrite_core::request_state::SealingKey;
use ferrite_core::server::CacheHints;
use ferrite_core::skills::Skill;
use ferrite_core::{CacheHint, CacheScope};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

/// The sealing keys from their text (64 hex characters, or base64 of 32 bytes).
pub fn sealing_keys(current: &str, previous: &[String]) -> Result<(SealingKey, Vec<SealingKey>), String> {
    let parse =
        |text: &str, which: &str| SealingKey::parse(text).map_err(|e| format!("{which} request state key: {e}"));
    let current = parse(current, "the current")?;
    let previous = previous.iter().map(|k| parse(k, "a previous")).collect::<Result<Vec<_>, _>>()?;
    Ok((current, previous))
}

/// A positive, finite number of seconds as a `Duration`.
pub fn ttl(seconds: f64) -> Result<Duration, String> {
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(format!("the request state lifetime must be a positive, finite number of seconds, not {seconds}")),
    }
}

/// The Python name of a cache scope.
pub fn scope_name(scope: CacheScope) -> &'static str {
    match scope {
        CacheScope::Public => "public",
        CacheScope::Private => "private",
    }
}

/// A cache hint from `ttl_ms` (milliseconds, not negative) and `scope` (`"public"` or
/// `"private"`).
pub fn cache_hint(ttl_ms: i64, scope: &str) -> Result<CacheHint, String> {
    let ttl_ms = u64::try_from(ttl_ms).map_err(|_| format!("ttl_ms must not be negative, not {ttl_ms}"))?;
    let scope = match scope {
        "public" => CacheScope::Public,
        "private" => CacheScope::Private,
        other => return Err(format!("a cache scope is 'public' or 'private', not {other:?}")),
    };
    Ok(CacheHint::new(ttl_ms, scope))
}

/// The Python names of the hints in `CacheHints`, in order.
pub const HINT_NAMES: [&str; 6] =
    ["discover", "tools_list", "prompts_list", "resources_list", "templates_list", "resource_read"];

/// Every hint with its Python name.
pub fn hints_by_name(h: &CacheHints) -> [(&'static str, CacheHint); 6] {
    [
        ("discover", h.discover),
        ("tools_list", h.tools_list),
        ("prompts_list", h.prompts_list),
        ("resources_list", h.resources_list),
        ("templates_list", h.templates_list),
        ("resource_read", h.resource_read),
    ]
}

/// `hints` with the named ones replaced.
pub fn update_hints(mut hints: CacheHints, updates: HashMap<String, (i64, String)>) -> Result<CacheHints, String> {
    for (name, (ttl_ms, scope)) in updates {
        let hint = cache_hint(ttl_ms, &scope).map_err(|e| format!("cache hint {name}: {e}"))?;
        let slot = match name.as_str() {
            "discover" => &mut hints.discover,
            "tools_list" => &mut hints.tools_list,
            "prompts_list" => &mut hints.prompts_list,
            "resources_list" => &mut hints.resources_list,
            "templates_list" => &mut hints.templates_list,
            "resource_read" => &mut hints.resource_read,
            other => return Err(format!("unknown cache hint {other:?}: use one of {}", HINT_NAMES.join(", "))),
        };
        *slot = hint;
    }
    Ok(hints)
}

/// A skill from its root and files (relative path -> `str`, UTF-8 encoded, or `bytes`). The
/// outer `PyResult` is a Python error (a key that is not a string); the inner one the core's
/// refusal.
pub fn skill(root: &str, files: &Bound<'_, PyDict>) -> PyResult<Result<Skill, String>> {
    let mut out = Vec::with_capacity(files.len());
    for (path, content) in files.iter() {
        let path: String = path.extract()?;
        let bytes = if let Ok(b) = content.cast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else if let Ok(s) = content.cast::<PyString>() {
            s.to_cow()?.as_bytes().to_vec()
        } else {
            return Ok(Err(format!("skill file {path:?}: the contents must be str or bytes")));
        };
        out.push((path, bytes));
    }
    Ok(Skill::new(root, out).map_err(|e| e.to_string()))
}
