//! One load phase: a writer thread keeps exactly K `tools/call` requests in flight while the
//! reader (the calling thread) checks every response and records its latency.
//!
//! The two sides talk through two channels:
//! - writer → reader: [`Event::Sent`] for every flushed batch of requests, sent *before* the batch
//!   is written, so the reader always knows a request's send time by the time its response
//!   arrives; and a final [`Event::Finished`] with the number of requests written;
//! - reader → writer: credits, one per answered request, handed over whenever the reader has
//!   drained every response already buffered (that is, just before it would block on the pipe).
//!
//! The writer spends all the credits it holds in one batch and one `write(2)`, so the number of
//! requests in flight (written, not yet answered) never exceeds K and returns to K as soon as the
//! client has seen the answers.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::{ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::args::Plan;
use crate::server::Incoming;
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
    /// Per-call latency, from the flush of its request to the read of its response.
    pub latencies: Vec<Duration>,
    /// From the first write to the last response.
    pub elapsed: Duration,
}

enum Event {
    /// Requests with indices `first..first + count` were flushed at `at`.
    Sent { first: u64, count: u64, at: Instant },
    /// The writer is done after `total` requests.
    Finished { total: u64 },
}

/// The operands of the call with JSON-RPC id `id`, so that every response can be checked.
pub fn operands(id: u64) -> (i64, i64) {
    // Both stay below one million, so the casts are lossless.
    ((id % 1_000_000) as i64, (id % 997) as i64)
}

/// Runs one phase on an initialized connection. Request ids are `first_id`, `first_id + 1`, ...
pub fn run(
    stdin: &mut ChildStdin,
    stdout: &mut BufReader<ChildStdout>,
    first_id: u64,
    plan: Plan,
    inflight: u64,
    progress: &AtomicU64,
) -> Result<PhaseReport, Error> {
    let (event_tx, event_rx) = mpsc::channel();
    let (credit_tx, credit_rx) = mpsc::channel();
    let start = Instant::now();
    thread::scope(|scope| {
        let writer = thread::Builder::new()
            .name("loadgen-writer".into())
            .spawn_scoped(scope, move || {
                write_requests(stdin, first_id, plan, inflight, start, event_tx, credit_rx)
            })
            .map_err(|e| Error::new(format!("cannot start the writer thread: {e}")))?;
        let read = read_responses(stdout, first_id, &event_rx, credit_tx, progress, plan);
        // A failing reader drops its credit sender, which stops the writer.
        let written = writer
            .join()
            .map_err(|_| Error::new("the writer thread panicked"))?;
        let mut report = read?;
        written.map_err(|e| Error::new(format!("writing to the server failed: {e}")))?;
        report.elapsed = start.elapsed();
        Ok(report)
    })
}

/// The writer thread: spends credits on batches of requests until the plan is done.
fn write_requests(
    stdin: &mut ChildStdin,
    first_id: u64,
    plan: Plan,
    inflight: u64,
    start: Instant,
    events: Sender<Event>,
    credits: Receiver<u64>,
) -> io::Result<u64> {
    let mut out = BufWriter::with_capacity(64 * 1024, stdin);
    let mut available = inflight;
    let mut next = 0u64;
    let result = loop {
        let remaining = match plan {
            Plan::Calls(total) => total - next,
            Plan::Duration(limit) if start.elapsed() >= limit => 0,
            Plan::Duration(_) => u64::MAX,
        };
        if remaining == 0 {
            break Ok(());
        }
        if available == 0 {
            match credits.recv() {
                Ok(n) => available += n,
                Err(_) => break Ok(()), // the reader stopped; it reports why
            }
        }
        available += credits.try_iter().sum::<u64>();
        let count = available.min(remaining);
        for index in next..next + count {
            write_request(&mut out, first_id + index)?;
        }
        let sent = Event::Sent {
            first: next,
            count,
            at: Instant::now(),
        };
        if events.send(sent).is_err() {
            break Ok(());
        }
        if let Err(e) = out.flush() {
            break Err(e);
        }
        next += count;
        available -= count;
    };
    // Tell the reader how many answers to expect even when writing failed, so it can stop.
    let _ = events.send(Event::Finished { total: next });
    result.map(|()| next)
}

fn write_request(out: &mut impl Write, id: u64) -> io::Result<()> {
    let (a, b) = operands(id);
    writeln!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}}}}}}"#
    )
}

