//! `--mount`: the endpoint served the way an application embeds it, mounted in an axum app of
//! the host's beside a route of its own, behind a middleware that attaches a host value.

use ferrite_core::transport::http;
use ferrite_core::Server;
use serde_json::Value;

/// The host application's middleware: who the caller is, for handlers to read.
async fn identify(mut req: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    if let Some(user) = req.headers().get("x-user").and_then(|v| v.to_str().ok()).map(str::to_owned) {
        let values = serde_json::Map::from_iter([("user".to_owned(), Value::String(user))]);
        req.extensions_mut().insert(ferrite_core::server::HostValues(values));
    }
    next.run(req).await
}

/// Serve the endpoint mounted in an axum app of the host's, beside a route of its own.
pub async fn mounted(server: Server, port: u16) -> std::io::Result<()> {
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(http::router(&server, http::HttpOptions::default()))
        .layer(axum::middleware::from_fn(identify));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("everything: mounted in an axum app on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app.into_make_service_with_connect_info::<std::net::SocketAddr>())
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
