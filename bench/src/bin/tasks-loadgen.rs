//! The tasks benchmark (issue 12): N tasks created over Streamable HTTP at 2026-07-28 (the
//! tasks extension declared on every request), then polled with `tasks/get` until every one
//! has completed, with the server's resident memory before, after the tasks ran, and after
//! their ttl passed (when the store should have let them go).
//!
//! usage: tasks-loadgen [--tasks N] [--workers W] [--ttl-ms T] [--port P] -- <server command>
//!
//! The server command gets `--port P --task-ttl-ms T` appended and must be an everything
//! server with the `slow_compute` fixture (examples/SURFACE.md). Prints one line per phase and
//! checks every answer: a create must be `resultType: "task"`, every task must end
//! `completed` with the fixture's text, and after the ttl the first task must be gone
//! (`-32602`).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Args {
    tasks: usize,
    workers: usize,
    ttl_ms: u64,
    port: u16,
    command: Vec<String>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args { tasks: 10_000, workers: 64, ttl_ms: 5_000, port: 39_517, command: Vec::new() };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut num = |name: &str| -> Result<u64, String> {
            it.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--tasks" => a.tasks = num("--tasks")? as usize,
            "--workers" => a.workers = (num("--workers")? as usize).max(1),
            "--ttl-ms" => a.ttl_ms = num("--ttl-ms")?.max(1),
            "--port" => a.port = u16::try_from(num("--port")?).map_err(|_| "--port: not a port")?,
            "--" => {
                a.command = it.by_ref().collect();
                break;
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if a.command.is_empty() {
        return Err("usage: tasks-loadgen [--tasks N] [--workers W] [--ttl-ms T] [--port P] -- <server command>".into());
    }
    Ok(a)
}

/// One keep-alive HTTP/1.1 connection speaking 2026-07-28 to `/mcp`.
struct Conn {
    reader: BufReader<TcpStream>,
    next_id: u64,
}

impl Conn {
    fn open(port: u16) -> Result<Conn, String> {
        let s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        Ok(Conn { reader: BufReader::new(s), next_id: 1 })
    }

    /// One request; the parsed JSON-RPC response.
    fn call(&mut self, method: &str, name: &str, mut params: Value) -> Result<Value, String> {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "tasks-loadgen", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        });
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).to_string();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: {method}\r\nmcp-name: {name}\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let s = self.reader.get_mut();
        s.write_all(head.as_bytes()).and_then(|()| s.write_all(body.as_bytes())).map_err(|e| format!("write: {e}"))?;
        let mut length = None;
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).map_err(|e| format!("read: {e}"))?;
            if line.is_empty() {
                return Err("the server closed the connection".into());
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse::<usize>().ok();
                }
            }
        }
        let mut buf = vec![0; length.ok_or("a response without content-length")?];
        self.reader.read_exact(&mut buf).map_err(|e| format!("read body: {e}"))?;
        serde_json::from_slice(&buf).map_err(|e| format!("bad JSON: {e}"))
    }
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Run `each(conn, i)` for i in 0..n over `workers` threads, each with its own connection.
fn fan_out<T: Send + 'static>(
    port: u16,
    n: usize,
    workers: usize,
    each: impl Fn(&mut Conn, usize) -> Result<T, String> + Send + Sync + 'static,
) -> Result<Vec<T>, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let each = Arc::new(each);
    let handles: Vec<_> = (0..workers.min(n.max(1)))
        .map(|_| {
            let (next, each) = (next.clone(), each.clone());
            std::thread::spawn(move || -> Result<Vec<(usize, T)>, String> {
                let mut conn = Conn::open(port)?;
                let mut out = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        return Ok(out);
                    }
                    out.push((i, each(&mut conn, i)?));
                }
            })
        })
        .collect();
    let mut all = Vec::with_capacity(n);
    for h in handles {
        all.extend(h.join().map_err(|_| "a worker panicked".to_string())??);
    }
    all.sort_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, t)| t).collect())
}

fn create(conn: &mut Conn, i: usize) -> Result<String, String> {
    let r = conn.call("tools/call", "slow_compute", json!({"name": "slow_compute", "arguments": {"seconds": 0.15, "label": format!("t{i}")}}))?;
    if r["result"]["resultType"] != "task" {
        return Err(format!("task {i} was not created as a task: {r}"));
    }
    r["result"]["taskId"].as_str().map(str::to_owned).ok_or_else(|| format!("no taskId: {r}"))
}

