//! `ferrite_server`: a core [`Server`] plus the tokio runtime that drives it.
//!
//! Each server owns one multi-threaded runtime, so a host needs no async machinery: the
//! blocking entry points (`handle_raw`, `serve_stdio`, `serve_http`) spawn their work on it
//! and wait on a plain channel, and every host callback runs on one of its worker threads.
//! (Serving from a worker matters: tokio's I/O driver runs there, so reading a message costs
//! no thread hand-off.) `ferrite_server_close` cancels serving, shuts the runtime down
//! (dropping every in-flight task), then drops the core server, which drops every handler and
//! so runs every finalizer, once, on the closing thread.
//!
//! This module holds the handle's life and the ways in (in-process text, stdio); `options`
//! holds the server's settings (capabilities, validation, pagination, the tool listing),
//! `limits` what peers can make it run (batch length, requests in flight), `tasks` how it
//! runs tasks, and `notify` what the server sends on its own (broadcasts,
//! `ping`, the end of a URL elicitation).

mod fleet;
mod limits;
mod notify;
mod options;
mod tasks;

use std::ffi::c_char;
use std::sync::{mpsc, Arc, Condvar, Mutex, RwLock};
use std::time::Duration;

use ferrite_core::auth::ResourceServer;
use ferrite_core::sync::{lock, read, write};
use ferrite_core::transport::stdio::{self, StdioOptions};
use ferrite_core::{Implementation, Server, ServerMode};
use tokio::runtime::{Handle, Runtime};
use tokio_util::sync::CancellationToken;

use crate::auth::ferrite_auth;
use crate::buffer::{give_string, json_arg, opt_str_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};

/// How long `ferrite_server_close` waits for blocking threads (the stdin reader) to stop.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Where per-peer state lives (see the MCP modes): pass as `mode` to `ferrite_server_new`.
#[repr(u32)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub enum ferrite_server_mode {
    /// No sessions: state is built per request. No server-to-client requests, no
    /// subscriptions. The opt-out (the everything servers' `--stateless`).
    Stateless = 0,
    /// One connection state per session (per stdio process), created at `initialize`.
    Stateful = 1,
    /// The core's default mode, the same on every Ferrite surface: stateful.
    Default = 2,
}

/// An MCP server and the runtime that drives it. Opaque; create with `ferrite_server_new`,
/// release with `ferrite_server_free`. All functions taking a `const ferrite_server *` may be
/// called from any thread, concurrently, until `ferrite_server_free`.
#[allow(non_camel_case_types)]
pub struct ferrite_server {
    server: RwLock<Option<Server>>,
    runtime: Mutex<Option<Runtime>>,
    handle: Handle,
    shutdown: CancellationToken,
    /// How many serve calls (stdio, HTTP, a host's HTTP exchange) are running; close waits
    /// for them.
    serving: Arc<ServingCount>,
}

/// The number of running serve calls, and the signal close waits on.
#[derive(Default)]
pub(crate) struct ServingCount {
    running: Mutex<usize>,
    done: Condvar,
}

/// Counts one running serve call for as long as it lives (also when it unwinds).
pub(crate) struct Serving<'a>(&'a ServingCount);

impl<'a> Serving<'a> {
    pub(crate) fn enter(count: &'a ServingCount) -> Serving<'a> {
        *lock(&count.running) += 1;
        Serving(count)
    }
}

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        *lock(&self.0.running) -= 1;
        self.0.done.notify_all();
    }
}

impl ferrite_server {
    /// The core server, or `Closed`.
    pub(crate) fn core(&self) -> Result<Server, Error> {
        read(&self.server).clone().ok_or_else(Error::closed)
    }

    pub(crate) fn runtime_handle(&self) -> Handle {
        self.handle.clone()
    }

    /// The count of running serve calls, for serving that outlives one export (a host's HTTP
    /// exchange).
    pub(crate) fn serving(&self) -> &Arc<ServingCount> {
        &self.serving
    }

    /// Refuse blocking calls from inside a runtime (a callback on a worker thread): waiting
    /// there would starve or deadlock the runtime.
    pub(crate) fn ensure_blocking_allowed(what: &str) -> Result<(), Error> {
        if Handle::try_current().is_ok() {
            return Err(Error::new(
                ferrite_result::WrongThread,
                format!("{what} blocks, and cannot be called from a thread that runs async tasks (a Ferrite callback)"),
            ));
        }
        Ok(())
    }

