//! The C ABI's JSON entry points (`ferrite-ffi`, linked as an rlib and called through its
//! `extern "C"` functions exactly as C calls them) on arbitrary bytes. The harness is shared
//! with the ABI's own tests (`ffi/tests/json_entry_points/harness.rs`, which says what each
//! input byte means and what is checked); there every seed runs as a test, also under Miri.
#![no_main]

#[path = "../../ffi/tests/json_entry_points/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
