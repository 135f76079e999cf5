//! A round-robin front for a fleet of everything servers: test and benchmark infrastructure,
//! not something to deploy. Each HTTP request goes to the next instance in turn (so a client
//! really hops between instances, request by request, unlike a load balancer with sticky
//! connections); an instance that refuses the connection (killed) is skipped and the request
//! goes to the next one. Connections to the instances are kept alive and reused (hyper's
//! pooled client), as a real balancer's are. Responses stream back as they come (SSE included), with an
//! `x-ferrite-upstream` header naming the instance (its index) that answered.
//!
//! `cargo run --example front -- --port 8080 127.0.0.1:8081 127.0.0.1:8082 ...`

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// The largest request body the front buffers (it replays it to the next instance when one is
/// down).
const MAX_BODY: usize = 16 << 20;

struct Front {
    upstreams: Vec<SocketAddr>,
    next: AtomicUsize,
    client: Client<HttpConnector, Full<bytes::Bytes>>,
}

type SendError = Box<dyn std::error::Error + Send + Sync>;

async fn send(
    front: &Front,
    addr: SocketAddr,
    parts: &axum::http::request::Parts,
    body: bytes::Bytes,
) -> Result<Response, SendError> {
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut req = axum::http::Request::builder().method(parts.method.clone()).uri(format!("http://{addr}{path}"));
    for (name, value) in &parts.headers {
        req = req.header(name, value);
    }
    let resp = front.client.request(req.body(Full::new(body))?).await?;
    Ok(resp.map(Body::new))
}

async fn forward(State(front): State<Arc<Front>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "the front buffers at most 16 MiB").into_response();
    };
    let n = front.upstreams.len();
    let start = front.next.fetch_add(1, Ordering::Relaxed);
    for i in 0..n {
        let index = (start + i) % n;
        if let Ok(mut resp) = send(&front, front.upstreams[index], &parts, body.clone()).await {
            resp.headers_mut().insert("x-ferrite-upstream", HeaderValue::from(index));
            return resp;
        }
    }
    (StatusCode::BAD_GATEWAY, "no instance answered").into_response()
}

fn parse() -> Result<(u16, Vec<SocketAddr>), String> {
    let mut port = None;
    let mut upstreams = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--port" {
            port = Some(args.next().and_then(|p| p.parse().ok()).ok_or("--port needs a port number")?);
        } else {
            upstreams.push(a.parse().map_err(|_| format!("{a:?} is not host:port"))?);
        }
    }
    match (port, upstreams.is_empty()) {
        (Some(p), false) => Ok((p, upstreams)),
        _ => Err("usage: front --port N HOST:PORT...".to_owned()),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (port, upstreams) = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("front: {e}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        let front = Arc::new(Front { upstreams, next: AtomicUsize::new(0), client });
        let app = axum::Router::new().fallback(forward).with_state(front.clone());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        eprintln!("front: http://{} -> {:?}", listener.local_addr()?, front.upstreams);
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    })?;
    Ok(())
}
