//! The stdio transport over in-memory pipes: concurrency, ordering, cancellation while a
//! handler runs, server-to-client requests, oversized lines, and shutdown.

use std::sync::Arc;
use std::time::Duration;

use ferrite_core::transport::stdio::{serve, StdioOptions};
use ferrite_core::{CallToolResult, CreateMessageParams, Implementation, LoggingLevel, RequestContext, Server, Tool};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::task::JoinHandle;

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    server: Option<JoinHandle<std::io::Result<()>>>,
}

impl Client {
    fn start(server: Server, options: StdioOptions) -> Client {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(server_side);
        let handle = tokio::spawn(async move { serve(&server, sr, sw, options).await });
        let (cr, cw) = tokio::io::split(client_side);
        Client { write: cw, lines: BufReader::new(cr).lines(), server: Some(handle) }
    }

    async fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string()).await;
    }

    async fn send_raw(&mut self, text: &str) {
        self.write.write_all(text.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("the server answers within 5 s")
            .unwrap()
            .expect("the server's output is still open");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"))
    }

    async fn handshake(&mut self, caps: Value) {
        self.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":caps,"clientInfo":{"name":"t","version":"1"}}})).await;
        let r = self.recv().await;
        assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
        self.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await;
    }

    async fn finish(mut self) {
        self.write.shutdown().await.unwrap();
        let server = self.server.take().unwrap();
        let r = tokio::time::timeout(Duration::from_secs(5), server).await.expect("the server stops at EOF");
        r.unwrap().unwrap();
    }
}

fn server() -> Server {
    let s = Server::builder(Implementation::new("stdio", "1")).stateful().build();
    s.enable_logging();
    s.add_tool(
        Tool::new("sleep", json!({"type":"object","properties":{"ms":{"type":"integer"}}})).with_description("sleeps"),
        |a: Value, ctx: RequestContext| async move {
            let ms = a["ms"].as_u64().unwrap_or(0);
            tokio::select! {
                _ = ctx.cancelled() => Ok(CallToolResult::text("cancelled")),
                _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(CallToolResult::text(format!("slept {ms}"))),
            }
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("chatty", json!({"type":"object"})).with_description("logs"),
        |_a: Value, ctx: RequestContext| async move {
            ctx.info("one");
            tokio::task::yield_now().await;
            ctx.info("two");
            Ok(CallToolResult::text("done"))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("ask", json!({"type":"object"})).with_description("samples"),
        |_a: Value, ctx: RequestContext| async move {
            let r = ctx.sample(CreateMessageParams::user_text("2+2?", 10)).await?;
            Ok(CallToolResult::text(format!("client said {}", r.text().unwrap_or(""))))
        },
    )
    .unwrap();
    s
}

#[tokio::test]
async fn a_slow_request_does_not_block_a_fast_one() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({})).await;
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1500}}}))
        .await;
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"ping"})).await;
    let first = c.recv().await;
    assert_eq!(first["id"], 2, "the ping overtakes the sleeping call");
    let second = c.recv().await;
    assert_eq!(second["id"], 1);
    assert_eq!(second["result"]["content"][0]["text"], "slept 1500");
    c.finish().await;
}

#[tokio::test]
async fn cancellation_reaches_a_running_handler_and_suppresses_its_response() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({})).await;
    c.send(
        json!({"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000}}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}})).await;
    c.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"})).await;
    let r = c.recv().await;
    assert_eq!(r["id"], 3, "no response for the cancelled request: {r}");
    // EOF: if the cancelled call were still running, finish() would wait for 60 s.
    c.finish().await;
}

#[tokio::test]
async fn handler_notifications_precede_the_response() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({})).await;
    c.send(json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"chatty"}})).await;
    let a = c.recv().await;
    let b = c.recv().await;
    let r = c.recv().await;
    assert_eq!(a["params"]["data"], "one");
    assert_eq!(b["params"]["data"], "two");
    assert_eq!(r["id"], 5);
    c.finish().await;
}

