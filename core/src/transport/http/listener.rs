//! The accept loop of [`super::HttpServer`]: hyper's HTTP/1 connection driver, configured for
//! hostile peers, with graceful shutdown.
//!
//! `axum::serve` fixes the connection settings; a server that faces the network needs two it
//! lacks: half-closed connections (a client that sends its request and shuts its write side
//! still gets the answer) and a deadline for the request head (a slow or silent client does
//! not hold a connection forever). A host that mounts [`super::router`] in its own server
//! keeps its own settings.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// Connection settings from the options.
pub(super) struct ConnectionSettings {
    pub(super) header_read_timeout: Option<Duration>,
}

/// Serve `app` on `listener` until `shutdown`; then stop accepting, run `on_shutdown` (which
/// ends sessions and their streams), and wait for open connections to finish what they
/// carry.
pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    settings: ConnectionSettings,
    shutdown: CancellationToken,
    on_shutdown: impl FnOnce(),
) -> std::io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).half_close(true).header_read_timeout(settings.header_read_timeout);
    loop {
        let (tcp, remote) = tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                // Out of file descriptors or a connection reset before it was accepted: the
                // listener itself is fine; back off a little so an fd shortage is not a spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        // Small SSE writes must not wait for delayed ACKs.
        let _ = tcp.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(remote));
            app.clone().oneshot(req.map(axum::body::Body::new))
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(tcp), service));
        tokio::spawn(async move {
            // A connection error (a reset, a timed-out head) concerns that client only.
            let _ = connection.await;
        });
    }
    drop(listener);
    on_shutdown();
    graceful.shutdown().await;
    Ok(())
}
