//! The server under test: spawning it, the MCP handshake, its CPU time, the idle watchdog and
//! shutdown.

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::args::{Args, Protocol};
use crate::Error;

/// The protocol version the load generator asks for in `initialize` (2025-11-25 runs).
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The per-request revision of 2026-07-28 runs.
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";
/// The id of the opening request (`initialize` or `server/discover`); `tools/call` ids start
/// after it.
const OPENING_ID: u64 = 0;
/// The `clientInfo` name sent in `initialize` and in the envelope.
const CLIENT_NAME: &str = "ferrite-bench-loadgen";

/// The `params._meta` value of every 2026-07-28 request: the protocol version, no client
/// capabilities, and the client's identity (optional in the spec, but real clients send it).
/// One constant string, so that a modern request costs the load generator no more work than a
/// handshake-era one besides copying these bytes.
pub const ENVELOPE: &str = concat!(
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"ferrite-bench-loadgen","version":""#,
    env!("CARGO_PKG_VERSION"),
    r#""}}"#,
);

/// A running server and the two pipes to it.
///
/// The server runs in a process group of its own, so that killing it also kills any helper
/// process it started (a shell, a launcher) that might otherwise keep the pipes open.
pub struct Server {
    child: Child,
    /// `None` once [`Server::shutdown`] has closed it.
    stdin: Option<ChildStdin>,
    stdout: LineReader<ChildStdout>,
}

/// What the server said about itself in its `initialize` result (or, for 2026-07-28, in its
/// `server/discover` result).
#[derive(Debug, Default, Deserialize)]
pub struct ServerIdentity {
    #[serde(rename = "protocolVersion", default)]
    pub protocol_version: String,
    #[serde(rename = "serverInfo", default)]
    pub server_info: Option<ServerInfo>,
    /// `supportedVersions` of a `DiscoverResult`; empty after `initialize`.
    #[serde(skip)]
    pub supported_versions: Vec<String>,
}

/// The parts of a `DiscoverResult` the load generator checks.
#[derive(Deserialize)]
struct DiscoverResult {
    #[serde(rename = "resultType", default)]
    result_type: Option<String>,
    #[serde(rename = "supportedVersions", default)]
    supported_versions: Option<Vec<String>>,
    #[serde(rename = "_meta", default)]
    meta: Option<DiscoverMeta>,
}

#[derive(Deserialize)]
struct DiscoverMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default)]
    server_info: Option<ServerInfo>,
}

/// The `server/discover` request line (without its newline).
pub fn discover_line() -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{OPENING_ID},"method":"server/discover","params":{{"_meta":{ENVELOPE}}}}}"#)
}

/// Checks a `DiscoverResult` and returns the identity it gives: `serverInfo` from its `_meta`,
/// the protocol version of the run, and the versions the server lists.
pub fn parse_discover_result(result: &str) -> Result<ServerIdentity, Error> {
    let discover: DiscoverResult = serde_json::from_str(result)
        .map_err(|e| Error::new(format!("server/discover: not a DiscoverResult ({e}): {result}")))?;
    if discover.result_type.as_deref() != Some("complete") {
        return Err(Error::new(format!(
            "server/discover: resultType is {:?}, expected \"complete\": {result}",
            discover.result_type
        )));
    }
    let supported = discover
        .supported_versions
        .ok_or_else(|| Error::new(format!("server/discover: the result has no supportedVersions: {result}")))?;
    if !supported.iter().any(|v| v == MODERN_PROTOCOL_VERSION) {
        return Err(Error::new(format!(
            "server/discover: the server does not serve {MODERN_PROTOCOL_VERSION} (supportedVersions {supported:?})"
        )));
    }
    let server_info = discover.meta.and_then(|meta| meta.server_info);
    if server_info.is_none() {
        eprintln!("loadgen: the server/discover result has no _meta[\"io.modelcontextprotocol/serverInfo\"]");
    }
    Ok(ServerIdentity {
        protocol_version: MODERN_PROTOCOL_VERSION.to_owned(),
        server_info,
        supported_versions: supported,
    })
}