#[tokio::test]
async fn server_to_client_requests_are_correlated_with_the_reply() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({"sampling": {}})).await;
    c.send(json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask"}})).await;
    let req = c.recv().await;
    assert_eq!(req["method"], "sampling/createMessage");
    assert_eq!(req["params"]["maxTokens"], 10);
    let id = req["id"].clone();
    c.send(
        json!({"jsonrpc":"2.0","id":id,"result":{"role":"assistant","content":{"type":"text","text":"4"},"model":"m"}}),
    )
    .await;
    let r = c.recv().await;
    assert_eq!(r["id"], 7);
    assert_eq!(r["result"]["content"][0]["text"], "client said 4");
    c.finish().await;
}

#[tokio::test]
async fn a_server_request_given_up_by_its_cancelled_handler_is_cancelled_to_the_client() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({"sampling": {}})).await;
    c.send(json!({"jsonrpc":"2.0","id":"asking","method":"tools/call","params":{"name":"ask"}})).await;
    let req = c.recv().await;
    assert_eq!(req["method"], "sampling/createMessage");
    c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"asking"}})).await;
    let withdrawn = c.recv().await;
    assert_eq!(withdrawn["method"], "notifications/cancelled", "{withdrawn}");
    assert_eq!(withdrawn["params"]["requestId"], req["id"]);
    assert!(withdrawn.get("id").is_none(), "a notification: {withdrawn}");
    // A late answer to the withdrawn request is ignored; the server keeps serving.
    c.send(
        json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":{"type":"text","text":"4"},"model":"m"}}),
    )
    .await;
    c.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"})).await;
    let r = c.recv().await;
    assert_eq!(r["id"], 3, "no response to the cancelled call: {r}");
    c.finish().await;
}

#[tokio::test]
async fn sampling_without_the_client_capability_is_a_tool_error() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({})).await;
    c.send(json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ask"}})).await;
    let r = c.recv().await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("sampling"));
    c.finish().await;
}

#[tokio::test]
async fn pending_server_requests_fail_at_eof() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({"sampling": {}})).await;
    c.send(json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask"}})).await;
    let req = c.recv().await;
    assert_eq!(req["method"], "sampling/createMessage");
    // Close stdin without answering: the handler's wait ends and the server returns.
    c.finish().await;
}

#[tokio::test]
async fn an_oversized_line_is_refused_and_the_server_keeps_serving() {
    let opts = StdioOptions { max_line_bytes: 1024, ..Default::default() };
    let mut c = Client::start(server(), opts);
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(100_000));
    c.send_raw(&big).await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], Value::Null);
    assert!(r["error"]["message"].as_str().unwrap().contains("1024"));
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"ping"})).await;
    assert_eq!(c.recv().await["id"], 2);
    c.finish().await;
}

#[tokio::test]
async fn an_oversized_unterminated_line_at_eof_is_a_parse_error() {
    let opts = StdioOptions { max_line_bytes: 1024, ..Default::default() };
    let mut c = Client::start(server(), opts);
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await;
    assert_eq!(c.recv().await["id"], 1);
    // 64 KiB of an unterminated message, then EOF.
    c.write
        .write_all(
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"pad":"{}"#, "x".repeat(65_536)).as_bytes(),
        )
        .await
        .unwrap();
    c.write.shutdown().await.unwrap();
    let r = c.recv().await;
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32700)));
    let server = c.server.take().unwrap();
    tokio::time::timeout(Duration::from_secs(5), server).await.expect("the server stops at EOF").unwrap().unwrap();
}

#[tokio::test]
async fn bad_bytes_get_parse_errors_and_blank_lines_are_ignored() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.write.write_all(b"\xff\xfe\n\n   \n{oops\n").await.unwrap();
    let a = c.recv().await;
    let b = c.recv().await;
    assert_eq!(a["error"]["code"], -32700);
    assert_eq!(b["error"]["code"], -32700);
    c.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"})).await;
    assert_eq!(c.recv().await, json!({"jsonrpc":"2.0","id":3,"result":{}}));
    c.finish().await;
}

#[tokio::test]
async fn the_shutdown_token_stops_serving() {
    let opts = StdioOptions::default();
    let token = opts.shutdown.clone();
    let mut c = Client::start(server(), opts);
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await;
    assert_eq!(c.recv().await["id"], 1);
    token.cancel();
    let server = c.server.take().unwrap();
    tokio::time::timeout(Duration::from_secs(5), server).await.expect("stops").unwrap().unwrap();
}

