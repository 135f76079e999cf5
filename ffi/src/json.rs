//! Small JSON helpers for hosts without a JSON library (C).
//!
//! Arguments and results cross the ABI as JSON text. Go, Python and most other hosts parse
//! it themselves; a C host would otherwise need a JSON parser just to read `{"a": 1}` or to
//! escape a string it echoes back. These four functions cover that: read a value by JSON
//! Pointer (RFC 6901) and quote a string. They are conveniences, not protocol logic.
//!
//! A lookup builds no tree: it checks the document once, then at each pointer step scans
//! one object or array and borrows the member's raw text (serde_json's `RawValue`). A tool
//! handler reading two arguments this way costs two scans of a short string, no allocation.

use std::borrow::Cow;
use std::ffi::c_char;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::buffer::{give_string, str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};

/// An object key, borrowed from the input unless it had escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// One pointer step: the member named by the token in an object, the element at the index
/// in an array, nothing in a scalar.
struct Step<'t>(&'t str);

impl<'de> Visitor<'de> for Step<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if found.is_none() && key == self.0 {
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // RFC 6901: an array index is "0" or digits without a leading zero.
        let index = match self.0.as_bytes() {
            [b'0'] => Some(0),
            [b'1'..=b'9', ..] => self.0.parse::<usize>().ok(),
            _ => None,
        };
        let mut found = None;
        let mut i = 0usize;
        while let Some(element) = seq.next_element::<&'de RawValue>()? {
            if Some(i) == index {
                found = Some(element);
            }
            i += 1;
        }
        Ok(found)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The raw JSON text of the value at `pointer` in `text`.
///
/// # Safety
/// As `str_arg` for both pairs.
unsafe fn lookup<'a>(
    json: *const c_char,
    json_len: usize,
    pointer: *const c_char,
    pointer_len: usize,
) -> Result<&'a str, Error> {
    // SAFETY: forwarded from the caller's contract.
    let (text, pointer) = unsafe { (str_arg(json, json_len, "json")?, str_arg(pointer, pointer_len, "pointer")?) };
    // Check the whole document once; the steps below only re-scan parts of it.
    let mut current: &str = serde_json::from_str::<&RawValue>(text)
        .map_err(|e| Error::new(ferrite_result::InvalidJson, format!("json: {e}")))?
        .get();
    if pointer.is_empty() {
        return Ok(current);
    }
    let Some(tokens) = pointer.strip_prefix('/') else {
        return Err(Error::invalid(format!("JSON Pointer {pointer:?} must be empty or start with '/'")));
    };
    let not_found = || Error::new(ferrite_result::NotFound, format!("nothing at JSON Pointer {pointer:?}"));
    for raw_token in tokens.split('/') {
        let token: Cow<'_, str> = if raw_token.contains('~') {
            raw_token.replace("~1", "/").replace("~0", "~").into()
        } else {
            raw_token.into()
        };
        let mut de = serde_json::Deserializer::from_str(current);
        let next = de.deserialize_any(Step(&token)).map_err(|e| Error::invalid(format!("json: {e}")))?;
        current = next.ok_or_else(not_found)?.get();
    }
    Ok(current)
}

/// The value at JSON Pointer `pointer` (RFC 6901, e.g. `"/a"`, `"/items/0/name"`; `""` is the
/// whole document) in `json`, as its JSON text in `json` (whitespace inside it kept), in a
/// new buffer at `*out` (NUL-terminated, length in `*out_len` if `out_len` is not NULL; free
/// it with `ferrite_string_free`). `FERRITE_RESULT_NOT_FOUND` if nothing is there.
///
/// # Safety
/// `json`/`pointer` point to `json_len`/`pointer_len` readable bytes; `out` is valid for a
/// write; `out_len` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_json_get(
    json: *const c_char,
    json_len: usize,
    pointer: *const c_char,
    pointer_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let raw = unsafe { lookup(json, json_len, pointer, pointer_len) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(raw.as_bytes(), out, out_len) }
    })
}

/// As `ferrite_json_get`, for a string value: its unescaped text (which may contain NUL bytes
/// when the JSON had `\u0000`; `*out_len` is exact). `FERRITE_RESULT_INVALID_ARGUMENT` if
/// the value is not a string.
///
/// # Safety
/// As `ferrite_json_get`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_json_get_string(
    json: *const c_char,
    json_len: usize,
    pointer: *const c_char,
    pointer_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let raw = unsafe { lookup(json, json_len, pointer, pointer_len) }?;
        let s = serde_json::from_str::<String>(raw)
            .map_err(|_| Error::invalid(format!("the value is not a string: {raw}")))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(s.as_bytes(), out, out_len) }
    })
}

/// As `ferrite_json_get`, for an integer value that fits in `int64_t`, stored at `*out`.
/// `FERRITE_RESULT_INVALID_ARGUMENT` if the value is not such an integer.
///
/// # Safety
/// `json`/`pointer` as in `ferrite_json_get`; `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_json_get_i64(
    json: *const c_char,
    json_len: usize,
    pointer: *const c_char,
    pointer_len: usize,
    out: *mut i64,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let raw = unsafe { lookup(json, json_len, pointer, pointer_len) }?;
        let n = serde_json::from_str::<i64>(raw)
            .map_err(|_| Error::invalid(format!("the value is not a 64-bit integer: {raw}")))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, n, "out") }
    })
}

/// `text` as a JSON string literal, quotes included (`he said "hi"` becomes
/// `"he said \"hi\""`), in a new buffer at `*out` (free it with `ferrite_string_free`).
///
/// # Safety
/// `text` points to `text_len` readable bytes; `out` is valid for a write; `out_len` is NULL
/// or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_json_quote(
    text: *const c_char,
    text_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { str_arg(text, text_len, "text") }?;
        let quoted = Value::from(s).to_string();
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(quoted.as_bytes(), out, out_len) }
    })
}
