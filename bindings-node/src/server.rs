//! `NativeServer`: the core [`Server`] as a napi class: construction, registration, options,
//! stdio and in-process serving, `close()`. (`listeners.rs` (notifications, ping, the
//! listening connections), `listen.rs`, `context.rs`, `modern.rs` and `fleet.rs` add more
//! methods to the same class.)
//!
//! Descriptors and values cross as JSON text and are decoded with the core's own serde
//! types, so a malformed descriptor is a clear `Error` from the registration call and the
//! wire shape is the core's alone. Functions that wait (`handleRaw`, `connectStdio`, `close`,
//! a context's `sample`/`elicit`/...) return Promises settled from this server's tokio
//! runtime, so nothing blocks the event loop. The runtime is created on first use and shut
//! down by `close()`; only serving keeps Node alive (stdin, read by `process.stdin` when stdio is
//! served from the JS thread: `stdio_loop.rs`), registered handlers never do.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferrite_core::sync::lock;
use ferrite_core::transport::stdio::{self, StdioOptions};
use ferrite_core::{
    ClientCapabilities, CompletionReference, Implementation, Prompt, Resource, ResourceTemplate, Server, TaskOptions,
    Tool,
};
use napi::bindgen_prelude::{FnArgs, Function, Object};
use napi::{Env, Error, Result};
use napi_derive::napi;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::runtime::{Handle, Runtime};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::calls::Calls;
use crate::errors;
use crate::handlers::{JsArgs, JsCallback, JsReturn};

/// A promise settled from a tokio task.
pub(crate) type Resolver<T> = Box<dyn FnOnce(Env) -> Result<T> + Send>;

pub(crate) fn parse<T: DeserializeOwned>(text: &str, what: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::from_reason(format!("invalid {what}: {e}")))
}

/// Where the server's runtime is in its life.
pub(crate) enum RuntimeState {
    NotStarted,
    Running(Runtime),
    Closed,
}

/// A server's tokio runtime, shared with the connections made from it.
pub(crate) struct SharedRuntime {
    pub(crate) state: Mutex<RuntimeState>,
    worker_threads: usize,
}

impl SharedRuntime {
    /// A handle to the runtime, starting it on first use; an error once the server closed.
    pub(crate) fn handle(&self) -> Result<Handle> {
        let mut state = lock(&self.state);
        if let RuntimeState::NotStarted = *state {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(self.worker_threads)
                .thread_name("ferrite-node")
                .enable_all()
                .build()
                .map_err(|e| Error::from_reason(format!("cannot start the server's runtime: {e}")))?;
            *state = RuntimeState::Running(rt);
        }
        match &*state {
            RuntimeState::Running(rt) => Ok(rt.handle().clone()),
            _ => Err(Error::from_reason("the server is closed")),
        }
    }
}

/// The options of `new NativeServer(...)` that shape the core server.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NativeOptions {
    #[serde(flatten)]
    info: Implementation,
    #[serde(default)]
    instructions: Option<String>,
    /// `stateless: true` (or `stateful: false`) opts out of the core's default, stateful.
    #[serde(default)]
    stateless: Option<bool>,
    #[serde(default)]
    stateful: Option<bool>,
    /// Tokio worker threads of this server's runtime (default 1: the JS thread does the
    /// handler work, one worker does the protocol work).
    #[serde(default)]
    worker_threads: Option<usize>,
    /// The core's `AuthConfig` (camelCase or snake_case keys): a protected server.
    #[serde(default)]
    auth: Option<Value>,
    /// How tasks run (see [`JsTaskOptions`]); absent: the core's `TaskOptions::default()`.
    #[serde(default)]
    tasks: Option<Value>,
}

/// The `tasks` option: the core's [`TaskOptions`] with durations in milliseconds. Every field
/// is optional and defaults to the core's.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsTaskOptions {
    #[serde(default)]
    default_ttl_ms: Option<u64>,
    #[serde(default)]
    max_ttl_ms: Option<u64>,
    #[serde(default)]
    poll_interval_ms: Option<u64>,
    #[serde(default)]
    promote_after_ms: Option<u64>,
}

