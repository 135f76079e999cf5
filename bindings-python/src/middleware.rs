//! Python middleware as core middleware: one core middleware per Python one, called once per
//! request on the asyncio loop with `(method, params, hook, call_next)`; the package picks the
//! middleware's typed hooks (`on_call_tool`, ...) inside that one call. `call_next` runs the
//! rest of the chain on the runtime and reports the answer to a Python callback.
//!
//! A client's notification reaches a Python middleware only when it has notification hooks
//! (`on_notification`, or `on_message`, which FastMCP runs for both): the same wrapper is
//! called with the hook `"notification"` and no request context, and its `call_next` runs the
//! rest of the chain for the notification (resolving to `None`) or, never called, drops it.

use std::sync::Arc;

use ferrite_core::server::middleware::{
    answer_from, notification_failed, Answer, Middleware, MiddlewareNotification, MiddlewareRequest, Next,
    NextNotification, NextNotificationOnce, NextOnce, NOTIFICATION_HOOK,
};
use ferrite_core::{BoxFuture, ErrorObject};
use pyo3::prelude::*;
use serde_json::Value;
use tokio::runtime::Handle;

use crate::bridge::{Executor, Input, PyCallable, Returned};
use crate::{convert, errors};

/// A Python middleware (the package's wrapper around it) in the core's chain.
pub struct PyMiddleware {
    pub handler: Arc<PyCallable>,
    pub exec: Arc<Executor>,
    pub runtime: Handle,
    /// Whether the middleware has notification hooks (else notifications pass it by).
    pub notifications: bool,
}

impl Middleware for PyMiddleware {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        let (handler, exec) = (self.handler.clone(), self.exec.clone());
        let ctx = request.ctx.clone();
        let (method, params, hook) = (request.method.clone(), request.params.clone(), request.hook());
        let next = Arc::new(NextOnce::new(next, request));
        let call =
            MiddlewareCall { method, params, hook, next: Rest::Request(next.clone()), runtime: self.runtime.clone() };
        Box::pin(async move {
            let ran = exec.run(handler, Input::Middleware(call), Some(ctx)).await;
            // A `call_next` the middleware kept is refused from now on.
            next.close();
            match ran {
                Ok(Returned::Json(v)) => answer_from(Ok(v)),
                Ok(Returned::Input(_)) => Err(ErrorObject::internal(
                    "a middleware cannot return InputRequired (return what call_next returned)",
                )),
                Err(e) => answer_from(Err(e)),
            }
        })
    }

    fn notify(&self, notification: MiddlewareNotification, next: NextNotification) -> BoxFuture<'static, ()> {
        if !self.notifications {
            return next.run(notification);
        }
        let (handler, exec) = (self.handler.clone(), self.exec.clone());
        let method = notification.method.clone();
        let call = MiddlewareCall {
            method: method.clone(),
            params: notification.params.clone(),
            hook: Some(NOTIFICATION_HOOK),
            next: Rest::Notification(Arc::new(NextNotificationOnce::new(next, notification))),
            runtime: self.runtime.clone(),
        };
        Box::pin(async move {
            // A notification has no answer: a middleware that raised is reported, and the
            // notification goes no further than it let it.
            if let Err(e) = exec.run(handler, Input::Middleware(call), None).await {
                notification_failed(&method, &e);
            }
        })
    }
}

/// The rest of the chain a `call_next` runs: a request's or a notification's.
enum Rest {
    Request(Arc<NextOnce>),
    Notification(Arc<NextNotificationOnce>),
}

impl Clone for Rest {
    fn clone(&self) -> Self {
        match self {
            Rest::Request(n) => Rest::Request(n.clone()),
            Rest::Notification(n) => Rest::Notification(n.clone()),
        }
    }
}

/// What the package's middleware wrapper is called with.
pub struct MiddlewareCall {
    method: String,
    params: Option<Value>,
    hook: Option<&'static str>,
    next: Rest,
    runtime: Handle,
}

impl MiddlewareCall {
    /// `(method, params, hook, call_next)`.
    pub fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let params = match &self.params {
            Some(p) => convert::to_py(py, p)?,
            None => py.None().into_bound(py),
        };
        let next = Bound::new(py, CallNext { next: self.next.clone(), runtime: self.runtime.clone() })?;
        let items = [
            self.method.as_str().into_pyobject(py)?.into_any(),
            params,
            self.hook.into_pyobject(py)?.into_any(),
            next.into_any(),
        ];
        Ok(pyo3::types::PyTuple::new(py, items)?.into_any())
    }
}

/// The rest of the chain, for one request, callable once.
#[pyclass(module = "ferrite_mcp._ferrite", frozen)]
pub struct CallNext {
    next: Rest,
    runtime: Handle,
}

#[pymethods]
impl CallNext {
    /// Run the rest of the chain with `params` (the request's, as the middleware left them);
    /// `resolve(error, result)` is called from a runtime thread with the answer: the result as
    /// a dict, or an `McpError` for a JSON-RPC error.
    fn run(&self, py: Python<'_>, params: Option<&Bound<'_, PyAny>>, resolve: Py<PyAny>) -> PyResult<()> {
        let params = params.filter(|p| !p.is_none()).map(convert::from_py).transpose()?;
        let next = match &self.next {
            Rest::Request(next) => next,
            Rest::Notification(next) => {
                // The rest of a notification's chain; `resolve(None, None)` when it ran (or
                // at once, when it already had).
                let run = next.run(Some(params));
                let done = move || {
                    let _ = Python::try_attach(|py| {
                        if let Err(e) = resolve.bind(py).call1((py.None(), py.None())) {
                            e.write_unraisable(py, None);
                        }
                    });
                };
                match run {
                    Some(run) => {
                        self.runtime.spawn(async move {
                            run.await;
                            done();
                        });
                    }
                    None => done(),
                }
                return Ok(());
            }
        };
        let answer = next.run(Some(params));
        let Some(answer) = answer else {
            let err = errors::rpc_err(py, "McpError", &next.refusal());
            resolve.bind(py).call1((err.into_value(py), py.None()))?;
            return Ok(());
        };
        self.runtime.spawn(async move {
            let answer = answer.await;
            // `try_attach` fails only while the interpreter shuts down: nobody is waiting then.
            let _ = Python::try_attach(|py| {
                let args = match &answer {
                    Ok(raw) => serde_json::from_str::<Value>(raw.get())
                        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
                        .and_then(|v| convert::to_py(py, &v))
                        .map(|v| (py.None().into_bound(py), v)),
                    Err(obj) => Ok((
                        errors::rpc_err(py, "McpError", obj).into_value(py).into_bound(py).into_any(),
                        py.None().into_bound(py),
                    )),
                };
                if let Err(e) = args.and_then(|a| resolve.bind(py).call1(a)) {
                    e.write_unraisable(py, None);
                }
            });
        });
        Ok(())
    }
}
