//! The Rust everything server: the whole conformance fixture surface (see
//! `examples/SURFACE.md`), plus the `add` and `echo` tools the benchmarks call.
//!
//! Run it from the repository root with `cargo run --release --example everything`
//! (stdio). `--port N` serves Streamable HTTP on 127.0.0.1:N at `/mcp` instead
//! (`--legacy-sse` adds the deprecated 2024-11-05 HTTP+SSE endpoints `/sse` and
//! `/messages`); `--stateless` builds a stateless server. `--mount` (with `--port`) serves the
//! endpoint the way an application embeds it: mounted at `/mcp` in an axum app that also
//! answers `GET /health` and runs an auth-like middleware (an `x-user` header becomes the host
//! value `user`, which the `test_host_value` tool reads). `--auth` (HTTP) protects the server
//! as an OAuth resource server: tokens are JWTs of `FERRITE_AUTH_ISSUER` for the audience
//! `FERRITE_AUTH_AUDIENCE` (the server's URL), keys from `FERRITE_AUTH_JWKS_URL`; every MCP
//! request needs one, and the `whoami` tool (scope `mcp:whoami`) answers the token's subject.
//! Any other argument, or a flag without its value, prints the usage on stderr and exits with
//! status 2; `--help` prints it on stdout and exits 0. `--compose` serves the same through
//! composition: an empty server with everything mounted in it (no prefix), plus a second
//! server's `shout` tool mounted under the prefix `extra` (`extra_shout`). Both eras are served: the
//! handshake revisions and 2026-07-28 (fixtures in `everything/modern.rs`), and tasks of both
//! generations (`everything/tasks.rs`); the fault tools are in `everything/faults.rs`.
//! `FERRITE_HTTP_OPTIONS` (a JSON object of the core's HTTP options, e.g.
//! `{"session_idle_timeout_ms": 5000}`) is applied to its own listener (the soak's expiry run).

#[path = "everything/cli.rs"]
mod cli;
#[path = "everything/faults.rs"]
mod faults;
#[path = "everything/modern.rs"]
mod modern;
#[path = "everything/mounted.rs"]
mod mounted;
#[path = "everything/tasks.rs"]
mod tasks;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use ferrite_core::auth::ResourceServer;
use ferrite_core::server::middleware::{Answer, Middleware, MiddlewareRequest, Next};
use ferrite_core::server::TemplateVariables;
use ferrite_core::transport::{http, stdio};
use ferrite_core::{
    BoxFuture, CacheHint, CacheScope, CallToolResult, CompletionReference, Content, CreateMessageParams,
    GetPromptResult, HandlerError, Implementation, Prompt, PromptArgument, PromptMessage, ReadResourceResult,
    RequestContext, Resource, ResourceContents, ResourceTemplate, Role, Server, TaskOptions, Tool,
};
use serde_json::{json, Map, Value};

/// The largest integer magnitude `add` takes or answers: 2^53 - 1, what every JSON peer
/// (JavaScript's numbers included) reads exactly.
const MAX_EXACT: i64 = (1 << 53) - 1;

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// A short silent 8 kHz mono 16-bit WAV, base64.
fn wav_base64() -> String {
    let samples = 800u32; // 0.1 s
    let data_len = samples * 2;
    let mut b = Vec::with_capacity(44 + data_len as usize);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data_len).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&1u16.to_le_bytes()); // mono
    b.extend_from_slice(&8000u32.to_le_bytes());
    b.extend_from_slice(&16000u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data_len.to_le_bytes());
    b.resize(44 + data_len as usize, 0);
    base64::engine::general_purpose::STANDARD.encode(b)
}

// The typed layer derives echo's input schema from this struct (the doc comment becomes the
// schema's description): every surface lists exactly that schema.
/// The arguments of echo.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to echo back.
    text: String,
}

fn no_args() -> Value {
    Tool::no_arguments_schema()
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    Tool::new(name, schema).with_description(description)
}

fn fixed(result: CallToolResult) -> impl Fn(Value) -> Result<CallToolResult, HandlerError> + Send + Sync + 'static {
    move |_args| Ok(result.clone())
}