/// The reader: matches every response to its request, checks it, and returns credits.
fn read_responses(
    stdout: &mut BufReader<ChildStdout>,
    first_id: u64,
    events: &Receiver<Event>,
    credits: Sender<u64>,
    progress: &AtomicU64,
    plan: Plan,
) -> Result<PhaseReport, Error> {
    let mut report = PhaseReport::default();
    if let Plan::Calls(total) = plan {
        report.latencies.reserve(usize::try_from(total).unwrap_or(0));
    }
    let mut ledger = Ledger::default();
    let mut pending_credits = 0u64;
    let mut line = Vec::with_capacity(4096);
    let mut warned_about_requests = false;

    loop {
        if pending_credits > 0 && (ledger.all_answered() || stdout.buffer().is_empty()) {
            // About to block, on the pipe or on the writer: let the writer refill the window.
            if credits.send(pending_credits).is_ok() {
                pending_credits = 0;
            }
        }
        if ledger.all_answered() {
            match ledger.total {
                Some(_) => break,
                // Everything sent so far is answered: wait for the writer's next batch or its end.
                None => match events.recv() {
                    Ok(event) => {
                        ledger.apply(event);
                        continue;
                    }
                    Err(_) => return Err(Error::new("the writer stopped without finishing")),
                },
            }
        }
        line.clear();
        if stdout.read_until(b'\n', &mut line)? == 0 {
            return Err(Error::new(format!(
                "the server closed stdout with {} calls unanswered",
                ledger.outstanding()
            )));
        }
        let received = Instant::now();
        progress.fetch_add(1, Ordering::Relaxed);
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let message: Incoming<'_> = serde_json::from_slice(text).map_err(|e| {
            Error::new(format!(
                "unparsable line from the server ({e}): {}",
                String::from_utf8_lossy(text)
            ))
        })?;
        if message.method.is_some() {
            // Notifications are ignored. Requests from the server are not expected here and are
            // left unanswered; say so once.
            if message.id.is_some() && !warned_about_requests {
                warned_about_requests = true;
                eprintln!(
                    "loadgen: ignoring a request from the server: {}",
                    String::from_utf8_lossy(text)
                );
            }
            continue;
        }
        let id = message
            .id
            .as_ref()
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| {
                Error::new(format!(
                    "response without a usable id: {}",
                    String::from_utf8_lossy(text)
                ))
            })?;
        let index = id
            .checked_sub(first_id)
            .ok_or_else(|| Error::new(format!("response for an id never sent: {id}")))?;
        let sent_at = ledger.answer(index, events)?;

        report.calls += 1;
        report.latencies.push(received.saturating_duration_since(sent_at));
        pending_credits += 1;
        if let Err(problem) = check(id, &message) {
            report.errors += 1;
            if report.error_samples.len() < KEPT_ERRORS {
                report.error_samples.push(format!("id {id}: {problem}"));
            }
        }
    }
    Ok(report)
}

/// Which requests were sent, when, and which are answered.
#[derive(Default)]
struct Ledger {
    sent_at: Vec<Instant>,
    answered: Vec<bool>,
    answered_count: u64,
    total: Option<u64>,
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

    fn apply(&mut self, event: Event) {
        match event {
            Event::Sent { first, count, at } => {
                debug_assert_eq!(first, self.sent());
                for _ in 0..count {
                    self.sent_at.push(at);
                    self.answered.push(false);
                }
            }
            Event::Finished { total } => self.total = Some(total),
        }
    }

    /// Marks request `index` answered and returns its send time. A request's `Sent` event
    /// precedes its bytes on the pipe, so an index not yet known is waited for; one that never
    /// comes was never sent.
    fn answer(&mut self, index: u64, events: &Receiver<Event>) -> Result<Instant, Error> {
        while index >= self.sent() && self.total.is_none() {
            match events.recv() {
                Ok(event) => self.apply(event),
                Err(_) => break,
            }
        }
        let slot = usize::try_from(index).ok().filter(|&i| i < self.sent_at.len());
        let Some(slot) = slot else {
            return Err(Error::new(format!("response for request #{index}, which was never sent")));
        };
        if std::mem::replace(&mut self.answered[slot], true) {
            return Err(Error::new(format!("a second response for request #{index}")));
        }
        self.answered_count += 1;
        Ok(self.sent_at[slot])
    }
}

#[derive(Deserialize)]
struct ToolResult<'a> {
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
/// and, when present, structured content `{"sum": <sum>}`.
fn check(id: u64, message: &Incoming<'_>) -> Result<(), String> {
    if let Some(error) = message.error {
        return Err(format!("JSON-RPC error {}", error.get()));
    }
    let result = message.result.ok_or("a response with neither result nor error")?;
    let result: ToolResult<'_> = serde_json::from_str(result.get())
        .map_err(|e| format!("not a CallToolResult ({e}): {}", result.get()))?;
    if result.is_error == Some(true) {
        return Err("the tool reported isError".into());
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
        let message: Incoming<'_> = serde_json::from_str(line).expect("valid JSON");
        check(id, &message)
    }

    #[test]
    fn request_lines_carry_their_operands() {
        let mut out = Vec::new();
        write_request(&mut out, 1_000).expect("writing to a Vec cannot fail");
        let value: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        assert_eq!(value["params"]["arguments"]["a"], 1_000);
        assert_eq!(value["params"]["arguments"]["b"], 3);
        assert!(out.ends_with(b"}\n"));
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
        let (tx, rx) = mpsc::channel();
        let mut ledger = Ledger::default();
        let at = Instant::now();
        tx.send(Event::Sent { first: 0, count: 2, at }).expect("receiver alive");
        tx.send(Event::Finished { total: 2 }).expect("receiver alive");
        assert_eq!(ledger.answer(1, &rx).ok(), Some(at));
        assert!(ledger.answer(1, &rx).is_err());
        assert!(ledger.answer(5, &rx).is_err());
        assert_eq!(ledger.outstanding(), 1);
    }
}
