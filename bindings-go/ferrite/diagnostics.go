package ferrite

// The core's diagnostics (its log records for the operator: sessions, refused requests,
// handler panics, store errors) routed to Go: SetDiagnostics with a function, or
// SlogDiagnostics for log/slog. Not MCP logging (Request.Log sends notifications/message to
// a client).

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"log/slog"
	"unsafe"
)

// DiagnosticLevel is a record's severity, most severe first; also the threshold.
type DiagnosticLevel uint32

// The levels of SetDiagnostics.
const (
	// DiagnosticsOff turns the records off (the default).
	DiagnosticsOff DiagnosticLevel = C.FERRITE_DIAGNOSTIC_LEVEL_OFF
	// DiagnosticError: a handler panicked, a result was not valid.
	DiagnosticError DiagnosticLevel = C.FERRITE_DIAGNOSTIC_LEVEL_ERROR
	// DiagnosticWarn: a store unreachable, a request refused with 5xx.
	DiagnosticWarn DiagnosticLevel = C.FERRITE_DIAGNOSTIC_LEVEL_WARN
	// DiagnosticInfo: sessions created, evicted, expired, ended; requests refused with 4xx.
	DiagnosticInfo DiagnosticLevel = C.FERRITE_DIAGNOSTIC_LEVEL_INFO
	// DiagnosticDebug: per request (tool failures).
	DiagnosticDebug DiagnosticLevel = C.FERRITE_DIAGNOSTIC_LEVEL_DEBUG
	// DiagnosticTrace: everything.
	DiagnosticTrace DiagnosticLevel = C.FERRITE_DIAGNOSTIC_LEVEL_TRACE
)

// DiagnosticFunc receives one record: its level, target (ferrite::session, ferrite::http,
// ferrite::handler, ferrite::store) and message (the text, then " key=value" per field). It
// runs on a library thread, possibly on several at once, and must not call SetDiagnostics.
// Records never carry a bearer token, a session id, request state, arguments or results.
type DiagnosticFunc func(level DiagnosticLevel, target, message string)

// SetDiagnostics sends the core's records at level or more severe to f, process-wide
// (replacing any earlier function); DiagnosticsOff or a nil f turns them off.
func SetDiagnostics(level DiagnosticLevel, f DiagnosticFunc) error {
	if f == nil || level == DiagnosticsOff {
		return check(C.ferrite_set_diagnostic_callback(nil, nil, nil, C.FERRITE_DIAGNOSTIC_LEVEL_OFF))
	}
	return check(C.ferrite_set_diagnostic_callback(C.ferrite_diagnostic_callback(C.goDiagnosticCallback),
		userData(f), finalizer, C.uint32_t(level)))
}

// SlogDiagnostics is a DiagnosticFunc logging to logger (slog.Default() when nil): error,
// warn and info at their slog levels, debug and trace at slog.LevelDebug, with the target as
// the "target" attribute.
func SlogDiagnostics(logger *slog.Logger) DiagnosticFunc {
	if logger == nil {
		logger = slog.Default()
	}
	return func(level DiagnosticLevel, target, message string) {
		l := slog.LevelDebug
		switch level {
		case DiagnosticError:
			l = slog.LevelError
		case DiagnosticWarn:
			l = slog.LevelWarn
		case DiagnosticInfo:
			l = slog.LevelInfo
		}
		logger.Log(context.Background(), l, message, slog.String("target", target))
	}
}

//export goDiagnosticCallback
func goDiagnosticCallback(ud unsafe.Pointer, level C.uint32_t, target, message C.ferrite_str) {
	defer func() { _ = recover() }() // a panicking function loses its record, not the thread
	fromUserData(ud).(DiagnosticFunc)(DiagnosticLevel(level), goString(target), goString(message))
}
