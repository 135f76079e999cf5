// Package ferrite is an MCP (Model Context Protocol) server SDK for Go: the Ferrite core
// (Rust) through its C ABI, libferrite, with cgo.
//
// The core does all protocol work (the handshake and 2026-07-28 eras, validation, sessions,
// Streamable HTTP, multi round-trip requests); this package converts Go values to the
// ABI's JSON text and wires Go functions in as handlers. A handler runs on one of the
// library's worker threads; one that has slow work returns ErrPending and completes the
// request later from any goroutine, so no library thread is held.
//
//	s, err := ferrite.NewServer(ferrite.Implementation{Name: "demo", Version: "1.0.0"})
//	s.AddTool(ferrite.Tool{Name: "add", InputSchema: schema}, func(req ferrite.Request, args json.RawMessage) (any, error) {
//		var a struct{ A, B int }
//		json.Unmarshal(args, &a)
//		return ferrite.TextResult(strconv.Itoa(a.A + a.B)), nil
//	})
//	s.ServeStdio()
//
// Defaults are the core's, the same on every Ferrite surface: stateful (Stateless opts out),
// the logging capability on, tool arguments validated against their input schemas.
//
// Memory: Go memory never crosses into C beyond a call. A handler's user data is a C
// allocation holding a cgo.Handle, freed by the finalizer the library calls exactly once.
package ferrite

/*
#include "bridge.h"

static const char *ferrite_go_header_version(void) { return FERRITE_VERSION; }
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// Code is a ferrite_result: what a library call did. The numbers are stable.
type Code uint32

// The result codes of the C ABI.
const (
	CodeOK               Code = C.FERRITE_RESULT_OK
	CodePending          Code = C.FERRITE_RESULT_PENDING
	CodeNullPointer      Code = C.FERRITE_RESULT_NULL_POINTER
	CodeInvalidUTF8      Code = C.FERRITE_RESULT_INVALID_UTF8
	CodeInvalidJSON      Code = C.FERRITE_RESULT_INVALID_JSON
	CodeInvalidArgument  Code = C.FERRITE_RESULT_INVALID_ARGUMENT
	CodeNotFound         Code = C.FERRITE_RESULT_NOT_FOUND
	CodeNeedsStateful    Code = C.FERRITE_RESULT_NEEDS_STATEFUL
	CodeAlreadyCompleted Code = C.FERRITE_RESULT_ALREADY_COMPLETED
	CodeClosed           Code = C.FERRITE_RESULT_CLOSED
	CodeWrongThread      Code = C.FERRITE_RESULT_WRONG_THREAD
	CodeIO               Code = C.FERRITE_RESULT_IO
	CodePanic            Code = C.FERRITE_RESULT_PANIC
	CodeHandlerFailed    Code = C.FERRITE_RESULT_HANDLER_FAILED
	CodePeerError        Code = C.FERRITE_RESULT_PEER_ERROR
	CodeBodyClosed       Code = C.FERRITE_RESULT_BODY_CLOSED
	CodeCancelled        Code = C.FERRITE_RESULT_CANCELLED
	CodeTasksStarted     Code = C.FERRITE_RESULT_TASKS_STARTED
	CodeLoggerTaken      Code = C.FERRITE_RESULT_LOGGER_TAKEN
	CodeUpstream         Code = C.FERRITE_RESULT_UPSTREAM
)

// String is the library's fixed description of the code.
func (c Code) String() string {
	return C.GoString(C.ferrite_result_message(C.uint32_t(c)))
}

// Error is a failed library call: its code, and the detail the library gave (for a bad HTTP
// option, the core's message, the same text every Ferrite surface shows).
type Error struct {
	Code   Code
	Detail string
}

// Error is the detail, or the code's description when there is none.
func (e *Error) Error() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Code.String()
}

func check(rc C.ferrite_result) error {
	if rc == C.FERRITE_RESULT_OK {
		return nil
	}
	return &Error{Code: Code(rc), Detail: C.GoString(C.ferrite_last_error())}
}

// Version is the loaded libferrite's version ("0.1.0").
func Version() string { return C.GoString(C.ferrite_version()) }

// HeaderVersion is the version of the ferrite.h this package was compiled with
// (FERRITE_VERSION); it equals Version() for a matching library.
func HeaderVersion() string { return C.GoString(C.ferrite_go_header_version()) }

// ABIVersion is the loaded library's ABI version; ABIVersion() == HeaderABIVersion for a
// compatible pair.
func ABIVersion() uint32 { return uint32(C.ferrite_abi_version()) }

// HeaderABIVersion is FERRITE_ABI_VERSION of the header this package was compiled with.
const HeaderABIVersion = C.FERRITE_ABI_VERSION

// str passes a Go string to C for the duration of one call without copying: the bytes hold
// no Go pointers, which cgo permits. Empty strings are NULL.
func str(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// nonNull is str for arguments that must not be NULL even when empty.
func nonNull(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return (*C.char)(unsafe.Pointer(&emptyByte)), 0
	}
	return str(s)
}

var emptyByte byte

func goString(s C.ferrite_str) string {
	if s.ptr == nil {
		return ""
	}
	return C.GoStringN(s.ptr, C.int(s.len))
}

// optional converts a getter's ferrite_str, whose NULL ptr means absent.
func optional(s C.ferrite_str) (string, bool) {
	if s.ptr == nil {
		return "", false
	}
	return goString(s), true
}

// owned copies and frees a buffer the library returned.
func owned(p *C.char, n C.size_t) string {
	defer C.ferrite_string_free(p)
	return C.GoStringN(p, C.int(n))
}

func marshal(v any) (string, error) {
	switch t := v.(type) {
	case json.RawMessage:
		return string(t), nil
	case []byte:
		return string(t), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("ferrite: cannot encode %T as JSON: %w", v, err)
	}
	return string(b), nil
}

// finalizable is implemented by user data that must do something when the library drops it.
type finalizable interface{ finalize() }

// userData boxes a Go value as C memory holding a cgo.Handle; goFinalizer frees both.
func userData(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(p) = C.uintptr_t(cgo.NewHandle(v))
	return p
}

func fromUserData(p unsafe.Pointer) any {
	return cgo.Handle(*(*C.uintptr_t)(p)).Value()
}

// finalizer is the C finalizer for userData boxes.
var finalizer = C.ferrite_finalizer(C.goFinalizer)
