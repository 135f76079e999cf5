//! The dispatch limits of a live server (the core's `Limits`) from JavaScript: an object of
//! the core's keys in (camelCase, or snake_case), the limits in force out with camelCase keys.
//! The core checks every value and words every refusal; this throws it as a `TypeError`, its
//! key spelled the Node way (`invalid limit maxInFlight: must be at least 1`).

use ferrite_core::naming::camel_case;
use ferrite_core::{Limits, LimitsError};
use napi::{Env, Result};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::errors;
use crate::server::NativeServer;

/// The limits as JSON text with camelCase keys.
fn camel_json(limits: Limits) -> String {
    let keys = match limits.to_json() {
        Value::Object(m) => m.into_iter().map(|(k, v)| (camel_case(&k), v)).collect(),
        _ => Map::new(),
    };
    Value::Object(keys).to_string()
}

/// The core's refusal with its key spelled camelCase.
fn refusal(env: &Env, e: LimitsError) -> napi::Error {
    errors::type_error(env, format!("invalid limit {}: {}", camel_case(&e.option), e.message))
}

#[napi]
impl NativeServer {
    /// Change the limits named in `limitsJson` (an object of `maxBatchLen`,
    /// `maxInFlightPerConnection`, `maxInFlight`, `maxJsonDepth`; snake_case is read too; `null` keeps a
    /// value); returns the limits now in force, camelCase. A bad one throws a `TypeError`
    /// with the core's message, changing nothing.
    #[napi]
    pub fn set_limits(&self, env: &Env, limits_json: String) -> Result<String> {
        let value: Value = serde_json::from_str(&limits_json)
            .map_err(|e| errors::type_error(env, format!("invalid limit limits: not JSON: {e}")))?;
        let now = self.server.set_limits_json(value).map_err(|e| refusal(env, e))?;
        Ok(camel_json(now))
    }

    /// The limits in force, every key, camelCase.
    #[napi]
    pub fn limits(&self) -> String {
        camel_json(self.server.limits())
    }

    /// Requests running now in the whole server (what `maxInFlight` bounds).
    #[napi]
    pub fn in_flight(&self) -> u32 {
        u32::try_from(self.server.in_flight()).unwrap_or(u32::MAX)
    }
}
