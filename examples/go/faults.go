// The fault tools (examples/SURFACE.md, "Fault tools"; tests/faults): handlers that fail the
// ways a Go handler can, so a test can show the server keeps serving, answers each failure
// the same way every time, and leaks nothing.
package main

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

const (
	faultCrashDescription     = "Fails the worst way the language allows inside the handler"
	faultRejectDescription    = "Fails asynchronously, after the handler has returned"
	faultBadResultDescription = "Returns a result that is not a valid tool result"
	faultHangDescription      = "Never returns unless the request is cancelled"
	faultCrashMessage         = "test_fault_crash: the handler crashed"
	faultRejectMessage        = "test_fault_reject: the handler failed after it returned"
)

// faultTools are listed after test_cancellation_count; test_fault_hang adds its observed
// cancellations to the same counter.
func faultTools(cancellations *atomic.Uint64) []struct {
	descriptor obj
	f          ferrite.ToolFunc
} {
	return []struct {
		descriptor obj
		f          ferrite.ToolFunc
	}{
		// The package recovers a handler's panic (bindings-go/ferrite/callbacks.go).
		{tool("test_fault_crash", faultCrashDescription, noArgs()),
			func(ferrite.Request, json.RawMessage) (any, error) {
				panic(errors.New(faultCrashMessage))
			}},
		{tool("test_fault_reject", faultRejectDescription, noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				return later(func() {
					time.Sleep(time.Millisecond)
					req.Fail(faultRejectMessage)
				})
			}},
		// Raw JSON goes to the library as it is: here, text that is not JSON.
		{tool("test_fault_bad_result", faultBadResultDescription, noArgs()),
			func(ferrite.Request, json.RawMessage) (any, error) {
				return json.RawMessage(`{"content": [`), nil
			}},
		{tool("test_fault_hang", faultHangDescription, noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				return later(func() {
					for !req.IsCancelled() {
						time.Sleep(10 * time.Millisecond)
					}
					cancellations.Add(1)
					req.Complete(text("cancelled"))
				})
			}},
	}
}
