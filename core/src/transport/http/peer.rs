//! The HTTP side of a request: a [`Peer`] writing to an SSE stream hub, with server-to-client
//! requests correlated through the session, and the SSE response body.

use std::any::Any;
use std::future::Future as _;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::{mpsc, Notify};

use super::session::Session;
use super::sse::StreamHub;
use crate::protocol::jsonrpc::request_text;
use crate::protocol::{RequestId, Response};
use crate::server::outbound::Withdraw;
use crate::server::{BoxFuture, ConnectionState, Peer, PeerError};

/// Messages for the client go to `hub`; `first` is signalled on the first one (so a POST
/// answer can switch from JSON to SSE).
pub(crate) struct StreamPeer {
    hub: Arc<StreamHub>,
    session: Option<Arc<Session>>,
    first: Option<Arc<Notify>>,
    sse: bool,
}

impl StreamPeer {
    pub(crate) fn new(
        hub: Arc<StreamHub>,
        session: Option<Arc<Session>>,
        first: Option<Arc<Notify>>,
        sse: bool,
    ) -> Self {
        StreamPeer { hub, session, first, sse }
    }

    fn push(&self, frame: String) {
        self.hub.push(frame);
        if let Some(f) = &self.first {
            f.notify_one();
        }
    }
}

impl Peer for StreamPeer {
    fn send(&self, frame: String) {
        if self.sse {
            self.push(frame);
        }
    }

    fn can_request(&self) -> bool {
        self.sse && self.session.is_some()
    }

    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        let Some(session) = self.session.clone().filter(|_| self.sse) else {
            return Box::pin(async { Err(PeerError::NoChannel) });
        };
        let Some((id, rx)) = session.register_request() else {
            return Box::pin(async { Err(PeerError::Closed) });
        };
        self.push(request_text(&id, method, params.as_ref()));
        // Given up before the answer, the request is withdrawn on the stream it went out on.
        let withdraw = Withdraw {
            id,
            forget: {
                let session = session.clone();
                move |id: &RequestId| session.forget_request(id)
            },
            send: {
                let (hub, first) = (self.hub.clone(), self.first.clone());
                move |frame: String| {
                    hub.push(frame);
                    if let Some(f) = &first {
                        f.notify_one();
                    }
                }
            },
        };
        Box::pin(async move {
            let _withdraw = withdraw;
            let outcome = tokio::select! {
                r = rx => match r {
                    Ok(Ok(v)) => Ok(v),
                    Ok(Err(e)) => Err(PeerError::Rpc(e)),
                    Err(_) => Err(PeerError::Closed),
                },
                _ = session.ended.cancelled() => Err(PeerError::Closed),
            };
            outcome
        })
    }

    fn close_stream(&self, retry: Option<Duration>) -> bool {
        if !self.sse || !self.hub.disconnect(retry) {
            return false;
        }
        // A POST still deciding between JSON and SSE must now stream (and then drop).
        if let Some(f) = &self.first {
            f.notify_one();
        }
        true
    }

    fn on_response(&self, response: Response) -> bool {
        match &self.session {
            Some(s) => s.resolve(&response.id, response.outcome),
            None => false,
        }
    }
}

/// Cancels requests when dropped while armed (the client went away before the answer).
pub(crate) struct CancelOnDrop {
    conn: Arc<ConnectionState>,
    ids: Vec<RequestId>,
    armed: bool,
}

impl CancelOnDrop {
    pub(crate) fn new(conn: Arc<ConnectionState>, ids: Vec<RequestId>) -> Self {
        CancelOnDrop { conn, ids, armed: true }
    }
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed {
            for id in &self.ids {
                self.conn.cancel_request(id);
            }
        }
    }
}

/// An SSE response body fed by a stream hub's channel, with a comment sent on an idle
/// stream now and then so intermediaries keep it open.
pub(crate) struct SseBody {
    rx: mpsc::Receiver<Bytes>,
    on_drop: Vec<Box<dyn FnOnce() + Send>>,
    _keep: Vec<Box<dyn Any + Send>>,
    keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
}

const KEEP_ALIVE_COMMENT: &[u8] = b": keep-alive\n\n";

impl SseBody {
    pub(crate) fn new(rx: mpsc::Receiver<Bytes>) -> Self {
        SseBody { rx, on_drop: Vec::new(), _keep: Vec::new(), keep_alive: None }
    }

    /// Send a comment when nothing was sent for `every`.
    pub(crate) fn keep_alive_every(mut self, every: Option<Duration>) -> Self {
        self.keep_alive = every.map(|d| (d, Box::pin(tokio::time::sleep(d))));
        self
    }

    /// When the client disconnects before the stream finished and it cannot be resumed,
    /// cancel the requests it was answering.
    pub(crate) fn cancel_on_drop_unless_resumable(
        mut self,
        hub: Arc<StreamHub>,
        conn: Arc<ConnectionState>,
        ids: Vec<RequestId>,
    ) -> Self {
        self.on_drop.push(Box::new(move || {
            if !hub.is_finished() && !hub.resumable() {
                for id in &ids {
                    conn.cancel_request(id);
                }
            }
        }));
        self
    }

    /// Close the hub when the client goes away (the standalone GET stream).
    pub(crate) fn close_on_drop(self, hub: Arc<StreamHub>) -> Self {
        self.on_drop(move || hub.close())
    }

    /// Run `f` when the client goes away.
    pub(crate) fn on_drop(mut self, f: impl FnOnce() + Send + 'static) -> Self {
        self.on_drop.push(Box::new(f));
        self
    }

    /// Keep `value` alive as long as the body (a listener registration, a peer).
    pub(crate) fn keep_alive(mut self, value: Box<dyn Any + Send>) -> Self {
        self._keep.push(value);
        self
    }
}

impl futures::Stream for SseBody {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match this.rx.poll_recv(cx) {
            Poll::Ready(item) => {
                if let Some((every, sleep)) = &mut this.keep_alive {
                    sleep.as_mut().reset(tokio::time::Instant::now() + *every);
                }
                Poll::Ready(item.map(Ok))
            }
            Poll::Pending => {
                if let Some((every, sleep)) = &mut this.keep_alive {
                    if sleep.as_mut().poll(cx).is_ready() {
                        sleep.as_mut().reset(tokio::time::Instant::now() + *every);
                        return Poll::Ready(Some(Ok(Bytes::from_static(KEEP_ALIVE_COMMENT))));
                    }
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        for f in self.on_drop.drain(..) {
            f();
        }
    }
}
