//! The Streamable HTTP endpoint mounted in a JavaScript HTTP server (`server.fetch`,
//! `server.nodeHandler`): an exchange over the core's [`HttpService::host_request`].
//!
//! JS hands over the request head (method, target, headers, remote address, host values) as
//! JSON, pushes the body chunk by chunk (`write`, awaited: back-pressure towards the client),
//! awaits the response head, and pulls the body chunk by chunk (`read`) only as fast as its
//! client takes it. `cancel()` (the client went away) drops the response body, which cancels
//! the requests it carried. One service per server, created on first use from the core's
//! `HttpConfig` (the same options as `listen`, checked by the core); `close()` ends its sessions.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use ferrite_core::sync::lock;
use ferrite_core::transport::http::config::camel_case;
use ferrite_core::transport::http::{
    HostBodyWriter, HostHead, HostResponse, HostResponseBody, HttpConfig, HttpOptions, HttpService,
};
use napi::bindgen_prelude::{Buffer, BufferSlice, Object};
use napi::{Env, Result};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::server::{parse, NativeServer, Resolver};

/// The server's mounted endpoint: the normalised options it was made with, and the service.
pub(crate) type Mounted = Mutex<Option<(String, HttpService)>>;

/// The request head as JS sends it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadJson {
    method: String,
    target: String,
    /// `[name, value]` pairs in the order received; values are Node's latin1 strings.
    #[serde(default)]
    headers: Vec<(String, String)>,
    /// `127.0.0.1`, `::ffff:127.0.0.1`, `[::1]:5000`, `127.0.0.1:5000`.
    #[serde(default)]
    remote_address: Option<String>,
    #[serde(default)]
    remote_port: Option<u16>,
    #[serde(default)]
    host_values: Option<Map<String, Value>>,
}

