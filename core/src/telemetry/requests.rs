//! The span and the metrics of each request and client notification.
//!
//! Not a middleware: the server calls [`RequestTelemetry::start`] before a request enters the
//! chain and [`RequestTelemetry::end`] with its answer (outermost, as the first middleware
//! was), so a server whose only layer is telemetry still skips the chain, and nothing per
//! request is boxed. When Ferrite installed the tracer provider, the provider's sampler is asked
//! first and a request it drops gets no span at all ([`super::presample`]). Otherwise a span
//! starts with what costs nothing to say (static strings: the method, the revision, the
//! transport), which is what a sampler sees; its name with the target and the attributes that
//! need allocating (ids, tool name) are added only when it records. The duration goes to a bound
//! series ([`super::series`]); the requests in flight are read from the server's own count at
//! each export.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use opentelemetry::global::{self, BoxedSpan, BoxedTracer};
use opentelemetry::metrics::Histogram;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{Span, SpanKind, Status, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};

use super::presample::{self, Decision, Presampler};
use super::series::{ErrorType, Series, SeriesRef, SeriesTable, Target, Transport};
use crate::protocol::{ErrorObject, RawJson};
use crate::server::{ConnectionState, Era, RequestContext, RequestInfo, SessionTransport, WeakServer};

/// The bounds of `mcp.server.operation.duration`, in seconds.
const DURATION_BOUNDS: [f64; 17] =
    [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0];

/// The bounds of `mcp.server.session.duration`, in seconds: a second to a day.
const SESSION_BOUNDS: [f64; 14] =
    [1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, 14400.0, 28800.0, 43200.0, 86400.0];

/// What telemetry keeps for a server: its tracer, its duration series and its session
/// histogram.
pub(crate) struct RequestTelemetry {
    tracer: BoxedTracer,
    sessions: Histogram<f64>,
    /// The installed provider's sampler, when Ferrite installed it.
    presampler: Option<Presampler>,
    durations: SeriesTable,
    clock: &'static quanta::Clock,
}

/// The clock of request durations: the CPU's time-stamp counter where it is invariant
/// (`quanta`, calibrated once per process against the monotonic clock, which it falls back to
/// elsewhere). Reading it is a few instructions where `Instant::now` goes through the vDSO's
/// `clock_gettime`: about 90 of the 1,200 instructions sampled telemetry cost a stdio call.
static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();

/// One request being watched: its span (none when the sampler drops it), when it started, and
/// its duration series.
pub(crate) struct Watch {
    span: Option<BoxedSpan>,
    /// [`CLOCK`]'s raw reading when the request entered.
    started: u64,
    duration: Duration,
    is_tool_call: bool,
}

/// Where a request's duration goes: its bound series, or, past [`super::series::MAX_SERIES`],
/// its attributes for an unbound record.
enum Duration {
    Bound(Arc<Series>),
    Unbound(Vec<KeyValue>),
}

impl RequestTelemetry {
    /// The telemetry of `server`, recording into the global providers; the gauges that read
    /// the server's counts at each export are registered here.
    pub(crate) fn new(server: WeakServer) -> Self {
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
        let in_flight = server.clone();
        meter
            .i64_observable_up_down_counter("ferrite.server.active_requests")
            .with_description("Requests the server is answering now.")
            .with_callback(move |counter| {
                if let Some(s) = in_flight.upgrade() {
                    counter.observe(i64::try_from(s.in_flight()).unwrap_or(i64::MAX), &[]);
                }
            })
            .build();
        super::observe_stats(&meter, &server);
        let duration = meter
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description("MCP request duration as observed on the server, from receipt until the answer.")
            .with_boundaries(DURATION_BOUNDS.to_vec())
            .build();
        let sessions = meter
            .f64_histogram("mcp.server.session.duration")
            .with_unit("s")
            .with_description("The duration of the MCP session as observed on the MCP server.")
            .with_boundaries(SESSION_BOUNDS.to_vec())
            .build();
        let presampler = super::SAMPLER.get().map(|sampler| Presampler::new(sampler.clone()));
        RequestTelemetry {
            tracer: global::tracer("ferrite"),
            sessions,
            presampler,
            durations: SeriesTable::new(duration),
            clock: CLOCK.get_or_init(quanta::Clock::new),
        }
    }

