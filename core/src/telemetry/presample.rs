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
//!
//! Roots (requests without a `traceparent`, most of them) are decided without the call: the
//! standard samplers decide a root by the trace id alone (always, never, or its low 63 bits
//! under the ratio's bound), so the rule is read from the same `OTEL_TRACES_SAMPLER` variables
//! ([`Roots::from_env`]) and checked once, at start, against the sampler itself on ids around
//! its bound and random ones ([`Roots::verified`]); a rule that disagrees anywhere is dropped
//! and every root asks the sampler.

use std::cell::Cell;

use opentelemetry::trace::{SpanId, SpanKind, TraceContextExt, TraceId};
use opentelemetry::Context;
use opentelemetry_sdk::trace::{IdGenerator, SamplingDecision, ShouldSample};

thread_local! {
    /// The trace id [`Presampler::decide`] chose for the root span this thread starts next.
    static HANDED: Cell<Option<TraceId>> = const { Cell::new(None) };
}

/// The installed provider's sampler, asked before a span is made.
#[derive(Debug)]
pub(super) struct Presampler {
    sampler: Box<dyn ShouldSample>,
    roots: Roots,
    ids: FastIds,
}

/// How the sampler decides a root span, by its trace id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Roots {
    /// Not known: ask the sampler.
    Ask,
    /// Every root is sampled.
    Always,
    /// No root is sampled.
    Never,
    /// A root is sampled when its trace id's low 64 bits, shifted right once, are under this
    /// bound (the ratio times 2^63).
    Under(u64),
}

impl Roots {
    /// The rule of `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` as the SDK reads them:
    /// unset is `parentbased_always_on`, a missing or unreadable ratio is 1; samplers the SDK
    /// does not implement (and so replaces) are asked.
    pub fn from_env(sampler: Option<&str>, arg: Option<&str>) -> Roots {
        let ratio = || match arg.and_then(|a| a.parse::<f64>().ok()) {
            Some(r) if r < 1.0 => Roots::Under((r.max(0.0) * (1u64 << 63) as f64) as u64),
            _ => Roots::Always,
        };
        match sampler {
            None | Some("always_on" | "parentbased_always_on") => Roots::Always,
            Some("always_off" | "parentbased_always_off") => Roots::Never,
            Some("traceidratio" | "parentbased_traceidratio") => ratio(),
            Some(_) => Roots::Ask,
        }
    }

    /// `self` when it decides as `sampler` does on ids at and around its bound and on random
    /// ones, else [`Roots::Ask`].
    pub fn verified(self, sampler: &dyn ShouldSample) -> Roots {
        let ids = FastIds;
        let mut probes: Vec<TraceId> = (0..256).map(|_| ids.new_trace_id()).collect();
        let low = |low: u64| TraceId::from(u128::from(low));
        probes.extend([low(0), low(1), low(u64::MAX)]);
        if let Roots::Under(bound) = self {
            for near in [bound.saturating_sub(1), bound, bound.saturating_add(1)] {
                probes.extend([low(near << 1), low((near << 1) | 1)]);
            }
        }
        let asked = |id| sampler.should_sample(None, id, "", &SpanKind::Server, &[], &[]).decision;
        let agrees = probes.into_iter().all(|id| match self.decide(id) {
            Some(sampled) => sampled == (asked(id) != SamplingDecision::Drop),
            None => true,
        });
        if agrees {
            self
        } else {
            Roots::Ask
        }
    }

    /// Whether a root on `trace_id` is sampled (`None`: ask the sampler).
    fn decide(self, trace_id: TraceId) -> Option<bool> {
        match self {
            Roots::Ask => None,
            Roots::Always => Some(true),
            Roots::Never => Some(false),
            Roots::Under(bound) => Some((u128::from_be_bytes(trace_id.to_bytes()) as u64) >> 1 < bound),
        }
    }
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
    /// Ask `sampler`, with roots decided by the rule of the `OTEL_TRACES_SAMPLER` variables when
    /// it is `sampler`'s.
    pub fn new(sampler: Box<dyn ShouldSample>) -> Self {
        let var = |k| std::env::var(k).ok();
        let roots = Roots::from_env(var("OTEL_TRACES_SAMPLER").as_deref(), var("OTEL_TRACES_SAMPLER_ARG").as_deref());
        Self::with_roots(sampler, roots)
    }

    /// Ask `sampler`, with roots decided by `roots` once verified against it.
    pub fn with_roots(sampler: Box<dyn ShouldSample>, roots: Roots) -> Self {
        let roots = roots.verified(&*sampler);
        Presampler { sampler, roots, ids: FastIds }
    }

