//! The stdio transport: newline-delimited JSON-RPC over a byte stream pair.
//!
//! One loop reads, dispatches and writes. A request whose handler completes without
//! waiting (most tools) is answered inline; one that waits runs as a task, so a slow handler
//! blocks neither other requests nor the `notifications/cancelled` aimed at it.
//! `initialize`, notifications and client responses are processed in order on the loop, so
//! lifecycle changes take effect before the next line is read. Handler notifications are
//! written before the handler's response. Output is flushed only when no more input is
//! buffered, so a burst of pipelined requests costs one write. Server-to-client requests are
//! correlated with the client's answers on the loop. The process speaks one protocol era,
//! fixed by its first request. At EOF the loop stops reading, fails outstanding
//! server-to-client requests, ends listen streams gracefully, lets in-flight requests
//! finish, and returns. With `max_in_flight_per_connection` requests waiting, the loop reads
//! nothing more until one ends (back-pressure rather than refusals).

use std::io;
use std::sync::Arc;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::inline::poll_once;
use crate::protocol::jsonrpc::Payload;
use crate::protocol::{ErrorObject, Message, OutboundResponse, Response};
use crate::server::outbound::PendingRequests;
use crate::server::{BoxFuture, ConnectionState, Peer, PeerError, Server, SessionTransport};

/// Options of the stdio transport.
#[derive(Clone)]
pub struct StdioOptions {
    /// The longest line accepted, in bytes; a longer one (or an unterminated one at EOF) is
    /// answered with `-32700` and skipped without buffering it. Default 4 MiB.
    pub max_line_bytes: usize,
    /// Cancel to stop serving: reading stops at once, in-flight requests finish, and
    /// [`serve`] returns as at EOF.
    pub shutdown: CancellationToken,
    /// Where a request that has to wait (and a batch) runs: by default a tokio task. A host
    /// that polls the loop on a thread of its own, where its handlers settle (Node's JS
    /// thread), runs them there too, so an answer needs no hand-off between threads; the
    /// future it returns resolves when the request is done.
    pub run_waiting: Option<RunWaiting>,
}

/// Runs a request's future somewhere; the returned future resolves when it is done.
pub type RunWaiting = Arc<dyn Fn(BoxFuture<'static, ()>) -> BoxFuture<'static, ()> + Send + Sync>;

impl std::fmt::Debug for StdioOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioOptions")
            .field("max_line_bytes", &self.max_line_bytes)
            .field("shutdown", &self.shutdown)
            .field("run_waiting", &self.run_waiting.as_ref().map(|_| "host"))
            .finish()
    }
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions { max_line_bytes: 4 * 1024 * 1024, shutdown: CancellationToken::new(), run_waiting: None }
    }
}

/// The stdio side of a connection: one output queue, and the table of server-to-client
/// requests awaiting the client's answer.
struct StdioPeer {
    out: mpsc::UnboundedSender<String>,
    pending: Arc<PendingRequests>,
}

impl StdioPeer {
    fn close(&self) {
        // Every waiter fails with `Closed`; no new request is sent.
        self.pending.close();
    }
}

impl Peer for StdioPeer {
    fn send(&self, frame: String) {
        // A send error means the writer is gone (stdout closed); nothing useful to do.
        let _ = self.out.send(frame);
    }

    fn can_request(&self) -> bool {
        self.pending.is_open()
    }

    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        let out = self.out.clone();
        self.pending.ask(method, params.as_ref(), move |frame| {
            // A send error means the writer is gone (stdout closed); nothing useful to do.
            let _ = out.send(frame);
        })
    }

    fn on_response(&self, response: Response) -> bool {
        self.pending.resolve(&response.id, response.outcome)
    }
}

/// Serve `server` on the process's stdin and stdout until stdin reaches EOF.
pub async fn serve_stdio(server: &Server) -> io::Result<()> {
    serve_stdio_with(server, StdioOptions::default()).await
}

/// Serve on stdin and stdout with options (line limit, shutdown token).
///
/// When stdin and stdout are pipes (how MCP clients launch servers), they are reopened as
/// new non-blocking file descriptions driven by tokio's reactor, so reads and writes cost no
/// thread hand-off; the process's own fds 0 and 1 stay blocking. Anything else (a terminal,
/// a file, a socket) goes through tokio's standard stdin/stdout.
pub async fn serve_stdio_with(server: &Server, options: StdioOptions) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    if let Some((r, w)) = reopen_pipes() {
        return serve(server, r, w, options).await;
    }
    serve(server, tokio::io::stdin(), tokio::io::stdout(), options).await
}

