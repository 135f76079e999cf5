//! Sampling before a span exists. The SDK decides whether to sample inside `start`, after the
//! span builder, its attributes and the boxed span were made: about 1,700 instructions per
//! request it then drops, most of the sampled layer's cost on a 19,000-instruction stdio call.
//! When Ferrite installed the tracer provider ([`super::install_otlp`]) it knows the provider's
//! sampler (the one the SDK reads from `OTEL_TRACES_SAMPLER`), so it asks that sampler first,
//! with the trace id the span would get, and makes no span for a request it drops. A root span
//! that is sampled gets exactly the trace id the decision was made on: the provider's id
//! generator ([`HandedIds`]) takes it from this thread, so a `traceidratio` decision stays
//! consistent with every other service that samples the same trace. With providers the program
//! installed itself nothing is known of the sampler, and every request asks the SDK, as before.

use std::cell::Cell;

use opentelemetry::trace::{SpanId, SpanKind, TraceContextExt, TraceId};
use opentelemetry::Context;
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator, SamplingDecision, ShouldSample};

thread_local! {
    /// The trace id [`Presampler::decide`] chose for the root span this thread starts next.
    static HANDED: Cell<Option<TraceId>> = const { Cell::new(None) };
}

/// The installed provider's sampler, asked before a span is made.
#[derive(Debug)]
pub(super) struct Presampler {
    sampler: Box<dyn ShouldSample>,
    ids: RandomIdGenerator,
}

/// What the sampler decided for a request's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decision {
    /// No span: the sampler drops it.
    Drop,
    /// A span, which a root starts on this trace id (`None` under a remote parent).
    Record(Option<TraceId>),
}

impl Presampler {
    pub fn new(sampler: Box<dyn ShouldSample>) -> Self {
        Presampler { sampler, ids: RandomIdGenerator::default() }
    }

    /// The decision for a SERVER span named `name` under `parent` (the standard samplers read
    /// neither the name nor attributes, and none are passed).
    pub fn decide(&self, parent: &Context, name: &str) -> Decision {
        let parent_span = parent.span();
        let parent_trace = parent_span.span_context();
        // A root is asked with no parent context: what the standard samplers do for an invalid
        // parent, without their reading the empty context's span twice over.
        let (trace_id, parent, root) = if parent_trace.is_valid() {
            (parent_trace.trace_id(), Some(parent), false)
        } else {
            (self.ids.new_trace_id(), None, true)
        };
        let result = self.sampler.should_sample(parent, trace_id, name, &SpanKind::Server, &[], &[]);
        match result.decision {
            SamplingDecision::Drop => Decision::Drop,
            SamplingDecision::RecordOnly | SamplingDecision::RecordAndSample => {
                Decision::Record(root.then_some(trace_id))
            }
        }
    }
}

/// Run `start` (which makes a span) with `trace_id` handed to [`HandedIds`] for a root span;
/// whatever `start` did not take is cleared, so no later span on this thread reuses it.
pub(super) fn starting_with<R>(trace_id: Option<TraceId>, start: impl FnOnce() -> R) -> R {
    HANDED.set(trace_id);
    let started = start();
    HANDED.set(None);
    started
}

/// The provider's id generator: a trace id handed over by [`starting_with`] when there is one,
/// random ids otherwise.
#[derive(Debug, Default)]
pub(super) struct HandedIds(RandomIdGenerator);

impl IdGenerator for HandedIds {
    fn new_trace_id(&self) -> TraceId {
        HANDED.take().unwrap_or_else(|| self.0.new_trace_id())
    }

    fn new_span_id(&self) -> SpanId {
        self.0.new_span_id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{SpanContext, TraceFlags, TraceState};
    use opentelemetry_sdk::trace::Sampler;

    fn remote(sampled: bool) -> Context {
        let flags = if sampled { TraceFlags::SAMPLED } else { TraceFlags::default() };
        let sc = SpanContext::new(TraceId::from(7u128), SpanId::from(9u64), flags, true, TraceState::default());
        Context::new().with_remote_span_context(sc)
    }

    #[test]
    fn a_parent_based_ratio_follows_the_parent_and_draws_for_roots() {
        let p = Presampler::new(Box::new(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(0.0)))));
        assert_eq!(p.decide(&remote(true), "tools/call"), Decision::Record(None));
        assert_eq!(p.decide(&remote(false), "tools/call"), Decision::Drop);
        assert_eq!(p.decide(&Context::new(), "tools/call"), Decision::Drop);
        let all = Presampler::new(Box::new(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(1.0)))));
        assert!(matches!(all.decide(&Context::new(), "tools/call"), Decision::Record(Some(_))));
    }

    #[test]
    fn a_handed_trace_id_is_taken_once_and_cleared_after_the_start() {
        let ids = HandedIds::default();
        let id = TraceId::from(42u128);
        let (first, second) = starting_with(Some(id), || (ids.new_trace_id(), ids.new_trace_id()));
        assert_eq!(first, id);
        assert_ne!(second, id, "a handed id serves one span");
        starting_with(Some(id), || ());
        assert_ne!(ids.new_trace_id(), id, "an id not taken is cleared");
    }
}
