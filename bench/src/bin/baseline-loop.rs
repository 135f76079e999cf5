//! `baseline-loop`: the "physical limit" for an MCP server on stdio.
//!
//! A single-threaded, hand-written newline-delimited JSON-RPC loop that does the least work a
//! correct server can do for the benchmark: it reads one line at a time through a `BufReader`,
//! parses it with `serde_json` (borrowing, no `Value` trees), answers `initialize`, `ping`,
//! `tools/list` and the `add` tool, and ignores notifications and responses. Output goes through
//! a `BufWriter` that is flushed only when no further input is already buffered, so a pipelined
//! burst of requests is answered with one `write(2)`.
//!
//! Anything an SDK does on top of this (routing, schema handling, task spawning, cross-thread
//! hand-offs) is overhead; the benchmark reports Ferrite as a fraction of this loop's throughput.

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader, BufWriter, Write};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The protocol version offered when the client asks for one this loop does not know.
const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// Protocol versions echoed back unchanged when a client requests them.
const KNOWN_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const PARSE_ERROR: i64 = -32700;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

/// The `tools/list` result: the `add` tool as described in `examples/SURFACE.md`.
const TOOLS_LIST_RESULT: &str = r#"{"tools":[{"name":"add","description":"Add two integers","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},"outputSchema":{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}}]}"#;

/// Any incoming JSON-RPC message. Only the fields the loop dispatches on are decoded; `params`
/// stays raw until the method is known.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct InitializeParams<'a> {
    #[serde(borrow, rename = "protocolVersion")]
    protocol_version: Cow<'a, str>,
}

#[derive(Deserialize)]
struct CallToolParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<AddArguments>,
}

#[derive(Deserialize)]
struct AddArguments {
    a: i64,
    b: i64,
}

#[derive(Serialize)]
struct Response<'a, T: Serialize> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: T,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: Option<&'a RawValue>,
    error: ErrorObject,
}

#[derive(Serialize)]
struct ErrorObject {
    code: i64,
    message: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult<'a> {
    protocol_version: &'a str,
    capabilities: Capabilities,
    server_info: ServerInfo,
}

#[derive(Serialize)]
struct Capabilities {
    tools: Empty,
}

#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
struct ServerInfo {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AddResult<'a> {
    content: [TextContent<'a>; 1],
    structured_content: AddOutput,
}

#[derive(Serialize)]
struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct AddOutput {
    sum: i64,
}

fn error(code: i64, message: impl Into<String>) -> ErrorObject {
    ErrorObject { code, message: message.into() }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut input = BufReader::with_capacity(64 * 1024, stdin.lock());
    let mut output = BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut line = Vec::with_capacity(4096);

    loop {
        // Flush only when the next read would block: a pipelined burst gets one write.
        if input.buffer().is_empty() {
            output.flush()?;
        }
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = line.trim_ascii();
        if !text.is_empty() {
            handle_line(text, &mut output)?;
        }
    }
    output.flush()
}

/// Parses one line and writes the response, if the message needs one. Only write failures are
/// returned; anything wrong with the message itself is answered with a JSON-RPC error.
fn handle_line(line: &[u8], out: &mut impl Write) -> io::Result<()> {
    let message: Incoming<'_> = match serde_json::from_slice(line) {
        Ok(message) => message,
        Err(e) => return write_error(out, None, error(PARSE_ERROR, e.to_string())),
    };
    let (Some(id), Some(method)) = (message.id, message.method.as_deref()) else {
        // Notifications (no id) and responses (no method) need no answer.
        return Ok(());
    };
    match method {
        "tools/call" => call_tool(out, id, message.params),
        "initialize" => initialize(out, id, message.params),
        "ping" => write_result(out, id, Empty {}),
        "tools/list" => match serde_json::from_str::<&RawValue>(TOOLS_LIST_RESULT) {
            Ok(result) => write_result(out, id, result),
            Err(e) => write_error(out, Some(id), error(INTERNAL_ERROR, e.to_string())),
        },
        other => {
            let message = format!("method not found: {other}");
            write_error(out, Some(id), error(METHOD_NOT_FOUND, message))
        }
    }
}

