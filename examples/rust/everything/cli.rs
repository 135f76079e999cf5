//! The everything server's command line and environment: the flags, and the `--auth`
//! resource-server configuration read from the environment.

use ferrite_core::auth::{AuthConfig, ResourceServer};
use serde_json::json;

/// The resource-server configuration of `--auth`, from the environment.
pub fn auth_from_env() -> Result<ResourceServer, String> {
    let var = |n: &str| std::env::var(n).map_err(|_| format!("--auth needs {n} in the environment"));
    let (issuer, audience, jwks) =
        (var("FERRITE_AUTH_ISSUER")?, var("FERRITE_AUTH_AUDIENCE")?, var("FERRITE_AUTH_JWKS_URL")?);
    let config = AuthConfig::from_value(json!({
        "resource": audience,
        "authorization_servers": [issuer],
        "tool_scopes": {"whoami": ["mcp:whoami"]},
        "jwt": {"issuer": issuer, "jwks_url": jwks},
    }))
    .map_err(|e| e.to_string())?;
    ResourceServer::from_config(config).map_err(|e| e.to_string())
}

pub const USAGE: &str =
    "usage: everything [--port N [--mount]] [--stateless] [--compose] [--legacy-sse] [--auth] [--task-ttl-ms N] [--redis URL] [--help]\n  \
    no --port: serve stdio; --port N: Streamable HTTP on 127.0.0.1:N at /mcp;\n  \
    --mount: the endpoint mounted in an axum app (GET /health, an x-user middleware);\n  \
    --compose: everything mounted in an empty server (composition), plus extra_shout;\n  \
    --auth: require bearer JWTs (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL);\n  \
    --task-ttl-ms N: keep tasks N ms (default 300000; the tasks benchmark shortens it);\n  \
    --redis URL: keep shared state (tasks) in Redis, keys under FERRITE_REDIS_PREFIX (default ferrite:);\n  \
    FERRITE_REQUEST_STATE_KEYS=current[,previous...]: the fleet's requestState keys (64 hex or base64)";

/// The command line.
pub struct Args {
    pub port: Option<u16>,
    pub stateless: bool,
    pub legacy_sse: bool,
    pub mount: bool,
    pub compose: bool,
    pub auth: bool,
    pub task_ttl: Option<std::time::Duration>,
    pub redis: Option<String>,
}

/// The command line; `None` for `--help` (the usage goes to stdout, status 0).
pub fn parse_args() -> Result<Option<Args>, String> {
    let mut args = Args {
        port: None,
        stateless: false,
        legacy_sse: false,
        mount: false,
        compose: false,
        auth: false,
        task_ttl: None,
        redis: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--help" | "-h" => return Ok(None),
            "--stateless" => args.stateless = true,
            "--legacy-sse" => args.legacy_sse = true,
            "--mount" => args.mount = true,
            "--compose" => args.compose = true,
            "--auth" => args.auth = true,
            "--task-ttl-ms" => {
                let ms = it.next().and_then(|v| v.parse::<u64>().ok()).filter(|&ms| ms > 0);
                args.task_ttl =
                    Some(std::time::Duration::from_millis(ms.ok_or("--task-ttl-ms needs a positive number")?));
            }
            "--redis" => args.redis = Some(it.next().ok_or("--redis needs a URL")?),
            "--port" => {
                let p = it.next().and_then(|p| p.parse::<u16>().ok()).ok_or("--port needs a port number")?;
                args.port = Some(p);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if args.mount && args.port.is_none() {
        return Err("--mount needs --port".to_owned());
    }
    if args.auth && args.port.is_none() {
        return Err("--auth needs --port (tokens travel in HTTP headers)".to_owned());
    }
    Ok(Some(args))
}
