//! OpenTelemetry: a span and metrics per request, following the MCP semantic conventions, and
//! OTLP/HTTP export through the official `opentelemetry` crates.
//!
//! Off by default. [`Server::enable_telemetry`] is the one switch: it installs the OTLP
//! exporters once per process (configured by the standard `OTEL_*` variables:
//! `OTEL_EXPORTER_OTLP_ENDPOINT` and its per-signal forms, `OTEL_EXPORTER_OTLP_HEADERS`,
//! `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_METRIC_EXPORT_INTERVAL`;
//! `OTEL_SDK_DISABLED=true` installs nothing) as the global providers, and has the server watch
//! each request around its middleware chain ([`requests`]). A Rust program that set up its own providers
//! calls [`Server::add_telemetry_layer`] instead. [`shutdown`] flushes what is pending (the
//! bindings call it at exit).
//!
//! Per request the layer opens a SERVER span named `{mcp.method.name} {target}` (the target a
//! tool's or prompt's name, never a resource's URI, which the conventions keep out of names by
//! default) whose parent is the `traceparent`/`tracestate` of the request's `_meta`, with
//! `mcp.method.name`, `mcp.protocol.version`, `mcp.session.id`, `jsonrpc.request.id`,
//! `gen_ai.tool.name` or `gen_ai.prompt.name`, `gen_ai.operation.name`, `mcp.resource.uri`,
//! `network.transport`, over HTTP `network.protocol.name`/`version` and `client.address`/`port`,
//! and on an error `rpc.response.status_code` and, when the conventions count it as the server
//! failing (any code but a caller's: -32700, -32600, -32601, -32602, -32002; or `tool_error` for
//! a tool result with `isError`), `error.type` and an error status. A client notification gets
//! a SERVER span of its own. Metrics: `mcp.server.operation.duration` (histogram, seconds, for
//! requests and notifications, the span's attributes but the ids, the peer and the resource
//! URI, opt-in there; each series bound once, [`series`]), `mcp.server.session.duration`
//! (histogram, seconds: a handshake-era session's life, told by the transport that ends it),
//! `ferrite.server.active_requests` (up-down counter, read from the server's in-flight count),
//! `ferrite.server.sessions` (gauge: the connections served), and what [`Server::stats`]
//! counts: `ferrite.server.sse_streams` and `ferrite.server.tasks.running` (gauges),
//! `ferrite.server.tasks.created` and `ferrite.store.round_trips` (counters).

mod presample;
mod requests;
mod series;

use std::sync::{Mutex, OnceLock};

use opentelemetry::global;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

pub(crate) use requests::RequestTelemetry;

use crate::server::{Server, WeakServer};

pub use opentelemetry;

/// Why telemetry could not be turned on.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// An OTLP exporter could not be built (a bad endpoint or header variable).
    #[error("cannot build the OTLP {signal} exporter: {reason}")]
    Exporter {
        /// `traces` or `metrics`.
        signal: &'static str,
        /// What the exporter said.
        reason: String,
    },
}

/// The providers installed by [`install_otlp`], kept to flush them at [`shutdown`].
static PROVIDERS: Mutex<Option<(SdkTracerProvider, SdkMeterProvider)>> = Mutex::new(None);

/// Whether the OTLP exporters are installed (once per process).
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// The sampler of the tracer provider [`install_otlp`] installed, which the request telemetry
/// asks before making a span ([`presample`]).
static SAMPLER: OnceLock<Box<dyn opentelemetry_sdk::trace::ShouldSample>> = OnceLock::new();

/// Install OTLP/HTTP (protobuf) exporters for traces and metrics as the global providers,
/// configured by the `OTEL_*` variables; once per process (later calls do nothing). Returns
/// whether exporters are installed (false when `OTEL_SDK_DISABLED=true`).
pub fn install_otlp() -> Result<bool, TelemetryError> {
    if let Some(installed) = INSTALLED.get() {
        return Ok(*installed);
    }
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"));
    if disabled {
        return Ok(*INSTALLED.get_or_init(|| false));
    }
    // The exporters' blocking HTTP client may be neither made nor dropped on a tokio thread:
    // build (and, in `shutdown`, drop) the providers on a thread of their own.
    let built = std::thread::spawn(build_providers)
        .join()
        .unwrap_or_else(|_| Err(TelemetryError::Exporter { signal: "traces", reason: "the exporter panicked".into() }));
    let (tracer_provider, meter_provider, sampler) = built?;
    let _ = SAMPLER.set(sampler);
    global::set_tracer_provider(tracer_provider.clone());
    global::set_meter_provider(meter_provider.clone());
    *crate::sync::lock(&PROVIDERS) = Some((tracer_provider, meter_provider));
    Ok(*INSTALLED.get_or_init(|| true))
}

