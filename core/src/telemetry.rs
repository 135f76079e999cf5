//! OpenTelemetry: a span and metrics per request, following the MCP semantic conventions, and
//! OTLP/HTTP export through the official `opentelemetry` crates.
//!
//! Off by default. [`Server::enable_telemetry`] is the one switch: it installs the OTLP
//! exporters once per process (configured by the standard `OTEL_*` variables:
//! `OTEL_EXPORTER_OTLP_ENDPOINT` and its per-signal forms, `OTEL_EXPORTER_OTLP_HEADERS`,
//! `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_METRIC_EXPORT_INTERVAL`;
//! `OTEL_SDK_DISABLED=true` installs nothing) as the global providers, and puts the telemetry
//! layer first in the server's middleware chain. A Rust program that set up its own providers
//! calls [`Server::add_telemetry_layer`] instead. [`shutdown`] flushes what is pending (the
//! bindings call it at exit).
//!
//! Per request the layer opens a SERVER span named `{mcp.method.name} {target}` whose parent is
//! the `traceparent`/`tracestate` of the request's `_meta`, with `mcp.method.name`,
//! `mcp.protocol.version`, `mcp.session.id`, `jsonrpc.request.id`, `gen_ai.tool.name` or
//! `gen_ai.prompt.name`, `mcp.resource.uri`, `network.transport`, and on failure `error.type`
//! (the JSON-RPC code, or `tool_error` for a tool result with `isError`) and
//! `rpc.response.status_code`. Metrics: `mcp.server.operation.duration` (histogram, seconds,
//! the same attributes but the ids), `ferrite.server.active_requests` (up-down counter),
//! `ferrite.server.sessions` (gauge: the connections served), and what [`Server::stats`]
//! counts: `ferrite.server.sse_streams` and `ferrite.server.tasks.running` (gauges),
//! `ferrite.server.tasks.created` and `ferrite.store.round_trips` (counters).

use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use opentelemetry::metrics::{Histogram, UpDownCounter};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{Span, SpanKind, Status, Tracer};
use opentelemetry::{global, Context, KeyValue};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use serde_json::{Map, Value};

use crate::server::middleware::{
    Answer, Middleware, MiddlewareNotification, MiddlewareRequest, Next, NextNotification,
};
use crate::server::{Server, WeakServer};
use crate::BoxFuture;

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
    let (tracer_provider, meter_provider) = built?;
    global::set_tracer_provider(tracer_provider.clone());
    global::set_meter_provider(meter_provider.clone());
    *crate::sync::lock(&PROVIDERS) = Some((tracer_provider, meter_provider));
    Ok(*INSTALLED.get_or_init(|| true))
}

fn build_providers() -> Result<(SdkTracerProvider, SdkMeterProvider), TelemetryError> {
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
    let tracer_provider =
        SdkTracerProvider::builder().with_batch_exporter(spans).with_resource(resource.clone()).build();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics).build())
        .with_resource(resource)
        .build();
    Ok((tracer_provider, meter_provider))
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
    /// Turn telemetry on: the OTLP exporters ([`install_otlp`]) and the telemetry layer
    /// ([`Server::add_telemetry_layer`]).
    pub fn enable_telemetry(&self) -> Result<(), TelemetryError> {
        install_otlp()?;
        self.add_telemetry_layer();
        Ok(())
    }

    /// Put the telemetry layer first in the middleware chain, recording into the global
    /// OpenTelemetry providers (whatever the program installed). Once per server.
    pub fn add_telemetry_layer(&self) {
        self.add_telemetry_once(TelemetryLayer::new);
    }
}

/// The span and metrics of each request.
struct TelemetryLayer {
    tracer: global::BoxedTracer,
    duration: Histogram<f64>,
    active: UpDownCounter<i64>,
}

impl TelemetryLayer {
    fn new(server: WeakServer) -> Self {
        let meter = global::meter("ferrite");
        let sessions = server.clone();
        meter
            .u64_observable_gauge("ferrite.server.sessions")
            .with_description("The connections (stdio, HTTP sessions) the server serves.")
            .with_callback(move |gauge| {
                if let Some(s) = sessions.upgrade() {
                    gauge.observe(s.connected_sessions().len() as u64, &[]);
                }
            })
            .build();
        observe_stats(&meter, &server);
        TelemetryLayer {
            tracer: global::tracer("ferrite"),
            duration: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("MCP request duration as observed on the server, from receipt until the answer.")
                .with_boundaries(vec![
                    0.0001, 0.0005, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0,
                    300.0,
                ])
                .build(),
            active: meter
                .i64_up_down_counter("ferrite.server.active_requests")
                .with_description("Requests the server is answering now.")
                .build(),
        }
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

/// The `_meta` of a request as a carrier of W3C trace context.
struct MetaCarrier<'a>(Option<&'a Map<String, Value>>);

impl Extractor for MetaCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0?.get(key)?.as_str()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default()
    }
}

/// What the request is about, for the span name and attributes.
fn target_of(request: &MiddlewareRequest) -> Option<(&'static str, opentelemetry::StringValue)> {
    let params = request.params.as_ref()?;
    // Shared (an `Arc`): the span and the metric attributes each hold it without a copy.
    let text = |k: &str| {
        params.get(k).and_then(Value::as_str).map(|v| opentelemetry::StringValue::from(std::sync::Arc::<str>::from(v)))
    };
    match request.method.as_str() {
        "tools/call" => text("name").map(|n| ("gen_ai.tool.name", n)),
        "prompts/get" => text("name").map(|n| ("gen_ai.prompt.name", n)),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            text("uri").map(|u| ("mcp.resource.uri", u))
        }
        _ => None,
    }
}

