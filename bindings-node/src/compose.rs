//! Composition: one server's registrations served by another under a prefix. The core's
//! `Server::mount` copies, renames and keeps the mount live; this converts arguments. A
//! mounted server's handlers still call into JavaScript through its own machinery, so closing
//! it unmounts it first (see `NativeServer::close`).

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::errors;
use crate::server::NativeServer;

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
}
