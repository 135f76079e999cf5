//! What the middleware chain costs per request: an in-process `tools/call add` through
//! `Server::handle_raw_on` (the whole dispatch path, no transport) with no middleware, with
//! one that only calls `next`, and with three. The stdio and HTTP benchmarks add their
//! transport on top of the same path.
//!
//!     cargo bench -p ferrite-core --bench middleware [-- CALLS]

use std::sync::Arc;
use std::time::Instant;

use ferrite_core::server::middleware::{MiddlewareRequest, Next};
use ferrite_core::server::NullPeer;
use ferrite_core::{CallToolResult, Implementation, Peer, Server, Tool};
use serde_json::json;

fn server(pass_through: usize) -> Server {
    let s = Server::builder(Implementation::new("bench", "1")).stateless().build();
    s.add_tool_fn(Tool::new("add", json!({"type": "object"})).with_description("adds"), |a| {
        Ok(CallToolResult::text((a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0)).to_string()))
    })
    .expect("add");
    for _ in 0..pass_through {
        s.add_middleware(|req: MiddlewareRequest, next: Next| next.run(req));
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
    for (label, n) in [("none", 0), ("one pass-through", 1), ("three pass-through", 3)] {
        let s = server(n);
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
        if n == 0 {
            none = best;
        }
        println!("{label:<28} {best:>10.0} {:>+13.1}%", (best / none - 1.0) * 100.0);
    }
}
