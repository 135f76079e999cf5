//! The 2026-07-28 server settings, from JS values into the core's types: request-state
//! sealing keys and lifetime, extensions, cache hints, custom request methods and skills.
//!
//! Values are checked by the core's own parsers (`SealingKey::parse`, serde on `CacheHints`
//! and `CacheHint`, `Skill::new`); a refused value throws the JS error class of
//! [`crate::errors`].

use std::collections::HashMap;
use std::time::Duration;

use ferrite_core::request_state::SealingKey;
use ferrite_core::server::CacheHints;
use ferrite_core::skills::Skill;
use ferrite_core::CacheHint;
use napi::bindgen_prelude::{Either, Function, Uint8Array};
use napi::{Env, Result};
use napi_derive::napi;
use serde_json::Value;

use crate::errors;
use crate::handlers::{JsArgs, JsReturn};
use crate::server::NativeServer;

/// A skill file's contents as JS gives them: text (UTF-8 encoded) or bytes.
type SkillFile = Either<String, Uint8Array>;

#[napi]
impl NativeServer {
    /// Seal MRTR request state with `current` (64 hex characters, or base64 of 32 bytes) and
    /// still open states sealed with any of `previous` (key rotation).
    #[napi]
    pub fn set_request_state_keys(&self, env: &Env, current: String, previous: Vec<String>) -> Result<()> {
        let parse = |text: &str, which: &str| {
            SealingKey::parse(text).map_err(|e| errors::type_error(env, format!("{which} request state key: {e}")))
        };
        let current = parse(&current, "the current")?;
        let previous = previous.iter().map(|k| parse(k, "a previous")).collect::<Result<Vec<_>>>()?;
        self.server.set_request_state_keys(current, previous);
        Ok(())
    }

    /// How long a sealed request state stays valid, in milliseconds (positive).
    #[napi]
    pub fn set_request_state_ttl(&self, env: &Env, ms: f64) -> Result<()> {
        if !(ms.is_finite() && ms >= 1.0) {
            return Err(errors::type_error(
                env,
                format!("the request state lifetime must be a positive number of milliseconds, not {ms}"),
            ));
        }
        self.server.set_request_state_ttl(Duration::from_millis(ms as u64));
        Ok(())
    }

    /// The id of the current sealing key (16 hex characters; not secret).
    #[napi]
    pub fn request_state_key_id(&self) -> String {
        self.server.request_state_key_id()
    }

    /// Advertise extension `id` with `settingsJson` (a JSON object) to 2026-07-28 clients.
    #[napi]
    pub fn add_extension(&self, env: &Env, id: String, settings_json: String) -> Result<()> {
        let settings: Value = serde_json::from_str(&settings_json)
            .map_err(|e| errors::type_error(env, format!("extension {id:?}: invalid settings: {e}")))?;
        if !settings.is_object() {
            return Err(errors::type_error(env, format!("extension {id:?}: the settings must be a JSON object")));
        }
        self.server.add_extension(&id, settings).map_err(|e| errors::config(env, e))
    }

    /// Stop advertising extension `id`; whether it was advertised.
    #[napi]
    pub fn remove_extension(&self, id: String) -> bool {
        self.server.remove_extension(&id)
    }

    /// The cache hints of `server/discover`, the lists and resource reads (JSON, the core's
    /// `CacheHints`).
    #[napi]
    pub fn cache_hints(&self) -> String {
        serde_json::to_string(&self.server.cache_hints()).unwrap_or_else(|_| "{}".to_owned())
    }

    /// Replace the hints named in `hintsJson` (the core's `CacheHints` shape, camelCase:
    /// `{discover?, toolsList?, promptsList?, resourcesList?, templatesList?, resourceRead?}`,
    /// each `{ttlMs, cacheScope}`); the others keep their value.
    #[napi]
    pub fn set_cache_hints(&self, env: &Env, hints_json: String) -> Result<()> {
        let invalid = |e: &dyn std::fmt::Display| errors::type_error(env, format!("invalid cache hints: {e}"));
        let updates: serde_json::Map<String, Value> = serde_json::from_str(&hints_json).map_err(|e| invalid(&e))?;
        let mut merged = match serde_json::to_value(self.server.cache_hints()) {
            Ok(Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        merged.extend(updates);
        let hints: CacheHints = serde_json::from_value(Value::Object(merged)).map_err(|e| invalid(&e))?;
        self.server.set_cache_hints(hints);
        Ok(())
    }

    /// The cache hint (`{ttlMs, cacheScope}`) of reads of one registered resource or resource
    /// template, by its URI or URI template.
    #[napi]
    pub fn set_resource_cache_hint(&self, env: &Env, uri: String, hint_json: String) -> Result<()> {
        let hint: CacheHint = serde_json::from_str(&hint_json)
            .map_err(|e| errors::type_error(env, format!("invalid cache hint for {uri:?}: {e}")))?;
        self.server.set_resource_cache_hint(&uri, hint).map_err(|e| errors::config(env, e))
    }

    /// Serve request method `name` (a custom method; both eras) with a JS handler whose
    /// payload is the params object without `_meta` and whose envelope holds a JSON object.
    #[napi]
    pub fn add_method(
        &self,
        env: &Env,
        name: String,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
    ) -> Result<()> {
        self.server.add_method(&name, self.callback(handler, "method")?).map_err(|e| errors::config(env, e))
    }

    /// Stop serving custom method `name`; whether it was served.
    #[napi]
    pub fn remove_method(&self, name: String) -> bool {
        self.server.remove_method(&name)
    }

    /// Serve a skill (the `io.modelcontextprotocol/skills` extension) at `root` made of
    /// `files` (relative path -> text or bytes).
    #[napi]
    pub fn add_skill(
        &self,
        env: &Env,
        root: String,
        #[napi(ts_arg_type = "Record<string, string | Uint8Array>")] files: HashMap<String, SkillFile>,
    ) -> Result<()> {
        let files = files.into_iter().map(|(path, contents)| {
            let bytes = match contents {
                Either::A(text) => text.into_bytes(),
                Either::B(bytes) => bytes.to_vec(),
            };
            (path, bytes)
        });
        let skill = Skill::new(&root, files).map_err(|e| errors::skill(env, e))?;
        self.server.add_skill(skill).map_err(|e| errors::config(env, e))
    }

    /// Serve a skill at `root` made of every file under directory `dir`.
    #[napi]
    pub fn add_skill_dir(&self, env: &Env, root: String, dir: String) -> Result<()> {
        let skill = Skill::from_dir(&root, std::path::Path::new(&dir)).map_err(|e| errors::skill(env, e))?;
        self.server.add_skill(skill).map_err(|e| errors::config(env, e))
    }
}

/// The variables `uri` binds in `uriTemplate` (RFC 6570, matched by the core's
/// `UriTemplate`), as a JSON object; `null` when it does not match. A bad template throws a
/// `TypeError`.
#[napi]
pub fn match_uri_template(env: &Env, uri_template: String, uri: String) -> Result<Option<String>> {
    let template = ferrite_core::server::uri_template::UriTemplate::parse(&uri_template)
        .map_err(|e| errors::type_error(env, e))?;
    Ok(template.match_uri(&uri).map(|vars| serde_json::json!(vars).to_string()))
}
