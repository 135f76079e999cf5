//! The stdio transport: newline-delimited JSON-RPC over a byte stream pair.
//!
//! Requests are handled concurrently: the read loop keeps reading while handlers run, so a
//! slow handler blocks neither other requests nor the `notifications/cancelled` aimed at it.
//! `initialize`, notifications and client responses are processed in order on the read
//! loop, so lifecycle changes take effect before the next line is read. Everything written
//! goes through one writer task, so a handler's notifications precede its response, and
//! writes are batched (flushed when the queue is empty). Server-to-client requests are
//! correlated with the client's answers on the read loop. At EOF the loop stops reading,
//! lets in-flight requests finish, fails outstanding server-to-client requests, and returns.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::protocol::jsonrpc::{parse_payload, request_text, Payload};
use crate::protocol::{ErrorObject, Message, OutboundResponse, RequestId, Response};
use crate::server::{BoxFuture, Peer, PeerError, Server};

/// Options of the stdio transport.
#[derive(Debug, Clone)]
pub struct StdioOptions {
    /// The longest line accepted, in bytes; a longer one is answered with `-32600` and
    /// skipped without buffering it. Default 4 MiB.
    pub max_line_bytes: usize,
    /// Cancel to stop serving: reading stops at once, in-flight requests finish, and
    /// [`serve`] returns as at EOF.
    pub shutdown: CancellationToken,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions { max_line_bytes: 4 * 1024 * 1024, shutdown: CancellationToken::new() }
    }
}

type Pending = Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>;

/// The stdio side of a connection: one output queue, and the table of server-to-client
/// requests awaiting the client's answer.
struct StdioPeer {
    out: mpsc::UnboundedSender<String>,
    pending: Pending,
    next_id: AtomicI64,
    closed: AtomicBool,
}

impl StdioPeer {
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        // Dropping the senders fails every waiter with `Closed`.
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

impl Peer for StdioPeer {
    fn send(&self, frame: String) {
        // A send error means the writer is gone (stdout closed); nothing useful to do.
        let _ = self.out.send(frame);
    }

    fn can_request(&self) -> bool {
        !self.closed.load(Ordering::SeqCst)
    }

    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        let id = RequestId::String(format!("ferrite-{}", self.next_id.fetch_add(1, Ordering::Relaxed)));
        let (tx, rx) = oneshot::channel();
        let frame = request_text(&id, method, params.as_ref());
        let accepted = {
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            if self.closed.load(Ordering::SeqCst) {
                false
            } else {
                pending.insert(id, tx);
                true
            }
        };
        if accepted {
            let _ = self.out.send(frame);
        }
        Box::pin(async move {
            if !accepted {
                return Err(PeerError::Closed);
            }
            match rx.await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) => Err(PeerError::Rpc(e)),
                Err(_) => Err(PeerError::Closed),
            }
        })
    }

    fn on_response(&self, response: Response) -> bool {
        let waiter = self.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(&response.id);
        match waiter {
            Some(tx) => {
                let _ = tx.send(response.outcome);
                true
            }
            None => false,
        }
    }
}

/// Serve `server` on the process's stdin and stdout until stdin reaches EOF.
pub async fn serve_stdio(server: &Server) -> io::Result<()> {
    serve(server, tokio::io::stdin(), tokio::io::stdout(), StdioOptions::default()).await
}

/// One line read from the input.
enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
}

async fn read_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Text(std::mem::take(buf))
            });
        }
        let (chunk, done) = match memchr_newline(available) {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let consumed = done.unwrap_or(available.len());
        reader.consume(consumed);
        if done.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Text(std::mem::take(buf)) });
        }
    }
}

fn memchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// Serve `server` on any reader/writer pair (stdin/stdout, pipes, in-memory duplexes).
pub async fn serve<R, W>(server: &Server, reader: R, writer: W, options: StdioOptions) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let writer_task = tokio::spawn(async move {
        let mut w = tokio::io::BufWriter::with_capacity(64 * 1024, writer);
        while let Some(frame) = rx.recv().await {
            w.write_all(frame.as_bytes()).await?;
            w.write_all(b"\n").await?;
            while let Ok(frame) = rx.try_recv() {
                w.write_all(frame.as_bytes()).await?;
                w.write_all(b"\n").await?;
            }
            w.flush().await?;
        }
        w.flush().await?;
        Ok::<_, io::Error>(())
    });

    let stdio_peer = Arc::new(StdioPeer {
        out: tx.clone(),
        pending: Mutex::new(HashMap::new()),
        next_id: AtomicI64::new(0),
        closed: AtomicBool::new(false),
    });
    let peer: Arc<dyn Peer> = stdio_peer.clone();
    let conn = server.new_connection();
    let _listener = server.attach_listener(&conn, &peer);

    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut buf = Vec::new();
    let mut tasks = JoinSet::new();
    let read_result = loop {
        let line = tokio::select! {
            biased;
            _ = options.shutdown.cancelled() => break Ok(()),
            l = read_line(&mut reader, &mut buf, options.max_line_bytes) => match l {
                Ok(l) => l,
                Err(e) => break Err(e),
            },
        };
        let bytes = match line {
            Line::Eof => break Ok(()),
            Line::TooLong => {
                let e = ErrorObject::invalid_request(format!(
                    "Invalid Request: message longer than the {} byte limit",
                    options.max_line_bytes
                ));
                let _ = tx.send(OutboundResponse::error(None, e).to_json_string());
                continue;
            }
            Line::Text(b) => b,
        };
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) => t.trim(),
            Err(_) => {
                let e = ErrorObject::parse_error("Parse error: input is not valid UTF-8");
                let _ = tx.send(OutboundResponse::error(None, e).to_json_string());
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        // Reap finished tasks so the set does not grow over a long session.
        while tasks.try_join_next().is_some() {}
        match parse_payload(text) {
            Payload::Single(Ok(Message::Request(req))) if req.method != "initialize" => {
                let server = server.clone();
                let conn = conn.clone();
                let peer = peer.clone();
                let tx = tx.clone();
                tasks.spawn(async move {
                    if let Some(resp) = server.handle(Message::Request(req), &conn, &peer).await {
                        let _ = tx.send(resp.to_json_string());
                    }
                });
            }
            payload @ Payload::Batch(_) => {
                let server = server.clone();
                let conn = conn.clone();
                let peer = peer.clone();
                let tx = tx.clone();
                tasks.spawn(async move {
                    if let Some(out) = server.handle_payload(payload, &conn, &peer).await {
                        let _ = tx.send(out);
                    }
                });
            }
            payload => {
                if let Some(out) = server.handle_payload(payload, &conn, &peer).await {
                    let _ = tx.send(out);
                }
            }
        }
    };
    // EOF (or a read error): nobody can answer server-to-client requests any more.
    stdio_peer.close();
    while tasks.join_next().await.is_some() {}
    drop(_listener);
    drop(peer);
    drop(stdio_peer);
    drop(tx);
    let write_result = match writer_task.await {
        Ok(r) => r,
        Err(e) => Err(io::Error::other(e)),
    };
    read_result.and(write_result)
}