#[derive(Debug, Default, Deserialize)]
pub struct ServerInfo {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
}

/// Any message from the server, decoded only as far as routing needs.
#[derive(Deserialize)]
pub struct Incoming<'a> {
    #[serde(default)]
    pub id: Option<serde_json::Value>,
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

impl Server {
    pub fn spawn(args: &Args) -> Result<Self, Error> {
        let (program, rest) = args.command.split_first().ok_or_else(|| Error::new("empty server command"))?;
        let mut child = Command::new(program)
            .args(rest)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if args.quiet_server { Stdio::null() } else { Stdio::inherit() })
            .spawn()
            .map_err(|e| Error::new(format!("cannot start {program:?}: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            // Unreachable with Stdio::piped(), but never leave a child behind.
            kill_group(child.id());
            let _ = child.wait();
            return Err(Error::new("the server's pipes were not created"));
        };
        Ok(Self { child, stdin: Some(stdin), stdout: LineReader::new(stdout) })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Both pipes: the server's stdin (open until [`Server::shutdown`]) and its stdout.
    pub fn pipes(&mut self) -> Result<(&mut ChildStdin, &mut LineReader<ChildStdout>), Error> {
        let stdin = self.stdin.as_mut().ok_or_else(|| Error::new("the server's stdin is already closed"))?;
        Ok((stdin, &mut self.stdout))
    }

    /// Opens the conversation the way `protocol` does: the `initialize` handshake for
    /// 2025-11-25, one `server/discover` for 2026-07-28.
    pub fn open(&mut self, protocol: Protocol, progress: &AtomicU64) -> Result<ServerIdentity, Error> {
        match protocol {
            Protocol::V2025_11_25 => self.handshake(progress),
            Protocol::V2026_07_28 => self.discover(progress),
        }
    }

    /// Sends `initialize`, waits for its result, then sends `notifications/initialized`.
    pub fn handshake(&mut self, progress: &AtomicU64) -> Result<ServerIdentity, Error> {
        let initialize = serde_json::json!({
            "jsonrpc": "2.0",
            "id": OPENING_ID,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")},
            },
        });
        send_line(self.pipes()?.0, initialize.to_string().as_bytes())?;
        let result = self.await_opening_answer("initialize", progress)?;
        let identity = serde_json::from_str::<ServerIdentity>(&result)
            .map_err(|e| Error::new(format!("bad initialize result ({e}): {result}")))?;

        let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        send_line(self.pipes()?.0, initialized.to_string().as_bytes())?;
        Ok(identity)
    }

    /// Sends one enveloped `server/discover` (2026-07-28) and reads the server's identity from
    /// its result's `_meta["io.modelcontextprotocol/serverInfo"]`. Fails when the server answers
    /// with an error, or with a result that is not a complete `DiscoverResult` listing
    /// 2026-07-28: such a server does not serve the revision, and the run would measure errors.
    pub fn discover(&mut self, progress: &AtomicU64) -> Result<ServerIdentity, Error> {
        send_line(self.pipes()?.0, discover_line().as_bytes())?;
        let result = self.await_opening_answer("server/discover", progress)?;
        parse_discover_result(&result)
    }

    /// Reads until the answer to the opening request (id [`OPENING_ID`]) arrives and returns its
    /// raw `result`. Notifications and server requests before it are skipped.
    fn await_opening_answer(&mut self, what: &str, progress: &AtomicU64) -> Result<String, Error> {
        loop {
            let Some(line) = self.stdout.next_line() else {
                if self.stdout.fill()? == 0 {
                    return Err(Error::new(format!("the server closed stdout during {what}")));
                }
                progress.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            let text = line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let message: Incoming<'_> = serde_json::from_slice(text).map_err(|e| {
                Error::new(format!("unparsable line during {what} ({e}): {}", String::from_utf8_lossy(text)))
            })?;
            let id = message.id.as_ref().and_then(serde_json::Value::as_u64);
            if message.method.is_some() || id != Some(OPENING_ID) {
                continue; // a notification or a server request: not the answer we wait for
            }
            if let Some(error) = message.error {
                return Err(Error::new(format!("{what} failed: {}", error.get())));
            }
            let result = message.result.ok_or_else(|| Error::new(format!("the {what} response has no result")))?;
            return Ok(result.get().to_owned());
        }
    }