type Built = (SdkTracerProvider, SdkMeterProvider, Box<dyn opentelemetry_sdk::trace::ShouldSample>);

fn build_providers() -> Result<Built, TelemetryError> {
    use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
    let resource = Resource::builder().build();
    let spans = SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(|e| TelemetryError::Exporter { signal: "traces", reason: e.to_string() })?;
    let metrics = MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(|e| TelemetryError::Exporter { signal: "metrics", reason: e.to_string() })?;
    // The sampler the SDK reads from `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`, kept to
    // decide before a span is made; the id generator starts a sampled root span on the trace id
    // that decision was made on.
    let sampler = opentelemetry_sdk::trace::Config::default().sampler;
    let tracer_provider = SdkTracerProvider::builder()
        .with_sampler(sampler.clone())
        .with_id_generator(presample::HandedIds::default())
        .with_batch_exporter(spans)
        .with_resource(resource.clone())
        .build();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics).build())
        .with_resource(resource)
        .build();
    Ok((tracer_provider, meter_provider, sampler))
}

/// Export what is pending and stop the exporters installed by [`install_otlp`] (a no-op
/// otherwise). Blocks until the exports finish or time out.
pub fn shutdown() {
    let providers = crate::sync::lock(&PROVIDERS).take();
    if let Some((traces, metrics)) = providers {
        let _ = std::thread::spawn(move || {
            let _ = traces.force_flush();
            let _ = metrics.force_flush();
            let _ = traces.shutdown();
            let _ = metrics.shutdown();
            // The global providers hold clones: replace them so the clients drop here too.
            global::set_tracer_provider(opentelemetry::trace::noop::NoopTracerProvider::new());
            global::set_meter_provider(opentelemetry::metrics::noop::NoopMeterProvider::new());
        })
        .join();
    }
}

/// Export what is pending now, keeping the exporters (tests, and hosts that exit abruptly).
pub fn flush() {
    let guard = crate::sync::lock(&PROVIDERS);
    if let Some((traces, metrics)) = guard.as_ref() {
        let _ = traces.force_flush();
        let _ = metrics.force_flush();
    }
}

impl Server {
    /// Turn telemetry on: the OTLP exporters ([`install_otlp`]) and the per-request telemetry
    /// ([`Server::add_telemetry_layer`]).
    pub fn enable_telemetry(&self) -> Result<(), TelemetryError> {
        install_otlp()?;
        self.add_telemetry_layer();
        Ok(())
    }

    /// Watch every request and client notification (outermost, around the middleware
    /// chain), recording into the global OpenTelemetry providers (whatever the program
    /// installed). Once per server.
    pub fn add_telemetry_layer(&self) {
        self.set_telemetry_once(RequestTelemetry::new);
    }
}

/// [`Server::stats`] as observable instruments, read at each metric export (nothing is
/// recorded per stream, task or store command).
fn observe_stats(meter: &opentelemetry::metrics::Meter, server: &WeakServer) {
    type Read = fn(&crate::ServerStats) -> u64;
    let gauges: [(&'static str, &'static str, Read); 2] = [
        ("ferrite.server.sse_streams", "SSE response streams open now.", |s| s.sse_streams),
        ("ferrite.server.tasks.running", "Tasks running in this process now.", |s| s.tasks_running),
    ];
    for (name, description, read) in gauges {
        let server = server.clone();
        meter
            .u64_observable_gauge(name)
            .with_description(description)
            .with_callback(move |gauge| {
                if let Some(s) = server.upgrade() {
                    gauge.observe(read(&s.stats()), &[]);
                }
            })
            .build();
    }
    let counters: [(&'static str, &'static str, Read); 2] = [
        ("ferrite.server.tasks.created", "Tasks this process created.", |s| s.tasks_created),
        ("ferrite.store.round_trips", "Commands sent to the shared store (Redis).", |s| s.store_round_trips),
    ];
    for (name, description, read) in counters {
        let server = server.clone();
        meter
            .u64_observable_counter(name)
            .with_description(description)
            .with_callback(move |counter| {
                if let Some(s) = server.upgrade() {
                    counter.observe(read(&s.stats()), &[]);
                }
            })
            .build();
    }
}
