//! `mcp.server.session.duration`: a handshake-era session's life, recorded when it ends (a
//! stdio connection whose input closed, an HTTP session its client deleted or that idled out),
//! read back from the SDK's in-memory exporter. A connection that never initialized is no
//! session and records nothing. (Sessions of a fleet, which end only when their client ends
//! them, are tested over Redis in `tests/telemetry`.)

use std::time::Duration;

use ferrite_core::transport::http::{self, HttpOptions};
use ferrite_core::transport::stdio::{self, StdioOptions};
use ferrite_core::{Implementation, Server};
use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

mod common;
use common::http::*;

/// One session point: its attributes, count and sum.
#[derive(Debug)]
struct Point {
    attributes: Vec<(String, String)>,
    count: u64,
    sum: f64,
}

impl Point {
    fn get(&self, key: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

fn text(kv: &KeyValue) -> (String, String) {
    (kv.key.as_str().to_owned(), kv.value.as_str().into_owned())
}

/// The points of `mcp.server.session.duration` in the last export.
fn session_points(provider: &SdkMeterProvider, exporter: &InMemoryMetricExporter) -> Vec<Point> {
    provider.force_flush().expect("flush");
    let exported = exporter.get_finished_metrics().expect("metrics");
    let Some(last) = exported.last() else { return Vec::new() };
    let mut points = Vec::new();
    for scope in last.scope_metrics() {
        for metric in scope.metrics().filter(|m| m.name() == "mcp.server.session.duration") {
            assert_eq!(metric.unit(), "s");
            if let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() {
                points.extend(h.data_points().map(|p| Point {
                    attributes: p.attributes().map(text).collect(),
                    count: p.count(),
                    sum: p.sum(),
                }));
            }
        }
    }
    points
}

fn server() -> Server {
    let s = Server::builder(Implementation::new("sessions-test", "1")).stateful().build();
    s.add_telemetry_layer();
    s
}

fn initialize(id: u64, version: &str) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

/// Serve one stdio connection; send `lines`, read an answer per request, wait `lasting`, close.
async fn stdio_connection(server: &Server, lines: &[String], lasting: Duration) {
    let (client, server_side) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_side);
    let served = {
        let server = server.clone();
        tokio::spawn(async move { stdio::serve(&server, server_read, server_write, StdioOptions::default()).await })
    };
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut answers = BufReader::new(client_read).lines();
    for line in lines {
        client_write.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        if line.contains("\"id\"") {
            answers.next_line().await.unwrap().expect("an answer");
        }
    }
    tokio::time::sleep(lasting).await;
    client_write.shutdown().await.unwrap();
    drop(client_write);
    served.await.unwrap().expect("stdio ends at EOF without error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_ends_is_recorded_with_how_long_it_lasted() {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
    opentelemetry::global::set_meter_provider(provider.clone());
    let server = server();

    // A stdio connection that never initialized is no session.
    stdio_connection(&server, &[], Duration::ZERO).await;
    assert!(session_points(&provider, &exporter).is_empty(), "a connection without initialize recorded a session");

    // One that initialized, and lasted 300 ms.
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned();
    stdio_connection(&server, &[initialize(1, "2025-06-18"), initialized], Duration::from_millis(300)).await;
    let points = session_points(&provider, &exporter);
    assert_eq!(points.len(), 1, "{points:?}");
    let stdio = &points[0];
    assert_eq!((stdio.count, stdio.get("network.transport")), (1, Some("pipe")), "{stdio:?}");
    assert_eq!(stdio.get("mcp.protocol.version"), Some("2025-06-18"));
    assert_eq!((stdio.get("network.protocol.name"), stdio.get("error.type")), (None, None), "{stdio:?}");
    assert!((0.3..5.0).contains(&stdio.sum), "{} s for a 300 ms session", stdio.sum);

    // Over HTTP: a session its client deletes, and one that idles past the timeout.
    let opts = HttpOptions { session_idle_timeout: Some(Duration::from_millis(200)), ..HttpOptions::default() };
    let shutdown = opts.shutdown.clone();
    let bound = http::bind(&server, "127.0.0.1:0".parse().unwrap(), opts).await.unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());
    let open = |version: &'static str| async move {
        let r = request(addr, "POST", &[JSON, ACCEPT], &initialize(1, version)).await;
        assert_eq!(r.status, 200);
        r.header("mcp-session-id").expect("a session").to_owned()
    };
    let deleted = open("2025-11-25").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(request(addr, "DELETE", &[("mcp-session-id", &deleted)], "").await.status, 200);
    let points = session_points(&provider, &exporter);
    let http = points.iter().find(|p| p.get("network.transport") == Some("tcp")).expect("the deleted session");
    assert_eq!(http.count, 1, "{points:?}");
    assert_eq!(
        (http.get("network.protocol.name"), http.get("mcp.protocol.version")),
        (Some("http"), Some("2025-11-25"))
    );
    assert!((0.1..5.0).contains(&http.sum), "{} s for a session deleted after 100 ms", http.sum);

    let idle = open("2025-03-26").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Found expired on sight (or swept before): 404, and recorded once.
    let ping = json!({"jsonrpc":"2.0","id":2,"method":"ping"}).to_string();
    assert_eq!(request(addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &idle)], &ping).await.status, 404);
    let points = session_points(&provider, &exporter);
    let expired =
        points.iter().find(|p| p.get("mcp.protocol.version") == Some("2025-03-26")).expect("the expired session");
    assert_eq!((expired.count, expired.get("network.transport")), (1, Some("tcp")), "{points:?}");
    assert!(expired.sum >= 0.2, "{} s for a session that idled 200 ms out", expired.sum);
    assert_eq!(points.iter().map(|p| p.count).sum::<u64>(), 3, "each session once: {points:?}");
    shutdown.cancel();
}