    /// The decision for a SERVER span named `name` under `parent` (the standard samplers read
    /// neither the name nor attributes, and none are passed).
    pub fn decide(&self, parent: Option<&Context>, name: &str) -> Decision {
        let parent_trace = parent.map(|p| p.span().span_context().clone()).filter(|t| t.is_valid());
        // A root is asked with no parent context: what the standard samplers do for an invalid
        // parent, without their reading the empty context's span twice over.
        let (trace_id, parent, root) = if let Some(parent_trace) = parent_trace {
            (parent_trace.trace_id(), parent, false)
        } else {
            let trace_id = self.ids.new_trace_id();
            match self.roots.decide(trace_id) {
                Some(true) => return Decision::Record(Some(trace_id)),
                Some(false) => return Decision::Drop,
                None => (trace_id, None, true),
            }
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
pub(super) struct HandedIds(FastIds);

impl IdGenerator for HandedIds {
    fn new_trace_id(&self) -> TraceId {
        HANDED.take().unwrap_or_else(|| self.0.new_trace_id())
    }

    fn new_span_id(&self) -> SpanId {
        self.0.new_span_id()
    }
}

/// Random ids from a per-thread wyrand generator (`fastrand`, seeded from the process's random
/// hash keys): ids must be unique and uniformly spread, for the ratio samplers of every
/// service on the trace, not unpredictable, and one costs about ten instructions where the
/// SDK's `RandomIdGenerator` (rand's ChaCha thread generator) costs about fifty, paid by every
/// request a sampler then drops.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct FastIds;

impl IdGenerator for FastIds {
    fn new_trace_id(&self) -> TraceId {
        // The all-zero id is invalid: drawn again (a 2^-128 event).
        loop {
            let id = fastrand::u128(..);
            if id != 0 {
                return TraceId::from(id);
            }
        }
    }

    fn new_span_id(&self) -> SpanId {
        loop {
            let id = fastrand::u64(..);
            if id != 0 {
                return SpanId::from(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{SpanContext, TraceFlags, TraceState};
    use opentelemetry_sdk::trace::{RandomIdGenerator, Sampler};

    fn ratio(r: f64) -> Box<dyn ShouldSample> {
        Box::new(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(r))))
    }

    #[test]
    fn fast_ids_are_valid_distinct_across_threads_and_spread_as_a_ratio_sampler_expects() {
        let draw = || (0..10_000).map(|_| FastIds.new_trace_id()).collect::<Vec<_>>();
        let mut ids = draw();
        ids.extend(std::thread::spawn(draw).join().unwrap());
        assert!(ids.iter().all(|id| *id != TraceId::INVALID));
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len(), "two threads never draw the same ids");
        // The low 63 bits decide a ratio: 30% of 20,000 roots, within 1.5 points (4.6 sigma).
        let rule = Roots::from_env(Some("traceidratio"), Some("0.3"));
        let sampled = ids.iter().filter(|id| rule.decide(**id) == Some(true)).count();
        assert!((5_700..=6_300).contains(&sampled), "{sampled} of 20000 sampled at 0.3");
        // And the high half is spread too (the W3C random flag's bits, other samplers' input).
        let high_set = ids.iter().filter(|id| id.to_bytes()[0] & 0x80 != 0).count();
        assert!((9_700..=10_300).contains(&high_set), "{high_set} of 20000 with the top bit set");
        assert_ne!(FastIds.new_span_id(), SpanId::INVALID);
    }

    #[test]
    fn the_sampler_variables_give_the_root_rule_the_sdk_reads_from_them() {
        assert_eq!(Roots::from_env(None, None), Roots::Always);
        assert_eq!(Roots::from_env(Some("parentbased_always_off"), None), Roots::Never);
        assert_eq!(Roots::from_env(Some("traceidratio"), Some("1.5")), Roots::Always);
        assert_eq!(Roots::from_env(Some("parentbased_traceidratio"), Some("nope")), Roots::Always);
        assert_eq!(Roots::from_env(Some("parentbased_traceidratio"), Some("0.5")), Roots::Under(1 << 62));
        assert_eq!(Roots::from_env(Some("xray"), None), Roots::Ask);
    }

    #[test]
    fn a_root_rule_is_kept_only_when_it_decides_as_the_sampler_does() {
        let rule = Roots::from_env(Some("parentbased_traceidratio"), Some("0.01"));
        assert_eq!(rule.verified(&*ratio(0.01)), rule);
        assert_eq!(rule.verified(&*ratio(0.02)), Roots::Ask, "a bound off by a factor of two is caught");
        assert_eq!(Roots::Always.verified(&*ratio(0.01)), Roots::Ask);
        assert_eq!(Roots::Never.verified(&*Box::new(Sampler::AlwaysOff)), Roots::Never);
        // A ratio's rule agrees with the sampler on fresh ids too (not only the probes).
        let p = Presampler::with_roots(ratio(0.3), Roots::from_env(Some("traceidratio"), Some("0.3")));
        assert_ne!(p.roots, Roots::Ask);
        let ids = RandomIdGenerator::default();
        for _ in 0..2000 {
            let id = ids.new_trace_id();
            let asked = p.sampler.should_sample(None, id, "", &SpanKind::Server, &[], &[]).decision;
            assert_eq!(p.roots.decide(id), Some(asked != SamplingDecision::Drop), "{id:?}");
        }
    }

    fn remote(sampled: bool) -> Context {
        let flags = if sampled { TraceFlags::SAMPLED } else { TraceFlags::default() };
        let sc = SpanContext::new(TraceId::from(7u128), SpanId::from(9u64), flags, true, TraceState::default());
        Context::new().with_remote_span_context(sc)
    }

    #[test]
    fn a_parent_based_ratio_follows_the_parent_and_draws_for_roots() {
        let p = Presampler::new(Box::new(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(0.0)))));
        assert_eq!(p.decide(Some(&remote(true)), "tools/call"), Decision::Record(None));
        assert_eq!(p.decide(Some(&remote(false)), "tools/call"), Decision::Drop);
        assert_eq!(p.decide(Some(&Context::new()), "tools/call"), Decision::Drop);
        assert_eq!(p.decide(None, "tools/call"), Decision::Drop);
        let all = Presampler::new(Box::new(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(1.0)))));
        assert!(matches!(all.decide(None, "tools/call"), Decision::Record(Some(_))));
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