impl JsTaskOptions {
    fn into_core(self) -> TaskOptions {
        let ms = Duration::from_millis;
        let d = TaskOptions::default();
        TaskOptions {
            default_ttl: self.default_ttl_ms.map_or(d.default_ttl, ms),
            max_ttl: self.max_ttl_ms.map_or(d.max_ttl, ms),
            poll_interval: self.poll_interval_ms.map_or(d.poll_interval, ms),
            promote_after: self.promote_after_ms.map_or(d.promote_after, ms),
            ..d
        }
    }
}

/// The core server, owned by a JS `Server`.
#[napi]
pub struct NativeServer {
    pub(crate) server: Server,
    pub(crate) calls: Arc<Calls>,
    pub(crate) runtime: Arc<SharedRuntime>,
    pub(crate) shutdown: CancellationToken,
    /// The stdio serving task, if any (at most one: there is one stdin).
    pub(crate) serving: Mutex<Option<JoinHandle<()>>>,
    /// The HTTP serving tasks, awaited by `close()`.
    pub(crate) listening: Mutex<Vec<JoinHandle<()>>>,
    /// The endpoint `fetch`/`nodeHandler` serve through (see `mount.rs`), made on first use.
    pub(crate) mounted: crate::mount::Mounted,
    /// The Redis store of `useRedis` (see `fleet.rs`), for its round-trip count.
    pub(crate) redis: Mutex<Option<ferrite_core::stores::redis::RedisStore>>,
    /// The server-to-client requests JS may give up (an `AbortSignal`), by the id JS chose.
    pub(crate) asks: Arc<Mutex<std::collections::HashMap<i64, CancellationToken>>>,
}

#[napi]
impl NativeServer {
    /// `optionsJson`: `{name, version, title?, description?, websiteUrl?, icons?,
    /// instructions?, stateless?, stateful?, workerThreads?, auth?, tasks?}`. The server has the core's
    /// defaults (stateful, logging on, input validation on) unless `stateless: true` (or
    /// `stateful: false`). `auth` (the core's `AuthConfig`) protects it as an OAuth resource
    /// server; `verifier(token)` then verifies tokens instead of the configuration's `jwt` or
    /// `introspection` (see `auth.rs`). A bad `auth` option throws a `TypeError` naming it.
    #[napi(constructor)]
    pub fn new(
        env: &Env,
        options_json: String,
        #[napi(ts_arg_type = "((token: string) => string | Promise<string>) | undefined | null")] verifier: Option<
            Function<'_, String, crate::auth::VerifierReturn>,
        >,
    ) -> Result<Self> {
        let o: NativeOptions = parse(&options_json, "server options")?;
        let stateless = match (o.stateless, o.stateful) {
            (Some(a), Some(b)) if a == b => {
                return Err(errors::type_error(
                    env,
                    format!("new Server(options): stateless: {a} contradicts stateful: {b}"),
                ))
            }
            (Some(a), _) => a,
            (None, Some(b)) => !b,
            (None, None) => false,
        };
        let mut builder = Server::builder(o.info);
        if let Some(text) = o.instructions {
            builder = builder.instructions(text);
        }
        if stateless {
            builder = builder.stateless();
        }
        match (o.auth, verifier) {
            (Some(config), verifier) => builder = builder.auth(crate::auth::resource_server(env, config, verifier)?),
            (None, Some(_)) => {
                return Err(errors::type_error(env, "new Server(options): verifyAccessToken needs the auth option"))
            }
            (None, None) => {}
        }
        if let Some(tasks) = o.tasks {
            let tasks: JsTaskOptions = serde_json::from_value(tasks)
                .map_err(|e| errors::type_error(env, format!("new Server(options): tasks: {e}")))?;
            builder = builder.tasks(tasks.into_core());
        }
        let server = builder.build();
        Ok(NativeServer {
            server,
            calls: Arc::new(Calls::default()),
            runtime: Arc::new(SharedRuntime {
                state: Mutex::new(RuntimeState::NotStarted),
                worker_threads: o.worker_threads.unwrap_or(1).clamp(1, 64),
            }),
            shutdown: CancellationToken::new(),
            serving: Mutex::new(None),
            listening: Mutex::new(Vec::new()),
            mounted: Mutex::new(None),
            redis: Mutex::new(None),
            asks: Arc::default(),
        })
    }

    /// A handle to the runtime, starting it on first use.
    pub(crate) fn handle(&self) -> Result<Handle> {
        self.runtime.handle()
    }

