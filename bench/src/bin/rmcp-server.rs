//! `rmcp-server`: the benchmark's `add` tool served by the official Rust MCP SDK (`rmcp`, pinned
//! to 3.9.0 in `bench/Cargo.toml`), written the way the SDK's documentation shows: a
//! `#[tool_router]` with one `#[tool]`, routed through a router built once, and served on the usual
//! multi-threaded tokio runtime.
//!
//! `--driver` picks the transport:
//! - `stdio` (default): `rmcp::transport::stdio()`, tokio's `Stdin`/`Stdout`, whose reads and
//!   writes run on tokio's blocking thread pool;
//! - `stdio-pipes`: `rmcp::transport::stdio_pipes()`, which on Linux reopens both pipes
//!   non-blocking and drives them from the IO reactor. This is rmcp's fastest stdio driver;
//! - `http-json` (needs `--port N`): Streamable HTTP at `http://127.0.0.1:N/mcp`, stateless
//!   (`legacy_session_mode: false`) with `json_response: true`, so every POST is answered with
//!   `application/json` and no session exists;
//! - `http-sse` (needs `--port N`): Streamable HTTP with rmcp's defaults, i.e. one session per
//!   `initialize` (`LocalSessionManager`) and every answer as an SSE stream.
//!
//! The HTTP drivers serve `StreamableHttpService` (a tower service) directly from hyper's HTTP/1.1
//! connection builder and set TCP_NODELAY on every accepted connection: without it, small SSE
//! writes wait for delayed ACKs and a call takes 40 ms.
//!
//! The tool returns what `examples/SURFACE.md` specifies: text `"<sum>"` and structured content
//! `{"sum": <sum>}`, with an output schema.
//!
//! Every driver serves protocol revision 2026-07-28 (the per-request `_meta` envelope) as well as
//! the `initialize` handshake, with no option: rmcp 3.9.0's default
//! `supported_protocol_versions()` lists 2026-07-28. On stdio the first enveloped request other
//! than `server/discover` pins the process to the inline lifecycle; over Streamable HTTP an
//! enveloped request is always served statelessly (as JSON with `http-json`, as SSE with
//! `http-sse`). See bench/README.md, "What rmcp 3.9.0 does with 2026-07-28".

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{SessionManager, StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use serde::{Deserialize, Serialize};

/// The arguments of `add`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct AddArguments {
    /// The left-hand addend.
    a: i64,
    /// The right-hand addend.
    b: i64,
}

/// The structured result of `add`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct AddOutput {
    /// `a + b`.
    sum: i64,
}

#[derive(Debug, Clone)]
struct AddServer {
    tool_router: ToolRouter<Self>,
}

impl AddServer {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }
}

#[tool_router]
impl AddServer {
    /// Add two integers.
    #[tool(output_schema = schema_for_output::<AddOutput>())]
    fn add(&self, Parameters(AddArguments { a, b }): Parameters<AddArguments>) -> Result<CallToolResult, ErrorData> {
        let sum = a.checked_add(b).ok_or_else(|| ErrorData::invalid_params("a + b overflows", None))?;
        let output =
            serde_json::to_value(AddOutput { sum }).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut result = CallToolResult::success(vec![ContentBlock::text(sum.to_string())]);
        result.structured_content = Some(output);
        Ok(result)
    }
}

// Route through the router built once in `new`; the macro's default, `Self::tool_router()`,
// would rebuild it on every call and make rmcp look slower than it needs to be.
#[tool_handler(router = self.tool_router)]
impl ServerHandler for AddServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-bench", env!("CARGO_PKG_VERSION")))
    }
}

/// Which of rmcp's transports serves the server.
#[derive(Debug, Clone, Copy)]
enum Driver {
    Stdio,
    StdioPipes,
    HttpJson,
    HttpSse,
}

impl Driver {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "stdio" => Some(Self::Stdio),
            "stdio-pipes" | "stdio_pipes" => Some(Self::StdioPipes),
            "http-json" => Some(Self::HttpJson),
            "http-sse" => Some(Self::HttpSse),
            _ => None,
        }
    }

    fn is_http(self) -> bool {
        matches!(self, Self::HttpJson | Self::HttpSse)
    }
}

const USAGE: &str = "usage: rmcp-server [--driver stdio|stdio-pipes] | --driver http-json|http-sse --port N";

fn parse_args() -> Result<(Driver, Option<u16>), String> {
    let mut driver = Driver::Stdio;
    let mut port = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
            None => (arg, None),
        };
        let mut value = || inline.clone().or_else(|| args.next()).ok_or(format!("{name} needs a value"));
        match name.as_str() {
            "--driver" => {
                let value = value()?;
                driver = Driver::parse(&value).ok_or_else(|| format!("unknown driver {value:?}"))?;
            }
            "--port" => {
                let value = value()?;
                port = Some(value.parse().map_err(|_| format!("bad port {value:?}"))?);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    match (driver.is_http(), port) {
        (true, None) => Err("the HTTP drivers need --port".into()),
        (false, Some(_)) => Err("--port applies to the HTTP drivers only".into()),
        _ => Ok((driver, port)),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let (driver, port) = match parse_args() {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("rmcp-server: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let served = match (driver, port) {
        (Driver::HttpJson, Some(port)) => {
            // Stateless: no sessions; simple request-response calls are answered as JSON.
            let config = StreamableHttpServerConfig::default().with_legacy_session_mode(false).with_json_response(true);
            serve_http(port, Arc::new(NeverSessionManager::default()), config).await
        }
        (Driver::HttpSse, Some(port)) => {
            // rmcp's defaults: a session per initialize, answers as SSE streams.
            serve_http(port, Arc::new(LocalSessionManager::default()), StreamableHttpServerConfig::default()).await
        }
        _ => serve_stdio(driver).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_stdio(driver: Driver) -> Result<(), Box<dyn std::error::Error>> {
    let server = AddServer::new();
    let running = match driver {
        Driver::Stdio => server.serve(rmcp::transport::stdio()).await?,
        Driver::StdioPipes => server.serve(rmcp::transport::stdio_pipes()).await?,
        Driver::HttpJson | Driver::HttpSse => unreachable!("parse_args gives the HTTP drivers a port"),
    };
    running.waiting().await?;
    Ok(())
}

/// Serves `StreamableHttpService` on 127.0.0.1:`port`, one hyper HTTP/1.1 connection task per
/// client. The service does not look at the path, so `/mcp` (and any other path) reaches it.
async fn serve_http<M: SessionManager>(
    port: u16,
    sessions: Arc<M>,
    config: StreamableHttpServerConfig,
) -> Result<(), Box<dyn std::error::Error>> {
    use hyper_util::service::TowerToHyperService;

    let mcp = StreamableHttpService::new(|| Ok(AddServer::new()), sessions, config);
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let service = TowerToHyperService::new(mcp.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
        });
    }
}
