//! `loadgen`: pipelined `tools/call` load over stdio against any MCP server.
//!
//! It spawns the server command given after `--` with piped stdin and stdout, opens the
//! conversation, warms up, and then keeps exactly `--inflight` calls of the `add` tool
//! outstanding for the measured window (see [`pipeline`] for how, on one thread). Every response
//! is checked (id, result, the sum in the text and in `structuredContent`). The server's CPU time
//! is read from `/proc/<pid>/stat` just before and just after the measured window.
//!
//! `--protocol` picks the revision. 2025-11-25 (the default) opens with the handshake
//! (`initialize`, then `notifications/initialized`) and sends bare calls. 2026-07-28 sends no
//! handshake: one `server/discover` first (whose `_meta` gives the server's identity), then
//! calls that each carry the per-request envelope in `params._meta`; every result must also say
//! `"resultType":"complete"`.
//!
//! The result is one JSON line on stdout:
//!
//! ```text
//! {"label":"...","inflight":32,"calls":50000,"errors":0,"req_per_s":...,"p50_us":...,
//!  "p99_us":...,"cpu_us_per_call":...,"client_cpu_us_per_call":...,...}
//! ```
//!
//! The exit status is 0 for a clean run, 1 when any call was answered wrongly (the JSON line is
//! still printed), and 2 when the run could not be completed (nothing is printed on stdout).

mod args;
mod pipeline;
mod server;

use std::fmt;
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use args::{Args, Parsed, Plan};
use pipeline::PhaseReport;
use server::{Server, Watchdog};

/// How long the server gets to exit after its stdin is closed.
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
            eprintln!("loadgen: {e}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(summary) => {
            println!("{}", summary.to_json());
            if summary.measured.errors == 0 {
                ExitCode::SUCCESS
            } else {
                for sample in &summary.measured.error_samples {
                    eprintln!("loadgen [{}]: wrong answer: {sample}", args.label);
                }
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("loadgen [{}]: {e}", args.label);
            ExitCode::from(2)
        }
    }
}

/// Everything measured in one run.
struct Summary<'a> {
    args: &'a Args,
    identity: server::ServerIdentity,
    measured: PhaseReport,
    server_cpu: Duration,
    client_cpu: Duration,
    killed: bool,
}

fn run(args: &Args) -> Result<Summary<'_>, Error> {
    let mut server = Server::spawn(args)?;
    let progress = Arc::new(AtomicU64::new(0));
    let watchdog = Watchdog::start(server.pid(), args.idle_timeout, Arc::clone(&progress));
    let outcome = measure(&mut server, args, &progress);
    if watchdog.stop() {
        return Err(Error::new(format!("the server answered nothing for {:?} and was killed", args.idle_timeout)));
    }
    let (identity, measured, server_cpu, client_cpu) = outcome?;
    let (status, killed) = server.shutdown(SHUTDOWN_GRACE)?;
    if killed {
        eprintln!(
            "loadgen [{}]: the server did not exit within {SHUTDOWN_GRACE:?} of stdin closing; killed",
            args.label
        );
    } else if !status.success() {
        eprintln!("loadgen [{}]: the server exited with {status}", args.label);
    }
    Ok(Summary { args, identity, measured, server_cpu, client_cpu, killed })
}

type Measurement = (server::ServerIdentity, PhaseReport, Duration, Duration);

/// Handshake, warm-up and the measured window.
fn measure(server: &mut Server, args: &Args, progress: &AtomicU64) -> Result<Measurement, Error> {
    let identity = server.open(args.protocol, progress)?;
    let pid = server.pid().to_string();
    let mut next_id = 1;

    if args.warmup > 0 {
        let (stdin, stdout) = server.pipes()?;
        let warmup =
            pipeline::run(args.protocol, stdin, stdout, next_id, Plan::Calls(args.warmup), args.inflight, progress)?;
        if warmup.errors > 0 {
            let first = warmup.error_samples.first().map_or("", String::as_str);
            return Err(Error::new(format!(
                "{} of {} warm-up calls were answered wrongly, e.g. {first}",
                warmup.errors, warmup.calls
            )));
        }
        next_id += warmup.calls;
    }

    let server_before = server::cpu_time(&pid)?;
    let client_before = server::cpu_time("self")?;
    let (stdin, stdout) = server.pipes()?;
    let measured = pipeline::run(args.protocol, stdin, stdout, next_id, args.plan, args.inflight, progress)?;
    let server_cpu = server::cpu_time(&pid)?.saturating_sub(server_before);
    let client_cpu = server::cpu_time("self")?.saturating_sub(client_before);
    Ok((identity, measured, server_cpu, client_cpu))
}

impl Summary<'_> {
    fn to_json(&self) -> serde_json::Value {
        let m = &self.measured;
        let calls = m.calls.max(1) as f64;
        let mut latencies = m.latencies.clone();
        latencies.sort_unstable();
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        let percentile = |p: f64| percentile(&latencies, p).map(micros);
        let server_info = self.identity.server_info.as_ref();
        serde_json::json!({
            "label": self.args.label,
            "protocol": self.args.protocol.as_str(),
            "inflight": self.args.inflight,
            "calls": m.calls,
            "errors": m.errors,
            "warmup_calls": self.args.warmup,
            "elapsed_s": m.elapsed.as_secs_f64(),
            "req_per_s": m.calls as f64 / m.elapsed.as_secs_f64().max(f64::MIN_POSITIVE),
            "p50_us": percentile(0.50),
            "p99_us": percentile(0.99),
            "max_us": latencies.last().copied().map(micros),
            "cpu_us_per_call": micros(self.server_cpu) / calls,
            "client_cpu_us_per_call": micros(self.client_cpu) / calls,
            "server_name": server_info.map(|info| info.name.as_str()),
            "server_version": server_info.map(|info| info.version.as_str()),
            "protocol_version": self.identity.protocol_version,
            "supported_versions": (!self.identity.supported_versions.is_empty())
                .then_some(&self.identity.supported_versions),
            "request_bytes_per_call": m.request_bytes as f64 / calls,
            "response_bytes_per_call": m.response_bytes as f64 / calls,
            "server_killed_at_exit": self.killed,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile(&samples, 0.50), Some(Duration::from_micros(50)));
        assert_eq!(percentile(&samples, 0.99), Some(Duration::from_micros(99)));
        assert_eq!(percentile(&samples, 1.0), Some(Duration::from_micros(100)));
        assert_eq!(percentile(&samples[..1], 0.99), Some(Duration::from_micros(1)));
        assert_eq!(percentile(&[], 0.5), None);
    }
}
