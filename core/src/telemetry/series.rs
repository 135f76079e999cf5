//! The duration histogram's series, each bound once. Recording with attributes makes the
//! OpenTelemetry SDK sort, hash (SipHash) and look up the attribute set on every request: about
//! 2,000 instructions of a 19,000-instruction stdio `tools/call`. A series here is found by a
//! hash of borrowed fields (the method, revision, transport, target and error type of the
//! request) and holds a histogram bound to its attributes (the SDK's bound instruments), so a
//! request pays one read-locked lookup and no allocation, or, when it is the series its thread
//! found last (a client calling one tool over and over), one comparison of its fields, inline.
//! Past [`MAX_SERIES`] series (a client calling ever new tool names) requests record with their
//! attributes as before, and the SDK's own cardinality limit applies.

use std::cell::RefCell;
use std::hash::Hasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use hashbrown::HashTable;
use opentelemetry::metrics::{BoundHistogram, Histogram};
use opentelemetry::KeyValue;
use rustc_hash::FxHasher;

use crate::protocol::ProtocolVersion;

/// The most series bound; later ones record unbound.
pub(super) const MAX_SERIES: usize = 1024;

/// How a request did not succeed: the JSON-RPC error code of its answer, or a tool result with
/// `isError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum ErrorType {
    /// A JSON-RPC error, by code (`rpc.response.status_code`).
    Code(i32),
    /// A tool result with `isError`.
    Tool,
}

impl ErrorType {
    /// `error.type`, when the MCP conventions count this as the server failing: a tool's
    /// `isError`, or any error code but those that say the caller asked for something the
    /// server could not serve (parse error, invalid request, method not found, invalid params,
    /// resource not found), which carry `rpc.response.status_code` alone and leave the span's
    /// status unset.
    pub fn error_type(self) -> Option<String> {
        match self {
            ErrorType::Code(-32700 | -32600 | -32601 | -32602 | -32002) => None,
            ErrorType::Code(c) => Some(c.to_string()),
            ErrorType::Tool => Some("tool_error".to_owned()),
        }
    }

    /// `rpc.response.status_code`: the answer's error code, when it is a JSON-RPC error.
    pub fn status_code(self) -> Option<String> {
        match self {
            ErrorType::Code(c) => Some(c.to_string()),
            ErrorType::Tool => None,
        }
    }
}

/// `network.transport`, and over HTTP `network.protocol.name` and `network.protocol.version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Transport {
    /// stdio.
    Pipe,
    /// HTTP/1.0.
    Http10,
    /// HTTP/1.1.
    Http11,
    /// HTTP/2.
    Http2,
    /// Another HTTP version (0.9, or 3 over QUIC): named by the transport alone.
    HttpOther,
}

impl Transport {
    /// The transport of an HTTP request of `version`.
    pub fn of_http(version: http::Version) -> Self {
        match version {
            http::Version::HTTP_10 => Transport::Http10,
            http::Version::HTTP_11 => Transport::Http11,
            http::Version::HTTP_2 => Transport::Http2,
            _ => Transport::HttpOther,
        }
    }

    /// `network.transport`.
    pub fn value(self) -> &'static str {
        match self {
            Transport::Pipe => "pipe",
            _ => "tcp",
        }
    }

    /// `network.protocol.version` over HTTP (`network.protocol.name` is `http`).
    pub fn http_version(self) -> Option<&'static str> {
        match self {
            Transport::Pipe | Transport::HttpOther => None,
            Transport::Http10 => Some("1.0"),
            Transport::Http11 => Some("1.1"),
            Transport::Http2 => Some("2"),
        }
    }

    /// Whether this is HTTP.
    pub fn is_http(self) -> bool {
        self != Transport::Pipe
    }

    /// The network attributes (static strings: nothing allocated per request).
    pub fn attributes(self, attrs: &mut Vec<KeyValue>) {
        attrs.push(KeyValue::new("network.transport", self.value()));
        if self.is_http() {
            attrs.push(KeyValue::new("network.protocol.name", "http"));
        }
        if let Some(version) = self.http_version() {
            attrs.push(KeyValue::new("network.protocol.version", version));
        }
    }
}

/// What a request names: a tool, a prompt or a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Target {
    /// `gen_ai.tool.name`.
    Tool,
    /// `gen_ai.prompt.name`.
    Prompt,
    /// `mcp.resource.uri`.
    Resource,
}

impl Target {
    /// The attribute's key.
    pub fn key(self) -> &'static str {
        match self {
            Target::Tool => "gen_ai.tool.name",
            Target::Prompt => "gen_ai.prompt.name",
            Target::Resource => "mcp.resource.uri",
        }
    }
}

