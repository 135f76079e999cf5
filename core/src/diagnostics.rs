//! Diagnostics: what the core tells an operator, as [`tracing`] events.
//!
//! The core emits events under the `ferrite::*` targets of [`target`]: sessions created,
//! evicted, expired and ended; handler panics, failures and invalid results; HTTP requests
//! refused, with their status and reason; shared-store errors. No event carries a bearer token,
//! a session id, a request state, arguments or results: what could grant access or identify a
//! user stays out, so any event can go to any log.
//!
//! A Rust program installs whichever `tracing` subscriber it likes. The language bindings
//! cannot, so the core offers one of its own, the [`sink`]: a subscriber that formats each
//! enabled event once (`message key=value ...`) and hands it to a host callback (Python's
//! `logging`, a Node function, a C function pointer, Go's `slog`). Nothing is emitted before a
//! subscriber is installed, and a disabled event costs one relaxed atomic load, so the events
//! stay in the hot paths.

pub mod sink;

pub use sink::{install, level, set_level, uninstall, Callback, InstallError, Level, Record};

/// The targets the core's events use, one per concern, so a filter can pick them.
pub mod target {
    /// Sessions of the Streamable HTTP transport: created, evicted, expired, ended.
    pub const SESSION: &str = "ferrite::session";
    /// Handlers: panics (error), invalid results (error), failures (debug).
    pub const HANDLER: &str = "ferrite::handler";
    /// HTTP requests refused before or instead of dispatch, with status and reason (4xx at
    /// info, 5xx at warn).
    pub const HTTP: &str = "ferrite::http";
    /// Shared stores (Redis): errors (warn).
    pub const STORE: &str = "ferrite::store";
    /// One event per request from the `timing` (debug) and `logging` (info) built-in
    /// middleware, and rate-limited requests (info): method, name, outcome, microseconds.
    pub const REQUEST: &str = "ferrite::request";
}

/// Lets one event a second through, of a kind that can repeat on every request while its cause
/// lasts (a store that went away), and counts the ones it held back: a flood of identical
/// warnings, each costing a formatted record and the host's logging call, says no more than
/// one a second with a count.
pub(crate) struct Throttle {
    /// Milliseconds since [`EPOCH`] of the last event let through, plus one (0: none yet).
    last: std::sync::atomic::AtomicU64,
    held: std::sync::atomic::AtomicU64,
}

static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

impl Throttle {
    pub(crate) const fn new() -> Self {
        Throttle { last: std::sync::atomic::AtomicU64::new(0), held: std::sync::atomic::AtomicU64::new(0) }
    }

    /// Whether this event goes through, with how many were held back since the last one.
    pub(crate) fn pass(&self) -> Option<u64> {
        use std::sync::atomic::Ordering;
        let now = EPOCH.get_or_init(std::time::Instant::now).elapsed().as_millis() as u64 + 1;
        let last = self.last.load(Ordering::Relaxed);
        if last != 0 && now < last + 1000 {
            self.held.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        if self.last.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_err() {
            self.held.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        Some(self.held.swap(0, Ordering::Relaxed))
    }
}

/// ` (N more like it held back)`, or nothing.
pub(crate) fn held_back(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} more like it held back)")
    }
}

#[cfg(test)]
mod tests {
    use super::Throttle;

    #[test]
    fn a_throttle_lets_one_event_a_second_through_and_counts_the_rest() {
        let t = Throttle::new();
        assert_eq!(t.pass(), Some(0));
        assert_eq!(t.pass(), None);
        assert_eq!(t.pass(), None);
        std::thread::sleep(std::time::Duration::from_millis(1050));
        assert_eq!(t.pass(), Some(2));
        assert_eq!(t.pass(), None);
    }
}
