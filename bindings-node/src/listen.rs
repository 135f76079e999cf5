//! `listen()`: Streamable HTTP through the core's transport, with the options JS passes
//! (checked here, so a misspelt or contradictory option is an error naming it).

use std::time::Duration;

use ferrite_core::transport::http::security::{check_host_entry, check_origin_entry, HostPolicy};
use ferrite_core::transport::http::{self, HttpOptions, ResponseMode};
use napi::bindgen_prelude::{Function, Object};
use napi::{Env, Error, Result};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::json;

use crate::server::{parse, NativeServer, Resolver};

/// The options of `listen(...)`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ListenOptions {
    #[serde(default)]
    host: Option<String>,
    #[serde(default)]
    port: Option<u16>,
    #[serde(default)]
    path: Option<String>,
    /// "auto" (default), "json" or "sse".
    #[serde(default)]
    response_mode: Option<String>,
    #[serde(default)]
    max_body_bytes: Option<usize>,
    /// Idle sessions end after this many seconds; 0 never.
    #[serde(default)]
    session_idle_timeout_secs: Option<u64>,
    #[serde(default)]
    legacy_sse: Option<bool>,
    /// Accepted `Host` names, replacing the loopback default.
    #[serde(default)]
    allowed_hosts: Option<Vec<String>>,
    /// Accepted `Origin`s (`scheme://host`), replacing the loopback default.
    #[serde(default)]
    allowed_origins: Option<Vec<String>>,
    /// Turn the `Host` and `Origin` checks off.
    #[serde(default)]
    allow_any_host: Option<bool>,
    /// The reconnection delay advertised in SSE `retry` fields.
    #[serde(default)]
    sse_retry_ms: Option<u64>,
    /// Keep SSE events for `Last-Event-ID` resumption (stateful servers). Default true.
    #[serde(default)]
    resumable: Option<bool>,
}

/// The DNS-rebinding policy from `allowedHosts`, `allowedOrigins` and `allowAnyHost`.
///
/// A list replaces the core's loopback default for its header only, so a server listed
/// under a public name still refuses foreign browser origins unless they are listed too.
/// Entries are checked here because the core compares them literally: an entry with a port
/// or a path would never match anything and silently lock every client out.
fn host_policy(hosts: Option<Vec<String>>, origins: Option<Vec<String>>, any: bool) -> Result<HostPolicy> {
    if any {
        if hosts.is_some() || origins.is_some() {
            return Err(Error::from_reason(
                "allowAnyHost turns the Host and Origin checks off; it cannot be combined with allowedHosts or \
                 allowedOrigins",
            ));
        }
        return Ok(HostPolicy::permissive());
    }
    let mut policy = HostPolicy::default();
    if let Some(hosts) = hosts {
        non_empty(&hosts, "allowedHosts")?;
        for h in &hosts {
            check_host_entry(h)
                .map_err(|why| Error::from_reason(format!("invalid allowedHosts entry {h:?}: {why}")))?;
        }
        policy.allowed_hosts = Some(hosts);
    }
    if let Some(origins) = origins {
        non_empty(&origins, "allowedOrigins")?;
        for o in &origins {
            check_origin_entry(o)
                .map_err(|why| Error::from_reason(format!("invalid allowedOrigins entry {o:?}: {why}")))?;
        }
        policy.allowed_origins = Some(origins);
    }
    Ok(policy)
}

fn non_empty(list: &[String], what: &str) -> Result<()> {
    if list.is_empty() {
        return Err(Error::from_reason(format!(
            "{what} is empty, so every request would be refused; list names or set allowAnyHost"
        )));
    }
    Ok(())
}

#[napi]
impl NativeServer {
    /// Serve Streamable HTTP. `optionsJson`: `{host?, port?, path?, responseMode?,
    /// maxBodyBytes?, sessionIdleTimeoutSecs?, legacySse?, allowedHosts?, allowedOrigins?,
    /// allowAnyHost?, sseRetryMs?, resumable?}` (default 127.0.0.1, port 0 = any free port,
    /// `/mcp`, loopback hosts and origins only). `onListening(addressJson)` is called once bound with
    /// `{host, port}`; the returned promise settles when serving ends (after `close()`), or
    /// rejects when binding fails. While it is pending it keeps Node alive.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn listen<'env>(
        &self,
        env: &'env Env,
        options_json: String,
        #[napi(ts_arg_type = "(addressJson: string) => void")] on_listening: Function<'_, String, ()>,
    ) -> Result<Object<'env>> {
        let o: ListenOptions = parse(&options_json, "listen options")?;
        let host = o.host.unwrap_or_else(|| "127.0.0.1".to_owned());
        let ip: std::net::IpAddr = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|e| Error::from_reason(format!("invalid host {host:?} (an IP address is expected): {e}")))?;
        let addr = std::net::SocketAddr::new(ip, o.port.unwrap_or(0));
        let mut options = HttpOptions { shutdown: self.shutdown.clone(), ..HttpOptions::default() };
        if let Some(path) = o.path {
            options.path = path;
        }
        options.response_mode = match o.response_mode.as_deref() {
            None | Some("auto") => ResponseMode::Auto,
            Some("json") => ResponseMode::Json,
            Some("sse") => ResponseMode::Sse,
            Some(other) => return Err(Error::from_reason(format!("unknown responseMode {other:?}"))),
        };
        if let Some(max) = o.max_body_bytes {
            options.max_body_bytes = max;
        }
        if let Some(secs) = o.session_idle_timeout_secs {
            options.session_idle_timeout = (secs > 0).then(|| Duration::from_secs(secs));
        }
        if let Some(legacy) = o.legacy_sse {
            options.legacy_sse = legacy;
        }
        options.host_policy = host_policy(o.allowed_hosts, o.allowed_origins, o.allow_any_host.unwrap_or(false))?;
        if let Some(ms) = o.sse_retry_ms {
            options.sse_retry = Duration::from_millis(ms);
        }
        if o.resumable == Some(false) {
            options.event_store = None;
        }
        let on_listening = on_listening.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        let handle = self.handle()?;
        let (deferred, promise) = env.create_deferred::<(), Resolver<()>>()?;
        let server = self.server.clone();
        let task = handle.spawn(async move {
            let bound = match http::bind(&server, addr, options).await {
                Ok(b) => b,
                Err(e) => return deferred.reject(Error::from_reason(format!("cannot listen on {addr}: {e}"))),
            };
            let address = bound.local_addr().map(|a| json!({"host": a.ip().to_string(), "port": a.port()}));
            if let Ok(address) = address {
                let _ = on_listening
                    .call(address.to_string(), napi::threadsafe_function::ThreadsafeFunctionCallMode::NonBlocking);
            }
            match bound.run().await {
                Ok(()) => deferred.resolve(Box::new(|_| Ok(()))),
                Err(e) => deferred.reject(Error::from_reason(format!("HTTP transport failed: {e}"))),
            }
        });
        self.listening.lock().unwrap_or_else(|p| p.into_inner()).push(task);
        Ok(promise)
    }
}
