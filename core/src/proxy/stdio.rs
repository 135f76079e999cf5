//! The upstream as a child process speaking MCP on its stdin and stdout (one JSON-RPC message
//! per line). Its stderr passes through to the proxy's. The child is killed when the proxy
//! is dropped or closed.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use super::link::{Link, Wire};
use crate::server::BoxFuture;
use crate::sync::lock;

struct StdioWire {
    lines: mpsc::UnboundedSender<String>,
    child: Mutex<Option<Child>>,
}

impl Wire for StdioWire {
    fn send(
        &self,
        _link: &Arc<Link>,
        frame: Value,
        _id: Option<i64>,
        _headers: &[(String, String)],
    ) -> BoxFuture<'static, Result<(), String>> {
        let sent = self.lines.send(frame.to_string()).map_err(|_| "the upstream process exited".to_owned());
        Box::pin(async move { sent })
    }

    fn close(&self) {
        if let Some(mut child) = lock(&self.child).take() {
            let _ = child.start_kill();
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Start `program` with `args` (and `env` added) and attach it to `link`.
pub(crate) fn spawn(link: &Arc<Link>, program: &str, args: &[String], env: &[(String, String)]) -> Result<(), String> {
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {program:?}: {e}"))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(format!("{program:?}: no pipes to the child"));
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        while let Some(mut line) = rx.recv().await {
            line.push('\n');
            if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                break;
            }
        }
    });
    let reader_link = Arc::downgrade(link);
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Some(link) = reader_link.upgrade() else { break };
            match serde_json::from_str::<Value>(&line) {
                Ok(msg) => link.incoming(msg, None),
                Err(e) => {
                    tracing::warn!(target: crate::diagnostics::target::HANDLER, "upstream sent a line that is not JSON: {e}")
                }
            }
        }
        if let Some(link) = reader_link.upgrade() {
            link.fail_all("the upstream process exited");
        }
    });
    link.set_wire(Box::new(StdioWire { lines: tx, child: Mutex::new(Some(child)) }));
    Ok(())
}
