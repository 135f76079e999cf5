//! One load phase: keeps exactly K `tools/call` requests in flight on one connection, checks
//! every response and records its latency.
//!
//! The loop runs on one thread and never blocks on writing while a response could be read:
//! the server's stdin is non-blocking, and the loop blocks only
//! - in `read(2)` on the server's stdout when every request it may send is already written, or
//! - in `poll(2)` on both pipes while part of a batch still waits for room in the stdin pipe.
//!
//! Each pass writes one batch (all the requests the free window allows) with one `write(2)`,
//! then reads whatever the server has sent with one `read(2)` and answers every complete line.
//! With K = 1 this is a plain write/read ping-pong; a reader and a writer thread would add a
//! cross-thread wake-up to every call, which on this 2-core machine costs more than the
//! hand-written server's own work per call.

use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::process::{ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::args::{Plan, Protocol};
use crate::server::{self, Incoming, LineReader, ENVELOPE};
use crate::Error;

/// Error messages kept for the report; the rest are only counted.
const KEPT_ERRORS: usize = 5;

/// The outcome of one phase.
#[derive(Debug, Default)]
pub struct PhaseReport {
    /// Answered calls.
    pub calls: u64,
    /// Answered calls whose answer was wrong (a JSON-RPC error, `isError`, or a wrong sum).
    pub errors: u64,
    /// The first few error descriptions.
    pub error_samples: Vec<String>,
    /// Per-call latency, from just before its request is written to the read that returned its
    /// response.
    pub latencies: Vec<Duration>,
    /// From the first write to the last response.
    pub elapsed: Duration,
    /// Bytes of all request lines written, newlines included.
    pub request_bytes: u64,
    /// Bytes of all response lines read (answers to calls only), newlines included.
    pub response_bytes: u64,
}

/// The operands of the call with JSON-RPC id `id`, so that every response can be checked.
pub fn operands(id: u64) -> (i64, i64) {
    // Both stay below one million, so the casts are lossless.
    ((id % 1_000_000) as i64, (id % 997) as i64)
}

/// Runs one phase on an opened connection (after `initialize` or `server/discover`). Request
/// ids are `first_id`, `first_id + 1`, ... With 2026-07-28 every request carries the envelope
/// and every result must say `"resultType":"complete"`.
pub fn run(
    protocol: Protocol,
    stdin: &mut ChildStdin,
    stdout: &mut LineReader<ChildStdout>,
    first_id: u64,
    plan: Plan,
    inflight: u64,
    progress: &AtomicU64,
) -> Result<PhaseReport, Error> {
    server::set_nonblocking(stdin)?;
    let mut report = PhaseReport::default();
    if let Plan::Calls(total) = plan {
        report.latencies.reserve(usize::try_from(total).unwrap_or(0));
    }
    let mut ledger = Ledger::default();
    let mut out = Vec::with_capacity(64 * 1024);
    let mut written = 0;
    let mut free = inflight;
    let mut issuing = true;
    let mut warned_about_requests = false;
    let start = Instant::now();

    loop {
        if issuing {
            let remaining = match plan {
                Plan::Calls(total) => total - ledger.sent(),
                Plan::Duration(limit) if start.elapsed() >= limit => 0,
                Plan::Duration(_) => u64::MAX,
            };
            issuing = remaining > 0;
            let count = free.min(remaining);
            if count > 0 {
                let first = ledger.sent();
                let before = out.len();
                for index in first..first + count {
                    write_request(&mut out, protocol, first_id + index)?;
                }
                report.request_bytes += (out.len() - before) as u64;
                ledger.record_sent(count, Instant::now());
                free -= count;
            }
        }
        if written < out.len() {
            written += write_some(stdin, &out[written..])?;
            if written == out.len() {
                out.clear();
                written = 0;
            }
        }
        if !issuing && ledger.all_answered() {
            break;
        }

        // Wait for responses; also for room in the pipe if part of the batch is still unwritten.
        if written < out.len() && !wait_readable_or_writable(stdout.get_ref(), stdin)? {
            continue; // writable, not readable: write more first
        }
        if stdout.fill()? == 0 {
            return Err(Error::new(format!("the server closed stdout with {} calls unanswered", ledger.outstanding())));
        }
        let received = Instant::now();
        progress.fetch_add(1, Ordering::Relaxed);

        while let Some(line) = stdout.next_line() {
            let text = line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let message: Incoming<'_> = serde_json::from_slice(text).map_err(|e| {
                Error::new(format!("unparsable line from the server ({e}): {}", String::from_utf8_lossy(text)))
            })?;
            if message.method.is_some() {
                // Notifications are ignored. Requests from the server are not expected here and
                // are left unanswered; say so once.
                if message.id.is_some() && !warned_about_requests {
                    warned_about_requests = true;
                    eprintln!("loadgen: ignoring a request from the server: {}", String::from_utf8_lossy(text));
                }
                continue;
            }
            let id = message.id.as_ref().and_then(serde_json::Value::as_u64).ok_or_else(|| {
                Error::new(format!("response without a usable id: {}", String::from_utf8_lossy(text)))
            })?;
            let sent_at = id
                .checked_sub(first_id)
                .and_then(|index| ledger.answer(index))
                .ok_or_else(|| Error::new(format!("response for id {id}, which is not outstanding")))?;

            report.calls += 1;
            report.response_bytes += line.len() as u64 + 1;
            report.latencies.push(received.saturating_duration_since(sent_at));
            free += 1;
            if let Err(problem) = check(protocol, id, &message) {
                report.errors += 1;
                if report.error_samples.len() < KEPT_ERRORS {
                    report.error_samples.push(format!("id {id}: {problem}"));
                }
            }
        }
    }
    report.elapsed = start.elapsed();
    if stdout.has_partial_line() {
        eprintln!("loadgen: the server sent an incomplete line after the last response");
    }
    Ok(report)
}