fn run(args: &Args, child: &mut Child) -> Result<(), String> {
    let pid = child.id();
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", args.port)).is_err() {
        if started.elapsed() > Duration::from_secs(20) || child.try_wait().ok().flatten().is_some() {
            return Err("the server did not open its port".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut probe = Conn::open(args.port)?;
    probe.call("server/discover", "", json!({}))?;
    let before = rss_kib(pid);
    println!("rss before: {before} KiB");

    // Two waves: the second shows whether the memory the first left behind is reused (the
    // store let its tasks go; the allocator keeps pages) or grows.
    for wave in 1..=2 {
        self::wave(args, pid, wave, before, &mut probe)?;
    }
    Ok(())
}

fn wave(args: &Args, pid: u32, wave: u32, before: u64, probe: &mut Conn) -> Result<(), String> {
    let t = Instant::now();
    let ids = Arc::new(fan_out(args.port, args.tasks, args.workers, create)?);
    let created = t.elapsed();
    println!(
        "wave {wave}: created {} tasks in {:.2} s ({:.0} creates/s, {} workers); rss {} KiB",
        ids.len(),
        created.as_secs_f64(),
        ids.len() as f64 / created.as_secs_f64(),
        args.workers,
        rss_kib(pid)
    );

    let t = Instant::now();
    let polls = Arc::new(AtomicUsize::new(0));
    let (ids2, polls2) = (ids.clone(), polls.clone());
    fan_out(args.port, ids.len(), args.workers, move |conn, i| {
        let id = &ids2[i];
        loop {
            polls2.fetch_add(1, Ordering::Relaxed);
            let r = conn.call("tasks/get", id, json!({"taskId": id}))?;
            match r["result"]["status"].as_str() {
                Some("completed") => {
                    let text = &r["result"]["result"]["content"][0]["text"];
                    return if text == &json!(format!("t{i}: computed for 0.15 s")) { Ok(()) } else { Err(format!("task {i}: {r}")) };
                }
                Some("working") => std::thread::sleep(Duration::from_millis(20)),
                _ => return Err(format!("task {i} ended otherwise: {r}")),
            }
        }
    })?;
    let polled = t.elapsed();
    let after = rss_kib(pid);
    println!(
        "wave {wave}: all {} completed; {} tasks/get in {:.2} s ({:.0} gets/s); rss {after} KiB ({:+} KiB from before the first wave, {:.0} B/task)",
        ids.len(),
        polls.load(Ordering::Relaxed),
        polled.as_secs_f64(),
        polls.load(Ordering::Relaxed) as f64 / polled.as_secs_f64(),
        after as i64 - before as i64,
        (after as f64 - before as f64) * 1024.0 / ids.len().max(1) as f64,
    );

    // After the ttl (and the sweep a write triggers at most once a second) the store lets go.
    std::thread::sleep(Duration::from_millis(args.ttl_ms + 1_200));
    create(probe, 0)?;
    let gone = probe.call("tasks/get", &ids[0], json!({"taskId": ids[0]}))?;
    if gone["error"]["code"] != -32602 {
        return Err(format!("the first task is still there after its ttl: {gone}"));
    }
    std::thread::sleep(Duration::from_millis(300));
    let swept = rss_kib(pid);
    println!(
        "wave {wave}: after the ttl ({} ms) the first task is gone (-32602); rss {swept} KiB ({:+} KiB from before the first wave)",
        args.ttl_ms,
        swept as i64 - before as i64
    );
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tasks-loadgen: {e}");
            return ExitCode::from(2);
        }
    };
    let spawned = Command::new(&args.command[0])
        .args(&args.command[1..])
        .args(["--port", &args.port.to_string(), "--task-ttl-ms", &args.ttl_ms.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tasks-loadgen: cannot start {:?}: {e}", args.command[0]);
            return ExitCode::FAILURE;
        }
    };
    let result = run(&args, &mut child);
    // The whole process group: a server command may be a script with children (a fleet).
    if let Ok(pgid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
    }
    std::thread::sleep(Duration::from_millis(200));
    let _ = child.kill();
    let _ = child.wait();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tasks-loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}
