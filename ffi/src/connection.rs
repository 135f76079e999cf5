//! `ferrite_connection`: a connection the host holds, for transports the host runs itself.
//!
//! `ferrite_server_handle_raw` speaks on the server's one in-process connection, with no way
//! back to the client. A host that carries MCP over its own transport (a WebSocket, a pipe
//! per client, a test harness) needs one connection state per peer, and a channel back:
//! `ferrite_connection_new` makes the core's `ConnectionState` plus a `Peer` that hands every
//! frame the server sends (notifications, server-to-client requests) to a host callback,
//! and `ferrite_server_handle_raw_on` handles text against it, as the core's `handle_raw_on`.
//! Answers to server-to-client requests come back the same way, through
//! `ferrite_server_handle_raw_on`, and are matched by the core's `PendingRequests` table.

use std::any::Any;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

use ferrite_core::protocol::Response;
use ferrite_core::server::outbound::PendingRequests;
use ferrite_core::server::NullPeer;
use ferrite_core::{BoxFuture, ConnectionState, Peer, PeerError};
use serde_json::Value;

use crate::buffer::{ferrite_str, give_string, str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{ferrite_finalizer, UserData};
use crate::server::{ferrite_server, server_ref};

/// Receives one JSON-RPC message the server sends on a `ferrite_connection` (a notification
/// such as `notifications/message`, or a server-to-client request such as `ping`,
/// `roots/list`, `sampling/createMessage`), as text borrowed for the call. Deliver it to the
/// client; feed the client's answer to a request back with `ferrite_server_handle_raw_on`
/// (from another thread: the callback must not block). Runs on a server worker thread,
/// possibly on several at once; the notifications of one request arrive before its response
/// is returned.
#[allow(non_camel_case_types)]
pub type ferrite_send_callback = Option<unsafe extern "C" fn(user_data: *mut c_void, frame: ferrite_str)>;

/// The host's callback and its user data.
struct HostChannel {
    f: unsafe extern "C" fn(*mut c_void, ferrite_str),
    data: UserData,
}

impl HostChannel {
    fn deliver(&self, frame: &str) {
        // SAFETY: the host registered `f` for `data`; the frame outlives the call.
        unsafe { (self.f)(self.data.ptr(), ferrite_str::borrow(frame)) }
    }
}

/// The host's channel back to its client.
struct HostPeer {
    channel: Arc<HostChannel>,
    pending: Arc<PendingRequests>,
}

impl Peer for HostPeer {
    fn send(&self, frame: String) {
        self.channel.deliver(&frame);
    }

    fn can_request(&self) -> bool {
        self.pending.is_open()
    }

    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        let channel = self.channel.clone();
        self.pending.ask(method, params.as_ref(), move |frame| channel.deliver(&frame))
    }

    fn on_response(&self, response: Response) -> bool {
        self.pending.resolve(&response.id, response.outcome)
    }
}

/// A connection the host holds: one peer of the server, with its own negotiated state
/// (`initialize`, log level, subscriptions, in-flight requests). Opaque; made by
/// `ferrite_connection_new`, used with `ferrite_server_handle_raw_on`, released with
/// `ferrite_connection_free`. Any thread may use it, concurrently.
#[allow(non_camel_case_types)]
pub struct ferrite_connection {
    state: Arc<ConnectionState>,
    peer: Arc<dyn Peer>,
    host: Option<Arc<HostPeer>>,
    /// Keeps the connection among the server's listeners (broadcasts, `ping`) while it lives.
    _listener: Option<Box<dyn Any + Send + Sync>>,
    /// The address of the `ferrite_server` that made it.
    owner: usize,
}

impl Drop for ferrite_connection {
    fn drop(&mut self) {
        // The peer went away: its requests are cancelled, its listen streams end, and the
        // server-to-client requests still waiting fail.
        self.state.cancel_all();
        self.state.close();
        if let Some(host) = &self.host {
            host.pending.close();
        }
    }
}

/// # Safety
/// `connection` must be NULL or a live connection handle.
unsafe fn connection_ref<'a>(connection: *const ferrite_connection) -> Result<&'a ferrite_connection, Error> {
    // SAFETY: NULL or live, per the caller's contract.
    unsafe { connection.as_ref() }.ok_or_else(|| Error::null("connection"))
}

