//! Result codes, the thread-local last-error detail, and the panic boundary.
//!
//! Every export returns a [`ferrite_result`] (or a value that cannot fail) and runs its body
//! behind [`ffi_boundary!`], the one place that turns a Rust error into a code plus a detail
//! string and a panic into [`ferrite_result::Panic`]: no unwinding ever reaches the host.
//! The codes are part of the ABI: they are numbered explicitly and a number is never reused.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};

/// What a call did. Every fallible function returns one; `FERRITE_RESULT_OK` is 0.
///
/// The numbers are stable: new codes are appended and a retired code is never reused.
/// `ferrite_result_message` renders a code; `ferrite_last_error` gives the detail of the
/// most recent failure on the calling thread.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum ferrite_result {
    /// Success.
    Ok = 0,
    /// Returned by a handler callback: the request will be completed later, from any thread,
    /// with `ferrite_request_complete` or `ferrite_request_fail`.
    Pending = 1,
    /// A required pointer argument was NULL.
    NullPointer = 2,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 3,
    /// A JSON argument did not parse.
    InvalidJson = 4,
    /// An argument parsed but was not acceptable (wrong JSON shape, invalid schema, bad
    /// template, unknown enum value).
    InvalidArgument = 5,
    /// Nothing with that name, URI or pointer exists.
    NotFound = 6,
    /// The feature needs a stateful server.
    NeedsStateful = 7,
    /// The request was already completed or failed.
    AlreadyCompleted = 8,
    /// The server is closed.
    Closed = 9,
    /// The function cannot be called on this thread (a blocking call made from inside a
    /// callback, on a thread that runs the server's tasks).
    WrongThread = 10,
    /// An I/O error (stdio).
    Io = 11,
    /// Ferrite panicked; this is a bug in Ferrite. The detail is the panic message.
    Panic = 12,
    /// Returned by a handler callback that failed without calling `ferrite_request_fail`.
    HandlerFailed = 13,
    /// A server-to-client request (sampling, elicitation, roots) failed: no channel, the
    /// client lacks the capability or answered with an error, or the connection closed.
    PeerError = 14,
    /// The MCP endpoint no longer reads this HTTP request's body
    /// (`ferrite_http_exchange_write`): it has answered already (413 for a body past
    /// `max_body_bytes`, a refusal decided from the head), or the body was ended. Stop sending
    /// and call `ferrite_http_exchange_respond`.
    BodyClosed = 15,
    /// The HTTP exchange was cancelled (`ferrite_http_exchange_cancel`, or a response callback
    /// that returned nonzero: the host's client went away); the requests it carried were
    /// cancelled, unless the client can resume the stream.
    Cancelled = 16,
    /// The task options cannot change any more (`ferrite_server_set_task_options`): the server
    /// has begun running tasks, which live in the store and with the settings they were made
    /// with. Set them before serving.
    TasksStarted = 17,
    /// The process's Rust code installed a `tracing` subscriber of its own: the core's log
    /// records go there, not to `ferrite_set_diagnostic_callback`.
    LoggerTaken = 18,
    /// A proxy's upstream server could not be started or reached, or refused or garbled a
    /// request the proxy needs (`ferrite_server_proxy`).
    Upstream = 19,
}

impl ferrite_result {
    /// The code for a raw number a host returned, if it is one.
    pub(crate) fn from_u32(v: u32) -> Option<ferrite_result> {
        use ferrite_result::*;
        Some(match v {
            0 => Ok,
            1 => Pending,
            2 => NullPointer,
            3 => InvalidUtf8,
            4 => InvalidJson,
            5 => InvalidArgument,
            6 => NotFound,
            7 => NeedsStateful,
            8 => AlreadyCompleted,
            9 => Closed,
            10 => WrongThread,
            11 => Io,
            12 => Panic,
            13 => HandlerFailed,
            14 => PeerError,
            15 => BodyClosed,
            16 => Cancelled,
            17 => TasksStarted,
            18 => LoggerTaken,
            19 => Upstream,
            _ => return None,
        })
    }

