//! How bytes cross the boundary: borrowed `{ptr, len}` slices in, owned NUL-terminated
//! buffers out.
//!
//! Inputs are `(const char *ptr, size_t len)` pairs checked here once (NULL, length, UTF-8).
//! Outputs Ferrite allocates carry a hidden length header, so `ferrite_string_free` needs
//! only the pointer yet frees exactly what was allocated even when the text holds a NUL
//! (a JSON string may contain `\u0000`).

use std::ffi::c_char;
use std::ptr;

use serde::de::DeserializeOwned;

use crate::error::{ferrite_result, ffi_boundary, Error};

/// A borrowed UTF-8 string: `len` bytes at `ptr`, not NUL-terminated unless documented.
/// Ferrite passes these to callbacks (valid only for the duration of the call) and returns
/// them from request getters (valid while the request is; see each function).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct ferrite_str {
    /// The first byte. Never NULL for a string Ferrite produced, even an empty one: NULL
    /// (with `len` 0) only where a getter documents it, meaning "absent" (no such header,
    /// input response, request state, ...).
    pub ptr: *const c_char,
    /// The length in bytes.
    pub len: usize,
}

impl ferrite_str {
    /// "Absent": what a getter returns for a value that is not there.
    pub(crate) const ABSENT: ferrite_str = ferrite_str { ptr: ptr::null(), len: 0 };

    /// A view of `s`; valid as long as `s` is.
    pub(crate) fn borrow(s: &str) -> ferrite_str {
        ferrite_str { ptr: s.as_ptr().cast(), len: s.len() }
    }
}

/// A required string argument.
///
/// # Safety
/// `ptr` must be NULL or point to `len` readable bytes that stay valid and unmodified for `'a`.
pub(crate) unsafe fn str_arg<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Error> {
    // SAFETY: forwarded from the caller's contract.
    unsafe { opt_str_arg(ptr, len, what) }?.ok_or_else(|| Error::null(what))
}

/// An optional string argument: NULL means absent.
///
/// # Safety
/// As [`str_arg`].
pub(crate) unsafe fn opt_str_arg<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<Option<&'a str>, Error> {
    if ptr.is_null() {
        return Ok(None);
    }
    if len > isize::MAX as usize {
        return Err(Error::invalid(format!("{what}: length {len} is too large")));
    }
    // SAFETY: non-NULL and, per the caller's contract, `len` readable bytes valid for 'a.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes)
        .map(Some)
        .map_err(|e| Error::new(ferrite_result::InvalidUtf8, format!("{what} is not valid UTF-8: {e}")))
}

/// Parse JSON into `T`: a syntax error is `InvalidJson`, a wrong shape `InvalidArgument`.
pub(crate) fn parse_json<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| {
        let code = if e.is_data() { ferrite_result::InvalidArgument } else { ferrite_result::InvalidJson };
        Error::new(code, format!("{what}: {e}"))
    })
}

/// A required JSON argument.
///
/// # Safety
/// As [`str_arg`].
pub(crate) unsafe fn json_arg<T: DeserializeOwned>(ptr: *const c_char, len: usize, what: &str) -> Result<T, Error> {
    // SAFETY: forwarded from the caller's contract.
    parse_json(unsafe { str_arg(ptr, len, what) }?, what)
}

/// An optional JSON argument: NULL means absent.
///
/// # Safety
/// As [`str_arg`].
pub(crate) unsafe fn opt_json_arg<T: DeserializeOwned>(
    ptr: *const c_char,
    len: usize,
    what: &str,
) -> Result<Option<T>, Error> {
    // SAFETY: forwarded from the caller's contract.
    match unsafe { opt_str_arg(ptr, len, what) }? {
        Some(s) => parse_json(s, what).map(Some),
        None => Ok(None),
    }
}

/// Store a value through a required out-pointer.
///
/// # Safety
/// `out` must be NULL or valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T, what: &str) -> Result<(), Error> {
    if out.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-NULL and valid for writes per the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// Store a value through an optional out-pointer (NULL: the caller does not want it).
///
/// # Safety
/// `out` must be NULL or valid for a write of `T`.
pub(crate) unsafe fn write_opt<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-NULL and valid for writes per the caller's contract.
        unsafe { out.write(value) };
    }
}

const HEADER: usize = std::mem::size_of::<usize>();

/// Copy `text` into a new Ferrite-owned, NUL-terminated buffer; returns the pointer to the
/// text (after the hidden length header) and its length.
pub(crate) fn into_owned_buffer(text: &[u8]) -> (*mut c_char, usize) {
    let len = text.len();
    let mut v = Vec::with_capacity(HEADER + len + 1);
    v.extend_from_slice(&len.to_ne_bytes());
    v.extend_from_slice(text);
    v.push(0);
    let base = Box::into_raw(v.into_boxed_slice()).cast::<u8>();
    // SAFETY: the allocation is HEADER + len + 1 bytes long, so base + HEADER is in bounds.
    (unsafe { base.add(HEADER) }.cast::<c_char>(), len)
}

/// Hand `text` to the host through `out` (required) and `out_len` (optional).
///
/// # Safety
/// `out` and `out_len` must each be NULL or valid for a write.
pub(crate) unsafe fn give_string(text: &[u8], out: *mut *mut c_char, out_len: *mut usize) -> Result<(), Error> {
    if out.is_null() {
        return Err(Error::null("out"));
    }
    let (p, len) = into_owned_buffer(text);
    // SAFETY: `out` is non-NULL and valid for writes; `out_len` is NULL or valid.
    unsafe {
        out.write(p);
        write_opt(out_len, len);
    }
    Ok(())
}

/// Free a buffer Ferrite returned through a `char **out` parameter (`ferrite_server_handle_raw`,
/// `ferrite_json_get`, ...). NULL is a no-op. Freeing anything else, or twice, is undefined.
///
/// # Safety
/// `text` must be NULL or a pointer Ferrite returned as an owned buffer, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn ferrite_string_free(text: *mut c_char) {
    if text.is_null() {
        return;
    }
    // Only freeing: nothing here can panic, but keep the boundary uniform.
    let _ = ffi_boundary!({
        // SAFETY: `text` came from `into_owned_buffer`, so the header precedes it.
        let base = unsafe { text.cast::<u8>().sub(HEADER) };
        // SAFETY: the header holds the text length, written by `into_owned_buffer`.
        let len = unsafe { ptr::read_unaligned(base.cast::<usize>()) };
        // SAFETY: this rebuilds exactly the boxed slice `into_owned_buffer` leaked.
        drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(base, HEADER + len + 1)) });
        Ok(())
    });
}
