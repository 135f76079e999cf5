//! Authorization from C: `ferrite_auth` is the core's resource server (`ResourceServer`),
//! built from the core's configuration as JSON (`AuthConfig::from_value`, snake_case or
//! camelCase keys, checked by the core: a bad option is `FERRITE_RESULT_INVALID_ARGUMENT` with
//! the core's text) and, optionally, a host token verifier. `ferrite_server_new_with_auth`
//! builds a protected server with it (the core takes the resource server when the server is
//! built, so it is an argument of the constructor, not a setter).
//!
//! A host verifier is the callback `(user_data, token, verification)`, one more
//! implementation of the core's [`TokenVerifier`]: it settles the `ferrite_verification` with
//! the token's claims (`ferrite_verification_accept`, read by `Identity::from_value`), a
//! refusal (`_reject`: 401 `invalid_token` with its reason) or "cannot decide now"
//! (`_unavailable`: 503), before returning or, after returning `FERRITE_RESULT_PENDING`,
//! later from any thread, like a request. Nothing here logs or keeps the token past the
//! verification.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex, MutexGuard};

use ferrite_core::auth::{AuthConfig, AuthError, Identity, ResourceServer, TokenVerifier};
use ferrite_core::sync::lock;
use ferrite_core::BoxFuture;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::buffer::{ferrite_str, parse_json, str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{ferrite_finalizer, UserData};

/// A host token verifier. `token` is the bearer token of the request's `Authorization`
/// header, borrowed from `verification` (valid until it is settled; never log it). Settle
/// `verification` with `ferrite_verification_accept`, `_reject` or `_unavailable` before
/// returning `FERRITE_RESULT_OK`, or return `FERRITE_RESULT_PENDING` and settle it later from
/// any thread. Any other return value refuses the token (401). Runs on a worker thread,
/// possibly several at once; a verifier that does I/O should return PENDING and answer from
/// a thread of its own. Returns a `ferrite_result` value.
#[allow(non_camel_case_types)]
pub type ferrite_verify_callback = Option<
    unsafe extern "C" fn(user_data: *mut c_void, token: ferrite_str, verification: *mut ferrite_verification) -> u32,
>;

type VerifyFn = unsafe extern "C" fn(*mut c_void, ferrite_str, *mut ferrite_verification) -> u32;

/// A resource-server configuration (the core's `ResourceServer`): pass it to
/// `ferrite_server_new_with_auth`. Opaque; create with `ferrite_auth_new`, release with
/// `ferrite_auth_free` (a server built with it keeps what it needs). May be used by several
/// servers, from any thread.
#[allow(non_camel_case_types)]
pub struct ferrite_auth {
    resource_server: Arc<ResourceServer>,
}

impl ferrite_auth {
    pub(crate) fn resource_server(&self) -> Arc<ResourceServer> {
        self.resource_server.clone()
    }
}

type Verdict = Result<Identity, AuthError>;

struct State {
    settled: bool,
    in_callback: bool,
    /// A verdict given during the callback (no channel needed).
    early: Option<Verdict>,
    /// Where a later verdict goes; made only when the callback returns PENDING.
    sender: Option<oneshot::Sender<Verdict>>,
    /// The host's reference, dropped when the verification is settled.
    host_ref: Option<Arc<ferrite_verification>>,
}

/// One token being verified by a host verifier. Opaque. Valid from the start of the
/// callback until it is settled (by `ferrite_verification_accept`, `_reject` or
/// `_unavailable`, or when the callback returns anything but PENDING); any thread may
/// settle it.
#[allow(non_camel_case_types)]
pub struct ferrite_verification {
    token: String,
    state: Mutex<State>,
}

impl ferrite_verification {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn settle(&self, verdict: Verdict) -> Result<Option<Arc<ferrite_verification>>, Error> {
        let mut st = self.state();
        if st.settled {
            return Err(Error::new(ferrite_result::AlreadyCompleted, "the verification was already settled"));
        }
        st.settled = true;
        if st.in_callback {
            st.early = Some(verdict);
            return Ok(None);
        }
        if let Some(tx) = st.sender.take() {
            // The receiver is gone when the HTTP request was dropped: nothing to tell.
            let _ = tx.send(verdict);
        }
        Ok(st.host_ref.take())
    }
}

/// The host verifier as the core's [`TokenVerifier`].
struct CVerifier {
    f: VerifyFn,
    data: UserData,
}

enum Answer {
    Now(Verdict),
    Later(oneshot::Receiver<Verdict>),
}

impl CVerifier {
    fn call(&self, token: &str) -> Answer {
        let v = Arc::new(ferrite_verification {
            token: token.to_owned(),
            state: Mutex::new(State { settled: false, in_callback: true, early: None, sender: None, host_ref: None }),
        });
        v.state().host_ref = Some(v.clone());
        // SAFETY: the host registered `f` for `data`; the verification (and its token) outlive
        // the call: the host's reference is dropped only when it is settled.
        let status = unsafe { (self.f)(self.data.ptr(), ferrite_str::borrow(&v.token), Arc::as_ptr(&v).cast_mut()) };
        let (answer, release) = {
            let mut st = v.state();
            st.in_callback = false;
            let code = ferrite_result::from_u32(status);
            if code == Some(ferrite_result::Pending) && !st.settled {
                let (tx, rx) = oneshot::channel();
                st.sender = Some(tx);
                (Answer::Later(rx), None)
            } else {
                let verdict = match (st.early.take(), code) {
                    (Some(verdict), _) => verdict,
                    (None, Some(ferrite_result::Ok)) => Err(AuthError::InvalidToken(
                        "the token verifier returned FERRITE_RESULT_OK without an answer".into(),
                    )),
                    (None, other) => Err(AuthError::InvalidToken(match other {
                        Some(code) => format!("the token verifier failed: {}", code.message().to_string_lossy()),
                        None => format!("the token verifier failed: unknown status {status}"),
                    })),
                };
                st.settled = true;
                (Answer::Now(verdict), st.host_ref.take())
            }
        };
        drop(release);
        answer
    }
}

impl TokenVerifier for CVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        let answer = self.call(token);
        Box::pin(async move {
            match answer {
                Answer::Now(verdict) => verdict,
                Answer::Later(rx) => rx.await.unwrap_or_else(|_| {
                    Err(AuthError::Unavailable("the token verifier dropped the verification unanswered".into()))
                }),
            }
        })
    }
}