/// A header value as the bytes Node received (its strings are latin1: one char per byte).
fn latin1_bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match u8::try_from(u32::from(c)) {
            Ok(b) => out.push(b),
            Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// The client's address from what the host knows of it; IPv4-mapped IPv6 (`::ffff:a.b.c.d`,
/// what a dual-stack Node socket reports) becomes the IPv4 address. `None` when it is no address.
fn remote_addr(address: Option<&str>, port: Option<u16>) -> Option<SocketAddr> {
    let address = address?.trim();
    let addr = match address.parse::<SocketAddr>() {
        Ok(a) => a,
        Err(_) => {
            let ip: IpAddr = address.trim_start_matches('[').trim_end_matches(']').parse().ok()?;
            SocketAddr::new(ip, port.unwrap_or(0))
        }
    };
    Some(SocketAddr::new(addr.ip().to_canonical(), addr.port()))
}

impl HeadJson {
    fn into_head(self) -> HostHead {
        HostHead {
            method: self.method,
            target: self.target,
            headers: self.headers.into_iter().map(|(n, v)| (n, latin1_bytes(&v))).collect(),
            remote_addr: remote_addr(self.remote_address.as_deref(), self.remote_port),
            host_values: self.host_values.unwrap_or_default(),
        }
    }
}

/// The response head JS writes: status, headers as `[name, value, name, value, ...]` (a name
/// may repeat), whether the body is an event stream (flush every chunk), and for any other
/// body the whole of it (a JSON answer or an error text: one crossing instead of several).
#[napi(object)]
pub struct ExchangeHead {
    pub status: u32,
    pub headers: Vec<String>,
    pub event_stream: bool,
    pub body: Option<Buffer>,
}

#[napi]
impl NativeServer {
    /// Make the mounted endpoint now with `optionsJson` (the core's `HttpConfig`, as for
    /// `listen`; `host` and `port` mean nothing here: the host app listens). A bad option
    /// throws a `TypeError` naming it; options other than those the endpoint was made with
    /// throw a `TypeError` too (one endpoint per server: its sessions are shared).
    #[napi]
    pub fn mount(&self, env: &Env, options_json: String) -> Result<()> {
        self.mounted_service(env, Some(&options_json)).map(drop)
    }

    /// Start one exchange with the mounted endpoint (made with the default options when
    /// `mount` was not called). `headJson`: `{method, target, headers: [[name, value], ...],
    /// remoteAddress?, remotePort?, hostValues?}`. `body`: the first chunk, when known;
    /// `ended`: no more body follows (`write` is then not called).
    #[napi]
    pub fn http_exchange(
        &self,
        env: &Env,
        head_json: String,
        body: Option<BufferSlice<'_>>,
        ended: bool,
    ) -> Result<NativeExchange> {
        let head: HeadJson = parse(&head_json, "request head")?;
        let service = self.mounted_service(env, None)?;
        let runtime = self.handle()?;
        let first = body.map(|b| b.to_vec());
        let _guard = runtime.enter();
        let (mut writer, response) = service.host_request(head.into_head());
        let response = runtime.spawn(response);
        let writer = if let Some(chunk) = first {
            // The first chunk fits the channel (it is empty): no wait on the JS thread.
            match futures_write_now(&mut writer, chunk) {
                true if !ended => Some(writer),
                _ => None,
            }
        } else if ended {
            None
        } else {
            Some(writer)
        };
        Ok(NativeExchange {
            runtime,
            writer: Arc::new(tokio::sync::Mutex::new(writer)),
            response: Mutex::new(Some(response)),
            body: Arc::new(tokio::sync::Mutex::new(None)),
            cancel: CancellationToken::new(),
        })
    }

    /// The mounted endpoint, made on first use (`options`: as given to `mount`).
    fn mounted_service(&self, env: &Env, options: Option<&str>) -> Result<HttpService> {
        let bad = |e: ferrite_core::transport::http::config::HttpConfigError| {
            errors::type_error(env, e.to_string_with(camel_case))
        };
        let wanted = match options {
            Some(text) => Some(parse::<Value>(text, "HTTP options")?.to_string()),
            None => None,
        };
        let mut mounted = lock(&self.mounted);
        if let Some((made_with, service)) = &*mounted {
            return match wanted {
                Some(w) if &w != made_with => Err(errors::type_error(
                    env,
                    format!("this server's endpoint is already mounted with the options {made_with}, not {w}: one endpoint per server (its sessions are shared); pass the same options, or none"),
                )),
                _ => Ok(service.clone()),
            };
        }
        let text = wanted.unwrap_or_else(|| "{}".to_owned());
        let config = HttpConfig::from_json(&text).map_err(bad)?;
        let mut options = HttpOptions { shutdown: self.shutdown.child_token(), ..HttpOptions::default() };
        config.apply(&mut options).map_err(bad)?;
        let runtime = self.handle()?;
        let service = {
            let _guard = runtime.enter();
            HttpService::new(&self.server, options)
        };
        *mounted = Some((text, service.clone()));
        Ok(service)
    }
}

/// Push `chunk` when the body channel has room for it now; whether it was taken (false: the
/// endpoint stopped reading, or it must wait, which a first chunk never does).
fn futures_write_now(writer: &mut HostBodyWriter, chunk: Vec<u8>) -> bool {
    use std::future::Future as _;
    use std::task::{Context, Poll, Waker};
    let mut fut = std::pin::pin!(writer.write(chunk));
    matches!(fut.as_mut().poll(&mut Context::from_waker(Waker::noop())), Poll::Ready(Ok(())))
}

/// One request through the mounted endpoint, held by JS until its response is sent.
#[napi]
pub struct NativeExchange {
    runtime: Handle,
    writer: Arc<tokio::sync::Mutex<Option<HostBodyWriter>>>,
    response: Mutex<Option<JoinHandle<HostResponse>>>,
    body: Arc<tokio::sync::Mutex<Option<HostResponseBody>>>,
    cancel: CancellationToken,
}

impl NativeExchange {
    fn promise<'env, T, F>(&self, env: &'env Env, fut: F) -> Result<Object<'env>>
    where
        T: napi::bindgen_prelude::ToNapiValue + 'static,
        F: std::future::Future<Output = Resolver<T>> + Send + 'static,
    {
        let (deferred, promise) = env.create_deferred::<T, Resolver<T>>()?;
        self.runtime.spawn(async move { deferred.resolve(fut.await) });
        Ok(promise)
    }
}