/// Writes the request line of call `id`: a preformatted template with the id and the operands
/// filled in; for 2026-07-28 the constant [`ENVELOPE`] follows the arguments as `params._meta`.
fn write_request(out: &mut impl Write, protocol: Protocol, id: u64) -> io::Result<()> {
    let (a, b) = operands(id);
    match protocol {
        Protocol::V2025_11_25 => writeln!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}}}}}}"#
        ),
        Protocol::V2026_07_28 => writeln!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}},"_meta":{ENVELOPE}}}}}"#
        ),
    }
}

/// Writes as much of `bytes` as the pipe takes without blocking.
fn write_some(stdin: &mut ChildStdin, bytes: &[u8]) -> Result<usize, Error> {
    loop {
        match stdin.write(bytes) {
            Ok(0) => return Err(Error::new("the server's stdin accepts no more data")),
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::new(format!("writing to the server failed: {e}"))),
        }
    }
}

/// Blocks until the server's stdout has data (or was closed) or its stdin has room. Returns
/// whether stdout is readable.
fn wait_readable_or_writable(stdout: &ChildStdout, stdin: &ChildStdin) -> Result<bool, Error> {
    let mut fds = [
        libc::pollfd { fd: stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: stdin.as_raw_fd(), events: libc::POLLOUT, revents: 0 },
    ];
    loop {
        // SAFETY: `fds` is a valid array of two pollfd for the duration of the call, and both
        // descriptors are owned by handles borrowed for that long.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if ready >= 0 {
            // POLLHUP or POLLERR on stdout: the read that follows reports end of stream.
            let readable = fds[0].revents != 0;
            // On stdin, POLLERR means the server closed its end; the next write reports EPIPE.
            return Ok(readable);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(Error::new(format!("poll failed: {e}")));
        }
    }
}