    /// A request enters the chain.
    pub(crate) fn start(&self, method: &str, params: Option<&Value>, ctx: &RequestContext) -> Watch {
        // Most requests name no trace: no context is made for them unless a span is.
        let parent = remote_parent(ctx.meta_other());
        let transport = transport_of(ctx.request_info());
        let version = ctx.protocol_version();
        let target = target_of(method, params);
        let span = match self.presampler.as_ref().map(|p| p.decide(parent.as_ref(), method)) {
            Some(Decision::Drop) => None,
            Some(Decision::Record(trace_id)) => Some(presample::starting_with(trace_id, || {
                self.open(method, target, transport, ctx, &parent.unwrap_or_default())
            })),
            None => Some(self.open(method, target, transport, ctx, &parent.unwrap_or_default())),
        };
        // A resource's URI is opt-in on the metric (one series per URI): not in its key.
        let series_target = target.filter(|(kind, _)| *kind != Target::Resource);
        let key = SeriesRef { method, version, transport, target: series_target, error: None };
        let duration = match self.durations.series(key) {
            Some(series) => Duration::Bound(series),
            None => Duration::Unbound(key.attributes()),
        };
        // A `tools/call` without a name is answered with an error, whose code is its error type.
        let is_tool_call = matches!(target, Some((Target::Tool, _)));
        Watch { span, started: self.clock.raw(), duration, is_tool_call }
    }

    /// The span of a request the sampler keeps (or of every request, when the sampler is the
    /// SDK's alone to know).
    fn open(
        &self,
        method: &str,
        target: Option<(Target, &str)>,
        transport: Transport,
        ctx: &RequestContext,
        parent: &Context,
    ) -> BoxedSpan {
        let (method_name, static_name) = method_value(method);
        // Room for the attributes a recording span gets below (the builder keeps this vector).
        let mut attrs = Vec::with_capacity(12);
        attrs.extend([
            KeyValue::new("mcp.method.name", method_name),
            KeyValue::new("mcp.protocol.version", ctx.protocol_version().as_str()),
        ]);
        transport.attributes(&mut attrs);
        let name: Cow<'static, str> = match static_name {
            Some(n) => Cow::Borrowed(n),
            None => Cow::Owned(method.to_owned()),
        };
        let mut span = self
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(attrs)
            .start_with_context(&self.tracer, parent);
        if span.is_recording() {
            // A tool's or prompt's name; never a resource's URI, which the conventions keep
            // out of span names by default (one name per URI).
            if let Some((Target::Tool | Target::Prompt, value)) = target {
                span.update_name(format!("{method} {value}"));
            }
            let mut attrs = Vec::with_capacity(6);
            if let Some((target, value)) = target {
                attrs.push(KeyValue::new(target.key(), value.to_owned()));
            }
            attrs.push(KeyValue::new("mcp.session.id", ctx.connection_id().to_owned()));
            attrs.push(KeyValue::new("jsonrpc.request.id", ctx.request_id().to_string()));
            if method == "tools/call" {
                attrs.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            }
            client_address(ctx.request_info(), &mut attrs);
            span.set_attributes(attrs);
        }
        span
    }

    /// The request's answer left the chain.
    pub(crate) fn end(&self, watch: Watch, answer: &Result<RawJson, ErrorObject>) {
        let seconds = seconds_since(self.clock, watch.started);
        let error = error_type(watch.is_tool_call, answer);
        if let Some(mut span) = watch.span {
            if let Some(error) = error.filter(|_| span.is_recording()) {
                if let Some(code) = error.status_code() {
                    span.set_attribute(KeyValue::new("rpc.response.status_code", code));
                }
                // A caller's error (an unknown tool, bad params) is not the server failing: no
                // `error.type`, and the status stays unset.
                if let Some(error_type) = error.error_type() {
                    span.set_attribute(KeyValue::new("error.type", error_type));
                    let message = match answer {
                        Err(e) => e.message.clone(),
                        Ok(_) => "the tool reported an error".to_owned(),
                    };
                    span.set_status(Status::error(message));
                }
            }
            span.end();
        }
        match (watch.duration, error) {
            (Duration::Bound(series), None) => series.record(seconds),
            (Duration::Bound(series), Some(e)) => self.durations.record(series.failed(e), seconds),
            (Duration::Unbound(mut attrs), error) => {
                if let Some(e) = error {
                    attrs.extend(e.error_type().map(|t| KeyValue::new("error.type", t)));
                    attrs.extend(e.status_code().map(|c| KeyValue::new("rpc.response.status_code", c)));
                }
                self.durations.record_unbound(seconds, &attrs);
            }
        }
    }

    /// A client notification gets a SERVER span of its own (the MCP conventions' span for a
    /// notification: named by its method, `mcp.method.name`, `mcp.session.id`, in the trace its
    /// `_meta.traceparent` names), around the chain and the core's handling, and its duration
    /// goes to `mcp.server.operation.duration` as a request's does; [`Self::notified`] after.
    pub(crate) fn notification(
        &self,
        method: &str,
        params: Option<&Value>,
        conn: &ConnectionState,
        info: &RequestInfo,
    ) -> NotificationWatch {
        let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
        let transport = transport_of(info);
        let version = conn.effective_version();
        let mut attrs = Vec::with_capacity(8);
        attrs.extend([
            KeyValue::new("mcp.method.name", method_value(method).0),
            KeyValue::new("mcp.protocol.version", version.as_str()),
            KeyValue::new("mcp.session.id", conn.id().to_owned()),
        ]);
        transport.attributes(&mut attrs);
        client_address(info, &mut attrs);
        let span = self
            .tracer
            .span_builder(method.to_owned())
            .with_kind(SpanKind::Server)
            .with_attributes(attrs)
            .start_with_context(&self.tracer, &remote_parent(meta).unwrap_or_default());
        NotificationWatch { span, started: self.clock.raw(), version, transport }
    }

    /// A client notification was handled: its span ends and its duration is recorded.
    pub(crate) fn notified(&self, method: &str, watch: NotificationWatch) {
        let NotificationWatch { mut span, started, version, transport } = watch;
        let seconds = seconds_since(self.clock, started);
        span.end();
        self.durations.record(SeriesRef { method, version, transport, target: None, error: None }, seconds);
    }
}

