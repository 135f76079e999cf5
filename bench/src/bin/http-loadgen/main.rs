//! `http-loadgen`: `tools/call add` over Streamable HTTP against any MCP server, K concurrent
//! clients.
//!
//! It spawns the server command given after `--` (in its own process group), waits until
//! 127.0.0.1:`--port` accepts connections, and opens K clients. Each client is one keep-alive
//! HTTP/1.1 connection (hyper's client, TCP_NODELAY) and sends its next request only when the
//! previous answer has arrived, so exactly K calls are in flight. In `stateful-sse` mode every
//! client first opens its own session (`initialize`, then `notifications/initialized`) and sends
//! its `Mcp-Session-Id` afterwards; answers may be JSON or SSE streams, and either is parsed. In
//! `stateless-json` mode there is no handshake: every POST is a bare `tools/call`.
//!
//! `--protocol 2026-07-28` (stateless-json only) speaks the per-request revision: no
//! `initialize` (the first client sends one `server/discover` to learn the server's identity
//! from its `_meta`), and every call carries the envelope in `params._meta` and the mirrored
//! headers `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method: tools/call` and `Mcp-Name: add`.
//! Its answers must also say `"resultType":"complete"` and carry no `Mcp-Session-Id`.
//!
//! All clients run on one thread (a current-thread tokio runtime): the benchmark machine has 2
//! cores, and the load generator should take as little of them as it can. The clients warm up
//! for `--warmup` seconds, then run the measured window of `--duration` seconds; each client
//! stops when its last answer arrives after the window's end. Every answer is checked (HTTP 200,
//! the id, a `result` whose text block and `structuredContent.sum` are the sum). The server's CPU
//! time is read from `/proc/<pid>/stat` just before and just after the window.
//!
//! The result is one JSON line on stdout with the fields of `loadgen`'s (so `report.py` reads
//! both) plus `mode` and `clients`; `inflight` is the number of clients. The exit status is 0 for
//! a clean run, 1 when any call was answered wrongly (the JSON line is still printed), and 2 when
//! the run could not be completed (nothing is printed on stdout).

mod args;
mod client;

use std::fmt;
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use args::{Args, Parsed};
use client::{Client, Identity, Tally};

/// How long the server gets to exit after SIGTERM before it is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// A run that could not be completed, with a message for a person.
#[derive(Debug)]
pub struct Error(String);

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Self(e.to_string())
    }
}

fn main() -> ExitCode {
    let args = match args::parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Run(args)) => args,
        Ok(Parsed::Help) => {
            println!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("http-loadgen: {e}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    let outcome = Server::spawn(&args).and_then(|mut server| {
        let measured = server.wait_for_port(&args).and_then(|()| measure(&args, server.pid()));
        server.shutdown();
        measured
    });
    match outcome {
        Ok(summary) => {
            println!("{}", summary.to_json(&args));
            if summary.measured.errors == 0 {
                ExitCode::SUCCESS
            } else {
                for sample in &summary.measured.error_samples {
                    eprintln!("http-loadgen [{}]: wrong answer: {sample}", args.label);
                }
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("http-loadgen [{}]: {e}", args.label);
            ExitCode::from(2)
        }
    }
}

/// The server process, in its own process group so that a shell wrapper and its children go
/// down together.
struct Server {
    child: Child,
    stopped: bool,
}

