package ferrite

/*
#include "bridge.h"
*/
import "C"

// The core's built-in middleware and OpenTelemetry: both run in the core, with no Go call per
// request.

// AddBuiltinMiddleware adds the core's built-in middleware name at the end of the chain
// (ferrite_server_add_builtin_middleware), configured by config (a value that marshals to the
// core's keys; nil for the defaults): "timing", "logging" ({"level"}), "rate_limit"
// ({"perSecond", "burst", "key": "client" | "session" | "global", "methods"}), "cache"
// ({"maxEntries"}) or "error_masking" ({"message"}). An unknown name or a configuration the
// core refuses is an *Error with CodeInvalidArgument and the core's message.
func (s *Server) AddBuiltinMiddleware(name string, config any) error {
	np, nn := nonNull(name)
	var cp *C.char
	var cn C.size_t
	if config != nil {
		var err error
		if cp, cn, err = jsonArg(config); err != nil {
			return err
		}
	}
	return check(C.ferrite_server_add_builtin_middleware(s.ptr, np, nn, cp, cn))
}

// EnableTelemetry turns OpenTelemetry on for the server (ferrite_server_enable_telemetry): OTLP/HTTP
// exporters for spans and metrics, installed once per process and configured by the standard
// OTEL_* environment variables, and a span plus metrics per request following the MCP semantic
// conventions. Call ShutdownTelemetry before the program exits, or what is pending is lost.
func (s *Server) EnableTelemetry() error {
	return check(C.ferrite_server_enable_telemetry(s.ptr))
}

// FlushTelemetry exports what is pending now; the exporters stay.
func FlushTelemetry() error {
	return check(C.ferrite_telemetry_flush())
}

// ShutdownTelemetry exports what is pending and stops the exporters (a no-op when telemetry
// was never enabled).
func ShutdownTelemetry() error {
	return check(C.ferrite_telemetry_shutdown())
}
