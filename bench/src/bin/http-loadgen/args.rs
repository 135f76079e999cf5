//! Command-line parsing for `http-loadgen` (hand-rolled, like `loadgen`'s).

use std::ffi::OsString;
use std::time::Duration;

pub const USAGE: &str = "\
usage: http-loadgen [options] --port N -- SERVER_COMMAND [ARGS...]

Spawns SERVER_COMMAND (which must serve Streamable HTTP on 127.0.0.1:N), waits until the port
accepts connections, then runs K clients, each on its own keep-alive HTTP/1.1 connection, each
sending its next `tools/call add` when the previous answer has arrived. Prints one JSON line.

options:
  --port N              the server's port (required)
  --path PATH           the MCP endpoint (default /mcp)
  --mode MODE           stateless-json (default): no session, plain POSTs;
                        stateful-sse: every client opens a session (initialize +
                        notifications/initialized) and sends Mcp-Session-Id
  --protocol VERSION    2025-11-25 (default); 2026-07-28: no initialize, one
                        server/discover, every call carries the envelope in params._meta
                        and the headers MCP-Protocol-Version, Mcp-Method and Mcp-Name
                        (stateless-json only: the revision has no sessions)
  --clients K           concurrent clients (default 1)
  --duration SECS       measured window (default 2)
  --warmup SECS         warm-up before the window, same clients (default 0.5)
  --label NAME          name echoed in the JSON line (default: the command)
  --fixed-reply         accept any JSON-RPC result, whatever its id and sum (http-baseline)
  --bearer TOKEN        send `Authorization: Bearer TOKEN` on every request (a protected server)
  --startup-timeout S   how long the port may take to open (default 30)
  --request-timeout S   abort the run when one answer takes longer (default 30)
  -h, --help            print this help";

/// The protocol revision the clients speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `MCP-Protocol-Version: 2025-11-25`; `initialize` for identity and sessions.
    V2025_11_25,
    /// Every request carries the per-request envelope and the mirrored headers.
    V2026_07_28,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }
}

/// Whether clients use sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    StatelessJson,
    StatefulSse,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Self::StatelessJson => "stateless-json",
            Self::StatefulSse => "stateful-sse",
        }
    }
}

#[derive(Debug)]
pub struct Args {
    pub protocol: Protocol,
    pub port: u16,
    pub path: String,
    pub mode: Mode,
    pub clients: u64,
    pub duration: Duration,
    pub warmup: Duration,
    pub label: String,
    pub fixed_reply: bool,
    pub bearer: Option<String>,
    pub startup_timeout: Duration,
    pub request_timeout: Duration,
    pub command: Vec<OsString>,
}

/// What the command line asked for.
pub enum Parsed {
    Run(Args),
    Help,
}

fn seconds(option: &str, value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{option}: expected seconds, got {value:?}"))
}

pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
    let mut protocol = Protocol::V2025_11_25;
    let mut port = None;
    let mut path = "/mcp".to_owned();
    let mut mode = Mode::StatelessJson;
    let mut clients = 1u64;
    let mut duration = Duration::from_secs(2);
    let mut warmup = Duration::from_millis(500);
    let mut label = None;
    let mut fixed_reply = false;
    let mut bearer = None;
    let mut startup_timeout = Duration::from_secs(30);
    let mut request_timeout = Duration::from_secs(30);
    let mut command = Vec::new();

    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg.into_string().map_err(|arg| format!("option is not UTF-8: {arg:?}"))?;
        if arg == "--" {
            command.extend(args.by_ref());
            break;
        }
        match arg.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--fixed-reply" => {
                fixed_reply = true;
                continue;
            }
            _ => {}
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{arg} needs a value"))?
            .into_string()
            .map_err(|v| format!("{arg}: value is not UTF-8: {v:?}"))?;
        match arg.as_str() {
            "--port" => port = Some(value.parse::<u16>().map_err(|_| format!("--port: bad port {value:?}"))?),
            "--path" => path = value,
            "--mode" => {
                mode = match value.as_str() {
                    "stateless-json" => Mode::StatelessJson,
                    "stateful-sse" => Mode::StatefulSse,
                    _ => return Err(format!("--mode: expected stateless-json or stateful-sse, got {value:?}")),
                }
            }
            "--protocol" => {
                protocol = match value.as_str() {
                    "2025-11-25" => Protocol::V2025_11_25,
                    "2026-07-28" => Protocol::V2026_07_28,
                    _ => return Err(format!("--protocol: expected 2025-11-25 or 2026-07-28, got {value:?}")),
                }
            }
            "--clients" => {
                clients =
                    value.parse().ok().filter(|k| *k > 0).ok_or_else(|| format!("--clients: bad count {value:?}"))?
            }
            "--duration" => duration = seconds(&arg, &value)?,
            "--warmup" => warmup = seconds(&arg, &value)?,
            "--label" => label = Some(value),
            "--bearer" => bearer = Some(value),
            "--startup-timeout" => startup_timeout = seconds(&arg, &value)?,
            "--request-timeout" => request_timeout = seconds(&arg, &value)?,
            _ => return Err(format!("unknown option {arg:?}")),
        }
    }
    let port = port.ok_or("--port is required")?;
    if command.is_empty() {
        return Err("no server command given after --".into());
    }
    if protocol == Protocol::V2026_07_28 && mode != Mode::StatelessJson {
        return Err("--protocol 2026-07-28 has no sessions: use --mode stateless-json".into());
    }
    if protocol == Protocol::V2026_07_28 && fixed_reply {
        return Err("--fixed-reply answers carry no resultType: it cannot be used with --protocol 2026-07-28".into());
    }
    if !path.starts_with('/') {
        return Err(format!("--path must start with '/', got {path:?}"));
    }
    let label =
        label.unwrap_or_else(|| command.iter().map(|part| part.to_string_lossy()).collect::<Vec<_>>().join(" "));
    Ok(Parsed::Run(Args {
        protocol,
        port,
        path,
        mode,
        clients,
        duration,
        warmup,
        label,
        fixed_reply,
        bearer,
        startup_timeout,
        request_timeout,
        command,
    }))
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
    fn protocol_defaults_to_the_handshake_revision() {
        let args = run(&["--port", "1", "--", "srv"]).expect("valid");
        assert_eq!(args.protocol, Protocol::V2025_11_25);
        assert_eq!(args.mode, Mode::StatelessJson);
        let modern = run(&["--port", "1", "--protocol", "2026-07-28", "--", "srv"]).expect("valid");
        assert_eq!(modern.protocol, Protocol::V2026_07_28);
        assert_eq!(modern.protocol.as_str(), "2026-07-28");
        let legacy = run(&["--port", "1", "--protocol", "2025-11-25", "--mode", "stateful-sse", "--", "srv"]);
        assert_eq!(legacy.expect("valid").protocol, Protocol::V2025_11_25);
    }

    #[test]
    fn modern_protocol_rejects_what_it_cannot_measure() {
        assert!(run(&["--port", "1", "--protocol", "2025-06-18", "--", "srv"]).is_err());
        assert!(run(&["--port", "1", "--protocol", "2026-07-28", "--mode", "stateful-sse", "--", "srv"]).is_err());
        assert!(run(&["--port", "1", "--protocol", "2026-07-28", "--fixed-reply", "--", "srv"]).is_err());
        assert!(run(&["--port", "1", "--protocol"]).is_err());
    }
}