fn str_arg<'a>(args: &'a Value, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn register_tools(server: &Server) -> Result<(), Box<dyn std::error::Error>> {
    // First: clients may call the first listed tool with no arguments.
    server.add_tool_fn(
        tool("test_simple_text", "Returns a simple text response", no_args()),
        fixed(CallToolResult::text("This is a simple text response for testing.")),
    )?;
    server.add_tool(
        Tool::new(
            "add",
            json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
        )
        .with_description("Add two integers and return their sum")
        .with_output_schema(json!({"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]})),
        |args: Value, _ctx: RequestContext| async move {
            // Every surface adds the integers any JSON peer reads exactly (RFC 7493: magnitude
            // at most 2^53 - 1); an operand or a sum beyond them is the same tool error everywhere.
            let in_range = |n: &i64| (-MAX_EXACT..=MAX_EXACT).contains(n);
            let exact = |v: Option<&Value>| v.and_then(Value::as_i64).filter(in_range);
            let overflow = || HandlerError::failed("integer overflow");
            let (a, b) = (exact(args.get("a")).ok_or_else(overflow)?, exact(args.get("b")).ok_or_else(overflow)?);
            let sum = Some(a + b).filter(in_range).ok_or_else(overflow)?;
            Ok(CallToolResult {
                content: vec![Content::text(sum.to_string())],
                structured_content: Some(json!({ "sum": sum })),
                ..Default::default()
            })
        },
    )?;
    server.typed_tool("echo", "Echo the text back", |args: EchoArgs, _ctx| async move { Ok(args.text) })?;
    server.add_tool_fn(
        tool("test_image_content", "Returns an image (PNG)", no_args()),
        fixed(CallToolResult::success(vec![Content::image(PNG, "image/png")])),
    )?;
    server.add_tool_fn(
        tool("test_audio_content", "Returns audio (WAV)", no_args()),
        fixed(CallToolResult::success(vec![Content::audio(wav_base64(), "audio/wav")])),
    )?;
    server.add_tool_fn(
        tool("test_embedded_resource", "Returns an embedded resource", no_args()),
        fixed(CallToolResult::success(vec![Content::resource(ResourceContents::text(
            "test://embedded-resource",
            Some("text/plain"),
            "This is an embedded resource content.",
        ))])),
    )?;
    server.add_tool_fn(
        tool("test_multiple_content_types", "Returns text, an image and a resource", no_args()),
        fixed(CallToolResult::success(vec![
            Content::text("Multiple content types test:"),
            Content::image(PNG, "image/png"),
            Content::resource(ResourceContents::text(
                "test://mixed-content-resource",
                Some("application/json"),
                r#"{"test":"data","value":123}"#,
            )),
        ])),
    )?;
    server.add_tool(
        tool("test_tool_with_logging", "Logs three messages while it runs", no_args()),
        |_args: Value, ctx: RequestContext| async move {
            for (i, msg) in
                ["Tool execution started", "Tool processing data", "Tool execution completed"].iter().enumerate()
            {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.info(msg);
            }
            Ok(CallToolResult::text("Tool with logging executed successfully"))
        },
    )?;
    server.add_tool(
        tool("test_tool_with_progress", "Reports progress 0, 50, 100 of 100", no_args()),
        |_args: Value, ctx: RequestContext| async move {
            for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.report_progress(p, Some(100.0), None);
            }
            Ok(CallToolResult::text("Tool with progress executed successfully"))
        },
    )?;
    server.add_tool_fn(tool("test_error_handling", "Always fails with isError", no_args()), |_| {
        Err(HandlerError::failed("This tool intentionally returns an error for testing"))
    })?;
    server.add_tool(
        tool(
            "test_sampling",
            "Asks the client's LLM to answer a prompt",
            json!({"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send"}},"required":["prompt"]}),
        ),
        |args: Value, ctx: RequestContext| async move {
            let reply = ctx.sample(CreateMessageParams::user_text(str_arg(&args, "prompt"), 100)).await?;
            Ok(CallToolResult::text(format!("LLM response: {}", reply.text().unwrap_or_default())))
        },
    )?;
    server.add_tool(
        tool(
            "test_elicitation",
            "Asks the user for a username and an email",
            json!({"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}),
        ),
        |args: Value, ctx: RequestContext| async move {
            let schema = json!({
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}
                },
                "required": ["username", "email"]
            });
            let r = ctx.elicit(str_arg(&args, "message"), schema).await?;
            let action = serde_json::to_value(r.action).unwrap_or_default();
            let content = r.content.map(Value::Object).unwrap_or(Value::Null);
            Ok(CallToolResult::text(format!("User response: {} {}", action.as_str().unwrap_or_default(), content)))
        },
    )?;
    let elicit_form = |description: &'static str, message: &'static str, schema: Value| {
        move |_args: Value, ctx: RequestContext| {
            let schema = schema.clone();
            async move {
                let r = ctx.elicit(message, schema).await?;
                let action = serde_json::to_value(r.action).unwrap_or_default();
                let content = r.content.map(Value::Object).unwrap_or_else(|| Value::Object(Map::new()));
                let _ = description;
                Ok(CallToolResult::text(format!(
                    "Elicitation completed: action={}, content={}",
                    action.as_str().unwrap_or_default(),
                    content
                )))
            }
        }
    };
    server.add_tool(
        tool("test_elicitation_sep1034_defaults", "Elicits fields with default values (SEP-1034)", no_args()),
        elicit_form(
            "defaults",
            "Please review and update the form fields with defaults",
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "description": "Verification status", "default": true}
                },
                "required": []
            }),
        ),
    )?;
    server.add_tool(
        tool("test_elicitation_sep1330_enums", "Elicits every enum schema variant (SEP-1330)", no_args()),
        elicit_form(
            "enums",
            "Please select options from the enum fields",
            json!({
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]},
                    "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                    "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]}}
                },
                "required": []
            }),
        ),
    )?;
    server.add_tool(
        tool(
            "json_schema_2020_12_tool",
            "A tool whose input schema uses JSON Schema 2020-12 features",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "$anchor": "addressDef",
                        "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                    }
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
        ),
        |args: Value, _ctx: RequestContext| async move {
            Ok(CallToolResult::text(format!("JSON Schema 2020-12 tool called with: {args}")))
        },
    )?;
    server.add_tool(
        tool(
            "test_reconnection",
            "Closes the SSE stream mid-call (HTTP); the result arrives after the client reconnects",
            no_args(),
        ),
        |_args: Value, ctx: RequestContext| async move {
            if ctx.close_sse_stream(Some(Duration::from_millis(200))) {
                // Give the client time to notice the closed stream and reconnect.
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Ok(CallToolResult::text("Reconnection test completed"))
        },
    )?;
    let cancelled = Arc::new(AtomicU64::new(0));
    let counter = cancelled.clone();
    server.add_tool(
        tool(
            "test_slow",
            "Waits ms milliseconds, stopping early when cancelled",
            json!({"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}),
        ),
        move |args: Value, ctx: RequestContext| {
            let counter = counter.clone();
            async move {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
                while tokio::time::Instant::now() < deadline {
                    if ctx.is_cancelled() {
                        counter.fetch_add(1, Ordering::SeqCst);
                        return Ok(CallToolResult::text("cancelled"));
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Ok(CallToolResult::text(format!("completed after {ms} ms")))
            }
        },
    )?;
    let count = cancelled.clone();
    server.add_tool_fn(
        tool(
            "test_cancellation_count",
            "How many test_slow and test_fault_hang calls observed cancellation",
            no_args(),
        ),
        move |_| Ok(CallToolResult::text(count.load(Ordering::SeqCst).to_string())),
    )?;
    faults::register(server, cancelled)?;
    Ok(())
}

fn register_resources(server: &Server) -> Result<(), Box<dyn std::error::Error>> {
    server.add_text_resource(
        Resource::new("test://static-text", "static-text")
            .with_description("A static text resource")
            .with_mime_type("text/plain"),
        "This is the content of the static text resource.",
    );
    server.add_resource(
        Resource::new("test://static-binary", "static-binary")
            .with_description("A static PNG image")
            .with_mime_type("image/png"),
        |uri: String, _vars: TemplateVariables, _ctx: RequestContext| async move {
            Ok(ReadResourceResult { contents: vec![ResourceContents::blob(uri, Some("image/png"), PNG)], meta: None })
        },
    );
    server.add_text_resource(
        Resource::new("test://watched-resource", "watched-resource")
            .with_description("A resource clients can subscribe to")
            .with_mime_type("text/plain"),
        "Watched resource content",
    );
    server.add_resource_template(
        ResourceTemplate::new("test://template/{id}/data", "template")
            .with_description("Data for an id")
            .with_mime_type("application/json"),
        |uri: String, vars: TemplateVariables, _ctx: RequestContext| async move {
            let id = vars.get("id").cloned().unwrap_or_default();
            // The keys in the order examples/SURFACE.md gives (a `json!` map would sort them).
            let text =
                format!(r#"{{"id":{},"templateTest":true,"data":{}}}"#, json!(id), json!(format!("Data for ID: {id}")));
            Ok(ReadResourceResult {
                contents: vec![ResourceContents::text(uri, Some("application/json"), text)],
                meta: None,
            })
        },
    )?;
    Ok(())
}

fn register_prompts(server: &Server) {
    server.add_prompt(
        Prompt::new("test_simple_prompt").with_description("A simple prompt without arguments"),
        |_args: Map<String, Value>, _ctx: RequestContext| async move {
            Ok(GetPromptResult {
                messages: vec![PromptMessage::user_text("This is a simple prompt for testing.")],
                ..Default::default()
            })
        },
    );
    server.add_prompt(
        Prompt::new("test_prompt_with_arguments").with_description("A prompt with two arguments").with_arguments(vec![
            PromptArgument::new("arg1", Some("First test argument"), true),
            PromptArgument::new("arg2", Some("Second test argument"), true),
        ]),
        |args: Map<String, Value>, _ctx: RequestContext| async move {
            let get = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", get("arg1"), get("arg2"));
            Ok(GetPromptResult { messages: vec![PromptMessage::user_text(text)], ..Default::default() })
        },
    );
    server.add_prompt(
        Prompt::new("test_prompt_with_embedded_resource")
            .with_description("A prompt that embeds a resource")
            .with_arguments(vec![PromptArgument::new("resourceUri", Some("URI of the resource to embed"), true)]),
        |args: Map<String, Value>, _ctx: RequestContext| async move {
            let uri = args.get("resourceUri").and_then(Value::as_str).unwrap_or_default();
            Ok(GetPromptResult {
                messages: vec![
                    PromptMessage {
                        role: Role::User,
                        content: Content::resource(ResourceContents::text(
                            uri,
                            Some("text/plain"),
                            "Embedded resource content for testing.",
                        )),
                    },
                    PromptMessage::user_text("Please process the embedded resource above."),
                ],
                ..Default::default()
            })
        },
    );
    server.add_prompt(
        Prompt::new("test_prompt_with_image").with_description("A prompt with an image"),
        |_args: Map<String, Value>, _ctx: RequestContext| async move {
            Ok(GetPromptResult {
                messages: vec![
                    PromptMessage { role: Role::User, content: Content::image(PNG, "image/png") },
                    PromptMessage::user_text("Please analyze the image above."),
                ],
                ..Default::default()
            })
        },
    );
    server.set_argument_candidates(
        CompletionReference::Prompt { name: "test_prompt_with_arguments".into() },
        "arg1",
        ["paris", "park", "party", "pasta", "zebra"].map(String::from).to_vec(),
    );
}

/// A middleware that only runs the rest of the chain.
struct PassThrough;

impl Middleware for PassThrough {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        next.run(request)
    }
}

/// Build the everything server.
fn build(
    stateless: bool,
    auth: Option<ResourceServer>,
    task_ttl: Option<std::time::Duration>,
    compose: bool,
) -> Result<Server, Box<dyn std::error::Error>> {
    let info = Implementation::new("ferrite-everything", "0.1.0");
    let mut builder =
        Server::builder(info).instructions("Ferrite's everything server: the MCP conformance fixture surface.");
    let protected = auth.is_some();
    if let Some(rs) = auth {
        builder = builder.auth(rs);
    }
    if let Some(ttl) = task_ttl {
        builder = builder.tasks(TaskOptions { default_ttl: ttl, ..TaskOptions::default() });
    }
    let builder = if stateless { builder.stateless() } else { builder.stateful() };
    let parent = builder.clone();
    let server = builder.build();
    register_tools(&server)?;
    register_resources(&server)?;
    register_prompts(&server);
    modern::register(&server)?;
    tasks::register(&server)?;
    if protected {
        server.add_tool(
            Tool::new("whoami", json!({"type": "object", "additionalProperties": false}))
                .with_description("Answers the subject of the caller's access token (needs scope mcp:whoami)"),
            |_args: Value, ctx: RequestContext| async move {
                Ok(CallToolResult::text(ctx.subject().unwrap_or_default().to_owned()))
            },
        )?;
    }
    server.enable_logging();
    // Handshake-era sessions subscribe with resources/subscribe; 2026-07-28 clients (any
    // mode) through listen streams.
    server.enable_resource_subscriptions()?;
    // A static resource may be cached by anyone for a minute (2026-07-28 cache hints).
    server.set_resource_cache_hint("test://static-text", CacheHint::new(60_000, CacheScope::Public))?;
    if !compose {
        return Ok(server);
    }
    // Composed: an empty server of the same identity serves all of the above through a
    // mount without a prefix, and one more server's tool under the prefix `extra`.
    let parent = parent.build();
    parent.mount("", &server)?;
    let extra = Server::new("ferrite-everything-extra", "0.1.0");
    extra.add_tool_fn(
        tool(
            "shout",
            "Echoes the text in capitals",
            json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
        ),
        |args| Ok(CallToolResult::text(str_arg(&args, "text").to_uppercase())),
    )?;
    parent.mount("extra", &extra)?;
    Ok(parent)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = match cli::parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{}", cli::USAGE);
            return Ok(());
        }
        Err(e) => {
            eprintln!("everything: {e}\n{}", cli::USAGE);
            std::process::exit(2);
        }
    };
    let (stateless, port) = (args.stateless, args.port);
    let auth = if args.auth {
        match cli::auth_from_env() {
            Ok(rs) => Some(rs),
            Err(e) => {
                eprintln!("everything: {e}");
                std::process::exit(2);
            }
        }
    } else {
        None
    };
    let server = build(stateless, auth, args.task_ttl, args.compose)?;
    if args.mount {
        server.add_tool(
            Tool::new("test_host_value", json!({"type": "object", "additionalProperties": false}))
                .with_description("Reads the user the host app's middleware attached"),
            |_args: Value, ctx: RequestContext| async move {
                let user = ctx.host_value("user").and_then(Value::as_str).unwrap_or("nobody").to_owned();
                Ok(CallToolResult::text(format!("user: {user}")))
            },
        )?;
    }
    let runtime = if std::env::var_os("FERRITE_CURRENT_THREAD").is_some() {
        tokio::runtime::Builder::new_current_thread().enable_all().build()?
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?
    };
    if std::env::var_os("FERRITE_PASSTHROUGH_MIDDLEWARE").is_some() {
        // The smallest chain: one middleware that only runs the rest (the benchmarks' cost of
        // middleware per request).
        server.add_middleware(PassThrough);
    }
    if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some() {
        // Spans and metrics over OTLP/HTTP, configured by the OTEL_* variables.
        server.enable_telemetry()?;
    }
    if let Ok(keys) = std::env::var("FERRITE_REQUEST_STATE_KEYS") {
        // Every instance of a fleet seals with the same current key and accepts the previous
        // ones (rotation: add the new key in front, drop the oldest after the state ttl).
        let mut keys = keys.split(',').map(ferrite_core::request_state::SealingKey::parse);
        let current = keys.next().ok_or("FERRITE_REQUEST_STATE_KEYS is empty")??;
        server.set_request_state_keys(current, keys.collect::<Result<_, _>>()?);
    }
    if let Some(url) = &args.redis {
        let prefix = std::env::var("FERRITE_REDIS_PREFIX").unwrap_or_else(|_| "ferrite:".to_owned());
        let _in_runtime = runtime.enter();
        server.use_redis(url, &prefix)?;
    }
    match port {
        // Serve from a worker thread, where the I/O driver runs: no hand-off per message.
        None => {
            runtime.block_on(async move { tokio::spawn(async move { stdio::serve_stdio(&server).await }).await })??
        }
        Some(port) if args.mount => runtime.block_on(mounted::mounted(server, port))?,
        Some(port) => runtime.block_on(async {
            let shutdown = http::HttpOptions::default().shutdown;
            let legacy_sse = args.legacy_sse;
            let mut options = http::HttpOptions { shutdown: shutdown.clone(), legacy_sse, ..Default::default() };
            if let Ok(json) = std::env::var("FERRITE_HTTP_OPTIONS") {
                let bad =
                    |e: http::HttpConfigError| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string());
                http::HttpConfig::from_json(&json).map_err(bad)?.apply(&mut options).map_err(bad)?;
            }
            let bound = http::bind(&server, ([127, 0, 0, 1], port).into(), options).await?;
            eprintln!("everything: Streamable HTTP on http://{}/mcp", bound.local_addr()?);
            tokio::spawn(async move {
                let _ = tokio::signal::ctrl_c().await;
                shutdown.cancel();
            });
            bound.run().await
        })?,
    }
    ferrite_core::telemetry::shutdown();
    Ok(())
}