#[cfg(target_os = "linux")]
fn reopen_pipes() -> Option<(tokio::net::unix::pipe::Receiver, tokio::net::unix::pipe::Sender)> {
    use std::fs::OpenOptions;
    use tokio::net::unix::pipe;
    let input = OpenOptions::new().read(true).open("/proc/self/fd/0").ok()?;
    let output = OpenOptions::new().write(true).open("/proc/self/fd/1").ok()?;
    // Both conversions fail (and we fall back) unless the descriptors are pipes.
    Some((pipe::Receiver::from_file(input).ok()?, pipe::Sender::from_file(output).ok()?))
}

/// The requests that had to wait (and batches), running as tokio tasks or where the host's
/// [`StdioOptions::run_waiting`] put them; the loop counts them for back-pressure and waits
/// for them at the end.
struct InFlight {
    tasks: JoinSet<()>,
    /// The host's completion futures, polled by the loop itself: no task, and no thread
    /// hand-off, per request.
    hosted: FuturesUnordered<BoxFuture<'static, ()>>,
}

impl InFlight {
    fn new() -> Self {
        InFlight { tasks: JoinSet::new(), hosted: FuturesUnordered::new() }
    }

    fn len(&self) -> usize {
        self.tasks.len() + self.hosted.len()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Run `work` where the options say.
    fn run(&mut self, options: &StdioOptions, work: BoxFuture<'static, ()>) {
        match &options.run_waiting {
            Some(run) => self.hosted.push(run(work)),
            None => {
                self.tasks.spawn(work);
            }
        }
    }

    /// Forget the ones that finished, so the sets do not grow over a long session.
    fn reap(&mut self) {
        while self.tasks.try_join_next().is_some() {}
        while !self.hosted.is_empty() && self.hosted.next().now_or_never().is_some() {}
    }

    /// One of them finished (pending forever when none runs).
    async fn next(&mut self) {
        tokio::select! {
            Some(_) = self.tasks.join_next() => {}
            Some(()) = self.hosted.next() => {}
            else => std::future::pending().await,
        }
    }
}

/// One line read from the input.
enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
}

/// Splits the input into lines of at most `max` bytes without ever buffering more. Its
/// state lives across calls, so `next` is cancel-safe (it is raced against other events).
struct LineReader<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    too_long: bool,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(reader: R, max: usize) -> Self {
        LineReader { reader: BufReader::with_capacity(64 * 1024, reader), buf: Vec::new(), too_long: false, max }
    }

    /// Whether a whole line is already buffered (no read needed to get it).
    fn has_line(&self) -> bool {
        memchr::memchr(b'\n', self.reader.buffer()).is_some()
    }

    fn take(&mut self) -> Line {
        let too_long = std::mem::take(&mut self.too_long);
        let line = std::mem::take(&mut self.buf);
        if too_long {
            Line::TooLong
        } else {
            Line::Text(line)
        }
    }

    async fn next(&mut self) -> io::Result<Line> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(if self.buf.is_empty() && !self.too_long { Line::Eof } else { self.take() });
            }
            let newline = memchr::memchr(b'\n', available);
            let chunk = &available[..newline.unwrap_or(available.len())];
            if !self.too_long {
                if self.buf.len() + chunk.len() > self.max {
                    self.too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let consumed = newline.map_or(available.len(), |i| i + 1);
            self.reader.consume(consumed);
            if newline.is_some() {
                return Ok(self.take());
            }
        }
    }
}

