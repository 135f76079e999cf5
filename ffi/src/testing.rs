//! Test-only exports (cargo feature `testing`): a way to make Ferrite panic inside the panic
//! boundary on purpose, so the test suite can check a panic surfaces as
//! `FERRITE_RESULT_PANIC` with its message in `ferrite_last_error`, and never unwinds into C.

use crate::error::{ferrite_result, ffi_boundary};

/// Panic inside the panic boundary with a fixed message. Returns `FERRITE_RESULT_PANIC`.
/// Exists only in libraries built with the `testing` feature.
#[no_mangle]
pub extern "C" fn ferrite_testing_panic() -> ferrite_result {
    ffi_boundary!({ panic!("ferrite_testing_panic: deliberate panic") })
}
