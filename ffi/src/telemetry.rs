//! OpenTelemetry from C: the core's one switch (`ferrite_server_enable_telemetry`) and the
//! process-wide flush and shutdown of its OTLP exporters. What is recorded and how it is
//! exported are the core's (`ferrite_core::telemetry`).

use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::server::{ferrite_server, server_ref};

/// Turn telemetry on for `server`: OTLP/HTTP (protobuf) exporters for spans and metrics,
/// installed once per process and configured by the standard `OTEL_*` environment variables
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`, default `http://localhost:4318`; `OTEL_SERVICE_NAME`;
/// `OTEL_SDK_DISABLED=true` exports nothing), and a span plus metrics per request following
/// the MCP semantic conventions. Off until called. Call `ferrite_telemetry_shutdown` before the
/// process exits, or what is pending is lost. `FERRITE_RESULT_IO` when an exporter cannot be
/// built (a bad endpoint or header variable; the reason in `ferrite_last_error_message`).
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_telemetry(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        s.core()?.enable_telemetry().map_err(|e| Error::new(ferrite_result::Io, e.to_string()))
    })
}

/// Export what is pending now (blocks until done or timed out); the exporters stay.
#[no_mangle]
pub extern "C" fn ferrite_telemetry_flush() -> ferrite_result {
    ffi_boundary!({
        ferrite_core::telemetry::flush();
        Ok(())
    })
}

/// Export what is pending and stop the exporters (blocks until done or timed out); a no-op
/// when telemetry was never enabled. Call it once, before the process exits.
#[no_mangle]
pub extern "C" fn ferrite_telemetry_shutdown() -> ferrite_result {
    ffi_boundary!({
        ferrite_core::telemetry::shutdown();
        Ok(())
    })
}