    /// Run `fut` on the runtime and wait for its output on this thread.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        what: &str,
        fut: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Result<T, Error> {
        Self::ensure_blocking_allowed(what)?;
        let (tx, rx) = mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(fut.await);
        });
        // A closed runtime drops the task and with it the sender.
        rx.recv().map_err(|_| Error::closed())
    }

    /// The token `ferrite_server_close` cancels; transports take a child of it.
    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Run a transport's serve loop on the runtime, counted as serving (close waits for it),
    /// and wait for it here. An I/O error is `Io` (its detail prefixed with `label`); an end
    /// caused by `ferrite_server_close` is `Closed`.
    pub(crate) fn serve_blocking(
        &self,
        what: &str,
        serve: impl std::future::Future<Output = std::io::Result<()>> + Send + 'static,
        label: &str,
    ) -> Result<(), Error> {
        let _serving = Serving::enter(&self.serving);
        self.run(what, serve)?.map_err(|e| Error::new(ferrite_result::Io, format!("{label}: {e}")))?;
        if self.shutdown.is_cancelled() {
            return Err(Error::closed());
        }
        Ok(())
    }

    fn close(&self) -> Result<(), Error> {
        Self::ensure_blocking_allowed("ferrite_server_close")?;
        self.shutdown.cancel();
        // Serving stops reading at once and lets in-flight requests finish: give it the grace
        // period to return before the runtime under it goes away.
        let serving = lock(&self.serving.running);
        let (serving, _) = self
            .serving
            .done
            .wait_timeout_while(serving, SHUTDOWN_GRACE, |n| *n > 0)
            .unwrap_or_else(|p| p.into_inner());
        drop(serving);
        // Mounted in other servers, its handlers would outlive the runtime they run on.
        if let Some(s) = read(&self.server).clone() {
            s.unmount_everywhere();
        }
        let runtime = lock(&self.runtime).take();
        if let Some(rt) = runtime {
            rt.shutdown_timeout(SHUTDOWN_GRACE);
        }
        // The last reference to the core server: handlers, and their finalizers, go here.
        let server = write(&self.server).take();
        drop(server);
        Ok(())
    }
}

/// # Safety
/// `server` must be NULL or a live server handle.
pub(crate) unsafe fn server_ref<'a>(server: *const ferrite_server) -> Result<&'a ferrite_server, Error> {
    // SAFETY: NULL or live, per the caller's contract.
    unsafe { server.as_ref() }.ok_or_else(|| Error::null("server"))
}

/// Create a server. `info_json` is its identity, the MCP `Implementation` shape
/// (`{"name": "my-server", "version": "1.0.0"}`, optionally `title`, `icons`, ...); `mode` is a
/// `ferrite_server_mode` (`FERRITE_SERVER_MODE_DEFAULT`: stateful); `instructions` (NULL for
/// none) is sent in the `initialize` result. On success `*out` is a new server with its own
/// worker threads; free it with `ferrite_server_free`.
///
/// The defaults are the core's, the same on every Ferrite surface: stateful, the `logging`
/// capability on (`ferrite_server_disable_logging` turns it off), tool arguments validated
/// against their input schemas (`ferrite_server_disable_input_validation` turns that off).
///
/// # Safety
/// The strings point to their lengths in readable bytes (or `instructions` is NULL); `out` is
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_new(
    info_json: *const c_char,
    info_json_len: usize,
    mode: u32,
    instructions: *const c_char,
    instructions_len: usize,
    out: *mut *mut ferrite_server,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe { new_server(info_json, info_json_len, mode, instructions, instructions_len, None, out) }
    })
}

/// Create a protected server: as `ferrite_server_new`, and an OAuth 2.1 resource server with
/// `auth` (from `ferrite_auth_new`; NULL: unprotected, as `ferrite_server_new`). Over HTTP
/// every request then needs `Authorization: Bearer <token>` that the configuration's verifier
/// accepts (401, 400, 403 and 503 otherwise, with the core's `WWW-Authenticate` challenges),
/// the Protected Resource Metadata is served at
/// `/.well-known/oauth-protected-resource<path>`, tools, prompts and resources need their
/// configured scopes, a session belongs to the subject that created it, and handlers read
/// the caller with `ferrite_request_identity`. The server keeps what it needs of `auth`:
/// free it when you like.
///
/// # Safety
/// As `ferrite_server_new`; `auth` is NULL or a live `ferrite_auth`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_new_with_auth(
    info_json: *const c_char,
    info_json_len: usize,
    mode: u32,
    instructions: *const c_char,
    instructions_len: usize,
    auth: *const ferrite_auth,
    out: *mut *mut ferrite_server,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: NULL or live, per this function's contract.
        let auth = unsafe { auth.as_ref() }.map(ferrite_auth::resource_server);
        // SAFETY: forwarded from this function's contract.
        unsafe { new_server(info_json, info_json_len, mode, instructions, instructions_len, auth, out) }
    })
}

