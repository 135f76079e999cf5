//! The `Core` methods that configure a live server and announce changes to its clients: the
//! capability switches and validation, the 2026-07-28 settings (request-state keys, extensions,
//! cache hints), custom methods and skills, server-level notifications, and joining a fleet.
//! A second `#[pymethods]` block (pyo3's `multiple-pymethods`): registration and serving stay
//! in `server.rs`.

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

use super::Core;
use crate::{convert, errors, modern};

#[pymethods]
impl Core {
    // ----- options -----

    /// Advertise `logging` and accept `logging/setLevel` (on by default).
    fn enable_logging(&self) {
        self.server.enable_logging();
    }

    /// Stop advertising `logging`: `logging/setLevel` is refused and log messages dropped.
    fn disable_logging(&self) {
        self.server.disable_logging();
    }

    /// Advertise `resources.subscribe` (handshake-era sessions subscribe with
    /// `resources/subscribe`, 2026-07-28 clients through listen streams, in either mode).
    fn enable_resource_subscriptions(&self, py: Python<'_>) -> PyResult<()> {
        self.server.enable_resource_subscriptions().map_err(|e| errors::config_err(py, &e))
    }

    /// Advertise `tools.listChanged`.
    fn enable_tools_list_changed(&self) {
        self.server.enable_tools_list_changed();
    }

    /// Advertise `resources.listChanged`.
    fn enable_resources_list_changed(&self) {
        self.server.enable_resources_list_changed();
    }

    /// Advertise `prompts.listChanged`.
    fn enable_prompts_list_changed(&self) {
        self.server.enable_prompts_list_changed();
    }

    /// Refuse requests before `notifications/initialized`.
    fn require_initialized(&self) {
        self.server.require_initialized();
    }

    /// At most `size` items per list page (0: no pagination).
    fn set_page_size(&self, size: usize) {
        self.server.set_page_size(size);
    }

    /// Validate `structuredContent` against output schemas.
    fn enable_output_validation(&self) {
        self.server.enable_output_validation();
    }

    /// Stop validating tool arguments against input schemas.
    fn disable_input_validation(&self) {
        self.server.disable_input_validation();
    }

    /// Validate tool arguments against input schemas again (the default).
    fn enable_input_validation(&self) {
        self.server.enable_input_validation();
    }