/// The attributes of one series, borrowed from the request. The fixed sets (revision,
/// transport, target kind, error) are small enums, so a lookup hashes and compares two strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SeriesRef<'a> {
    /// `mcp.method.name`.
    pub method: &'a str,
    /// `mcp.protocol.version`.
    pub version: ProtocolVersion,
    /// `network.transport`.
    pub transport: Transport,
    /// `gen_ai.tool.name` or `gen_ai.prompt.name`, with its value (never a resource's URI).
    pub target: Option<(Target, &'a str)>,
    /// `error.type`.
    pub error: Option<ErrorType>,
}

impl SeriesRef<'_> {
    /// The method's and target's lengths and outer bytes, and the small fields, mixed: a few
    /// instructions where hashing every byte cost more than the rest of the lookup. A collision
    /// costs one more comparison.
    fn hash(&self) -> u64 {
        let value = self.target.map_or("", |(_, v)| v);
        let mut h = FxHasher::default();
        h.write_u64(self.small());
        h.write_u64(outer_bytes(self.method));
        h.write_u64(outer_bytes(value));
        h.finish()
    }
}

/// A string's length with its first and last (up to) eight bytes folded in.
fn outer_bytes(s: &str) -> u64 {
    let b = s.as_bytes();
    let n = b.len();
    let eight = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let folded = if n >= 8 {
        eight(0) ^ eight(n - 8).rotate_left(29)
    } else {
        b.iter().enumerate().fold(0u64, |w, (i, &x)| w | u64::from(x) << (8 * i))
    };
    folded ^ (n as u64).rotate_left(57)
}

/// Whether `a` and `b` are the same text. The names a request's series is found by (methods,
/// tool names) are short: compared here in at most two overlapping words, inline, where `==`
/// on strings calls `memcmp` (about a third of finding the last series, before).
#[inline(always)]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let half = |s: &[u8], at: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_le_bytes(w)
    };
    match n {
        0 => true,
        // The first, middle and last bytes are every byte of these.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

impl SeriesRef<'_> {
    /// The revision, transport, target kind and error type packed in one word: compared at
    /// once, where comparing the four enums one by one took as many instructions as the rest.
    #[inline(always)]
    fn small(&self) -> u64 {
        let kind = self.target.map_or(0, |(target, _)| target as u64 + 1);
        let error = match self.error {
            None => 0,
            Some(ErrorType::Tool) => 1,
            Some(ErrorType::Code(code)) => 2 | (u64::from(code as u32) << 8),
        };
        (self.version as u64) | (self.transport as u64) << 4 | kind << 8 | error << 16
    }

    /// The series' attributes, as the SDK records them: the MCP conventions' attributes of
    /// `mcp.server.operation.duration`, but `mcp.resource.uri` (opt-in there, one series per
    /// URI), which a key's target never is.
    pub fn attributes(&self) -> Vec<KeyValue> {
        let mut attrs = Vec::with_capacity(8);
        attrs.push(KeyValue::new("mcp.method.name", self.method.to_owned()));
        attrs.push(KeyValue::new("mcp.protocol.version", self.version.as_str()));
        self.transport.attributes(&mut attrs);
        if let Some((target, value)) = self.target {
            attrs.push(KeyValue::new(target.key(), value.to_owned()));
        }
        if self.method == "tools/call" {
            attrs.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        if let Some(e) = self.error {
            if let Some(error_type) = e.error_type() {
                attrs.push(KeyValue::new("error.type", error_type));
            }
            if let Some(code) = e.status_code() {
                attrs.push(KeyValue::new("rpc.response.status_code", code));
            }
        }
        attrs
    }
}

/// One bound series and the attributes it was bound to.
pub(super) struct Series {
    method: String,
    version: ProtocolVersion,
    transport: Transport,
    target: Option<(Target, String)>,
    error: Option<ErrorType>,
    /// [`SeriesRef::small`] of the fields above.
    small: u64,
    bound: BoundHistogram<f64>,
}

impl Series {
    fn view(&self) -> SeriesRef<'_> {
        SeriesRef {
            method: &self.method,
            version: self.version,
            transport: self.transport,
            target: self.target.as_ref().map(|(k, v)| (*k, v.as_str())),
            error: self.error,
        }
    }

    /// Whether this is the series of `key`: compared field by field, the names without a call
    /// to `memcmp` (see [`same_text`]).
    #[inline]
    fn is(&self, key: &SeriesRef<'_>) -> bool {
        self.small == key.small()
            && match (&self.target, key.target) {
                // A target's kind names its method (a tool is `tools/call`'s, a prompt
                // `prompts/get`'s), and the kinds are equal in `small`.
                (Some((_, value)), Some((_, key_value))) => same_text(value, key_value),
                _ => same_text(&self.method, key.method),
            }
    }

    /// The same series with `error` as its error type.
    pub fn failed(&self, error: ErrorType) -> SeriesRef<'_> {
        SeriesRef { error: Some(error), ..self.view() }
    }

    /// Record one duration, in seconds.
    pub fn record(&self, seconds: f64) {
        self.bound.record(seconds);
    }
}