#[napi]
impl NativeExchange {
    /// Push one more body chunk; resolves once the endpoint took it, to false when it stopped
    /// reading (it has answered already, say 413): stop sending.
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn write<'env>(&self, env: &'env Env, chunk: BufferSlice<'_>) -> Result<Object<'env>> {
        let chunk = chunk.to_vec();
        let writer = self.writer.clone();
        self.promise(env, async move {
            let mut w = writer.lock().await;
            let taken = match w.as_mut() {
                Some(writer) => writer.write(chunk).await.is_ok(),
                None => false,
            };
            if !taken {
                *w = None;
            }
            Box::new(move |_| Ok(taken)) as Resolver<bool>
        })
    }

    /// The body is complete.
    #[napi]
    pub fn end(&self) {
        let writer = self.writer.clone();
        self.runtime.spawn(async move { writer.lock().await.take() });
    }

    /// The response head (and the whole body unless it is an event stream); `null` when the
    /// exchange was cancelled first.
    #[napi(ts_return_type = "Promise<ExchangeHead | null>")]
    pub fn head<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let task = lock(&self.response).take();
        let slot = self.body.clone();
        let cancel = self.cancel.clone();
        self.promise(env, async move {
            let response = match task {
                Some(task) => tokio::select! {
                    r = task => r.ok(),
                    () = cancel.cancelled() => None,
                },
                None => None,
            };
            let Some(response) = response else { return Box::new(|_| Ok(None)) as Resolver<Option<ExchangeHead>> };
            let event_stream = response.is_event_stream();
            let mut headers = Vec::with_capacity(response.headers.len() * 2);
            for (name, value) in response.headers {
                headers.push(name);
                headers.push(String::from_utf8_lossy(&value).into_owned());
            }
            let body = if event_stream {
                *slot.lock().await = Some(response.body);
                None
            } else {
                tokio::select! {
                    b = response.body.collect() => Some(b),
                    () = cancel.cancelled() => None,
                }
            };
            let status = u32::from(response.status);
            Box::new(move |_| Ok(Some(ExchangeHead { status, headers, event_stream, body: body.map(Buffer::from) })))
        })
    }

    /// The next chunk of an event-stream body, or `null` at its end (or once cancelled).
    #[napi(ts_return_type = "Promise<Buffer | null>")]
    pub fn read<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let slot = self.body.clone();
        let cancel = self.cancel.clone();
        self.promise(env, async move {
            let mut body = slot.lock().await;
            let chunk = match body.as_mut() {
                Some(b) => tokio::select! {
                    c = b.next_chunk() => c,
                    () = cancel.cancelled() => None,
                },
                None => None,
            };
            if chunk.is_none() {
                // The end, or cancelled: dropping the body cancels what it still carried.
                *body = None;
            }
            Box::new(move |_| Ok(chunk.map(|c| Buffer::from(c.to_vec())))) as Resolver<Option<Buffer>>
        })
    }

    /// The client went away: drop the response (cancelling the requests it carried) and stop
    /// reading the body. Idempotent.
    #[napi]
    pub fn cancel(&self) {
        cancel_exchange(self);
    }
}

fn cancel_exchange(ex: &NativeExchange) {
    ex.cancel.cancel();
    if let Some(task) = lock(&ex.response).take() {
        task.abort();
    }
    let (writer, body) = (ex.writer.clone(), ex.body.clone());
    ex.runtime.spawn(async move {
        writer.lock().await.take();
        body.lock().await.take();
    });
}

impl Drop for NativeExchange {
    /// Collected without being read to the end: as `cancel()`.
    fn drop(&mut self) {
        if !self.cancel.is_cancelled() {
            cancel_exchange(self);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dual_stack_address_is_the_ipv4_one() {
        let a = remote_addr(Some("::ffff:127.0.0.1"), Some(5000)).unwrap();
        assert_eq!(a.to_string(), "127.0.0.1:5000");
        assert!(a.ip().is_loopback());
        assert_eq!(remote_addr(Some("[::1]:80"), None).unwrap().to_string(), "[::1]:80");
        assert_eq!(remote_addr(Some("10.0.0.1"), None).unwrap().to_string(), "10.0.0.1:0");
        assert_eq!(remote_addr(Some("somewhere"), None), None);
    }

    #[test]
    fn header_values_keep_their_bytes() {
        assert_eq!(latin1_bytes("caf\u{e9}"), b"caf\xe9");
    }
}
