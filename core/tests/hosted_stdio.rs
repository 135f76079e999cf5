//! The stdio loop polled on a host's own thread (`transport::hosted_stdio`, what Node's JS
//! thread and Python's event loop drive): a request whose handler answers without waiting is
//! answered inside the `feed` that brought it; one that waits is polled on the host's thread,
//! which a wake from another thread pokes; a wake inside `driving_woken` is driven when it
//! returns, without a poke; the input's end finishes serving once in-flight requests did.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread::ThreadId;
use std::time::Duration;

use ferrite_core::transport::hosted_stdio::{driving_here, driving_woken, HostedStdio};
use ferrite_core::transport::stdio::StdioOptions;
use ferrite_core::{CallToolResult, Implementation, RequestContext, Server, Tool};
use serde_json::{json, Value};
use tokio::io::AsyncWrite;
use tokio::sync::oneshot;

/// What the loop wrote, kept for the test to read.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// The JSON lines written so far.
    fn lines(&self) -> Vec<Value> {
        let bytes = self.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// The response to request `id`, if written.
    fn answer(&self, id: u64) -> Option<Value> {
        self.lines().into_iter().find(|m| m["id"] == json!(id) && m.get("method").is_none())
    }
}

impl AsyncWrite for Captured {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A server with `now` (answers at once), `later` (waits for the test's signal, reporting the
/// thread that polled it after the wait).
struct Fixture {
    server: Server,
    release: Arc<Mutex<Option<oneshot::Sender<()>>>>,
    polled_on: Arc<Mutex<Option<ThreadId>>>,
}

fn fixture() -> Fixture {
    let server = Server::builder(Implementation::new("hosted", "1")).stateful().build();
    server
        .add_tool(Tool::new("now", json!({"type": "object"})), |_a: Value, _ctx: RequestContext| async move {
            Ok(CallToolResult::text(format!("driving: {}", driving_here())))
        })
        .unwrap();
    let release: Arc<Mutex<Option<oneshot::Sender<()>>>> = Arc::default();
    let polled_on: Arc<Mutex<Option<ThreadId>>> = Arc::default();
    let (waiter, seen) = (release.clone(), polled_on.clone());
    server
        .add_tool(Tool::new("later", json!({"type": "object"})), move |_a: Value, _ctx: RequestContext| {
            let (tx, rx) = oneshot::channel();
            *waiter.lock().unwrap() = Some(tx);
            let seen = seen.clone();
            async move {
                let _ = rx.await;
                *seen.lock().unwrap() = Some(std::thread::current().id());
                Ok(CallToolResult::text("released"))
            }
        })
        .unwrap();
    Fixture { server, release, polled_on }
}

fn line(v: Value) -> Vec<u8> {
    let mut b = v.to_string().into_bytes();
    b.push(b'\n');
    b
}

fn handshake() -> Vec<u8> {
    let mut b = line(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    b.extend(line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})));
    b
}

fn call(id: u64, tool: &str) -> Vec<u8> {
    line(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}}))
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap()
}

/// A loop on a runtime, with its output and a count of the pokes it asked for.
fn hosted(
    server: Server,
    runtime: &tokio::runtime::Runtime,
) -> (HostedStdio, oneshot::Receiver<io::Result<()>>, Captured, Arc<AtomicUsize>) {
    let out = Captured::default();
    let pokes = Arc::new(AtomicUsize::new(0));
    let counted = pokes.clone();
    let poke = Arc::new(move || {
        counted.fetch_add(1, Ordering::SeqCst);
    });
    let (hosted, ended) =
        HostedStdio::new(server, runtime.handle().clone(), StdioOptions::default(), out.clone(), poke);
    (hosted, ended, out, pokes)
}

#[test]
fn a_request_answered_without_waiting_is_answered_inside_the_feed_that_brought_it() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (hosted, _ended, out, pokes) = hosted(fixture().server, &runtime);
    hosted.feed(&handshake());
    assert_eq!(out.answer(0).unwrap()["result"]["protocolVersion"], "2025-11-25");
    hosted.feed(&call(1, "now"));
    // Written before `feed` returned, by the handler polled inside it.
    assert_eq!(text(&out.answer(1).unwrap()), "driving: true");
    assert!(!driving_here(), "the drive is over once feed returns");
    assert_eq!(pokes.load(Ordering::SeqCst), 0, "nothing woke the loop from elsewhere");
}

#[test]
fn a_waiting_request_woken_from_another_thread_pokes_the_host_and_is_polled_on_its_thread() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let f = fixture();
    let (hosted, _ended, out, pokes) = hosted(f.server.clone(), &runtime);
    hosted.feed(&handshake());
    hosted.feed(&call(1, "later"));
    assert!(out.answer(1).is_none(), "still waiting");
    let release = f.release.lock().unwrap().take().unwrap();
    std::thread::spawn(move || release.send(())).join().unwrap().unwrap();
    assert_eq!(pokes.load(Ordering::SeqCst), 1, "the wake asked the host to drive");
    assert!(out.answer(1).is_none(), "nothing runs until the host drives");
    hosted.drive();
    assert_eq!(text(&out.answer(1).unwrap()), "released");
    assert_eq!(*f.polled_on.lock().unwrap(), Some(std::thread::current().id()));
}

#[test]
fn a_wake_inside_driving_woken_is_driven_when_it_returns_without_a_poke() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let f = fixture();
    let (hosted, _ended, out, pokes) = hosted(f.server.clone(), &runtime);
    hosted.feed(&handshake());
    hosted.feed(&call(1, "later"));
    let release = f.release.lock().unwrap().take().unwrap();
    driving_woken(|| release.send(())).unwrap();
    assert_eq!(text(&out.answer(1).unwrap()), "released");
    assert_eq!(pokes.load(Ordering::SeqCst), 0);
}

#[test]
fn the_end_of_input_finishes_serving_once_in_flight_requests_did() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let f = fixture();
    let (hosted, mut ended, out, _pokes) = hosted(f.server.clone(), &runtime);
    hosted.feed(&handshake());
    hosted.feed(&call(1, "later"));
    hosted.end();
    assert!(!hosted.is_done(), "a request is still in flight");
    assert!(ended.try_recv().is_err());
    let release = f.release.lock().unwrap().take().unwrap();
    driving_woken(|| release.send(())).unwrap();
    assert_eq!(text(&out.answer(1).unwrap()), "released");
    assert!(hosted.is_done());
    let outcome = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(5), ended).await });
    assert!(matches!(outcome, Ok(Ok(Ok(())))), "{outcome:?}");
}
