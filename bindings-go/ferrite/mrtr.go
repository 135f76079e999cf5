package ferrite

/*
#include "bridge.h"
*/
import "C"

import "encoding/json"

// InputRequest is one request a multi round-trip handler needs the client to answer: build
// it with ElicitRequest, SampleRequest or ListRootsRequest. The core checks it when the
// reply is made.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// ElicitRequest asks the user to fill a form described by schema.
func ElicitRequest(message string, schema any) InputRequest {
	return InputRequest{"elicitation/create", map[string]any{"message": message, "requestedSchema": schema}}
}

// SampleRequest asks the client's LLM (params: the sampling/createMessage params).
func SampleRequest(params any) InputRequest { return InputRequest{"sampling/createMessage", params} }

// ListRootsRequest asks for the client's roots.
func ListRootsRequest() InputRequest { return InputRequest{Method: "roots/list"} }

// InputRequired, returned as a tool's, prompt's or resource's result, replies "input
// required": the requests by key, and State wanted back on the retry ("" for none; sealed
// by the library, so the client can neither read nor alter it). A 2026-07-28 client retries
// with the answers; on a handshake-era session the core asks the client itself and calls
// the handler again, so one handler serves both eras.
type InputRequired struct {
	Requests map[string]InputRequest
	State    string
}

// ReplyInputRequired settles the request with an "input required" reply.
func (r Request) ReplyInputRequired(ir InputRequired) error {
	if err := r.settlesByReturn(); err != nil {
		return err
	}
	var reqs, state *C.char
	var reqsLen, stateLen C.size_t
	if len(ir.Requests) > 0 {
		var err error
		if reqs, reqsLen, err = jsonArg(ir.Requests); err != nil {
			return err
		}
	}
	if ir.State != "" {
		state, stateLen = nonNull(ir.State)
	}
	return check(C.ferrite_request_input_required(r.ptr, reqs, reqsLen, state, stateLen))
}

// InputResponse is the client's answer to input request key (the bare result JSON), if the
// client answered it.
func (r Request) InputResponse(key string) (json.RawMessage, bool) {
	k, n := nonNull(key)
	var s C.ferrite_str
	if check(C.ferrite_request_input_response(r.ptr, k, n, &s)) != nil {
		return nil, false
	}
	v, ok := optional(s)
	return json.RawMessage(v), ok
}

// InputResponses is every answer, as a JSON object ({} on a first call).
func (r Request) InputResponses() json.RawMessage {
	var s C.ferrite_str
	if check(C.ferrite_request_input_responses(r.ptr, &s)) != nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(goString(s))
}

// RequestState is the state this handler returned with its last InputRequired, if any.
func (r Request) RequestState() (string, bool) {
	var s C.ferrite_str
	if check(C.ferrite_request_request_state(r.ptr, &s)) != nil {
		return "", false
	}
	return optional(s)
}

// IsResubmission reports whether this call is a retry carrying answers or state.
func (r Request) IsResubmission() bool {
	var out C.bool
	return check(C.ferrite_request_is_resubmission(r.ptr, &out)) == nil && bool(out)
}

// IsModern reports whether the request uses the 2026-07-28 revision (a per-request
// envelope; ask for input with InputRequired there, not Sample or Elicit, except in a task).
func (r Request) IsModern() bool {
	var out C.bool
	return check(C.ferrite_request_is_modern(r.ptr, &out)) == nil && bool(out)
}

// IsTask reports whether the handler runs as a task's body: a tool with a TaskSupport called by
// a client that asked for a task (2025-11-25) or declared the tasks extension (2026-07-28). Its
// Context and OnCancel then follow the task (tasks/cancel), Elicit, Sample and ListRoots (and an
// InputRequired reply) wait in the task until the client answers, in both eras, and Log,
// ReportProgress and Notify are dropped. False for an ordinary call of the same tool.
func (r Request) IsTask() bool {
	var out C.bool
	return check(C.ferrite_request_is_task(r.ptr, &out)) == nil && bool(out)
}
