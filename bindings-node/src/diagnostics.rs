//! The core's diagnostics (`ferrite_core::diagnostics`) into a JS function: the package's
//! `setDiagnostics` (src-ts/diagnostics.ts) gives each record to the user's function or
//! writes it on stderr.

use std::sync::Arc;

use ferrite_core::diagnostics::{self, Level, Record};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi_derive::napi;
use serde_json::json;

use crate::errors;

/// Send the core's records at `level` (`error`, `warn`/`warning`, `info`, `debug`, `trace`)
/// or more severe to `callback` as `{"level","target","message"}` JSON, on the event loop;
/// no level or no callback turns them off. The function is weak: it never keeps Node alive.
#[napi]
pub fn set_diagnostics(
    env: &Env,
    level: Option<String>,
    #[napi(ts_arg_type = "((record: string) => void) | undefined | null")] callback: Option<Function<'_, String, ()>>,
) -> Result<()> {
    let (Some(name), Some(callback)) = (level, callback) else {
        diagnostics::uninstall();
        return Ok(());
    };
    let level = Level::parse(&name).ok_or_else(|| {
        errors::type_error(env, format!("invalid diagnostics level {name:?}: error, warn, info, debug or trace"))
    })?;
    let tsfn = callback.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
    let sink = move |r: &Record<'_>| {
        let text = json!({"level": r.level.as_str(), "target": r.target, "message": r.message}).to_string();
        let _ = tsfn.call(text, ThreadsafeFunctionCallMode::NonBlocking);
    };
    diagnostics::install(level, Arc::new(sink)).map_err(|e| errors::type_error(env, e))
}
