//! The server's listening connections, addressed from JS (`server.notify*`, `pingClient`,
//! `connectedSessions`): notifications to every listener or to the ones that asked for a
//! kind, the out-of-band end of a URL elicitation to one connection, and `ping`. Each is the
//! core's `Server` method of the same name; the core decides who is reached and what is sent.

use std::time::Duration;

use napi::bindgen_prelude::Object;
use napi::{Env, Error, Result};
use napi_derive::napi;
use serde_json::Value;

use crate::envelope;
use crate::server::{parse, NativeServer};

#[napi]
impl NativeServer {
    /// Send a notification to every handshake-era listening connection; how many were reached.
    #[napi]
    pub fn notify(&self, method: String, params_json: Option<String>) -> Result<u32> {
        let params = params_json.map(|p| parse::<Value>(&p, "notification params")).transpose()?;
        Ok(self.server.notify(&method, params) as u32)
    }

    /// `notifications/{kind}/list_changed` (`kind`: "tools", "resources" or "prompts") to every
    /// listening connection and to the 2026-07-28 listen streams that asked for it; how many
    /// were reached.
    #[napi]
    pub fn notify_list_changed(&self, kind: String) -> Result<u32> {
        let reached = match kind.as_str() {
            "tools" => self.server.notify_tools_list_changed(),
            "resources" => self.server.notify_resources_list_changed(),
            "prompts" => self.server.notify_prompts_list_changed(),
            other => return Err(Error::from_reason(format!("unknown list kind {other:?}"))),
        };
        Ok(reached as u32)
    }

    /// `notifications/message` at `level` with `dataJson` (any JSON value) from `logger` to the
    /// connected clients whose minimum level (`logging/setLevel`) it reaches, or to session
    /// `sessionId` only; how many were reached. An unknown level throws a `TypeError`.
    #[napi]
    pub fn send_log_message(
        &self,
        env: &napi::Env,
        level: String,
        data_json: String,
        logger: Option<String>,
        session_id: Option<String>,
    ) -> Result<u32> {
        let Some(level) = ferrite_core::LoggingLevel::parse(&level) else {
            return Err(crate::errors::type_error(env, format!("unknown log level {level:?}")));
        };
        let data: serde_json::Value = serde_json::from_str(&data_json)
            .map_err(|e| crate::errors::type_error(env, format!("log data is not JSON: {e}")))?;
        Ok(self.server.send_log_message(level, data, logger.as_deref(), session_id.as_deref()) as u32)
    }

    /// `notifications/resources/updated` to the connections subscribed to `uri`, and to the
    /// listen streams watching it.
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) -> u32 {
        self.server.notify_resource_updated(&uri) as u32
    }

    /// `notifications/elicitation/complete` for the URL elicitation `elicitationId` to the
    /// listening connection `connectionId` (the core's `notify_elicitation_complete`): whether
    /// it went out (false when no such connection listens or it negotiated a revision before
    /// 2025-11-25).
    #[napi]
    pub fn notify_elicitation_complete(&self, connection_id: String, elicitation_id: String) -> bool {
        self.server.notify_elicitation_complete(&connection_id, &elicitation_id)
    }

    /// Send `ping` to the listening connection `connectionId` and wait up to `timeoutMs`;
    /// resolves to an envelope (`{"ok": null}` or `{"error": {kind, message}}`).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn ping_client<'env>(&self, env: &'env Env, connection_id: String, timeout_ms: u32) -> Result<Object<'env>> {
        let server = self.server.clone();
        self.spawn_string(env, async move {
            match server.ping_client(&connection_id, Duration::from_millis(u64::from(timeout_ms))).await {
                Ok(()) => envelope::ok(&Value::Null),
                Err(e) => envelope::peer_error(&e),
            }
        })
    }

    /// Ids of the connections currently listening.
    #[napi]
    pub fn connected_sessions(&self) -> Vec<String> {
        self.server.connected_sessions()
    }

    /// What the server counts now (the core's `Server::stats`), as JSON:
    /// `{sseStreams, tasksRunning, tasksCreated, storeRoundTrips}`.
    #[napi]
    pub fn stats(&self) -> String {
        serde_json::to_string(&self.server.stats()).unwrap_or_else(|_| "{}".to_owned())
    }
}