impl RequestTelemetry {
    /// A session ended after `lasted`. Only a handshake-era session is one: a connection that
    /// never initialized, or speaks 2026-07-28 (stateless, no session), is not recorded.
    pub(crate) fn session_ended(
        &self,
        conn: &ConnectionState,
        lasted: std::time::Duration,
        transport: SessionTransport,
        error: Option<&str>,
    ) {
        let Some(version) = conn.negotiated_version() else { return };
        if conn.pinned_era() == Some(Era::Modern) {
            return;
        }
        let mut attrs = Vec::with_capacity(4);
        attrs.push(KeyValue::new("mcp.protocol.version", version.as_str()));
        match transport {
            SessionTransport::Stdio => attrs.push(KeyValue::new("network.transport", "pipe")),
            SessionTransport::Http => attrs
                .extend([KeyValue::new("network.transport", "tcp"), KeyValue::new("network.protocol.name", "http")]),
        }
        if let Some(error) = error {
            attrs.push(KeyValue::new("error.type", error.to_owned()));
        }
        self.sessions.record(lasted.as_secs_f64(), &attrs);
    }
}

/// One client notification being watched.
pub(crate) struct NotificationWatch {
    span: BoxedSpan,
    started: u64,
    version: crate::protocol::ProtocolVersion,
    transport: Transport,
}

/// `client.address` and `client.port` of an HTTP request whose peer is known.
fn client_address(info: &RequestInfo, attrs: &mut Vec<KeyValue>) {
    if let Some(peer) = info.remote_addr() {
        attrs.push(KeyValue::new("client.address", peer.ip().to_string()));
        attrs.push(KeyValue::new("client.port", i64::from(peer.port())));
    }
}

/// The seconds since `started`, a raw reading of `clock`.
fn seconds_since(clock: &quanta::Clock, started: u64) -> f64 {
    clock.delta_as_nanos(started, clock.raw()) as f64 * 1e-9
}

/// HTTP of the request's version, else stdio.
fn transport_of(info: &RequestInfo) -> Transport {
    match info.http() {
        Some(parts) => Transport::of_http(parts.version),
        None => Transport::Pipe,
    }
}

