//! The upstream as a child process speaking MCP on its stdin and stdout (one JSON-RPC message
//! per line). Its stderr passes through to the proxy's. The child is killed when the proxy
//! is closed or dropped.
//!
//! The child is started with `std::process` and its pipes are served by two threads of their
//! own: `tokio::process` would install a SIGCHLD handler, and a handler installed without
//! `SA_ONSTACK` crashes a Go host (and competes with Node's), so the proxy installs none.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};

use serde_json::Value;

use super::link::{Link, Wire};
use crate::server::BoxFuture;
use crate::sync::lock;

struct StdioWire {
    lines: Mutex<mpsc::Sender<String>>,
    child: Mutex<Option<Child>>,
}

impl StdioWire {
    fn stop(&self) {
        if let Some(mut child) = lock(&self.child).take() {
            let _ = child.kill();
            // Reaped on a thread of its own: the kill is immediate, the wait need not be.
            let _ = std::thread::Builder::new().name("ferrite-proxy-reap".into()).spawn(move || child.wait());
        }
    }
}

impl Wire for StdioWire {
    fn send(
        &self,
        _link: &Arc<Link>,
        frame: Value,
        _id: Option<i64>,
        _headers: &[(String, String)],
    ) -> BoxFuture<'static, Result<(), String>> {
        let sent = lock(&self.lines).send(frame.to_string()).map_err(|_| "the upstream process exited".to_owned());
        Box::pin(async move { sent })
    }

    fn close(&self) {
        self.stop();
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Drop for StdioWire {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Start `program` with `args` (and `env` added) and attach it to `link`. Must run inside
/// the Tokio runtime the link's work goes to.
pub(crate) fn spawn(link: &Arc<Link>, program: &str, args: &[String], env: &[(String, String)]) -> Result<(), String> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| "the proxy needs a Tokio runtime".to_owned())?;
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {program:?}: {e}"))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err(format!("{program:?}: no pipes to the child"));
    };
    let (tx, rx) = mpsc::channel::<String>();
    let writer = std::thread::Builder::new().name("ferrite-proxy-stdin".into()).spawn(move || {
        for mut line in rx {
            line.push('\n');
            if stdin.write_all(line.as_bytes()).and_then(|()| stdin.flush()).is_err() {
                break;
            }
        }
    });
    let reader_link = Arc::downgrade(link);
    let reader = std::thread::Builder::new().name("ferrite-proxy-stdout".into()).spawn(move || {
        // What the messages start (answering the upstream's requests) runs on the runtime.
        let _in_runtime = runtime.enter();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Some(link) = reader_link.upgrade() else { break };
            match serde_json::from_str::<Value>(&line) {
                Ok(msg) => link.incoming(msg, None),
                Err(e) => tracing::warn!(target: crate::diagnostics::target::HANDLER, "upstream sent a line that is not JSON: {e}"),
            }
        }
        if let Some(link) = reader_link.upgrade() {
            link.fail_all("the upstream process exited");
        }
    });
    if writer.is_err() || reader.is_err() {
        let _ = child.kill();
        let _ = child.wait();
        return Err("cannot start the threads that serve the child's pipes".to_owned());
    }
    link.set_wire(Box::new(StdioWire { lines: Mutex::new(tx), child: Mutex::new(Some(child)) }));
    Ok(())
}
