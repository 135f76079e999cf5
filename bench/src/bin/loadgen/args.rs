//! Command-line parsing for `loadgen` (hand-rolled: the bench keeps its dependency set small).

use std::ffi::OsString;
use std::time::Duration;

pub const USAGE: &str = "\
usage: loadgen [options] -- SERVER_COMMAND [ARGS...]

Spawns SERVER_COMMAND with piped stdin/stdout, performs the MCP handshake (2025-11-25) or one
`server/discover` (2026-07-28), then keeps exactly K `tools/call add` requests in flight and
prints one JSON line with the figures.

options:
  --protocol VERSION  2025-11-25 (default): initialize + notifications/initialized, bare calls;
                      2026-07-28: no handshake, one server/discover, and every call carries the
                      per-request envelope in params._meta
  --inflight K        requests kept in flight (default 1)
  --calls N           measured calls (default 10000 for K=1, 50000 otherwise)
  --duration SECS     measure for SECS seconds instead of a fixed number of calls
  --warmup N          calls before the measured window (default 2000)
  --label NAME        name echoed in the JSON line (default: the command)
  --idle-timeout SECS kill the server if it answers nothing for SECS seconds (default 30)
  --quiet-server      send the server's stderr to /dev/null instead of inheriting it
  -h, --help          print this help";

/// The protocol revision the load generator speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// The `initialize` handshake; calls carry no `_meta`.
    V2025_11_25,
    /// No handshake; every request carries the per-request `_meta` envelope.
    V2026_07_28,
}

impl Protocol {
    pub fn parse(value: &str) -> Result<Self, String> {
        match value {
            "2025-11-25" => Ok(Self::V2025_11_25),
            "2026-07-28" => Ok(Self::V2026_07_28),
            _ => Err(format!("--protocol: expected 2025-11-25 or 2026-07-28, got {value:?}")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }
}

/// How long the measured window lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Plan {
    /// Exactly this many calls.
    Calls(u64),
    /// As many calls as can be issued in this time; the ones in flight at the end still count.
    Duration(Duration),
}

#[derive(Debug)]
pub struct Args {
    pub protocol: Protocol,
    pub inflight: u64,
    pub plan: Plan,
    pub warmup: u64,
    pub label: String,
    pub idle_timeout: Duration,
    pub quiet_server: bool,
    pub command: Vec<OsString>,
}

/// What the command line asked for.
pub enum Parsed {
    Run(Args),
    Help,
}

pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
    let mut protocol = Protocol::V2025_11_25;
    let mut inflight = 1u64;
    let mut calls = None;
    let mut duration = None;
    let mut warmup = 2_000u64;
    let mut label = None;
    let mut idle_timeout = Duration::from_secs(30);
    let mut quiet_server = false;
    let mut command = Vec::new();

    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg.into_string().map_err(|arg| format!("option is not UTF-8: {arg:?}"))?;
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = || -> Result<String, String> {
            match inline.clone() {
                Some(value) => Ok(value),
                None => args
                    .next()
                    .ok_or_else(|| format!("{name} needs a value"))?
                    .into_string()
                    .map_err(|v| format!("{name}: value is not UTF-8: {v:?}")),
            }
        };
        match name.as_str() {
            "--" => {
                command.extend(args.by_ref());
                break;
            }
            "-h" | "--help" => return Ok(Parsed::Help),
            "--protocol" => protocol = Protocol::parse(&value()?)?,
            "--inflight" => inflight = number(&name, &value()?)?,
            "--calls" => calls = Some(number(&name, &value()?)?),
            "--warmup" => warmup = number(&name, &value()?)?,
            "--duration" => duration = Some(seconds(&name, &value()?)?),
            "--idle-timeout" => idle_timeout = seconds(&name, &value()?)?,
            "--label" => label = Some(value()?),
            "--quiet-server" => quiet_server = true,
            other => return Err(format!("unknown option {other:?}")),
        }
    }

    if command.is_empty() {
        return Err("missing server command after --".into());
    }
    if inflight == 0 {
        return Err("--inflight must be at least 1".into());
    }
    let plan = match (calls, duration) {
        (Some(_), Some(_)) => return Err("--calls and --duration exclude each other".into()),
        (Some(0), None) => return Err("--calls must be at least 1".into()),
        (Some(n), None) => Plan::Calls(n),
        (None, Some(d)) if d.is_zero() => return Err("--duration must be positive".into()),
        (None, Some(d)) => Plan::Duration(d),
        (None, None) => Plan::Calls(if inflight == 1 { 10_000 } else { 50_000 }),
    };
    let label =
        label.unwrap_or_else(|| command.iter().map(|part| part.to_string_lossy()).collect::<Vec<_>>().join(" "));
    Ok(Parsed::Run(Args { protocol, inflight, plan, warmup, label, idle_timeout, quiet_server, command }))
}

fn number(name: &str, value: &str) -> Result<u64, String> {
    value.parse().map_err(|_| format!("{name}: expected a whole number, got {value:?}"))
}

fn seconds(name: &str, value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .ok_or_else(|| format!("{name}: expected seconds, got {value:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Args, String> {
        match parse(args.iter().map(OsString::from))? {
            Parsed::Run(args) => Ok(args),
            Parsed::Help => Err("help".into()),
        }
    }

    #[test]
    fn defaults_depend_on_inflight() {
        let one = run(&["--", "srv"]).expect("valid");
        assert_eq!(one.plan, Plan::Calls(10_000));
        let many = run(&["--inflight=32", "--", "srv", "--flag"]).expect("valid");
        assert_eq!(many.plan, Plan::Calls(50_000));
        assert_eq!(many.command, ["srv", "--flag"]);
        assert_eq!(many.label, "srv --flag");
    }

    #[test]
    fn rejects_bad_input() {
        assert!(run(&["--inflight", "0", "--", "srv"]).is_err());
        assert!(run(&["--calls", "5", "--duration", "1", "--", "srv"]).is_err());
        assert!(run(&["--calls", "x", "--", "srv"]).is_err());
        assert!(run(&["--inflight", "2"]).is_err());
    }

    #[test]
    fn protocol_defaults_to_the_handshake_revision() {
        assert_eq!(run(&["--", "srv"]).expect("valid").protocol, Protocol::V2025_11_25);
        let modern = run(&["--protocol", "2026-07-28", "--", "srv"]).expect("valid");
        assert_eq!(modern.protocol, Protocol::V2026_07_28);
        assert_eq!(modern.protocol.as_str(), "2026-07-28");
        let inline = run(&["--protocol=2025-11-25", "--", "srv"]).expect("valid");
        assert_eq!(inline.protocol, Protocol::V2025_11_25);
        assert!(run(&["--protocol", "2025-06-18", "--", "srv"]).is_err());
        assert!(run(&["--protocol", "--", "srv"]).is_err());
    }

    #[test]
    fn duration_plan() {
        let args = run(&["--duration", "1.5", "--label", "x", "--", "srv"]).expect("valid");
        assert_eq!(args.plan, Plan::Duration(Duration::from_millis(1500)));
        assert_eq!(args.label, "x");
    }
}