impl Server {
    fn spawn(args: &Args) -> Result<Self, Error> {
        // Otherwise the run would measure whatever already listens there.
        if std::net::TcpStream::connect(("127.0.0.1", args.port)).is_ok() {
            return Err(Error::new(format!("port {} is already in use", args.port)));
        }
        // The server's stdout goes to our stderr: stdout carries the result line only.
        let stderr = std::io::stderr().as_fd().try_clone_to_owned()?;
        let child = Command::new(&args.command[0])
            .args(&args.command[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::from(stderr))
            .process_group(0)
            .spawn()
            .map_err(|e| Error::new(format!("cannot start {:?}: {e}", args.command[0])))?;
        Ok(Self { child, stopped: false })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Polls until the port accepts a connection; fails if the server exits first.
    fn wait_for_port(&mut self, args: &Args) -> Result<(), Error> {
        let deadline = Instant::now() + args.startup_timeout;
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", args.port)).is_ok() {
                return Ok(());
            }
            if let Some(status) = self.child.try_wait()? {
                self.stopped = true;
                return Err(Error::new(format!("the server exited with {status} before port {} opened", args.port)));
            }
            if Instant::now() >= deadline {
                return Err(Error::new(format!("port {} did not open within {:?}", args.port, args.startup_timeout)));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM to the group, then SIGKILL after the grace period.
    fn shutdown(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let group = -(self.child.id() as libc::pid_t);
        unsafe { libc::kill(group, libc::SIGTERM) };
        let deadline = Instant::now() + SHUTDOWN_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                // Children of a wrapper may still linger; they belong to the group.
                unsafe { libc::kill(group, libc::SIGKILL) };
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        unsafe { libc::kill(group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Everything measured in one run.
struct Summary {
    identity: Identity,
    measured: Tally,
    elapsed: Duration,
    server_cpu: Duration,
    client_cpu: Duration,
}

fn measure(args: &Args, pid: u32) -> Result<Summary, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let mut clients = Vec::with_capacity(args.clients as usize);
        let mut identity = Identity::default();
        for index in 0..args.clients {
            let (client, id) = Client::connect(args, index).await?;
            if index == 0 {
                identity = id;
            }
            clients.push(client);
        }
        if !args.warmup.is_zero() {
            let (warmup, returned) = phase(clients, args.warmup).await?;
            clients = returned;
            if warmup.errors > 0 {
                let first = warmup.error_samples.first().map_or("", String::as_str);
                return Err(Error::new(format!(
                    "{} of {} warm-up calls were answered wrongly, e.g. {first}",
                    warmup.errors, warmup.calls
                )));
            }
        }
        let pid = pid.to_string();
        let server_before = cpu_time(&pid)?;
        let client_before = cpu_time("self")?;
        let started = Instant::now();
        let (measured, _clients) = phase(clients, args.duration).await?;
        let elapsed = started.elapsed();
        let server_cpu = cpu_time(&pid)?.saturating_sub(server_before);
        let client_cpu = cpu_time("self")?.saturating_sub(client_before);
        Ok(Summary { identity, measured, elapsed, server_cpu, client_cpu })
    })
}

/// Runs every client for `length`, concurrently, and sums up their tallies.
async fn phase(clients: Vec<Client>, length: Duration) -> Result<(Tally, Vec<Client>), Error> {
    let until = Instant::now() + length;
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            tokio::spawn(async move {
                let tally = client.run(until).await;
                tally.map(|tally| (tally, client))
            })
        })
        .collect();
    let mut total = Tally::default();
    let mut clients = Vec::with_capacity(tasks.len());
    for task in tasks {
        let (tally, client) = task.await.map_err(|e| Error::new(format!("a client task failed: {e}")))??;
        total.calls += tally.calls;
        total.errors += tally.errors;
        total.sse_answers += tally.sse_answers;
        total.request_bytes += tally.request_bytes;
        total.response_bytes += tally.response_bytes;
        total.latencies.extend(tally.latencies);
        let room = 3usize.saturating_sub(total.error_samples.len());
        total.error_samples.extend(tally.error_samples.into_iter().take(room));
        clients.push(client);
    }
    Ok((total, clients))
}

impl Summary {
    fn to_json(&self, args: &Args) -> serde_json::Value {
        let m = &self.measured;
        let calls = m.calls.max(1) as f64;
        let mut latencies = m.latencies.clone();
        latencies.sort_unstable();
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        let percentile = |p: f64| percentile(&latencies, p).map(micros);
        serde_json::json!({
            "label": args.label,
            "transport": "http",
            "protocol": args.protocol.as_str(),
            "mode": args.mode.name(),
            "clients": args.clients,
            "inflight": args.clients,
            "calls": m.calls,
            "errors": m.errors,
            "sse_answers": m.sse_answers,
            "warmup_s": args.warmup.as_secs_f64(),
            "elapsed_s": self.elapsed.as_secs_f64(),
            "req_per_s": m.calls as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE),
            "p50_us": percentile(0.50),
            "p99_us": percentile(0.99),
            "max_us": latencies.last().copied().map(micros),
            "cpu_us_per_call": micros(self.server_cpu) / calls,
            "client_cpu_us_per_call": micros(self.client_cpu) / calls,
            "server_name": self.identity.server_name,
            "server_version": self.identity.server_version,
            "protocol_version": self.identity.protocol_version,
            "supported_versions": (!self.identity.supported_versions.is_empty())
                .then_some(&self.identity.supported_versions),
            "request_bytes_per_call": m.request_bytes as f64 / calls,
            "response_bytes_per_call": m.response_bytes as f64 / calls,
        })
    }
}

/// The nearest-rank percentile `p` (0 < p <= 1) of sorted samples.
fn percentile(sorted: &[Duration], p: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

/// User plus system CPU time of a process, all its threads included, from `/proc/<pid>/stat`
/// (fields 14 and 15, counted after the command name, which may contain spaces and parentheses).
fn cpu_time(pid: &str) -> Result<Duration, Error> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).map_err(|e| Error::new(format!("{path}: {e}")))?;
    let ticks = stat
        .rfind(')')
        .map(|end| stat[end + 1..].split_ascii_whitespace().skip(11).take(2).map(str::parse::<u64>))
        .and_then(|mut fields| Some(fields.next()?.ok()? + fields.next()?.ok()?))
        .ok_or_else(|| Error::new(format!("{path}: unexpected format")))?;
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap_or(100).max(1);
    Ok(Duration::from_nanos(ticks * 1_000_000_000 / per_second))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile(&samples, 0.50), Some(Duration::from_micros(50)));
        assert_eq!(percentile(&samples, 0.99), Some(Duration::from_micros(99)));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn cpu_time_of_this_process_reads() {
        assert!(cpu_time("self").is_ok());
    }
}