    /// Run `fut` on the runtime; the returned promise resolves to its string.
    pub(crate) fn spawn_string<'env, F>(&self, env: &'env Env, fut: F) -> Result<Object<'env>>
    where
        F: std::future::Future<Output = String> + Send + 'static,
    {
        let handle = self.handle()?;
        let (deferred, promise) = env.create_deferred::<String, Resolver<String>>()?;
        handle.spawn(async move {
            let text = fut.await;
            deferred.resolve(Box::new(move |_| Ok(text)));
        });
        Ok(promise)
    }

    pub(crate) fn callback(&self, f: Function<'_, JsArgs, JsReturn>, what: &'static str) -> Result<JsCallback> {
        let tsfn = f.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        Ok(JsCallback::new(tsfn, f.create_ref()?, self.calls.clone(), what))
    }

    // ----- registration -----

    /// Register (or replace) a tool. `toolJson` is the MCP `Tool` descriptor; its
    /// `execution.taskSupport` ("forbidden", "optional", "required") says whether the core may
    /// run calls as tasks. The core refuses another word (`ConfigError::InvalidTaskSupport`, a
    /// `TypeError` here as every other `ConfigError`).
    #[napi]
    pub fn add_tool(
        &self,
        env: &Env,
        tool_json: String,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
    ) -> Result<()> {
        let tool: Tool = parse(&tool_json, "tool descriptor")?;
        self.server.add_tool(tool, self.callback(handler, "tool")?).map_err(|e| errors::config(env, e))
    }

    /// Remove a tool; whether it existed.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.server.remove_tool(&name)
    }

    /// Calls from clients that did not declare `capsJson` (client capabilities) are refused.
    #[napi]
    pub fn set_tool_required_client_capabilities(&self, env: &Env, name: String, caps_json: String) -> Result<()> {
        let caps: ClientCapabilities = parse(&caps_json, "client capabilities")?;
        self.server.set_tool_required_client_capabilities(&name, caps).map_err(|e| errors::config(env, e))
    }

    /// Register (or replace) a direct resource. `resourceJson` is the MCP `Resource`.
    #[napi]
    pub fn add_resource(
        &self,
        resource_json: String,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
    ) -> Result<()> {
        let resource: Resource = parse(&resource_json, "resource descriptor")?;
        self.server.add_resource(resource, self.callback(handler, "resource")?);
        Ok(())
    }

    /// Remove a direct resource; whether it existed.
    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.server.remove_resource(&uri)
    }

    /// Register a resource template. `templateJson` is the MCP `ResourceTemplate`.
    #[napi]
    pub fn add_resource_template(
        &self,
        env: &Env,
        template_json: String,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
    ) -> Result<()> {
        let template: ResourceTemplate = parse(&template_json, "resource template descriptor")?;
        self.server
            .add_resource_template(template, self.callback(handler, "resource template")?)
            .map_err(|e| errors::config(env, e))
    }

    /// Remove a resource template by its URI template; whether it existed.
    #[napi]
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.server.remove_resource_template(&uri_template)
    }

    /// Register (or replace) a prompt. `promptJson` is the MCP `Prompt`.
    #[napi]
    pub fn add_prompt(
        &self,
        prompt_json: String,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
    ) -> Result<()> {
        let prompt: Prompt = parse(&prompt_json, "prompt descriptor")?;
        self.server.add_prompt(prompt, self.callback(handler, "prompt")?);
        Ok(())
    }

    /// Remove a prompt; whether it existed.
    #[napi]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.server.remove_prompt(&name)
    }

    /// The global completion handler, tried before per-argument completers.
    #[napi]
    pub fn set_completion_handler(
        &self,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
    ) -> Result<()> {
        self.server.set_completion_handler(self.callback(handler, "completion")?);
        Ok(())
    }

    /// A completer for one argument of a prompt or resource template (`refJson`:
    /// `{"type": "ref/prompt", "name"}` or `{"type": "ref/resource", "uri"}`).
    #[napi]
    pub fn set_argument_completer(
        &self,
        ref_json: String,
        argument: String,
        #[napi(ts_arg_type = "(slot: number, payload: string) => string | Promise<string> | null")] handler: Function<
            '_,
            JsArgs,
            JsReturn,
        >,
    ) -> Result<()> {
        let reference: CompletionReference = parse(&ref_json, "completion reference")?;
        self.server.set_argument_completer(reference, &argument, self.callback(handler, "completion")?);
        Ok(())
    }

    /// Complete one argument from a fixed list (the values starting with the typed prefix).
    #[napi]
    pub fn set_argument_candidates(&self, ref_json: String, argument: String, candidates: Vec<String>) -> Result<()> {
        let reference: CompletionReference = parse(&ref_json, "completion reference")?;
        self.server.set_argument_candidates(reference, &argument, candidates);
        Ok(())
    }

    // ----- options -----

    /// Advertise `logging` and accept `logging/setLevel` (the default), or stop.
    #[napi]
    pub fn set_logging(&self, enabled: bool) {
        if enabled {
            self.server.enable_logging()
        } else {
            self.server.disable_logging()
        }
    }

    /// Advertise `resources.subscribe`: `resources/subscribe` on handshake-era sessions of a
    /// stateful server, per-URI updates on 2026-07-28 listen streams (any mode).
    #[napi]
    pub fn enable_resource_subscriptions(&self, env: &Env) -> Result<()> {
        self.server.enable_resource_subscriptions().map_err(|e| errors::config(env, e))
    }

    /// Advertise `listChanged` for `kind`: "tools", "resources" or "prompts".
    #[napi]
    pub fn enable_list_changed(&self, kind: String) -> Result<()> {
        match kind.as_str() {
            "tools" => self.server.enable_tools_list_changed(),
            "resources" => self.server.enable_resources_list_changed(),
            "prompts" => self.server.enable_prompts_list_changed(),
            other => return Err(Error::from_reason(format!("unknown list kind {other:?}"))),
        }
        Ok(())
    }

    /// Refuse requests other than `ping` until the client sent `notifications/initialized`.
    #[napi]
    pub fn require_initialized(&self) {
        self.server.require_initialized();
    }

    /// At most `size` items per page of the list methods; 0 disables pagination.
    #[napi]
    pub fn set_page_size(&self, size: u32) {
        self.server.set_page_size(size as usize);
    }

    /// Validate tool arguments against input schemas (on by default).
    #[napi]
    pub fn set_input_validation(&self, enabled: bool) {
        if enabled {
            self.server.enable_input_validation()
        } else {
            self.server.disable_input_validation()
        }
    }

    /// Enforce output schemas on successful tool results.
    #[napi]
    pub fn enable_output_validation(&self) {
        self.server.enable_output_validation();
    }

    /// Observe client notifications: `observer(method, paramsJson)` ("null" when absent).
    #[napi]
    pub fn set_notification_observer(
        &self,
        #[napi(ts_arg_type = "(method: string, paramsJson: string) => void")] observer: Function<
            '_,
            FnArgs<(String, String)>,
            (),
        >,
    ) -> Result<()> {
        let tsfn = observer.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        self.server.set_notification_observer(move |method: &str, params: Option<&Value>| {
            let params = params.map(Value::to_string).unwrap_or_else(|| "null".to_owned());
            let _ = tsfn.call(
                (method.to_owned(), params).into(),
                napi::threadsafe_function::ThreadsafeFunctionCallMode::NonBlocking,
            );
        });
        Ok(())
    }

    /// Observe `notifications/roots/list_changed` (the core's roots observer): `observer()`.
    #[napi]
    pub fn set_roots_list_changed_observer(
        &self,
        #[napi(ts_arg_type = "() => void")] observer: Function<'_, (), ()>,
    ) -> Result<()> {
        let tsfn = observer.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        self.server.set_roots_list_changed_observer(move || {
            let _ = tsfn.call((), napi::threadsafe_function::ThreadsafeFunctionCallMode::NonBlocking);
        });
        Ok(())
    }

    /// The function told which running request (slot) was cancelled.
    #[napi]
    pub fn set_cancel_callback(
        &self,
        #[napi(ts_arg_type = "(slot: number) => void")] callback: Function<'_, i64, ()>,
    ) -> Result<()> {
        let tsfn = callback.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        self.calls.set_cancel_callback(tsfn);
        Ok(())
    }

    // ----- introspection and notifications -----

    /// The capabilities this server declares (JSON).
    #[napi]
    pub fn capabilities(&self) -> String {
        json!(self.server.capabilities()).to_string()
    }

    /// The registered tools (JSON array of descriptors).
    #[napi]
    pub fn tools(&self) -> String {
        json!(self.server.tools()).to_string()
    }

    /// Whether the server is stateless.
    #[napi]
    pub fn is_stateless(&self) -> bool {
        self.server.is_stateless()
    }

    // ----- serving -----

    /// Handle raw wire text in-process; resolves to the response text ("" for none).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn handle_raw<'env>(&self, env: &'env Env, text: String) -> Result<Object<'env>> {
        let server = self.server.clone();
        self.spawn_string(env, async move { server.handle_raw(&text).await })
    }

    /// The stdio options of this server: `close()` stops serving, lines up to `max_line_bytes`.
    pub(crate) fn stdio_options(&self, max_line_bytes: Option<u32>) -> StdioOptions {
        let mut options = StdioOptions { shutdown: self.shutdown.clone(), ..StdioOptions::default() };
        if let Some(max) = max_line_bytes {
            options.max_line_bytes = max as usize;
        }
        options
    }

    /// Serve on the process's stdin/stdout; resolves when stdin ends or `close()` is called.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn connect_stdio<'env>(&self, env: &'env Env, max_line_bytes: Option<u32>) -> Result<Object<'env>> {
        let mut serving = lock(&self.serving);
        if serving.is_some() {
            return Err(Error::from_reason("the server is already serving stdio"));
        }
        let handle = self.handle()?;
        let options = self.stdio_options(max_line_bytes);
        let (deferred, promise) = env.create_deferred::<(), Resolver<()>>()?;
        let server = self.server.clone();
        *serving = Some(handle.spawn(async move {
            match stdio::serve_stdio_with(&server, options).await {
                Ok(()) => deferred.resolve(Box::new(|_| Ok(()))),
                Err(e) => deferred.reject(Error::from_reason(format!("stdio transport failed: {e}"))),
            }
        }));
        Ok(promise)
    }

    /// Stop serving: stdin reading stops, HTTP stops accepting, in-flight requests finish,
    /// then the runtime shuts down. Idempotent; the returned promise resolves when all of that is done.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.shutdown.cancel();
        // Mounted in other servers, its handlers would outlive the runtime they call JS from.
        self.server.unmount_everywhere();
        self.close_mounted();
        let mut serving: Vec<JoinHandle<()>> = lock(&self.serving).take().into_iter().collect();
        serving.append(&mut lock(&self.listening));
        let state = std::mem::replace(&mut *lock(&self.runtime.state), RuntimeState::Closed);
        let (deferred, promise) = env.create_deferred::<(), Resolver<()>>()?;
        let RuntimeState::Running(rt) = state else {
            deferred.resolve(Box::new(|_| Ok(())));
            return Ok(promise);
        };
        // Waiting happens off the JS thread (in-flight handlers need it to finish), and the
        // runtime is dropped outside of itself.
        let spawned = std::thread::Builder::new().name("ferrite-node-close".into()).spawn(move || {
            for task in serving {
                let _ = rt.block_on(task);
            }
            // The stdin reader may sit in a blocking read forever: do not wait for it.
            rt.shutdown_timeout(Duration::from_millis(100));
            deferred.resolve(Box::new(|_| Ok(())));
        });
        match spawned {
            Ok(_) => Ok(promise),
            Err(e) => Err(Error::from_reason(format!("cannot start the close thread: {e}"))),
        }
    }
}

impl NativeServer {
    /// End the mounted endpoint's sessions and their streams (the host app is stopping).
    fn close_mounted(&self) {
        if let Some((_, service)) = lock(&self.mounted).take() {
            if let RuntimeState::Running(rt) = &*lock(&self.runtime.state) {
                let _guard = rt.enter();
                service.close();
            } else {
                service.close();
            }
        }
    }
}

impl Drop for NativeServer {
    /// The JS object was collected without `close()`: stop serving and let the runtime go
    /// without waiting (dropping a runtime blocks on its blocking threads, and the stdin
    /// reader may never return; this runs on the JS thread).
    fn drop(&mut self) {
        self.shutdown.cancel();
        // Mounted in other servers, its handlers would outlive the runtime they call JS from.
        self.server.unmount_everywhere();
        self.close_mounted();
        let state = std::mem::replace(&mut *lock(&self.runtime.state), RuntimeState::Closed);
        if let RuntimeState::Running(rt) = state {
            rt.shutdown_background();
        }
    }
}