/// The trace a request's `_meta` names (most requests name none: the propagator is skipped).
fn remote_parent(meta: Option<&Map<String, Value>>) -> Option<Context> {
    match meta {
        Some(meta) if meta.contains_key("traceparent") => {
            Some(TraceContextPropagator::new().extract_with_context(&Context::new(), &MetaCarrier(meta)))
        }
        _ => None,
    }
}

/// The `_meta` of a request as a carrier of W3C trace context.
struct MetaCarrier<'a>(&'a Map<String, Value>);

impl Extractor for MetaCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// What the request is about, for the span name and attributes.
fn target_of<'a>(method: &str, params: Option<&'a Value>) -> Option<(Target, &'a str)> {
    // A scan of the few keys of a request's params: a B-tree lookup compares each key it
    // passes with `memcmp` (about twice the instructions). From the end: `name` and `uri` sort
    // after `_meta` and `arguments`, so the scan usually stops at its first key.
    let params = params?.as_object()?;
    let text = |key: &str| params.iter().rev().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_str());
    match method {
        "tools/call" => text("name").map(|n| (Target::Tool, n)),
        "prompts/get" => text("name").map(|n| (Target::Prompt, n)),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            text("uri").map(|u| (Target::Resource, u))
        }
        _ => None,
    }
}

/// `error.type` of an answer: the JSON-RPC code, or `tool_error` for a tool's `isError`.
fn error_type(is_tool_call: bool, answer: &Result<RawJson, ErrorObject>) -> Option<ErrorType> {
    match answer {
        Err(e) => Some(ErrorType::Code(e.code)),
        // The core's own tool results say whether they report an error; others are searched.
        Ok(raw) if is_tool_call && raw.tool_error().unwrap_or_else(|| reports_error(raw.get())) => {
            Some(ErrorType::Tool)
        }
        Ok(_) => None,
    }
}

/// Whether a serialized tool result says `"isError":true`. Found from its capital `E` (rare in a
/// result's keys, and inside strings JSON would have to escape the quotes around it), which
/// `memchr` finds in a few instructions where a substring search first sets itself up.
fn reports_error(json: &str) -> bool {
    const KEY: &[u8] = b"\"isError\":true";
    let bytes = json.as_bytes();
    memchr::memchr_iter(b'E', bytes).any(|at| at >= 3 && bytes[at - 3..].starts_with(KEY))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_error_is_read_from_the_cores_mark_else_from_the_text() {
        let text = |t: &str| Ok(RawJson::trusted(t.to_owned()));
        // Text from elsewhere (a middleware, a proxied server) is searched.
        assert_eq!(error_type(true, &text(r#"{"content":[],"isError":true}"#)), Some(ErrorType::Tool));
        assert_eq!(error_type(true, &text(r#"{"content":[],"isError":false}"#)), None);
        // The core's own tool results say so themselves, and are not searched.
        let marked = |t: &str, e: bool| Ok(RawJson::trusted(t.to_owned()).tool_result(e));
        assert_eq!(error_type(true, &marked(r#"{"content":[]}"#, true)), Some(ErrorType::Tool));
        // (A structured result with a key of that name of its own, which a search takes for one.)
        let nested = r#"{"content":[],"structuredContent":{"isError":true}}"#;
        assert_eq!(error_type(true, &text(nested)), Some(ErrorType::Tool));
        assert_eq!(error_type(true, &marked(nested, false)), None);
        // Only a tool call's result can be a tool error; a JSON-RPC error is one by its code.
        assert_eq!(error_type(false, &text(r#"{"isError":true}"#)), None);
        assert_eq!(error_type(true, &Err(ErrorObject::invalid_params("x"))), Some(ErrorType::Code(-32602)));
    }

    #[test]
    fn a_duration_is_the_seconds_the_monotonic_clock_saw_pass() {
        let clock = CLOCK.get_or_init(quanta::Clock::new);
        let (started, at) = (clock.raw(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(30));
        let (seconds, reference) = (seconds_since(clock, started), at.elapsed().as_secs_f64());
        assert!(seconds >= 0.030, "{seconds} s for a 30 ms sleep");
        assert!((seconds - reference).abs() < 0.002, "{seconds} s where the monotonic clock saw {reference} s");
    }
}