/// Serve `server` on any reader/writer pair (stdin/stdout, pipes, in-memory duplexes).
///
/// One loop reads, dispatches and writes: a request whose handler completes without waiting
/// is answered inline, and the output is flushed only when no further input is already
/// buffered, so a burst of pipelined requests costs one write. Requests that must wait run
/// as tasks and send their frames back through a channel the loop drains.
pub async fn serve<R, W>(server: &Server, reader: R, writer: W, options: StdioOptions) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let stdio_peer = Arc::new(StdioPeer { out: tx.clone(), pending: Arc::new(PendingRequests::new()) });
    let peer: Arc<dyn Peer> = stdio_peer.clone();
    // The process speaks one era: the first request (initialize, or one with the 2026-07-28
    // envelope) fixes it.
    let conn = Arc::new(ConnectionState::with_generated_id().pinning_era());
    let listener = server.attach_listener(&conn, &peer);
    let started = std::time::Instant::now();

    let mut input = LineReader::new(reader, options.max_line_bytes);
    let mut out = Output { w: tokio::io::BufWriter::with_capacity(64 * 1024, writer), dirty: false };
    let mut tasks = InFlight::new();
    let result: io::Result<()> = async {
        loop {
            // Frames from handlers and tasks go out first, in the order they were sent.
            while let Ok(frame) = rx.try_recv() {
                out.write(&frame).await?;
            }
            // Back-pressure: with `max_in_flight_per_connection` requests waiting, read no more
            // until one ends (one client on one pipe: slowing it beats refusing its requests).
            if tasks.len() >= server.limits().max_in_flight_per_connection {
                out.flush().await?;
                tokio::select! {
                    biased;
                    _ = options.shutdown.cancelled() => return Ok(()),
                    _ = tasks.next() => {}
                    Some(frame) = rx.recv() => out.write(&frame).await?,
                }
                continue;
            }
            let line = if input.has_line() && !options.shutdown.is_cancelled() {
                // A whole line is buffered: take it without waiting on anything.
                input.next().await?
            } else {
                out.flush().await?;
                tokio::select! {
                    biased;
                    _ = options.shutdown.cancelled() => return Ok(()),
                    frame = rx.recv() => {
                        if let Some(frame) = frame {
                            out.write(&frame).await?;
                        }
                        continue;
                    }
                    line = input.next() => line?,
                }
            };
            let bytes = match line {
                Line::Eof => return Ok(()),
                Line::TooLong => {
                    // Never read whole, so never parsed: a parse error (and no id to answer).
                    let e = ErrorObject::parse_error(format!(
                        "Parse error: message longer than the {} byte limit (skipped unread)",
                        options.max_line_bytes
                    ));
                    out.write(&OutboundResponse::error(None, e).to_json_string()).await?;
                    continue;
                }
                Line::Text(b) => b,
            };
            let Ok(text) = std::str::from_utf8(&bytes) else {
                let e = ErrorObject::parse_error("Parse error: input is not valid UTF-8");
                out.write(&OutboundResponse::error(None, e).to_json_string()).await?;
                continue;
            };
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            // Reap finished tasks so the set does not grow over a long session.
            tasks.reap();
            let answer = match server.parse_payload(text) {
                Payload::Single(Ok(Message::Request(req))) if req.method != "initialize" => {
                    let server = server.clone();
                    let conn = conn.clone();
                    let peer = peer.clone();
                    let work = Box::pin(async move {
                        server.handle(Message::Request(req), &conn, &peer).await.map(|r| r.to_json_string())
                    });
                    // Most handlers finish without waiting: answer those inline and spawn a
                    // task only for a request that has to wait.
                    match poll_once(work) {
                        Ok(answer) => answer,
                        Err(work) => {
                            let tx = tx.clone();
                            let waiting = Box::pin(async move {
                                if let Some(answer) = work.await {
                                    let _ = tx.send(answer);
                                }
                            });
                            tasks.run(&options, waiting);
                            None
                        }
                    }
                }
                payload @ Payload::Batch(_) => {
                    let (server, conn, peer, tx) = (server.clone(), conn.clone(), peer.clone(), tx.clone());
                    let batch = Box::pin(async move {
                        if let Some(answer) = server.handle_payload(payload, &conn, &peer).await {
                            let _ = tx.send(answer);
                        }
                    });
                    tasks.run(&options, batch);
                    None
                }
                // initialize, notifications and client responses: in order, before reading on.
                payload => server.handle_payload(payload, &conn, &peer).await,
            };
            if let Some(answer) = answer {
                // The handler's notifications were queued before its answer existed.
                while let Ok(frame) = rx.try_recv() {
                    out.write(&frame).await?;
                }
                out.write(&answer).await?;
            }
        }
    }
    .await;

    // EOF, shutdown or a read error: nobody can answer server-to-client requests any more;
    // listen streams end gracefully; let the running requests finish and write what they
    // send.
    stdio_peer.close();
    conn.close();
    drop(listener);
    let mut write_result = Ok(());
    while !tasks.is_empty() {
        tokio::select! {
            _ = tasks.next() => {}
            Some(frame) = rx.recv() => {
                if write_result.is_ok() {
                    write_result = out.write(&frame).await;
                }
            }
        }
    }
    while let Ok(frame) = rx.try_recv() {
        if write_result.is_ok() {
            write_result = out.write(&frame).await;
        }
    }
    if write_result.is_ok() {
        write_result = out.flush().await;
    }
    let result = result.and(write_result);
    // What ended a session that failed: the I/O error's kind (`BrokenPipe`, ...).
    let error = result.as_ref().err().map(|e| format!("{:?}", e.kind()));
    server.session_ended(&conn, started.elapsed(), SessionTransport::Stdio, error.as_deref());
    result
}

/// The buffered output, flushed only when there is something to flush.
struct Output<W> {
    w: tokio::io::BufWriter<W>,
    dirty: bool,
}

impl<W: AsyncWrite + Unpin> Output<W> {
    async fn write(&mut self, frame: &str) -> io::Result<()> {
        self.w.write_all(frame.as_bytes()).await?;
        self.w.write_all(b"\n").await?;
        self.dirty = true;
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        if self.dirty {
            self.w.flush().await?;
            self.dirty = false;
        }
        Ok(())
    }
}