/// Read the core's resource-server configuration from `config_json` (a JSON object with the
/// core's keys, snake_case or camelCase: `resource`, `authorization_servers`,
/// `required_scopes`, `tool_scopes`, `prompt_scopes`, `resource_scopes`, `hide_unauthorized`,
/// `scopes_supported`, `resource_name`, `resource_documentation`, and `jwt` or
/// `introspection`; see the README's "Authorization") and, when `callback` is not NULL, use
/// it as the token verifier (the configuration then names neither `jwt` nor
/// `introspection`). On success `*out` is a new `ferrite_auth`.
///
/// The core checks everything here: a bad option is `FERRITE_RESULT_INVALID_ARGUMENT` with
/// the core's text as the last error (`invalid auth option jwt.jwks_url: ...`), text that is
/// not JSON `FERRITE_RESULT_INVALID_JSON`. Ownership of `user_data` passes to the library even
/// when the call fails: `finalizer` runs exactly once, when the last server using the
/// verifier is dropped and the `ferrite_auth` is freed, or at once on failure (or when
/// `callback` is NULL).
///
/// # Safety
/// `config_json` points to `config_json_len` readable bytes; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_auth_new(
    config_json: *const c_char,
    config_json_len: usize,
    callback: ferrite_verify_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
    out: *mut *mut ferrite_auth,
) -> ferrite_result {
    ffi_boundary!({
        let data = UserData::new(user_data, finalizer);
        if out.is_null() {
            return Err(Error::null("out"));
        }
        // SAFETY: forwarded from this function's contract.
        let text = unsafe { str_arg(config_json, config_json_len, "config_json") }?;
        let value: Value = parse_json(text, "config_json")?;
        let config = AuthConfig::from_value(value).map_err(|e| Error::invalid(e.to_string()))?;
        let resource_server = match callback {
            Some(f) => ResourceServer::with_verifier(config, Arc::new(CVerifier { f, data })),
            None => {
                drop(data);
                ResourceServer::from_config(config)
            }
        }
        .map_err(|e| Error::invalid(e.to_string()))?;
        let auth = Box::new(ferrite_auth { resource_server: Arc::new(resource_server) });
        // SAFETY: `out` is non-NULL and valid for a write per this function's contract.
        unsafe { out.write(Box::into_raw(auth)) };
        Ok(())
    })
}