#[tokio::test]
async fn many_concurrent_requests_all_get_answers() {
    let mut c = Client::start(server(), StdioOptions::default());
    c.handshake(json!({})).await;
    for i in 0..500 {
        c.send(
            json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"sleep","arguments":{"ms": i % 7}}}),
        )
        .await;
    }
    let mut seen = std::collections::HashSet::new();
    for _ in 0..500 {
        let r = c.recv().await;
        assert!(r["result"]["content"][0]["text"].as_str().unwrap().starts_with("slept"));
        seen.insert(r["id"].as_i64().unwrap());
    }
    assert_eq!(seen.len(), 500);
    c.finish().await;
}

// ----- 2026-07-28 over stdio -----

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

fn modern_server() -> Server {
    let s = server();
    s.enable_tools_list_changed();
    s
}

#[tokio::test]
async fn a_modern_client_is_served_and_the_process_keeps_its_era() {
    let mut c = Client::start(modern_server(), StdioOptions::default());
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": meta()}})).await;
    let r = c.recv().await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["supportedVersions"][0], "2026-07-28");
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1},"_meta": meta()}}))
        .await;
    assert_eq!(c.recv().await["result"]["content"][0]["text"], "slept 1");
    // The process speaks 2026-07-28 now: initialize names the revision it serves.
    c.send(json!({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})).await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["supported"], json!(["2026-07-28"]));
    // A request without the envelope gets the ladder's answer, with its id.
    c.send(json!({"jsonrpc":"2.0","id":4,"method":"tools/list"})).await;
    let r = c.recv().await;
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(4), json!(-32602)));
    c.finish().await;
}

#[tokio::test]
async fn a_handshake_process_refuses_a_modern_request() {
    let mut c = Client::start(modern_server(), StdioOptions::default());
    c.handshake(json!({})).await;
    c.send(json!({"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta": meta()}})).await;
    assert_eq!(c.recv().await["error"]["code"], -32600);
    c.finish().await;
}

#[tokio::test]
async fn a_listen_stream_over_stdio_ends_on_cancel_and_gracefully_at_eof() {
    let server = modern_server();
    let mut c = Client::start(server.clone(), StdioOptions::default());
    c.send(json!({"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta": meta()}}))
        .await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "l1");
    server.notify_tools_list_changed();
    let n = c.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "l1");
    // Cancelled by the client: no response, and the stream is gone.
    c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l1"}})).await;
    for _ in 0..200 {
        if server.listen_stream_count() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(server.listen_stream_count(), 0);
    // A second stream stays open until EOF, where it ends with the graceful result.
    c.send(json!({"jsonrpc":"2.0","id":"l2","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta": meta()}}))
        .await;
    assert_eq!(c.recv().await["method"], "notifications/subscriptions/acknowledged");
    c.write.shutdown().await.unwrap();
    let last = c.recv().await;
    assert_eq!(last["id"], "l2");
    assert_eq!(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "l2");
    let server_task = c.server.take().unwrap();
    tokio::time::timeout(Duration::from_secs(5), server_task).await.expect("stops at EOF").unwrap().unwrap();
}

#[tokio::test]
async fn at_the_connection_limit_stdio_stops_reading_instead_of_refusing() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let s = server();
    s.set_limits(ferrite_core::Limits { max_in_flight_per_connection: 2, ..Default::default() });
    let (now, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (n2, p2) = (now.clone(), peak.clone());
    s.add_tool(
        Tool::new("nap", json!({"type":"object"})).with_description("naps 30 ms"),
        move |_a: Value, _ctx: RequestContext| {
            let (now, peak) = (n2.clone(), p2.clone());
            async move {
                let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(running, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(30)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                Ok(CallToolResult::text("rested"))
            }
        },
    )
    .unwrap();
    let mut c = Client::start(s, StdioOptions::default());
    c.handshake(json!({})).await;
    for id in 1..=6 {
        c.send(json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"nap","arguments":{}}})).await;
    }
    let mut ids = Vec::new();
    for _ in 1..=6 {
        let r = c.recv().await;
        assert_eq!(r["result"]["content"][0]["text"], "rested", "{r}");
        ids.push(r["id"].as_i64().unwrap());
    }
    ids.sort();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6], "every call answered, none refused");
    assert_eq!(peak.load(Ordering::SeqCst), 2, "never more than the limit at once");
    c.finish().await;
}