/// The bound series of one histogram.
pub(super) struct SeriesTable {
    /// Tells this table's entries in [`LAST`] from another's.
    id: u64,
    histogram: Histogram<f64>,
    table: RwLock<HashTable<Arc<Series>>>,
}

static NEXT_TABLE: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The series this thread found last, with its table's id: a client calling one tool over
    /// and over (the common case) finds it here with one comparison, without the table's lock
    /// or hash.
    static LAST: RefCell<Option<(u64, Arc<Series>)>> = const { RefCell::new(None) };
}

impl SeriesTable {
    pub fn new(histogram: Histogram<f64>) -> Self {
        let id = NEXT_TABLE.fetch_add(1, Ordering::Relaxed);
        SeriesTable { id, histogram, table: RwLock::new(HashTable::new()) }
    }

    /// The series of `key`, bound now if it is new; `None` when [`MAX_SERIES`] are bound.
    pub fn series(&self, key: SeriesRef<'_>) -> Option<Arc<Series>> {
        let last = LAST.with(|last| {
            let last = last.try_borrow().ok()?;
            let (table, series) = last.as_ref()?;
            (*table == self.id && series.is(&key)).then(|| series.clone())
        });
        if last.is_some() {
            return last;
        }
        let found = self.find_or_bind(key);
        if let Some(series) = &found {
            LAST.with(|last| {
                if let Ok(mut last) = last.try_borrow_mut() {
                    *last = Some((self.id, series.clone()));
                }
            });
        }
        found
    }

    fn find_or_bind(&self, key: SeriesRef<'_>) -> Option<Arc<Series>> {
        let hash = key.hash();
        if let Some(found) = crate::sync::read(&self.table).find(hash, |s| s.is(&key)) {
            return Some(found.clone());
        }
        let mut table = crate::sync::write(&self.table);
        if let Some(found) = table.find(hash, |s| s.is(&key)) {
            return Some(found.clone());
        }
        if table.len() >= MAX_SERIES {
            return None;
        }
        let series = Arc::new(Series {
            method: key.method.to_owned(),
            version: key.version,
            transport: key.transport,
            target: key.target.map(|(k, v)| (k, v.to_owned())),
            error: key.error,
            small: key.small(),
            bound: self.histogram.bind(&key.attributes()),
        });
        table.insert_unique(hash, series.clone(), |s| s.view().hash());
        Some(series)
    }

    /// Record `seconds` with `attributes`, on no bound series.
    pub fn record_unbound(&self, seconds: f64, attributes: &[KeyValue]) {
        self.histogram.record(seconds, attributes);
    }

