//! `rmcp-server`: the benchmark's `add` tool served by the official Rust MCP SDK (`rmcp`, pinned
//! to 3.9.0 in `bench/Cargo.toml`), written the way the SDK's documentation shows: a
//! `#[tool_router]` with one `#[tool]`, routed through a router built once, and served on the usual
//! multi-threaded tokio runtime.
//!
//! `--driver` picks the stdio transport:
//! - `stdio` (default): `rmcp::transport::stdio()`, tokio's `Stdin`/`Stdout`, whose reads and
//!   writes run on tokio's blocking thread pool;
//! - `stdio-pipes`: `rmcp::transport::stdio_pipes()`, which on Linux reopens both pipes
//!   non-blocking and drives them from the IO reactor. This is rmcp's fastest stdio driver.
//!
//! The tool returns what `examples/SURFACE.md` specifies: text `"<sum>"` and structured content
//! `{"sum": <sum>}`, with an output schema.

use std::process::ExitCode;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
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

/// Which of rmcp's stdio transports serves the connection.
#[derive(Debug, Clone, Copy)]
enum Driver {
    Stdio,
    StdioPipes,
}

impl Driver {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "stdio" => Some(Self::Stdio),
            "stdio-pipes" | "stdio_pipes" => Some(Self::StdioPipes),
            _ => None,
        }
    }
}

const USAGE: &str = "usage: rmcp-server [--driver stdio|stdio-pipes]";

fn parse_args() -> Result<Driver, String> {
    let mut driver = Driver::Stdio;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--driver" => args.next().ok_or("--driver needs a value")?,
            other => match other.strip_prefix("--driver=") {
                Some(value) => value.to_owned(),
                None => return Err(format!("unknown argument {other:?}")),
            },
        };
        driver = Driver::parse(&value).ok_or_else(|| format!("unknown driver {value:?}"))?;
    }
    Ok(driver)
}

#[tokio::main]
async fn main() -> ExitCode {
    let driver = match parse_args() {
        Ok(driver) => driver,
        Err(e) => {
            eprintln!("rmcp-server: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match serve(driver).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(driver: Driver) -> Result<(), Box<dyn std::error::Error>> {
    let server = AddServer::new();
    let running = match driver {
        Driver::Stdio => server.serve(rmcp::transport::stdio()).await?,
        Driver::StdioPipes => server.serve(rmcp::transport::stdio_pipes()).await?,
    };
    running.waiting().await?;
    Ok(())
}