/// Free a `ferrite_auth` (NULL is a no-op). Servers built with it keep working; the
/// verifier's finalizer runs when the last of them is dropped too.
///
/// # Safety
/// `auth` is NULL or a live `ferrite_auth` that nothing else uses any more.
#[no_mangle]
pub unsafe extern "C" fn ferrite_auth_free(auth: *mut ferrite_auth) {
    if auth.is_null() {
        return;
    }
    let _ = ffi_boundary!({
        // SAFETY: a live handle from `ferrite_auth_new`, now owned by this call.
        drop(unsafe { Box::from_raw(auth) });
        Ok(())
    });
}

/// The Protected Resource Metadata document (RFC 9728) the server serves, as JSON, in a new
/// buffer at `*out` (free it with `ferrite_string_free`); `*out_len` (if not NULL) is its
/// length.
///
/// # Safety
/// `auth` is a live `ferrite_auth`; `out` is valid for a write; `out_len` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn ferrite_auth_metadata(
    auth: *const ferrite_auth,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: NULL or live, per this function's contract.
        let auth = unsafe { auth.as_ref() }.ok_or_else(|| Error::null("auth"))?;
        let text = auth.resource_server.metadata().to_string();
        // SAFETY: forwarded from this function's contract.
        unsafe { crate::buffer::give_string(text.as_bytes(), out, out_len) }
    })
}

/// Settle a verification and drop the host's reference outside the borrow.
///
/// # Safety
/// `verification` is NULL or live.
unsafe fn answer(
    verification: *mut ferrite_verification,
    verdict: impl FnOnce() -> Result<Verdict, Error>,
) -> Result<(), Error> {
    // SAFETY: NULL or live, per the caller's contract.
    let v = unsafe { verification.as_ref() }.ok_or_else(|| Error::null("verification"))?;
    // A bad argument still settles (as a refusal), so the handle never leaks.
    let (verdict, err) = match verdict() {
        Ok(verdict) => (verdict, None),
        Err(e) => {
            (Err(AuthError::InvalidToken(format!("the token verifier's answer was rejected: {}", e.detail))), Some(e))
        }
    };
    let release = v.settle(verdict)?;
    drop(release); // may free `v`: not used after this line
    err.map_or(Ok(()), Err)
}

/// Accept the token: `claims_json` is its claims as a JSON object (`sub`, `client_id`, `scope`
/// or `scp`, `exp`, `iss`, anything else), which the core reads into the request's identity
/// (`ferrite_request_identity`). Claims naming no subject refuse the token with the core's
/// reason. Settles the verification whatever happens (JSON that does not parse refuses the
/// token, and the code says why). After PENDING the handle is freed by this call.
///
/// # Safety
/// `verification` is a live verification; `claims_json` points to `claims_json_len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_verification_accept(
    verification: *mut ferrite_verification,
    claims_json: *const c_char,
    claims_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            answer(verification, || {
                let text = str_arg(claims_json, claims_json_len, "claims_json")?;
                let claims: Value = parse_json(text, "claims_json")?;
                Ok(Identity::from_value(claims))
            })
        }
    })
}

/// Refuse the token: 401 `invalid_token` with `message` as the challenge's
/// `error_description` (say why, never repeat the token). Settles the verification like
/// `ferrite_verification_accept`.
///
/// # Safety
/// `verification` is a live verification; `message` points to `message_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_verification_reject(
    verification: *mut ferrite_verification,
    message: *const c_char,
    message_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            answer(verification, || {
                let m = str_arg(message, message_len, "message")?;
                Ok(Err(AuthError::InvalidToken(m.to_owned())))
            })
        }
    })
}

/// Say the verifier cannot decide now (its authorization server is unreachable): 503 with
/// `Retry-After`, so the client retries instead of re-authorizing; `message` says why.
/// Settles the verification like `ferrite_verification_accept`.
///
/// # Safety
/// `verification` is a live verification; `message` points to `message_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_verification_unavailable(
    verification: *mut ferrite_verification,
    message: *const c_char,
    message_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            answer(verification, || {
                let m = str_arg(message, message_len, "message")?;
                Ok(Err(AuthError::Unavailable(m.to_owned())))
            })
        }
    })
}

/// The token being verified (the same text the callback got), borrowed: valid until the
/// verification is settled. For a verifier that returned PENDING and answers from elsewhere.
///
/// # Safety
/// `verification` is a live verification; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_verification_token(
    verification: *const ferrite_verification,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: NULL or live, per this function's contract.
        let v = unsafe { verification.as_ref() }.ok_or_else(|| Error::null("verification"))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(&v.token), "out") }
    })
}
