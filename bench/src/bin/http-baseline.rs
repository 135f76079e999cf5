//! `http-baseline`: the physical limit of the HTTP benchmark. A bare hyper 1.x HTTP/1.1 server
//! that reads each request body to the end and answers every POST with the same, precomputed
//! JSON-RPC reply to a `tools/call` of `add`. It parses nothing, so its figures are the cost of
//! TCP over loopback, HTTP/1.1 framing in hyper and tokio's scheduling, and nothing else.
//!
//! It runs on a multi-threaded tokio runtime with 2 workers (the benchmark machine has 2 cores)
//! and sets TCP_NODELAY on every connection, as every server in the benchmark does.
//!
//! ```text
//! http-baseline --port N [--sse]
//! ```
//!
//! By default the reply is `Content-Type: application/json`. With `--sse` it is a one-event
//! `text/event-stream` body and carries a fixed `Mcp-Session-Id`, which is the shape of a
//! stateful Streamable HTTP answer (the load generator's stateful mode needs a session id from
//! `initialize`). Requests other than POST get 405.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// The fixed answer: what an MCP server returns for `add` of 0 and 0.
const REPLY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"0"}],"structuredContent":{"sum":0},"isError":false}}"#;

/// The session id sent with `--sse`.
const SESSION_ID: &str = "http-baseline-fixed-session";

const USAGE: &str = "usage: http-baseline --port N [--sse]";

struct Options {
    port: u16,
    sse: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut port = None;
    let mut sse = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = Some(value.parse().map_err(|_| format!("bad port {value:?}"))?);
            }
            "--sse" => sse = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Options { port: port.ok_or("--port is required")?, sse })
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("http-baseline: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    let result =
        runtime.map_err(|e| e.to_string()).and_then(|rt| rt.block_on(serve(options)).map_err(|e| e.to_string()));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("http-baseline: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(options: Options) -> std::io::Result<()> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, options.port))).await?;
    let (body, content_type) = if options.sse {
        (Bytes::from(format!("event: message\ndata: {REPLY}\n\n")), "text/event-stream")
    } else {
        (Bytes::from_static(REPLY.as_bytes()), "application/json")
    };
    let sse = options.sse;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let body = body.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(request, body.clone(), content_type, sse));
            // A client that goes away mid-request is not this server's problem.
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

async fn answer(
    request: Request<Incoming>,
    body: Bytes,
    content_type: &'static str,
    sse: bool,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.method() != Method::POST {
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        return Ok(response);
    }
    // Read the request to the end, as any real server must, and throw it away.
    if request.into_body().collect().await.is_err() {
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = StatusCode::BAD_REQUEST;
        return Ok(response);
    }
    let mut response = Response::new(Full::new(body));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    if sse {
        headers.insert("mcp-session-id", HeaderValue::from_static(SESSION_ID));
    }
    Ok(response)
}
