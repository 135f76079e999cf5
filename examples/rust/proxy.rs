//! A proxy: a Ferrite server in front of another MCP server, re-exposed on stdio or
//! Streamable HTTP to clients of both eras (see `ferrite_core::proxy`).
//!
//! ```text
//! proxy (--stdio 'COMMAND ARGS...' | --url URL) [--era auto|handshake|modern] [--port N]
//! ```
//! `--stdio` starts the upstream as a child speaking MCP on its stdin and stdout (the words of
//! COMMAND split on spaces); `--url` reaches a Streamable HTTP endpoint. `--era` is the
//! revision spoken upstream: `auto` (the default: each client's request in the client's era,
//! when the upstream serves both), `handshake` (`initialize` once, every request on that
//! session) or `modern` (the 2026-07-28 envelope on every request). Without `--port` the proxy serves stdio; with it, Streamable
//! HTTP on 127.0.0.1:N at `/mcp`. A bad command line prints the usage and exits 2.

use ferrite_core::proxy::{Upstream, UpstreamEra, UpstreamTarget};
use ferrite_core::transport::{http, stdio};

const USAGE: &str = "usage: proxy (--stdio 'COMMAND ARGS...' | --url URL) [--era auto|handshake|modern] [--port N]";

fn parse() -> Result<(UpstreamTarget, UpstreamEra, Option<u16>), String> {
    let (mut target, mut era, mut port) = (None, UpstreamEra::Auto, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--stdio" => {
                let line = value()?;
                let mut words = line.split_whitespace().map(str::to_owned);
                let program = words.next().ok_or("--stdio needs a command")?;
                target = Some(UpstreamTarget::Stdio { program, args: words.collect(), env: Vec::new() });
            }
            "--url" => target = Some(UpstreamTarget::Http { url: value()?, headers: Vec::new() }),
            "--era" => {
                era = match value()?.as_str() {
                    "auto" => UpstreamEra::Auto,
                    "handshake" => UpstreamEra::Handshake,
                    "modern" => UpstreamEra::Modern,
                    other => return Err(format!("--era: {other:?} is not auto, handshake or modern")),
                }
            }
            "--port" => port = Some(value()?.parse::<u16>().map_err(|e| format!("--port: {e}"))?),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok((target.ok_or("give --stdio or --url")?, era, port))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (target, era, port) = match parse() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("proxy: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let (server, proxy) = Upstream::connect(&target, era).await?.into_server().await?;
        match port {
            None => stdio::serve_stdio(&server).await?,
            Some(port) => {
                let bound = http::bind(&server, ([127, 0, 0, 1], port).into(), http::HttpOptions::default()).await?;
                eprintln!("proxy: Streamable HTTP on http://{}/mcp", bound.local_addr()?);
                bound.run().await?;
            }
        }
        proxy.close();
        Ok(())
    })
}
