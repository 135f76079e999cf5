//! A protected MCP server: an OAuth 2.1 resource server with one scoped tool.
//!
//! ```text
//! FERRITE_AUTH_ISSUER=https://as.example FERRITE_AUTH_AUDIENCE=http://127.0.0.1:8000/mcp \
//! FERRITE_AUTH_JWKS_URL=https://as.example/jwks protected --port 8000
//! ```
//! Every request to `http://127.0.0.1:N/mcp` needs a bearer JWT signed by a key of the JWK Set,
//! issued by `FERRITE_AUTH_ISSUER` for the audience `FERRITE_AUTH_AUDIENCE` (this server's URL).
//! Without one the answer is 401 naming the Protected Resource Metadata, which tells the client
//! where to get a token. `whoami` needs the scope `mcp:whoami` (403 naming it otherwise) and
//! answers the token's subject. (`--auth` is accepted and changes nothing: the tests start every
//! protected server the same way.)

use ferrite_core::auth::{AuthConfig, ResourceServer};
use ferrite_core::transport::http;
use ferrite_core::{CallToolResult, Implementation, RequestContext, Server, Tool};
use serde_json::{json, Value};

const USAGE: &str =
    "usage: protected --port N [--auth] (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL)";

fn resource_server() -> Result<ResourceServer, String> {
    let var = |n: &str| std::env::var(n).map_err(|_| format!("{n} is not set"));
    let issuer = var("FERRITE_AUTH_ISSUER")?;
    let config = AuthConfig::from_value(json!({
        "resource": var("FERRITE_AUTH_AUDIENCE")?,
        "authorization_servers": [issuer],
        "tool_scopes": {"whoami": ["mcp:whoami"]},
        "jwt": {"issuer": issuer, "jwks_url": var("FERRITE_AUTH_JWKS_URL")?},
    }))
    .map_err(|e| e.to_string())?;
    ResourceServer::from_config(config).map_err(|e| e.to_string())
}

fn port() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    let mut port = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => {
                port = Some(args.next().ok_or("--port needs a value")?.parse().map_err(|e| format!("--port: {e}"))?)
            }
            "--auth" => {}
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    port.ok_or_else(|| "--port is required".to_owned())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (port, auth) = match port().and_then(|p| Ok((p, resource_server()?))) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("protected: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let server = Server::builder(Implementation::new("ferrite-protected", "0.1.0")).auth(auth).build();
    server.add_tool(
        Tool::new("whoami", json!({"type": "object"})).with_description("The subject of your access token"),
        |_args: Value, ctx: RequestContext| async move {
            Ok(CallToolResult::text(ctx.subject().unwrap_or_default().to_owned()))
        },
    )?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let bound = http::bind(&server, ([127, 0, 0, 1], port).into(), http::HttpOptions::default()).await?;
        eprintln!("protected: http://{}/mcp", bound.local_addr()?);
        bound.run().await?;
        Ok(())
    })
}