#[tokio::test]
async fn a_line_nested_past_max_json_depth_gets_the_limit_s_parse_error_and_the_next_is_served() {
    let s = server();
    s.set_limits_json(json!({"maxJsonDepth": 8})).unwrap();
    let mut c = Client::start(s, StdioOptions::default());
    c.handshake(json!({})).await;
    // The envelope, params and arguments are three levels: 5 arrays more is 8, 6 is 9.
    let call = |id: i64, n: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":0,"x":{}1{}}}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    c.send_raw(&call(1, 6)).await;
    let refused = c.recv().await;
    assert_eq!(
        (refused["id"].clone(), refused["error"]["code"].clone(), refused["error"]["data"].clone()),
        (Value::Null, json!(-32700), json!({"limit": "max_json_depth", "value": 8}))
    );
    c.send_raw(&call(2, 5)).await;
    let served = c.recv().await;
    assert_eq!((served["id"].clone(), served["result"]["content"][0]["text"].clone()), (json!(2), json!("slept 0")));
    c.finish().await;
}

#[tokio::test]
async fn send_log_message_reaches_the_client_at_or_above_its_level_and_only_the_session_named() {
    let s = server();
    let mut c = Client::start(s.clone(), StdioOptions::default());
    c.handshake(json!({})).await;
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}})).await;
    assert_eq!(c.recv().await["id"], 1);
    let session = s.connected_sessions().pop().expect("the stdio connection listens");
    // Below the client's level, and for another session: nothing sent.
    assert_eq!(s.send_log_message(LoggingLevel::Info, json!("quiet"), None, None), 0);
    assert_eq!(s.send_log_message(LoggingLevel::Error, json!("elsewhere"), None, Some("no-such-session")), 0);
    assert_eq!(s.send_log_message(LoggingLevel::Warning, json!({"disk": "low"}), Some("ops"), Some(&session)), 1);
    assert_eq!(s.send_log_message(LoggingLevel::Error, json!("broken"), None, None), 1);
    let first = c.recv().await;
    assert_eq!(
        first,
        json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"disk":"low"},"logger":"ops"}})
    );
    assert_eq!(c.recv().await["params"], json!({"level":"error","data":"broken"}));
    // Without the logging capability nothing is sent.
    s.disable_logging();
    assert_eq!(s.send_log_message(LoggingLevel::Emergency, json!("off"), None, None), 0);
    c.finish().await;
}

#[tokio::test]
async fn a_hosts_run_waiting_runs_the_requests_that_wait_and_the_loop_waits_for_them_at_eof() {
    // The host runs what it is given as tasks of its own (here: tokio tasks it counts), and
    // tells the loop through the returned future when each is done.
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = ran.clone();
    let run: ferrite_core::transport::stdio::RunWaiting = Arc::new(move |work| {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let task = tokio::spawn(work);
        Box::pin(async move {
            let _ = task.await;
        })
    });
    let opts = StdioOptions { run_waiting: Some(run), ..Default::default() };
    let mut c = Client::start(server(), opts);
    c.handshake(json!({})).await;
    // A request that answers at once never reaches the host; two that wait do.
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await;
    assert_eq!(c.recv().await["id"], 1);
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0);
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":30}}})).await;
    c.send(json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":10}}})).await;
    // EOF with both running: the loop answers them before it returns.
    c.write.shutdown().await.unwrap();
    let mut answers = [c.recv().await, c.recv().await];
    answers.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(answers[0]["result"]["content"][0]["text"], "slept 30");
    assert_eq!(answers[1]["result"]["content"][0]["text"], "slept 10");
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 2);
    let server = c.server.take().unwrap();
    tokio::time::timeout(Duration::from_secs(5), server).await.expect("the server stops at EOF").unwrap().unwrap();
}
