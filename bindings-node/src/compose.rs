//! Composition and proxying: one server's registrations served by another under a prefix,
//! and a server in front of another MCP server. The core's `Server::mount` copies, renames and
//! keeps the mount live, and `ferrite_core::proxy` does all a proxy does; this converts
//! arguments. A mounted server's handlers still call into JavaScript through its own
//! machinery, so closing it unmounts it first (see `NativeServer::close`).

use napi::bindgen_prelude::*;
use napi_derive::napi;

use ferrite_core::proxy::ProxyError;

use crate::server::NativeServer;
use crate::{envelope, errors};

#[napi]
impl NativeServer {
    /// Serve `child`'s tools, prompts, resources, templates and completions under `prefix`
    /// (`{prefix}_{name}`, `scheme://{prefix}/rest`; `""` keeps the names). A bad prefix or a
    /// cycle throws a `TypeError` with the core's message.
    #[napi]
    pub fn mount_server(&self, env: &Env, prefix: String, child: &NativeServer) -> Result<()> {
        self.server.mount(&prefix, &child.server).map_err(|e| errors::config(env, e))
    }

    /// Stop serving what `child` was mounted with under `prefix`; whether it was mounted.
    #[napi]
    pub fn unmount_server(&self, prefix: String, child: &NativeServer) -> bool {
        self.server.unmount(&prefix, &child.server)
    }

    /// Serve what the upstream `specJson` describes serves (`{command, args, env}` or
    /// `{url, headers}`, with `era`); resolves to an envelope: `{"ok": null}`, or
    /// `{"error": {kind: "invalid" | "upstream", message}}`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn proxy<'env>(&self, env: &'env Env, spec_json: String) -> Result<Object<'env>> {
        let server = self.server.clone();
        self.spawn_string(env, async move {
            let spec: serde_json::Value = match serde_json::from_str(&spec_json) {
                Ok(v) => v,
                Err(e) => return envelope::error("invalid", format!("invalid upstream: {e}")),
            };
            match server.proxy_upstream(&spec).await {
                Ok(_) => envelope::ok(&serde_json::Value::Null),
                Err(e @ ProxyError::Target(_)) => envelope::error("invalid", e),
                Err(e) => envelope::error("upstream", e),
            }
        })
    }
}
