//! stdio served from the JavaScript thread.
//!
//! Served from the runtime, a request crosses threads twice: a tokio worker reads it and
//! queues the JS handler to the JS thread, and the JS thread hands the answer back to a worker,
//! which writes it. On a VM each of those wake-ups of a sleeping thread costs more than the
//! handler itself. Here the JS thread reads stdin (`process.stdin` `data` events), and each
//! chunk drives the core's stdio loop right there (`ferrite_core::transport::hosted_stdio`,
//! which Python's event loop thread drives too), in [`StdioLoop::feed`]: a JS handler that
//! answers without waiting is called directly ([`js_env`], used by `handlers.rs`) and its
//! answer written to stdout before `feed` returns. A request that has to wait (a Promise, a
//! server-to-client request) stays on the JS thread too: what wakes it (a promise settling, a
//! reply read from stdin) mostly happens there, and a wake from another thread asks the JS
//! thread to poll again through a thread-safe function. stdout is written synchronously, as
//! Node writes to a pipe on Linux (and so as the TypeScript SDK's transport does): a client
//! must read its responses while it writes requests.

use std::cell::Cell;
use std::sync::{Arc, Mutex};

use ferrite_core::sync::lock;
use ferrite_core::transport::hosted_stdio::{self, BlockingStdout, HostedStdio};
use napi::bindgen_prelude::{Buffer, Function, Object};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{sys, Env, Error, Result, Status};
use napi_derive::napi;
use tokio::sync::oneshot;

use crate::server::{NativeServer, Resolver};

thread_local! {
    /// The env of the napi calls that drive a stdio loop on this thread (one per JS thread).
    static JS_ENV: Cell<Option<sys::napi_env>> = const { Cell::new(None) };
}

/// The env to call JS with directly: set only on the JS thread, while a stdio loop is being
/// driven from one of its napi calls (so a JS function called with it runs inside that call).
pub(crate) fn js_env() -> Option<Env> {
    hosted_stdio::driving_here().then(|| JS_ENV.get()).flatten().map(Env::from_raw)
}

/// Run `f`, a napi call on the JS thread that may wake a stdio loop (a handler settling:
/// `settleCall`), then drive the loops it woke at once, rather than asking the event loop to.
/// (Collecting the handlers that settle together and answering them in one microtask was
/// tried: it delays each answer, and a pipelining client's next request with it.)
pub(crate) fn driving_woken<R>(env: &Env, f: impl FnOnce() -> R) -> R {
    JS_ENV.set(Some(env.raw()));
    hosted_stdio::driving_woken(f)
}

/// Asks the JS thread to poll the loop (`() => loop.poll()`): weak, so it never keeps Node alive.
type Poke = ThreadsafeFunction<(), (), (), Status, false, true>;

/// The stdio loop of one server, served from the JS thread (see the module docs).
#[napi]
pub struct StdioLoop {
    hosted: HostedStdio,
    done: Mutex<Option<oneshot::Receiver<std::result::Result<(), String>>>>,
}

#[napi]
impl StdioLoop {
    /// Hand the loop a chunk read from stdin, and answer what it completes.
    #[napi]
    pub fn feed(&self, env: Env, chunk: Buffer) {
        JS_ENV.set(Some(env.raw()));
        self.hosted.feed(&chunk);
    }

    /// stdin ended.
    #[napi]
    pub fn end(&self, env: Env) {
        JS_ENV.set(Some(env.raw()));
        self.hosted.end();
    }

    /// Poll the loop (what the poke calls).
    #[napi]
    pub fn poll(&self, env: Env) {
        JS_ENV.set(Some(env.raw()));
        self.hosted.drive();
    }

    /// Resolves when serving ended (stdin ended, or the server closed), once in-flight
    /// requests finished.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn done<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let rx = lock(&self.done).take().ok_or_else(|| Error::from_reason("done() was already called"))?;
        let (deferred, promise) = env.create_deferred::<(), Resolver<()>>()?;
        self.hosted.runtime().spawn(async move {
            match rx.await {
                Ok(Ok(())) => deferred.resolve(Box::new(|_| Ok(()))),
                Ok(Err(e)) => deferred.reject(Error::from_reason(format!("stdio transport failed: {e}"))),
                Err(_) => deferred.reject(Error::from_reason("stdio transport failed: the loop panicked")),
            }
        });
        Ok(promise)
    }
}

#[napi]
impl NativeServer {
    /// Serve stdio from the JS thread: JS feeds the returned loop what it reads from stdin
    /// (`feed`, `end`) and has `poke` call `loop.poll()`; `loop.done()` resolves when serving
    /// ended.
    #[napi]
    pub fn stdio_loop(&self, poke: Function<'_, (), ()>, max_line_bytes: Option<u32>) -> Result<StdioLoop> {
        let mut claimed = lock(&self.serving);
        if claimed.is_some() {
            return Err(Error::from_reason("the server is already serving stdio"));
        }
        let runtime = self.handle()?;
        let options = self.stdio_options(max_line_bytes);
        let poke: Poke = poke.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        let poke = Arc::new(move || {
            poke.call((), ThreadsafeFunctionCallMode::NonBlocking);
        });
        let (hosted, ended) = HostedStdio::new(self.server.clone(), runtime.clone(), options, BlockingStdout, poke);
        let (tx, rx) = oneshot::channel();
        // `close()` waits for this as for any serving task; `done()` hears how it ended.
        *claimed = Some(runtime.spawn(async move {
            if let Ok(served) = ended.await {
                let _ = tx.send(served.map_err(|e| e.to_string()));
            }
        }));
        Ok(StdioLoop { hosted, done: Mutex::new(Some(rx)) })
    }
}