/// When each request was sent, and which are answered. Indices count from the phase's first id.
#[derive(Default)]
struct Ledger {
    sent_at: Vec<Instant>,
    answered: Vec<bool>,
    answered_count: u64,
}

impl Ledger {
    fn sent(&self) -> u64 {
        self.sent_at.len() as u64
    }

    fn outstanding(&self) -> u64 {
        self.sent() - self.answered_count
    }

    fn all_answered(&self) -> bool {
        self.answered_count == self.sent()
    }

    fn record_sent(&mut self, count: u64, at: Instant) {
        for _ in 0..count {
            self.sent_at.push(at);
            self.answered.push(false);
        }
    }

    /// Marks request `index` answered and returns its send time, or `None` when it was never
    /// sent or is already answered.
    fn answer(&mut self, index: u64) -> Option<Instant> {
        let slot = usize::try_from(index).ok()?;
        let answered = self.answered.get_mut(slot)?;
        if std::mem::replace(answered, true) {
            return None;
        }
        self.answered_count += 1;
        Some(self.sent_at[slot])
    }
}

#[derive(Deserialize)]
struct ToolResult<'a> {
    #[serde(rename = "resultType", borrow, default)]
    result_type: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    content: Vec<Content<'a>>,
    #[serde(rename = "structuredContent", default)]
    structured_content: Option<StructuredSum>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<std::borrow::Cow<'a, str>>,
}

#[derive(Deserialize)]
struct StructuredSum {
    sum: Option<i64>,
}