    /// Closes the server's stdin and waits for it to exit, killing it after `grace`.
    /// Returns the exit status and whether the server had to be killed.
    pub fn shutdown(mut self, grace: Duration) -> Result<(ExitStatus, bool), Error> {
        drop(self.stdin.take());
        let deadline = Instant::now() + grace;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok((status, false));
            }
            if Instant::now() >= deadline {
                kill_group(self.child.id());
                return Ok((self.child.wait()?, true));
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // On every early return, leave no server running. After shutdown() both calls are no-ops.
        if let Ok(None) = self.child.try_wait() {
            kill_group(self.child.id());
            let _ = self.child.wait();
        }
    }
}

/// Kills the process group led by `pid` (the server and anything it started).
fn kill_group(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: plain syscall. Callers only pass the pid of the not yet reaped server, which
        // leads its own process group, so the group id cannot name anything else.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
}

/// Puts the write end of the server's stdin into non-blocking mode. Only this process's open file
/// description changes; the server's end of the pipe keeps its own flags.
pub fn set_nonblocking(stdin: &ChildStdin) -> io::Result<()> {
    let fd = stdin.as_raw_fd();
    // SAFETY: fcntl on a descriptor owned by `stdin`, which outlives both calls.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    if flags & libc::O_NONBLOCK == 0 {
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Splits a byte stream into lines with one `read(2)` per [`LineReader::fill`], so the caller
/// decides when to block and sees everything that arrived with one read at once.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// `buf[start..end]` holds the bytes read but not yet returned as lines.
    start: usize,
    end: usize,
}

impl<R: Read> LineReader<R> {
    const INITIAL_SIZE: usize = 64 * 1024;

    pub fn new(inner: R) -> Self {
        Self { inner, buf: vec![0; Self::INITIAL_SIZE], start: 0, end: 0 }
    }

    /// The next complete line (without its newline), if one is buffered.
    pub fn next_line(&mut self) -> Option<&[u8]> {
        let newline = self.buf[self.start..self.end].iter().position(|&b| b == b'\n')?;
        let line = self.start..self.start + newline;
        self.start += newline + 1;
        Some(&self.buf[line])
    }

    /// Whether bytes of an incomplete line are buffered.
    pub fn has_partial_line(&self) -> bool {
        self.start < self.end
    }

    /// Reads once (blocking if nothing is available) and returns the number of bytes read;
    /// 0 means end of stream.
    pub fn fill(&mut self) -> io::Result<usize> {
        // Keep only the unconsumed tail (part of one line), moved to the front.
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() {
            // One line fills the whole buffer: make room for the rest of it.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(read) => {
                    self.end += read;
                    return Ok(read);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The underlying reader, e.g. to poll its descriptor.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }
}

fn send_line(out: &mut impl Write, line: &[u8]) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line);
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    out.flush()
}

/// User plus system CPU time of a process, all its threads included, from `/proc/<pid>/stat`.
/// `pid` is `"self"` or a number. The kernel counts in clock ticks (usually 10 ms).
pub fn cpu_time(pid: &str) -> Result<Duration, Error> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).map_err(|e| Error::new(format!("{path}: {e}")))?;
    let ticks = parse_stat_ticks(&stat).ok_or_else(|| Error::new(format!("{path}: unexpected format")))?;
    Ok(ticks_to_duration(ticks))
}

/// utime + stime, fields 14 and 15 of `/proc/<pid>/stat`. The command name (field 2) is in
/// parentheses and may itself contain spaces or parentheses, so fields are counted from the last
/// `)`, where field 3 begins.
fn parse_stat_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(14 - 3);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