fn initialize(out: &mut impl Write, id: &RawValue, params: Option<&RawValue>) -> io::Result<()> {
    let requested = params.and_then(|p| serde_json::from_str::<InitializeParams<'_>>(p.get()).ok());
    let Some(requested) = requested else {
        let e = error(INVALID_PARAMS, "initialize needs params.protocolVersion");
        return write_error(out, Some(id), e);
    };
    let version = KNOWN_PROTOCOL_VERSIONS
        .iter()
        .find(|v| **v == requested.protocol_version)
        .copied()
        .unwrap_or(LATEST_PROTOCOL_VERSION);
    let result = InitializeResult {
        protocol_version: version,
        capabilities: Capabilities { tools: Empty {} },
        server_info: ServerInfo { name: "baseline-loop", version: env!("CARGO_PKG_VERSION") },
    };
    write_result(out, id, result)
}

fn call_tool(out: &mut impl Write, id: &RawValue, params: Option<&RawValue>) -> io::Result<()> {
    let params = match params.map(|p| serde_json::from_str::<CallToolParams<'_>>(p.get())) {
        Some(Ok(params)) => params,
        Some(Err(e)) => return write_error(out, Some(id), error(INVALID_PARAMS, e.to_string())),
        None => return write_error(out, Some(id), error(INVALID_PARAMS, "missing params")),
    };
    if params.name != "add" {
        let message = format!("unknown tool: {}", params.name);
        return write_error(out, Some(id), error(INVALID_PARAMS, message));
    }
    let Some(AddArguments { a, b }) = params.arguments else {
        let e = error(INVALID_PARAMS, "add needs arguments a and b");
        return write_error(out, Some(id), e);
    };
    let Some(sum) = a.checked_add(b) else {
        return write_error(out, Some(id), error(INVALID_PARAMS, "a + b overflows"));
    };
    let text = sum.to_string();
    let result =
        AddResult { content: [TextContent { kind: "text", text: &text }], structured_content: AddOutput { sum } };
    write_result(out, id, result)
}

fn write_result(out: &mut impl Write, id: &RawValue, result: impl Serialize) -> io::Result<()> {
    let response = Response { jsonrpc: "2.0", id, result };
    serde_json::to_writer(&mut *out, &response)?;
    out.write_all(b"\n")
}

fn write_error(out: &mut impl Write, id: Option<&RawValue>, error: ErrorObject) -> io::Result<()> {
    let response = ErrorResponse { jsonrpc: "2.0", id, error };
    serde_json::to_writer(&mut *out, &response)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn respond(line: &str) -> String {
        let mut out = Vec::new();
        handle_line(line.as_bytes(), &mut out).expect("writing to a Vec cannot fail");
        String::from_utf8(out).expect("responses are UTF-8")
    }

    #[test]
    fn tools_list_is_valid_json() {
        serde_json::from_str::<serde_json::Value>(TOOLS_LIST_RESULT).expect("valid JSON");
    }

    #[test]
    fn add_answers_text_and_structured_content() {
        let response = respond(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":-5}}}"#,
        );
        assert_eq!(
            response,
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"-3\"}],\"structuredContent\":{\"sum\":-3}}}\n"
        );
    }

    #[test]
    fn notifications_get_no_answer() {
        assert_eq!(respond(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), "");
    }

    #[test]
    fn garbage_gets_a_parse_error() {
        assert!(respond("{not json").contains("-32700"));
    }

    #[test]
    fn initialize_echoes_a_known_version() {
        let response = respond(
            r#"{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        assert!(response.contains(r#""protocolVersion":"2025-06-18""#));
        assert!(response.contains(r#""id":"x""#));
    }
}
