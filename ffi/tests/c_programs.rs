//! The C test programs in `tests/c/`, compiled with gcc against `include/ferrite.h` and the
//! `libferrite.so` cargo just built (with the `testing` feature), and run: once through
//! `ferrite_server_handle_raw` (the program checks itself, Streamable HTTP on a loopback port
//! included), and once serving stdio with a client played by this test.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The directory holding libferrite.so: the profile directory above this test's `deps/`.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>").to_path_buf()
}

/// Compile the C test program (`tests/c/abi_test.c`, `abi_handlers.c`, `abi_checks.c`,
/// `abi_modern.c`, `abi_http.c`, `abi_parity.c` (with `abi_context.c` and `abi_wire.c`),
/// `abi_auth.c`, `abi_mount.c`, `abi_tasks.c`, `abi_elicit.c`, `abi_limits.c`, `abi_middleware.c`
/// and `abi_compose.c`, with `abi_frames.c`, the helpers the task, elicitation, limit and parity
/// checks share, and `abi_jwt.c`, which mints the
/// JWTs of `abi_auth.c` with keys generated per run by the system's libcrypto) once per test run.
fn abi_test_binary() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let lib = lib_dir();
        assert!(lib.join("libferrite.so").exists(), "libferrite.so not found in {}", lib.display());
        let out = lib.join("c-tests");
        std::fs::create_dir_all(&out).expect("create the C test output directory");
        let bin = out.join("abi_test");
        let status = Command::new("gcc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g"])
            .arg("-I")
            .arg(repo_root().join("include"))
            .arg(repo_root().join("tests/c/abi_test.c"))
            .arg(repo_root().join("tests/c/abi_handlers.c"))
            .arg(repo_root().join("tests/c/abi_checks.c"))
            .arg(repo_root().join("tests/c/abi_modern.c"))
            .arg(repo_root().join("tests/c/abi_http.c"))
            .arg(repo_root().join("tests/c/abi_parity.c"))
            .arg(repo_root().join("tests/c/abi_context.c"))
            .arg(repo_root().join("tests/c/abi_wire.c"))
            .arg(repo_root().join("tests/c/abi_auth.c"))
            .arg(repo_root().join("tests/c/abi_mount.c"))
            .arg(repo_root().join("tests/c/abi_tasks.c"))
            .arg(repo_root().join("tests/c/abi_elicit.c"))
            .arg(repo_root().join("tests/c/abi_limits.c"))
            .arg(repo_root().join("tests/c/abi_middleware.c"))
            .arg(repo_root().join("tests/c/abi_compose.c"))
            .arg(repo_root().join("tests/c/abi_frames.c"))
            .arg(repo_root().join("tests/c/abi_jwt.c"))
            .arg("-o")
            .arg(&bin)
            .arg("-L")
            .arg(&lib)
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .args(["-lferrite", "-lcrypto", "-lpthread", "-ldl", "-lm"])
            .status()
            .expect("run gcc");
        assert!(status.success(), "gcc failed to build the C test program in tests/c/");
        bin
    })
}

#[test]
fn c_program_passes_its_handle_raw_checks() {
    let out = Command::new(abi_test_binary()).env("RUST_BACKTRACE", "0").output().expect("run abi_test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(out.status.success(), "abi_test failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(" checks, 0 failed"), "abi_test did not report its summary:\n{stdout}");
}

/// Reads lines from the server with a deadline, so a hang fails the test instead of blocking it.
struct Lines {
    rx: std::sync::mpsc::Receiver<String>,
}

impl Lines {
    fn until(&self, what: &str, pred: impl Fn(&serde_json::Value) -> bool) -> Vec<serde_json::Value> {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line =
                self.rx.recv_timeout(left).unwrap_or_else(|_| panic!("timed out waiting for {what}; saw {seen:?}"));
            let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad line {line:?}: {e}"));
            let done = pred(&v);
            seen.push(v);
            if done {
                return seen;
            }
        }
    }
}

#[test]
fn c_program_serves_stdio() {
    let mut child = Command::new(abi_test_binary())
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn abi_test serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let lines = Lines { rx };
    let mut send = |text: &str| {
        stdin
            .write_all(text.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush())
            .expect("write");
    };
    let is_id = |id: i64| move |v: &serde_json::Value| v["id"] == id;

    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
    );
    let init = lines.until("initialize", is_id(1));
    assert_eq!(init.last().unwrap()["result"]["serverInfo"]["name"], "abi-test");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    // The pending tool logs from its own thread, then completes: both must arrive, in order.
    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"later","arguments":{}}}"#);
    send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22}}}"#);
    let mut seen = lines.until("both results", |v| v["id"] == 2);
    if !seen.iter().any(|v| v["id"] == 3) {
        seen.extend(lines.until("add", is_id(3)));
    }
    let log = seen.iter().position(|v| v["method"] == "notifications/message").expect("the log notification arrived");
    let later = seen.iter().position(|v| v["id"] == 2).expect("later answered");
    assert!(log < later, "the log notification precedes the response: {seen:?}");
    assert_eq!(seen[log]["params"]["data"], "working in another thread");
    assert_eq!(seen[later]["result"]["content"][0]["text"], "completed later");
    let add = seen.iter().find(|v| v["id"] == 3).expect("add answered");
    assert_eq!(add["result"]["structuredContent"]["sum"], 42);

    // Over stdio there is no HTTP request: the request info is absent (NULL).
    send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"request_info","arguments":{}}}"#);
    let info = lines.until("request_info", is_id(4));
    assert_eq!(
        info.last().unwrap()["result"]["content"][0]["text"],
        "null",
        "ferrite_request_info over stdio is NULL: {info:?}"
    );

    drop(stdin); // EOF: serve_stdio returns, the program closes the server and exits
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(Instant::now() < deadline, "the server did not exit after EOF");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "abi_test serve exited with {status}");
}

#[test]
fn closing_from_another_thread_stops_serve_stdio() {
    let mut child = Command::new(abi_test_binary())
        .arg("serve-until-close")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn abi_test serve-until-close");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    writeln!(stdin, "{init}").and_then(|_| stdin.flush()).expect("write initialize");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("read the initialize response");
    assert!(line.contains("\"serverInfo\""), "unexpected response {line:?}");
    // The observer sees this and the main thread closes the server; stdin stays open.
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/test/close"}}"#)
        .and_then(|_| stdin.flush())
        .expect("write the close trigger");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(Instant::now() < deadline, "ferrite_server_close did not stop serve_stdio");
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    assert!(status.success(), "serve_stdio did not return CLOSED after close (exit {status})");
}
