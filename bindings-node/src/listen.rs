//! `listen()`: Streamable HTTP through the core's transport. The options object JS passes is
//! the core's `HttpConfig` as JSON (camelCase keys): the core reads, checks and applies it,
//! so a bad option is refused with the same message as on every other surface, its key
//! spelled the Node way (`invalid HTTP option maxBodyBytes: must be at least 1 byte, not 0`).

use ferrite_core::sync::lock;
use ferrite_core::transport::http::config::camel_case;
use ferrite_core::transport::http::{self, HttpConfig, HttpOptions};
use napi::bindgen_prelude::{Function, Object};
use napi::{Env, Error, Result};
use napi_derive::napi;
use serde_json::json;

use crate::errors;
use crate::server::{NativeServer, Resolver};

#[napi]
impl NativeServer {
    /// Serve Streamable HTTP. `optionsJson` is the core's `HttpConfig` (camelCase or
    /// snake_case keys; see the README's table); a bad option throws a `TypeError` naming it.
    /// `onListening(addressJson)` is called once bound with `{host, port, path}`; the returned
    /// promise settles when serving ends (after `close()`), or rejects when binding fails.
    /// While it is pending it keeps Node alive.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn listen<'env>(
        &self,
        env: &'env Env,
        options_json: String,
        #[napi(ts_arg_type = "(addressJson: string) => void")] on_listening: Function<'_, String, ()>,
    ) -> Result<Object<'env>> {
        let bad = |e: ferrite_core::transport::http::config::HttpConfigError| {
            errors::type_error(env, e.to_string_with(camel_case))
        };
        let config = HttpConfig::from_json(&options_json).map_err(bad)?;
        let addr = config.socket_addr().map_err(bad)?;
        let mut options = HttpOptions { shutdown: self.shutdown.clone(), ..HttpOptions::default() };
        config.apply(&mut options).map_err(bad)?;
        let path = options.path.clone();
        let on_listening = on_listening.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        let handle = self.handle()?;
        let (deferred, promise) = env.create_deferred::<(), Resolver<()>>()?;
        let server = self.server.clone();
        let task = handle.spawn(async move {
            let bound = match http::bind(&server, addr, options).await {
                Ok(b) => b,
                Err(e) => return deferred.reject(Error::from_reason(format!("cannot listen on {addr}: {e}"))),
            };
            let address =
                bound.local_addr().map(|a| json!({"host": a.ip().to_string(), "port": a.port(), "path": path}));
            if let Ok(address) = address {
                let _ = on_listening
                    .call(address.to_string(), napi::threadsafe_function::ThreadsafeFunctionCallMode::NonBlocking);
            }
            match bound.run().await {
                Ok(()) => deferred.resolve(Box::new(|_| Ok(()))),
                Err(e) => deferred.reject(Error::from_reason(format!("HTTP transport failed: {e}"))),
            }
        });
        lock(&self.listening).push(task);
        Ok(promise)
    }
}