fn ticks_to_duration(ticks: u64) -> Duration {
    // SAFETY: sysconf has no preconditions; it only reads a system constant.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let per_second = u64::try_from(per_second).ok().filter(|&hz| hz > 0).unwrap_or(100);
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / per_second)
}

/// Kills the server's process group when the server has sent nothing for `idle`, so a hung server
/// fails the run instead of hanging it: its stdout then reaches end of stream. Readers bump
/// `progress` for every read that returned data.
pub struct Watchdog {
    stop: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Watchdog {
    pub fn start(pid: u32, idle: Duration, progress: Arc<AtomicU64>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let fired = Arc::new(AtomicBool::new(false));
        let thread = {
            let (stop, fired) = (Arc::clone(&stop), Arc::clone(&fired));
            thread::spawn(move || {
                let tick = Duration::from_millis(50).min(idle);
                let mut seen = progress.load(Ordering::Relaxed);
                let mut since = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    thread::sleep(tick);
                    let now = progress.load(Ordering::Relaxed);
                    if now != seen {
                        seen = now;
                        since = Instant::now();
                    } else if since.elapsed() >= idle {
                        fired.store(true, Ordering::Relaxed);
                        // The server is not reaped before the watchdog is stopped, so its pid
                        // still names its process group.
                        kill_group(pid);
                        return;
                    }
                }
            })
        };
        Self { stop, fired, thread: Some(thread) }
    }

    /// Whether the watchdog killed the server.
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::Relaxed)
    }

    /// Stops the watchdog; it must be stopped before the server is reaped.
    pub fn stop(mut self) -> bool {
        self.halt();
        self.fired()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.halt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_name() {
        let stat = "1234 (my (odd) srv) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 3 0";
        assert_eq!(parse_stat_ticks(stat), Some(325));
        assert_eq!(parse_stat_ticks("garbage"), None);
    }

    #[test]
    fn line_reader_keeps_partial_lines() {
        let data: &[u8] = b"one\ntw";
        let mut reader = LineReader::new(data.chain(&b"o\nthree"[..]));
        assert_eq!(reader.fill().ok(), Some(6));
        assert_eq!(reader.next_line(), Some(&b"one"[..]));
        assert_eq!(reader.next_line(), None);
        assert!(reader.fill().is_ok());
        assert_eq!(reader.next_line(), Some(&b"two"[..]));
        assert_eq!(reader.next_line(), None);
    }

    #[test]
    fn discover_carries_the_envelope() {
        let line = discover_line();
        assert!(!line.contains('\n'));
        let value: serde_json::Value = serde_json::from_str(&line).expect("valid JSON");
        assert_eq!(value["method"], "server/discover");
        assert_eq!(value["id"], OPENING_ID);
        let meta = &value["params"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], serde_json::json!({}));
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], CLIENT_NAME);
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["version"], env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn discover_results_are_checked() {
        let good = r#"{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{},
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.2"}}}"#;
        let identity = parse_discover_result(good).expect("valid");
        assert_eq!(identity.protocol_version, "2026-07-28");
        let info = identity.server_info.expect("serverInfo");
        assert_eq!((info.name.as_str(), info.version.as_str()), ("srv", "1.2"));
        assert_eq!(identity.supported_versions, ["2026-07-28", "2025-11-25"]);
        // Legacy-only, incomplete or shapeless results fail the run.
        assert!(parse_discover_result(r#"{"resultType":"complete","supportedVersions":["2025-11-25"]}"#).is_err());
        assert!(parse_discover_result(r#"{"supportedVersions":["2026-07-28"]}"#).is_err());
        assert!(parse_discover_result(r#"{"resultType":"complete"}"#).is_err());
        assert!(parse_discover_result("[]").is_err());
    }

    #[test]
    fn own_cpu_time_is_readable() {
        assert!(cpu_time("self").is_ok());
    }
}
