//! A minimal HTTP/1.1 client for the Streamable HTTP tests: requests with exact headers, and
//! readers for JSON and SSE bodies.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::Value;

pub const JSON: (&str, &str) = ("content-type", "application/json");
pub const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");

pub struct Reply {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Incoming,
}

impl Reply {
    pub async fn text(self) -> String {
        let b = tokio::time::timeout(Duration::from_secs(10), self.body.collect()).await.expect("body ends").unwrap();
        String::from_utf8(b.to_bytes().to_vec()).unwrap()
    }
    pub async fn json(self) -> Value {
        let t = self.text().await;
        serde_json::from_str(&t).unwrap_or_else(|e| panic!("not JSON ({e}): {t}"))
    }
    /// The JSON messages of an SSE body (events with empty data skipped), read to the end.
    pub async fn sse_messages(self) -> Vec<Value> {
        let t = self.text().await;
        sse_data(&t)
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

pub fn sse_data(t: &str) -> Vec<Value> {
    t.split("\n\n")
        .filter_map(|ev| {
            let data: String = ev.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
            (!data.trim().is_empty()).then(|| serde_json::from_str(&data).unwrap())
        })
        .collect()
}

pub fn sse_ids(t: &str) -> Vec<String> {
    t.lines().filter_map(|l| l.strip_prefix("id: ").map(str::to_owned)).collect()
}

pub async fn request(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    request_at(addr, "/mcp", method, headers, body).await
}

pub async fn request_at(addr: SocketAddr, path: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(conn);
    let mut b = hyper::Request::builder().method(method).uri(path);
    let mut has_host = false;
    for (k, v) in headers {
        has_host |= k.eq_ignore_ascii_case("host");
        b = b.header(*k, *v);
    }
    if !has_host {
        b = b.header("host", format!("127.0.0.1:{}", addr.port()));
    }
    let req = b.body(Full::new(Bytes::from(body.to_owned()))).unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let headers =
        resp.headers().iter().map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned())).collect();
    Reply { status: resp.status().as_u16(), headers, body: resp.into_body() }
}

/// Read an SSE body until a message with `method` arrives; that message.
pub async fn next_message(body: &mut Incoming, method: &str) -> Value {
    let mut buf = String::new();
    read_until(body, &mut buf, |b| sse_data(b).iter().any(|m| m["method"] == method)).await;
    sse_data(&buf).into_iter().find(|m| m["method"] == method).unwrap()
}

pub async fn read_until(body: &mut Incoming, buf: &mut String, done: impl Fn(&str) -> bool) {
    while !done(buf) {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame()).await.unwrap().unwrap().unwrap();
        if let Ok(d) = frame.into_data() {
            buf.push_str(std::str::from_utf8(&d).unwrap());
        }
    }
}

/// Write a request's head on a raw connection, and its body `delay` later: a client whose
/// body is still on the way when the server can already answer from the head.
pub async fn send_body_late(tcp: &mut tokio::net::TcpStream, head: &str, body: &str, delay: Duration) {
    use tokio::io::AsyncWriteExt as _;
    tcp.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(delay).await;
    tcp.write_all(body.as_bytes()).await.unwrap();
}

/// One response read off a raw keep-alive connection (a `content-length` body): its status,
/// headers (lowercase names) and body, or `None` when the server closed the connection
/// before a response began.
pub async fn read_response(tcp: &mut tokio::net::TcpStream) -> Option<(u16, HashMap<String, String>, String)> {
    use tokio::io::AsyncReadExt as _;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = tokio::time::timeout(Duration::from_secs(10), tcp.read(&mut chunk)).await.expect("a response").ok()?;
        if n == 0 {
            assert!(buf.is_empty(), "the connection closed inside a response head: {buf:?}");
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("a status line");
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers.get("content-length").and_then(|l| l.parse().ok()).expect("a content-length body");
    while buf.len() < head_end + len {
        let n = tokio::time::timeout(Duration::from_secs(10), tcp.read(&mut chunk)).await.expect("the body").unwrap();
        assert!(n > 0, "the connection closed inside a response body");
        buf.extend_from_slice(&chunk[..n]);
    }
    Some((status, headers, String::from_utf8_lossy(&buf[head_end..head_end + len]).into_owned()))
}