    pub(crate) fn message(self) -> &'static CStr {
        use ferrite_result::*;
        match self {
            Ok => c"ok",
            Pending => c"pending: the request completes later",
            NullPointer => c"a required pointer argument was NULL",
            InvalidUtf8 => c"a string argument was not valid UTF-8",
            InvalidJson => c"a JSON argument did not parse",
            InvalidArgument => c"an argument was not acceptable",
            NotFound => c"not found",
            NeedsStateful => c"this feature needs a stateful server",
            AlreadyCompleted => c"the request was already completed",
            Closed => c"the server is closed",
            WrongThread => c"this blocking function cannot be called from inside a callback",
            Io => c"I/O error",
            Panic => c"internal error: Ferrite panicked",
            HandlerFailed => c"the handler failed",
            PeerError => c"the server-to-client request failed",
            BodyClosed => c"the MCP endpoint no longer reads this request body",
            Cancelled => c"the HTTP exchange was cancelled",
            TasksStarted => c"the task options are fixed once tasks have begun",
            LoggerTaken => c"another tracing subscriber receives the log records",
            Upstream => c"the proxy's upstream server failed",
        }
    }
}

/// A failure inside an export: the code to return and the detail for `ferrite_last_error`.
#[derive(Debug)]
pub(crate) struct Error {
    pub(crate) code: ferrite_result,
    pub(crate) detail: String,
}

impl Error {
    pub(crate) fn new(code: ferrite_result, detail: impl Into<String>) -> Error {
        Error { code, detail: detail.into() }
    }
    pub(crate) fn null(what: &str) -> Error {
        Error::new(ferrite_result::NullPointer, format!("{what} is NULL"))
    }
    pub(crate) fn closed() -> Error {
        Error::new(ferrite_result::Closed, "the server is closed")
    }
    pub(crate) fn invalid(detail: impl Into<String>) -> Error {
        Error::new(ferrite_result::InvalidArgument, detail)
    }
    /// Record the detail for this thread and give the code.
    pub(crate) fn report(self) -> ferrite_result {
        set_last_error(&self.detail);
        self.code
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn set_last_error(detail: &str) {
    let c = CString::new(detail.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|l| *l.borrow_mut() = c);
}

/// The message of a panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_owned()
    }
}

pub(crate) fn panicked(payload: Box<dyn Any + Send>) -> ferrite_result {
    set_last_error(&format!("Ferrite panicked: {}", panic_message(&*payload)));
    ferrite_result::Panic
}

/// Run an export's body behind the panic boundary. The body is a block evaluating to
/// `Result<(), Error>` (so it can use `?`); the macro runs it and gives `FERRITE_RESULT_OK`,
/// the error's code (recording its detail as the thread's last error), or
/// `FERRITE_RESULT_PANIC` if it panicked. Success leaves the last error alone (like `errno`),
/// so a pointer from `ferrite_last_error` stays valid across successful calls; a host may pass
/// it straight to `ferrite_request_fail`.
macro_rules! ffi_boundary {
    ($body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(
            || -> ::std::result::Result<(), $crate::error::Error> { $body },
        )) {
            Ok(Ok(())) => $crate::error::ferrite_result::Ok,
            Ok(Err(e)) => e.report(),
            Err(payload) => $crate::error::panicked(payload),
        }
    }};
}
pub(crate) use ffi_boundary;

/// A fixed, NUL-terminated description of a result code (static storage: never free it).
/// Unknown numbers give "unknown result code".
#[no_mangle]
pub extern "C" fn ferrite_result_message(result: u32) -> *const c_char {
    match ferrite_result::from_u32(result) {
        Some(r) => r.message().as_ptr(),
        None => c"unknown result code".as_ptr(),
    }
}

/// The detail of the most recent failed Ferrite call on the calling thread, as a
/// NUL-terminated UTF-8 string (empty if none failed yet). Never NULL. Like `errno`, a
/// successful call leaves it alone: read it right after a call returned a failure code. The
/// pointer stays valid until the next failure on this thread; copy it to keep it longer.
#[no_mangle]
pub extern "C" fn ferrite_last_error() -> *const c_char {
    // `try_with` fails only during thread teardown; a static empty string is right then.
    LAST_ERROR.try_with(|l| l.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}