/// The body of the constructors.
///
/// # Safety
/// As `ferrite_server_new`.
unsafe fn new_server(
    info_json: *const c_char,
    info_json_len: usize,
    mode: u32,
    instructions: *const c_char,
    instructions_len: usize,
    auth: Option<Arc<ResourceServer>>,
    out: *mut *mut ferrite_server,
) -> Result<(), Error> {
    if out.is_null() {
        return Err(Error::null("out"));
    }
    // SAFETY: forwarded from this function's contract.
    let info: Implementation = unsafe { json_arg(info_json, info_json_len, "info_json") }?;
    // SAFETY: forwarded from this function's contract.
    let instructions = unsafe { opt_str_arg(instructions, instructions_len, "instructions") }?;
    let mode = match mode {
        0 => ServerMode::Stateless,
        1 => ServerMode::Stateful,
        2 => ServerMode::default(),
        other => return Err(Error::invalid(format!("{other} is not a ferrite_server_mode"))),
    };
    let mut builder = Server::builder(info).mode(mode);
    if let Some(text) = instructions {
        builder = builder.instructions(text);
    }
    if let Some(rs) = auth {
        builder = builder.auth(rs);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ferrite-worker")
        .on_thread_start(block_sigpipe)
        .build()
        .map_err(|e| Error::new(ferrite_result::Io, format!("cannot start the server's threads: {e}")))?;
    let server = Box::new(ferrite_server {
        server: RwLock::new(Some(builder.build())),
        handle: runtime.handle().clone(),
        runtime: Mutex::new(Some(runtime)),
        shutdown: CancellationToken::new(),
        serving: Arc::default(),
    });
    // SAFETY: `out` is non-NULL and valid for a write per this function's contract.
    unsafe { out.write(Box::into_raw(server)) };
    Ok(())
}

/// Block SIGPIPE on the calling thread (each worker thread, as it starts). A C or Go host does
/// not ignore SIGPIPE as Rust, Python and Node programs do, so a write to a peer that has gone
/// (an HTTP client that closed its socket, a stdio client that closed its end of the pipe) would
/// kill the host's process; blocked, the write fails with EPIPE and only that peer is dropped.
/// The host's own threads and its signal dispositions are left as they are. (Miri, which runs
/// the ABI's Rust tests, has no signals: nothing to block there.)
#[cfg(miri)]
fn block_sigpipe() {}

/// See the `cfg(miri)` twin above.
#[cfg(not(miri))]
fn block_sigpipe() {
    // SAFETY: `set` is a local sigset_t initialised by sigemptyset before use; sigaddset and
    // pthread_sigmask only read and write it and this thread's signal mask; a NULL old-set
    // pointer is allowed.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Stop the server: stop serving (a `ferrite_server_serve_stdio`, `ferrite_server_serve_http`
/// or `ferrite_server_http_run` in another thread returns `FERRITE_RESULT_CLOSED`; HTTP
/// sessions and their streams end), drop every in-flight request, join the worker threads, and drop every handler, running
/// each finalizer exactly once on this thread. Later calls on the server return
/// `FERRITE_RESULT_CLOSED` (closing again is a no-op returning OK); a request still pending
/// can be completed, which is then a no-op that frees it. Cannot be called from a callback
/// (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server handle.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_close(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe { server_ref(server) }?.close()
    })
}

/// Close the server (if not closed yet) and free it. NULL is a no-op. No other call on this
/// server may run concurrently or follow. Called from a callback thread it cannot join the
/// workers, so it lets them finish in the background.
///
/// # Safety
/// `server` is NULL or a live server handle that nothing else uses any more.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_free(server: *mut ferrite_server) {
    if server.is_null() {
        return;
    }
    let _ = ffi_boundary!({
        // SAFETY: a live handle from `ferrite_server_new`, now owned by this call.
        let server = unsafe { Box::from_raw(server) };
        if server.close().is_err() {
            if let Some(rt) = lock(&server.runtime).take() {
                rt.shutdown_background();
            }
        }
        drop(server);
        Ok(())
    });
}

/// Handle one JSON-RPC message (or batch) in-process, as a client connected to this server
/// would send it, on the server's in-process connection (which keeps state between calls:
/// send `initialize` first in stateful mode). Blocks until the handlers answer. On success
/// `*out` is a new NUL-terminated buffer with the response (empty for a notification; free it
/// with `ferrite_string_free`) and `*out_len` (if not NULL) its length. There is no channel
/// back to a client, so logging and progress go nowhere and server-to-client requests fail.
/// Cannot be called from a callback (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server; `message` points to `message_len` readable bytes; `out` is valid
/// for a write; `out_len` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_handle_raw(
    server: *const ferrite_server,
    message: *const c_char,
    message_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        // SAFETY: forwarded from this function's contract.
        let text = unsafe { str_arg(message, message_len, "message") }?.to_owned();
        let core = s.core()?;
        let response = s.run("ferrite_server_handle_raw", async move { core.handle_raw(&text).await })?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(response.as_bytes(), out, out_len) }
    })
}

/// Serve the process's stdin/stdout (newline-delimited JSON-RPC, the MCP stdio transport)
/// until stdin reaches end of file or `ferrite_server_close` is called from another thread;
/// blocks the calling thread meanwhile (the work runs on the server's worker threads). Returns OK at end of input, `FERRITE_RESULT_IO` on an
/// I/O error, `FERRITE_RESULT_CLOSED` if the server was closed. Write nothing else to stdout
/// while it runs. Cannot be called from a callback (`FERRITE_RESULT_WRONG_THREAD`).
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_serve_stdio(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        let core = s.core()?;
        let options = StdioOptions { shutdown: s.shutdown.child_token(), ..StdioOptions::default() };
        // The read loop runs on a worker thread, where tokio's I/O driver runs: reading stdin
        // costs no hand-off to another thread (the calling thread would need one per message).
        s.serve_blocking(
            "ferrite_server_serve_stdio",
            async move { stdio::serve_stdio_with(&core, options).await },
            "stdio",
        )
    })
}