    /// The capabilities the server declares.
    fn capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &serde_json::to_value(self.server.capabilities()).unwrap_or(Value::Null))
    }

    /// The registered tools' descriptors.
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &serde_json::to_value(self.server.tools()).unwrap_or(Value::Null))
    }

    // ----- 2026-07-28: request state, extensions, caching, custom methods, skills -----

    /// Seal request states with `current` and also accept states sealed with `previous` (key
    /// rotation); keys are 64 hex characters or base64 of 32 bytes.
    #[pyo3(signature = (current, previous=Vec::new()))]
    fn set_request_state_keys(&self, py: Python<'_>, current: &str, previous: Vec<String>) -> PyResult<()> {
        let (current, previous) = modern::sealing_keys(current, &previous).map_err(|m| errors::config_msg(py, &m))?;
        self.server.set_request_state_keys(current, previous);
        Ok(())
    }

    /// How long a sealed request state stays valid, in seconds.
    fn set_request_state_ttl(&self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        let ttl = modern::ttl(seconds).map_err(|m| errors::config_msg(py, &m))?;
        self.server.set_request_state_ttl(ttl);
        Ok(())
    }

    /// The id of the key that seals request states (not secret).
    #[getter]
    fn request_state_key_id(&self) -> String {
        self.server.request_state_key_id()
    }

    /// Advertise extension `id` with `settings` (a JSON object; None: `{}`) to 2026-07-28
    /// clients.
    #[pyo3(signature = (id, settings=None))]
    fn add_extension(&self, py: Python<'_>, id: &str, settings: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let settings = settings.map(convert::from_py).transpose()?.unwrap_or(Value::Null);
        self.server.add_extension(id, settings).map_err(|e| errors::config_err(py, &e))
    }

    /// Stop advertising extension `id`; whether it was advertised.
    fn remove_extension(&self, id: &str) -> bool {
        self.server.remove_extension(id)
    }

    /// The cache hints of `server/discover`, the lists and resource reads, as
    /// `{name: (ttl_ms, scope)}` (names: `modern::HINT_NAMES`).
    fn cache_hints<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, hint) in modern::hints_by_name(&self.server.cache_hints()) {
            d.set_item(name, (hint.ttl_ms, modern::scope_name(hint.cache_scope)))?;
        }
        Ok(d)
    }

    /// Change some cache hints: `{name: (ttl_ms, scope)}`; the others keep their value.
    fn set_cache_hints(&self, py: Python<'_>, hints: HashMap<String, (i64, String)>) -> PyResult<()> {
        let updated = modern::update_hints(self.server.cache_hints(), hints).map_err(|m| errors::config_msg(py, &m))?;
        self.server.set_cache_hints(updated);
        Ok(())
    }

    /// The cache hint of reads of one resource or resource template.
    #[pyo3(signature = (uri, ttl_ms, scope="private"))]
    fn set_resource_cache_hint(&self, py: Python<'_>, uri: &str, ttl_ms: i64, scope: &str) -> PyResult<()> {
        let hint = modern::cache_hint(ttl_ms, scope).map_err(|m| errors::config_msg(py, &m))?;
        self.server.set_resource_cache_hint(uri, hint).map_err(|e| errors::config_err(py, &e))
    }

    /// Serve a custom request method: `handler(params, ctx)` returns the result object.
    fn add_method(
        &self,
        py: Python<'_>,
        name: &str,
        handler: Py<PyAny>,
        is_async: bool,
        wants_context: bool,
    ) -> PyResult<()> {
        self.server
            .add_method(name, self.adapter(handler, is_async, wants_context))
            .map_err(|e| errors::config_err(py, &e))
    }

    /// Stop serving a custom method; whether it was served.
    fn remove_method(&self, name: &str) -> bool {
        self.server.remove_method(name)
    }

    /// Serve a skill from `files` (relative path -> `str` or `bytes`).
    fn add_skill(&self, py: Python<'_>, root: &str, files: &Bound<'_, PyDict>) -> PyResult<()> {
        let skill = modern::skill(root, files)?.map_err(|m| errors::config_msg(py, &m))?;
        self.server.add_skill(skill).map_err(|e| errors::config_err(py, &e))
    }

    /// Serve a skill from every file under the directory `path`.
    fn add_skill_dir(&self, py: Python<'_>, root: &str, path: PathBuf) -> PyResult<()> {
        let skill = py
            .detach(|| ferrite_core::skills::Skill::from_dir(root, &path))
            .map_err(|e| errors::config_msg(py, &e.to_string()))?;
        self.server.add_skill(skill).map_err(|e| errors::config_err(py, &e))
    }

    // ----- notifications -----

    /// Send a notification to every listening connection; how many were reached.
    #[pyo3(signature = (method, params=None))]
    fn notify(&self, method: &str, params: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        let params = params.map(convert::from_py).transpose()?;
        Ok(self.server.notify(method, params))
    }

    /// `notifications/resources/updated` to the connections subscribed to `uri`.
    fn notify_resource_updated(&self, uri: &str) -> usize {
        self.server.notify_resource_updated(uri)
    }

    /// `notifications/message` to the connected clients whose minimum level `level` reaches,
    /// or to session `session_id` only; how many were reached. An unknown level raises
    /// `ValueError`.
    #[pyo3(signature = (level, data, logger=None, session_id=None))]
    fn send_log_message(
        &self,
        level: &str,
        data: &Bound<'_, PyAny>,
        logger: Option<&str>,
        session_id: Option<&str>,
    ) -> PyResult<usize> {
        let level = crate::context::level_of(level)?;
        let data = convert::from_py(data)?;
        Ok(self.server.send_log_message(level, data, logger, session_id))
    }

    /// `notifications/tools/list_changed` to every listener.
    fn notify_tools_list_changed(&self) -> usize {
        self.server.notify_tools_list_changed()
    }

    /// `notifications/resources/list_changed` to every listener.
    fn notify_resources_list_changed(&self) -> usize {
        self.server.notify_resources_list_changed()
    }

    /// `notifications/prompts/list_changed` to every listener.
    fn notify_prompts_list_changed(&self) -> usize {
        self.server.notify_prompts_list_changed()
    }

    /// `notifications/elicitation/complete` for the URL elicitation `elicitation_id` to the
    /// listening connection `connection_id` (the core's `notify_elicitation_complete`): whether
    /// it went out (false when no such connection listens or it negotiated a revision before
    /// 2025-11-25).
    fn notify_elicitation_complete(&self, connection_id: &str, elicitation_id: &str) -> bool {
        self.server.notify_elicitation_complete(connection_id, elicitation_id)
    }

    // ----- a fleet (server/fleet.rs) -----

    /// Keep the state the instances of a fleet share (tasks, fleet-wide notifications) in
    /// Redis at `url`, under keys starting with `key_prefix`; before the first task.
    #[pyo3(signature = (url, key_prefix="ferrite:"))]
    fn use_redis(&self, py: Python<'_>, url: &str, key_prefix: &str) -> PyResult<()> {
        self.open_redis(py, url, key_prefix)
    }

    /// Round trips to Redis so far; `None` without `use_redis`.
    #[getter]
    fn redis_round_trips(&self) -> Option<u64> {
        self.round_trips()
    }
}