    /// Record `seconds` on the series of `key`, bound or not.
    pub fn record(&self, key: SeriesRef<'_>, seconds: f64) {
        match self.series(key) {
            Some(series) => series.record(seconds),
            None => self.histogram.record(seconds, &key.attributes()),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        crate::sync::read(&self.table).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(tool: &'a str, error: Option<ErrorType>) -> SeriesRef<'a> {
        SeriesRef {
            method: "tools/call",
            version: ProtocolVersion::V2025_11_25,
            transport: Transport::Pipe,
            target: Some((Target::Tool, tool)),
            error,
        }
    }

    fn table() -> SeriesTable {
        let meter = opentelemetry::global::meter("series-test");
        SeriesTable::new(meter.f64_histogram("t").build())
    }

    #[test]
    fn a_series_is_bound_once_and_found_again_by_its_borrowed_fields() {
        let t = table();
        let a = t.series(key("add", None)).unwrap();
        let again = t.series(key(&String::from("add"), None)).unwrap();
        assert!(Arc::ptr_eq(&a, &again));
        let failed = t.series(key("add", Some(ErrorType::Code(-32602)))).unwrap();
        assert!(!Arc::ptr_eq(&a, &failed), "the error type makes another series");
        let tool_error = t.series(a.failed(ErrorType::Tool)).unwrap();
        assert!(!Arc::ptr_eq(&failed, &tool_error));
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn the_last_series_a_thread_found_is_never_another_tables_or_another_keys() {
        let (t, u) = (table(), table());
        let a = t.series(key("add", None)).unwrap();
        let b = u.series(key("add", None)).unwrap();
        assert!(!Arc::ptr_eq(&a, &b), "each table binds its own");
        assert!(Arc::ptr_eq(&t.series(key("add", None)).unwrap(), &a));
        assert!(Arc::ptr_eq(&u.series(key("add", None)).unwrap(), &b));
        let other = t.series(key("sub", None)).unwrap();
        assert!(!Arc::ptr_eq(&other, &a));
        assert!(Arc::ptr_eq(&t.series(key("add", None)).unwrap(), &a), "found again after another key");
        assert_eq!((t.len(), u.len()), (2, 1));
    }

    #[test]
    fn same_text_is_string_equality_at_every_length() {
        let texts = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "add",
            "sub",
            "adx",
            "addx",
            "addy",
            "abcdefg",
            "abcdefh",
            "xbcdefg",
            "tools/call",
            "tools/list",
            "prompts/get",
            "0123456789abcdef",
        ];
        let long = ["0123456789abcdefg", "0123456789abcdefh", "resources/templates/list", "resources/templates/lisT"];
        for a in texts.iter().chain(&long) {
            for b in texts.iter().chain(&long) {
                assert_eq!(same_text(a, b), a == b, "{a:?} {b:?}");
            }
        }
        // A difference in the middle of a 9-16 byte name, which the two words still cover.
        assert!(!same_text("tools/cXll", "tools/call"));
        assert!(!same_text("0123456789abcdef", "0123456x89abcdef"));
    }

    #[test]
    fn past_the_bound_a_request_records_unbound() {
        let t = table();
        for i in 0..MAX_SERIES {
            assert!(t.series(key(&format!("tool-{i}"), None)).is_some());
        }
        assert!(t.series(key("one-more", None)).is_none());
        t.record(key("one-more", None), 0.001);
        assert_eq!(t.len(), MAX_SERIES);
    }

    #[test]
    fn the_attributes_are_the_ones_the_histogram_had() {
        let names = |attrs: &[KeyValue]| attrs.iter().map(|kv| kv.key.as_str().to_owned()).collect::<Vec<_>>();
        let attrs = key("add", Some(ErrorType::Tool)).attributes();
        assert_eq!(
            names(&attrs),
            [
                "mcp.method.name",
                "mcp.protocol.version",
                "network.transport",
                "gen_ai.tool.name",
                "gen_ai.operation.name",
                "error.type"
            ]
        );
        assert_eq!(attrs[4].value.as_str(), "execute_tool");
        assert_eq!(attrs[5].value.as_str(), "tool_error");
    }

    #[test]
    fn a_caller_error_has_a_status_code_and_no_error_type_a_server_error_both() {
        let value = |attrs: &[KeyValue], name: &str| {
            attrs.iter().find(|kv| kv.key.as_str() == name).map(|kv| kv.value.as_str().into_owned())
        };
        for code in [-32700, -32600, -32601, -32602, -32002] {
            let attrs = key("add", Some(ErrorType::Code(code))).attributes();
            assert_eq!(value(&attrs, "error.type"), None, "{code}");
            assert_eq!(value(&attrs, "rpc.response.status_code"), Some(code.to_string()));
        }
        for code in [-32603, -32000, -32042, 7] {
            let attrs = key("add", Some(ErrorType::Code(code))).attributes();
            assert_eq!(value(&attrs, "error.type"), Some(code.to_string()), "{code}");
            assert_eq!(value(&attrs, "rpc.response.status_code"), Some(code.to_string()));
        }
    }

    #[test]
    fn over_http_the_series_names_the_protocol_and_its_version() {
        let attrs =
            SeriesRef { transport: Transport::of_http(http::Version::HTTP_11), ..key("add", None) }.attributes();
        let pairs: Vec<(String, String)> =
            attrs.iter().map(|kv| (kv.key.as_str().to_owned(), kv.value.as_str().into_owned())).collect();
        for want in
            [("network.transport", "tcp"), ("network.protocol.name", "http"), ("network.protocol.version", "1.1")]
        {
            assert!(pairs.contains(&(want.0.to_owned(), want.1.to_owned())), "{want:?} in {pairs:?}");
        }
        let h2 = SeriesRef { transport: Transport::of_http(http::Version::HTTP_2), ..key("add", None) };
        let h1 = SeriesRef { transport: Transport::of_http(http::Version::HTTP_11), ..key("add", None) };
        let t = table();
        assert!(!Arc::ptr_eq(&t.series(h1).unwrap(), &t.series(h2).unwrap()), "each version is its own series");
    }
}
