//! A connection the JS user holds: the core's `ConnectionState` and a peer that hands what the
//! server sends (notifications, server-to-client requests) to a JS function, so raw JSON-RPC
//! text can be handled against one peer's state (`handle_raw_on`) by an application that
//! carries the messages itself (a custom transport, a test). Server-to-client requests are
//! correlated by the core's `PendingRequests`: the application delivers the client's answer
//! by handling it as raw text on the same connection.

use std::any::Any;
use std::sync::{Arc, Mutex};

use ferrite_core::protocol::Response;
use ferrite_core::server::outbound::PendingRequests;
use ferrite_core::sync::lock;
use ferrite_core::{BoxFuture, ConnectionState, Peer, PeerError, Server};
use napi::bindgen_prelude::{Function, Object};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Result, Status};
use napi_derive::napi;
use serde_json::Value;

use crate::server::{NativeServer, Resolver, SharedRuntime};

/// The JS function told each message the server sends: weak, so it never keeps Node alive.
type MessageCallback = ThreadsafeFunction<String, (), String, Status, false, true>;

/// The peer of a JS-held connection.
struct JsPeer {
    on_message: Option<Arc<MessageCallback>>,
    pending: Arc<PendingRequests>,
}

/// Tell JS one message the server sends.
fn deliver(f: &MessageCallback, frame: String) {
    // Non-blocking: a closing environment has nobody left to tell.
    let _ = f.call(frame, ThreadsafeFunctionCallMode::NonBlocking);
}

impl Peer for JsPeer {
    fn send(&self, frame: String) {
        if let Some(f) = &self.on_message {
            deliver(f, frame);
        }
    }

    fn can_request(&self) -> bool {
        self.on_message.is_some() && self.pending.is_open()
    }

    fn request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> BoxFuture<'static, std::result::Result<Value, PeerError>> {
        let Some(f) = self.on_message.clone() else {
            return Box::pin(async { Err(PeerError::NoChannel) });
        };
        self.pending.ask(method, params.as_ref(), move |frame| deliver(&f, frame))
    }

    fn on_response(&self, response: Response) -> bool {
        self.pending.resolve(&response.id, response.outcome)
    }
}

/// A connection to the server held by JS (`server.connection()`).
#[napi]
pub struct NativeConnection {
    server: Server,
    runtime: Arc<SharedRuntime>,
    state: Arc<ConnectionState>,
    peer: Arc<JsPeer>,
    /// Registers the connection for server-wide notifications (`notify*`, `pingClient`) while
    /// it is open; `None` once closed.
    listener: Mutex<Option<Box<dyn Any + Send + Sync>>>,
}

#[napi]
impl NativeConnection {
    /// The connection's id (what `ctx.connectionId` reads and `pingClient` takes).
    #[napi(getter)]
    pub fn id(&self) -> String {
        self.state.id().to_owned()
    }

    /// Handle raw wire text (a message or a batch, or the client's answer to a server request)
    /// against this connection; resolves to the response text ("" for none).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn handle_raw<'env>(&self, env: &'env Env, text: String) -> Result<Object<'env>> {
        let server = self.server.clone();
        let state = self.state.clone();
        let peer: Arc<dyn Peer> = self.peer.clone();
        let handle = self.runtime.handle()?;
        let (deferred, promise) = env.create_deferred::<String, Resolver<String>>()?;
        handle.spawn(async move {
            let text = server.handle_raw_on(&text, &state, &peer).await.unwrap_or_default();
            deferred.resolve(Box::new(move |_| Ok(text)));
        });
        Ok(promise)
    }

    /// Close the connection: requests waiting for the client's answer fail, and it no longer
    /// receives server-wide notifications. Idempotent.
    #[napi]
    pub fn close(&self) {
        self.peer.pending.close();
        lock(&self.listener).take();
    }
}

#[napi]
impl NativeServer {
    /// A new connection with its own state. `onMessage(text)`, when given, receives what the
    /// server sends on it (notifications and server-to-client requests, as wire text), and
    /// the connection is registered for server-wide notifications; without it the
    /// connection has no channel back (like `handleRaw`).
    #[napi]
    pub fn connection(
        &self,
        #[napi(ts_arg_type = "((message: string) => void) | undefined | null")] on_message: Option<
            Function<'_, String, ()>,
        >,
    ) -> Result<NativeConnection> {
        let on_message = match on_message {
            Some(f) => Some(f.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?),
            None => None,
        };
        let listening = on_message.is_some();
        let peer = Arc::new(JsPeer { on_message: on_message.map(Arc::new), pending: Arc::new(PendingRequests::new()) });
        let state = self.server.new_connection();
        let listener: Option<Box<dyn Any + Send + Sync>> = if listening {
            let dyn_peer: Arc<dyn Peer> = peer.clone();
            // The guard holds weak references: the registration lives as long as this
            // connection keeps its peer and state.
            let guard = self.server.attach_listener(&state, &dyn_peer);
            Some(Box::new((guard, dyn_peer)))
        } else {
            None
        };
        Ok(NativeConnection {
            server: self.server.clone(),
            runtime: self.runtime.clone(),
            state,
            peer,
            listener: Mutex::new(listener),
        })
    }
}