/// `error.type` of an answer: the JSON-RPC code, or `tool_error` for a tool's `isError`.
fn error_type(is_tool_call: bool, answer: &Answer) -> Option<(String, Option<i32>)> {
    match answer {
        Err(e) => Some((e.code.to_string(), Some(e.code))),
        Ok(raw) if is_tool_call && raw.get().contains("\"isError\":true") => Some(("tool_error".to_owned(), None)),
        Ok(_) => None,
    }
}

/// A known method's name as a static string (no allocation per request), else the method;
/// and the static string itself when there is one.
fn method_value(method: &str) -> (opentelemetry::Value, Option<&'static str>) {
    const KNOWN: [&str; 16] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "server/discover",
        "subscriptions/listen",
        "logging/setLevel",
        "tasks/get",
        "tasks/result",
        "tasks/cancel",
    ];
    match KNOWN.iter().find(|k| **k == method) {
        Some(k) => (opentelemetry::Value::from(*k), Some(*k)),
        None => (opentelemetry::Value::from(method.to_owned()), None),
    }
}

impl Middleware for TelemetryLayer {
    /// The span starts with what costs nothing to say (static strings: the method, the
    /// protocol version, the transport), which is what a sampler sees; the name with its target
    /// and the attributes that need allocating (ids, tool name) are added only when the span
    /// is recording, so a request the sampler drops (`OTEL_TRACES_SAMPLER`) pays for none of
    /// them.
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        let ctx = &request.ctx;
        // Most requests carry no trace context: skip the propagator for them.
        let parent = match ctx.meta() {
            Some(meta) if meta.contains_key("traceparent") => {
                TraceContextPropagator::new().extract_with_context(&Context::new(), &MetaCarrier(Some(meta)))
            }
            _ => Context::new(),
        };
        let transport = if ctx.request_info().http().is_some() { "tcp" } else { "pipe" };
        let (method_name, static_name) = method_value(&request.method);
        let mut common = Vec::with_capacity(5);
        common.extend([
            KeyValue::new("mcp.method.name", method_name),
            KeyValue::new("mcp.protocol.version", ctx.protocol_version().as_str()),
            KeyValue::new("network.transport", transport),
        ]);
        let name: Cow<'static, str> = match static_name {
            Some(n) => Cow::Borrowed(n),
            None => Cow::Owned(request.method.clone()),
        };
        // Room for the attributes a recording span gets below (the builder keeps this vector).
        let mut start_attrs = Vec::with_capacity(8);
        start_attrs.extend(common.iter().cloned());
        let mut span = self
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(start_attrs)
            .start_with_context(&self.tracer, &parent);
        let target = target_of(&request);
        if span.is_recording() {
            if let Some((_, value)) = &target {
                span.update_name(format!("{} {value}", request.method));
            }
            let mut attrs = Vec::with_capacity(4);
            if let Some((key, value)) = &target {
                attrs.push(KeyValue::new(*key, value.clone()));
            }
            attrs.push(KeyValue::new("mcp.session.id", ctx.connection_id().to_owned()));
            attrs.push(KeyValue::new("jsonrpc.request.id", ctx.request_id().to_string()));
            if request.method == "tools/call" {
                attrs.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            }
            span.set_attributes(attrs);
        }
        if let Some((key, value)) = target {
            common.push(KeyValue::new(key, value));
        }
        let is_tool_call = request.method == "tools/call";
        let (duration, active) = (self.duration.clone(), self.active.clone());
        active.add(1, &[]);
        let started = Instant::now();
        Box::pin(async move {
            let answer = next.run(request).await;
            active.add(-1, &[]);
            if let Some((error, code)) = error_type(is_tool_call, &answer) {
                if span.is_recording() {
                    span.set_attribute(KeyValue::new("error.type", error.clone()));
                    if let Some(code) = code {
                        span.set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
                    }
                    let message = match &answer {
                        Err(e) => e.message.clone(),
                        Ok(_) => "the tool reported an error".to_owned(),
                    };
                    span.set_status(Status::error(message));
                }
                common.push(KeyValue::new("error.type", error));
            }
            span.end();
            duration.record(started.elapsed().as_secs_f64(), &common);
            answer
        })
    }

    /// A client notification gets a SERVER span of its own (the MCP conventions' span for a
    /// notification: named by its method, `mcp.method.name`, `mcp.session.id`, in the trace its
    /// `_meta.traceparent` names), around the rest of the chain and the core's handling.
    fn notify(&self, notification: MiddlewareNotification, next: NextNotification) -> BoxFuture<'static, ()> {
        let meta = notification.params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object);
        let parent = match meta {
            Some(meta) if meta.contains_key("traceparent") => {
                TraceContextPropagator::new().extract_with_context(&Context::new(), &MetaCarrier(Some(meta)))
            }
            _ => Context::new(),
        };
        let transport = if notification.info.http().is_some() { "tcp" } else { "pipe" };
        let attrs = vec![
            KeyValue::new("mcp.method.name", method_value(&notification.method).0),
            KeyValue::new("mcp.session.id", notification.connection.id().to_owned()),
            KeyValue::new("network.transport", transport),
        ];
        let mut span = self
            .tracer
            .span_builder(notification.method.clone())
            .with_kind(SpanKind::Server)
            .with_attributes(attrs)
            .start_with_context(&self.tracer, &parent);
        Box::pin(async move {
            next.run(notification).await;
            span.end();
        })
    }
}