/// Checks that the response to call `id` is the right sum: a text block holding exactly the sum
/// and, when present, structured content `{"sum": <sum>}`. On 2026-07-28 the result must also
/// say `"resultType":"complete"`.
fn check(protocol: Protocol, id: u64, message: &Incoming<'_>) -> Result<(), String> {
    if let Some(error) = message.error {
        return Err(format!("JSON-RPC error {}", error.get()));
    }
    let result = message.result.ok_or("a response with neither result nor error")?;
    let result: ToolResult<'_> =
        serde_json::from_str(result.get()).map_err(|e| format!("not a CallToolResult ({e}): {}", result.get()))?;
    if result.is_error == Some(true) {
        return Err("the tool reported isError".into());
    }
    if protocol == Protocol::V2026_07_28 && result.result_type.as_deref() != Some("complete") {
        return Err(format!("resultType {:?}, expected \"complete\"", result.result_type));
    }
    let (a, b) = operands(id);
    let expected = a + b;
    let text = result
        .content
        .iter()
        .find(|block| block.kind == "text")
        .and_then(|block| block.text.as_deref())
        .ok_or("no text content")?;
    if text != expected.to_string() {
        return Err(format!("text {text:?}, expected \"{expected}\""));
    }
    if let Some(structured) = &result.structured_content {
        if structured.sum != Some(expected) {
            return Err(format!("structuredContent.sum {:?}, expected {expected}", structured.sum));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_line(id: u64, line: &str) -> Result<(), String> {
        check_line_at(Protocol::V2025_11_25, id, line)
    }

    fn check_line_at(protocol: Protocol, id: u64, line: &str) -> Result<(), String> {
        let message: Incoming<'_> = serde_json::from_str(line).expect("valid JSON");
        check(protocol, id, &message)
    }

    fn request_line(protocol: Protocol, id: u64) -> Vec<u8> {
        let mut out = Vec::new();
        write_request(&mut out, protocol, id).expect("writing to a Vec cannot fail");
        out
    }

    #[test]
    fn request_lines_carry_their_operands() {
        let out = request_line(Protocol::V2025_11_25, 1_000);
        let value: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        assert_eq!(value["params"]["arguments"]["a"], 1_000);
        assert_eq!(value["params"]["arguments"]["b"], 3);
        assert!(value["params"].get("_meta").is_none());
        assert!(out.ends_with(b"}\n"));
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    #[test]
    fn modern_request_lines_carry_the_envelope() {
        let out = request_line(Protocol::V2026_07_28, 1_000);
        assert!(out.ends_with(b"}\n"));
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1, "one line");
        let value: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        assert_eq!(value["jsonrpc"], "2.0");
        assert_eq!(value["id"], 1_000);
        assert_eq!(value["method"], "tools/call");
        assert_eq!(value["params"]["name"], "add");
        assert_eq!(value["params"]["arguments"], serde_json::json!({"a": 1_000, "b": 3}));
        let meta = &value["params"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], serde_json::json!({}));
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "ferrite-bench-loadgen");
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(meta.as_object().map(|m| m.len()), Some(3), "nothing else in the envelope");
        // The envelope is the only difference: a constant number of bytes per request.
        let legacy = request_line(Protocol::V2025_11_25, 1_000);
        assert_eq!(out.len() - legacy.len(), ",\"_meta\":".len() + ENVELOPE.len());
        assert_eq!(
            request_line(Protocol::V2026_07_28, 7).len() - request_line(Protocol::V2025_11_25, 7).len(),
            out.len() - legacy.len()
        );
    }

    #[test]
    fn modern_results_must_be_complete() {
        let complete = r#"{"id":1000,"result":{"resultType":"complete","content":[{"type":"text","text":"1003"}],"structuredContent":{"sum":1003},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
        assert_eq!(check_line_at(Protocol::V2026_07_28, 1_000, complete), Ok(()));
        let untyped = r#"{"id":1000,"result":{"content":[{"type":"text","text":"1003"}]}}"#;
        assert!(check_line_at(Protocol::V2026_07_28, 1_000, untyped).is_err());
        assert_eq!(check_line_at(Protocol::V2025_11_25, 1_000, untyped), Ok(()));
        let input_required =
            r#"{"id":1000,"result":{"resultType":"input_required","content":[{"type":"text","text":"1003"}]}}"#;
        assert!(check_line_at(Protocol::V2026_07_28, 1_000, input_required).is_err());
        let wrong_sum = r#"{"id":1000,"result":{"resultType":"complete","content":[{"type":"text","text":"1"}]}}"#;
        assert!(check_line_at(Protocol::V2026_07_28, 1_000, wrong_sum).is_err());
    }

    #[test]
    fn checks_the_sum() {
        let good = r#"{"jsonrpc":"2.0","id":1000,"result":{"content":[{"type":"text","text":"1003"}],"structuredContent":{"sum":1003}}}"#;
        assert_eq!(check_line(1_000, good), Ok(()));
        let text_only = r#"{"id":1000,"result":{"content":[{"type":"text","text":"1003"}]}}"#;
        assert_eq!(check_line(1_000, text_only), Ok(()));
        let wrong = r#"{"id":1000,"result":{"content":[{"type":"text","text":"1004"}]}}"#;
        assert!(check_line(1_000, wrong).is_err());
        let bad_structured =
            r#"{"id":1000,"result":{"content":[{"type":"text","text":"1003"}],"structuredContent":{"sum":1}}}"#;
        assert!(check_line(1_000, bad_structured).is_err());
        let error = r#"{"id":1000,"error":{"code":-32602,"message":"no"}}"#;
        assert!(check_line(1_000, error).is_err());
        let is_error = r#"{"id":1000,"result":{"content":[{"type":"text","text":"1003"}],"isError":true}}"#;
        assert!(check_line(1_000, is_error).is_err());
    }

    #[test]
    fn ledger_rejects_unknown_and_duplicate_answers() {
        let mut ledger = Ledger::default();
        let at = Instant::now();
        ledger.record_sent(2, at);
        assert_eq!(ledger.answer(1), Some(at));
        assert_eq!(ledger.answer(1), None);
        assert_eq!(ledger.answer(5), None);
        assert_eq!(ledger.outstanding(), 1);
        assert!(!ledger.all_answered());
    }
}