/// Make a connection of `server` for a transport the host runs. `send` (NULL for none)
/// receives every message the server sends on it (see `ferrite_send_callback`); with it the
/// connection can take server-to-client requests (`ferrite_request_elicit`, ... on a stateful
/// server), list-changed broadcasts and `ferrite_server_ping_client`; without it those have no
/// channel (as on `ferrite_server_handle_raw`'s connection). Ownership of `user_data` passes
/// to Ferrite in every case, as for `ferrite_server_add_tool`: the finalizer runs once when
/// the connection is freed and its last request has ended (or at once if this call fails). On
/// success `*out` is the new connection: free it with `ferrite_connection_free`.
///
/// # Safety
/// `server` is a live server; `send` and `finalizer` are safe to call with `user_data` from
/// any thread; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_connection_new(
    server: *const ferrite_server,
    send: ferrite_send_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
    out: *mut *mut ferrite_connection,
) -> ferrite_result {
    ffi_boundary!({
        let data = UserData::new(user_data, finalizer);
        if out.is_null() {
            return Err(Error::null("out"));
        }
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        let core = s.core()?;
        let state = Arc::new(ConnectionState::with_generated_id().with_closing(s.shutdown_token().child_token()));
        let (peer, host, listener): (Arc<dyn Peer>, _, Option<Box<dyn Any + Send + Sync>>) = match send {
            Some(f) => {
                let channel = Arc::new(HostChannel { f, data });
                let host = Arc::new(HostPeer { channel, pending: Arc::new(PendingRequests::new()) });
                let peer: Arc<dyn Peer> = host.clone();
                let guard = core.attach_listener(&state, &peer);
                (peer, Some(host), Some(Box::new(guard)))
            }
            None => (Arc::new(NullPeer), None, None),
        };
        let connection =
            ferrite_connection { state, peer, host, _listener: listener, owner: s as *const ferrite_server as usize };
        // SAFETY: non-NULL and valid for a write per this function's contract.
        unsafe { out.write(Box::into_raw(Box::new(connection))) };
        Ok(())
    })
}

/// The connection's id (`"conn-7"`), borrowed: valid while the connection is. The same id
/// `ferrite_request_connection_id` gives its requests and `ferrite_server_ping_client` takes.
///
/// # Safety
/// `connection` is a live connection; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_connection_id(
    connection: *const ferrite_connection,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let c = unsafe { connection_ref(connection) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(c.state.id()), "out") }
    })
}

/// Free a connection: the client went away. Its requests still running are cancelled (their
/// `ferrite_request_on_cancel` callbacks run), server-to-client requests waiting on it fail,
/// and it leaves the server's listeners. NULL is a no-op. No other call on it may run
/// concurrently or follow.
///
/// # Safety
/// `connection` is NULL or a live connection that nothing else uses any more.
#[no_mangle]
pub unsafe extern "C" fn ferrite_connection_free(connection: *mut ferrite_connection) {
    if connection.is_null() {
        return;
    }
    let _ = ffi_boundary!({
        // SAFETY: a live handle from `ferrite_connection_new`, now owned by this call.
        drop(unsafe { Box::from_raw(connection) });
        Ok(())
    });
}

/// Handle one JSON-RPC message (or batch) that arrived on `connection`, as the client sent it:
/// a request or notification (`initialize` first on a stateful server), or the client's answer
/// to a request the server sent through the connection's send callback. Blocks until the
/// handlers answer; messages the server sends meanwhile go to the send callback first. On
/// success `*out` is a new NUL-terminated buffer with the response (empty for a notification,
/// an answer, or a cancelled request; free it with `ferrite_string_free`) and `*out_len` (if
/// not NULL) its length. Several threads may handle messages on one connection at once (a
/// tool waiting for the client's answer needs the answer handled on another thread).
/// `FERRITE_RESULT_INVALID_ARGUMENT` for a connection made by another server. Cannot be called
/// from a callback (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server; `connection` a live connection it made; `message` points to
/// `message_len` readable bytes; `out` is valid for a write; `out_len` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_handle_raw_on(
    server: *const ferrite_server,
    connection: *const ferrite_connection,
    message: *const c_char,
    message_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let c = unsafe { connection_ref(connection) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        if c.owner != s as *const ferrite_server as usize {
            return Err(Error::invalid("the connection was made by another server"));
        }
        // SAFETY: forwarded from this function's contract.
        let text = unsafe { str_arg(message, message_len, "message") }?.to_owned();
        let core = s.core()?;
        let (state, peer) = (c.state.clone(), c.peer.clone());
        let response = s.run("ferrite_server_handle_raw_on", async move {
            core.handle_raw_on(&text, &state, &peer).await.unwrap_or_default()
        })?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(response.as_bytes(), out, out_len) }
    })
}
