//! The core's own `tracing` subscriber for hosts that cannot install one: each enabled event,
//! formatted once, goes to one callback.
//!
//! It is installed as the process's global default the first time [`install`] is called (a
//! process whose Rust code already installed another subscriber gets
//! [`InstallError::AnotherSubscriber`]); later calls replace the callback and the level,
//! [`uninstall`] drops the callback (events are then disabled again). Spans are not recorded:
//! the core's diagnostics are events.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record as SpanRecord};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

/// How severe a record is, most severe first; also the sink's threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Level {
    /// Something failed that should not: a handler panicked, a store is unreachable.
    Error = 1,
    /// Something a peer or the environment did that an operator may want to know.
    Warn = 2,
    /// Lifecycle: sessions, refused requests.
    Info = 3,
    /// Per-request detail.
    Debug = 4,
    /// Everything.
    Trace = 5,
}

impl Level {
    /// The lowercase name (`error`, `warn`, `info`, `debug`, `trace`).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Info => "info",
            Level::Debug => "debug",
            Level::Trace => "trace",
        }
    }

    /// The level numbered `n` (1 error to 5 trace, the numbers the C ABI uses), or `None`.
    pub fn from_number(n: u8) -> Option<Level> {
        Some(match n {
            1 => Level::Error,
            2 => Level::Warn,
            3 => Level::Info,
            4 => Level::Debug,
            5 => Level::Trace,
            _ => return None,
        })
    }

    /// The level named `name` (case-insensitive; `warning` too), or `None`.
    pub fn parse(name: &str) -> Option<Level> {
        Some(match name.to_ascii_lowercase().as_str() {
            "error" => Level::Error,
            "warn" | "warning" => Level::Warn,
            "info" => Level::Info,
            "debug" => Level::Debug,
            "trace" => Level::Trace,
            _ => return None,
        })
    }

    fn of(level: &tracing::Level) -> Level {
        match *level {
            tracing::Level::ERROR => Level::Error,
            tracing::Level::WARN => Level::Warn,
            tracing::Level::INFO => Level::Info,
            tracing::Level::DEBUG => Level::Debug,
            _ => Level::Trace,
        }
    }

    fn filter(self) -> tracing::level_filters::LevelFilter {
        use tracing::level_filters::LevelFilter as F;
        match self {
            Level::Error => F::ERROR,
            Level::Warn => F::WARN,
            Level::Info => F::INFO,
            Level::Debug => F::DEBUG,
            Level::Trace => F::TRACE,
        }
    }
}

/// One event as the callback gets it.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// Its level.
    pub level: Level,
    /// Its target (`ferrite::session`, ...; another crate's own for its events).
    pub target: &'a str,
    /// The message, then each other field as ` key=value`.
    pub message: &'a str,
}

/// The callback records go to.
pub type Callback = Arc<dyn Fn(&Record<'_>) + Send + Sync>;

/// Why [`install`] could not.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The process already has a global `tracing` subscriber that is not the sink (a Rust
    /// program set its own): its events go there.
    #[error("the process already has a global tracing subscriber; its events go there")]
    AnotherSubscriber,
}

/// 0: no callback (every event disabled); else the `Level` threshold.
static LEVEL: AtomicU8 = AtomicU8::new(0);
static CALLBACK: RwLock<Option<Callback>> = RwLock::new(None);
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// Send every event at `level` or more severe to `callback` (replacing any previous one).
pub fn install(level: Level, callback: Callback) -> Result<(), InstallError> {
    let ours = *INSTALLED.get_or_init(|| tracing::subscriber::set_global_default(Sink).is_ok());
    if !ours {
        return Err(InstallError::AnotherSubscriber);
    }
    *CALLBACK.write().unwrap_or_else(|p| p.into_inner()) = Some(callback);
    set_level(level);
    Ok(())
}

/// Change the threshold of the installed callback (no effect without one).
pub fn set_level(level: Level) {
    if CALLBACK.read().unwrap_or_else(|p| p.into_inner()).is_some() {
        LEVEL.store(level as u8, Ordering::Release);
        tracing::callsite::rebuild_interest_cache();
    }
}

/// The installed callback's threshold, or `None` without one.
pub fn level() -> Option<Level> {
    Level::from_number(LEVEL.load(Ordering::Acquire))
}

/// Drop the callback: events are disabled again.
pub fn uninstall() {
    *CALLBACK.write().unwrap_or_else(|p| p.into_inner()) = None;
    LEVEL.store(0, Ordering::Release);
    tracing::callsite::rebuild_interest_cache();
}

struct Sink;

impl Sink {
    fn allows(meta: &Metadata<'_>) -> bool {
        let threshold = LEVEL.load(Ordering::Acquire);
        threshold != 0 && Level::of(meta.level()) as u8 <= threshold
    }
}

/// The fields of an event as `message key=value ...`.
#[derive(Default)]
struct Fields {
    message: String,
    rest: String,
}

/// `text` appended to `out` with control characters escaped (`\n`, `\u{7}`): values come from
/// clients (a method, a tool name, a handler's message), and a line break in one must not
/// forge another record in a line-oriented log.
fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            push_escaped(&mut self.message, value);
        } else {
            let _ = write!(self.rest, " {}=", field.name());
            push_escaped(&mut self.rest, value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let text = format!("{value:?}");
        if field.name() == "message" {
            push_escaped(&mut self.message, &text);
        } else {
            let _ = write!(self.rest, " {}=", field.name());
            push_escaped(&mut self.rest, &text);
        }
    }
}

impl Subscriber for Sink {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        // Asked again after every `rebuild_interest_cache`, so `sometimes` is not needed.
        if Self::allows(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(level().map_or(tracing::level_filters::LevelFilter::OFF, Level::filter))
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        Self::allows(meta)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &SpanRecord<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        if !Self::allows(meta) {
            return;
        }
        let Some(callback) = CALLBACK.read().unwrap_or_else(|p| p.into_inner()).clone() else { return };
        let mut fields = Fields::default();
        event.record(&mut fields);
        fields.message.push_str(&fields.rest);
        let record = Record { level: Level::of(meta.level()), target: meta.target(), message: &fields.message };
        // A host callback that panics must not take the emitting thread with it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(&record)));
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
