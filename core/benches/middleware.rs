//! What the middleware chain costs per request: an in-process `tools/call add` through
//! `Server::handle_raw_on` (the whole dispatch path, no transport) with no middleware, with
//! one that only calls `next`, with three, with the `timing` built-in (no diagnostics
//! subscriber: its event is disabled), and with the telemetry layer: first recording into the
//! global no-op providers, then into the OTLP SDK providers of `install_otlp` (spans batched and
//! exported by their own thread, here to a closed port on loopback, so the row is the cost on
//! the request path). The stdio and HTTP benchmarks add their transport on top of the same path.
//!
//!     cargo bench -p ferrite-core --bench middleware [-- CALLS]

use std::sync::Arc;
use std::time::Instant;

use ferrite_core::server::middleware::{MiddlewareRequest, Next};
use ferrite_core::server::NullPeer;
use ferrite_core::{CallToolResult, Implementation, Peer, Server, Tool};
use serde_json::json;

#[derive(Clone, Copy)]
enum Extra {
    PassThrough(usize),
    Timing,
    Telemetry,
}

fn server(extra: Extra) -> Server {
    let s = Server::builder(Implementation::new("bench", "1")).stateless().build();
    s.add_tool_fn(Tool::new("add", json!({"type": "object"})).with_description("adds"), |a| {
        Ok(CallToolResult::text((a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0)).to_string()))
    })
    .expect("add");
    match extra {
        Extra::PassThrough(n) => {
            for _ in 0..n {
                s.add_middleware(|req: MiddlewareRequest, next: Next| next.run(req));
            }
        }
        Extra::Timing => s.add_builtin_middleware("timing", serde_json::Value::Null).expect("timing"),
        Extra::Telemetry => s.add_telemetry_layer(),
    }
    s
}

fn main() {
    let calls: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})
    .to_string();
    println!("middleware chain, {calls} in-process tools/call add per row (best of 3)");
    println!("{:<28} {:>10} {:>14}", "chain", "ns/call", "vs none");
    let mut none = 0.0;
    let rows = [
        ("none", Extra::PassThrough(0)),
        ("one pass-through", Extra::PassThrough(1)),
        ("three pass-through", Extra::PassThrough(3)),
        ("built-in timing", Extra::Timing),
        ("telemetry, no-op providers", Extra::Telemetry),
        ("telemetry, OTLP SDK", Extra::Telemetry),
    ];
    for (i, (label, extra)) in rows.into_iter().enumerate() {
        if label == "telemetry, OTLP SDK" {
            // The exporter's own thread sends to a closed port: only the request path is measured.
            std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9");
            ferrite_core::telemetry::install_otlp().expect("install_otlp");
        }
        let s = server(extra);
        let conn = s.new_connection();
        let peer: Arc<dyn Peer> = Arc::new(NullPeer);
        let best = (0..3)
            .map(|_| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..calls {
                        std::hint::black_box(s.handle_raw_on(&request, &conn, &peer).await);
                    }
                    start.elapsed().as_secs_f64() * 1e9 / f64::from(calls)
                })
            })
            .fold(f64::INFINITY, f64::min);
        if i == 0 {
            none = best;
        }
        println!("{label:<28} {best:>10.0} {:>+13.1}%", (best / none - 1.0) * 100.0);
    }
    ferrite_core::telemetry::shutdown();
}
