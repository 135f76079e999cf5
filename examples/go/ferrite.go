// A thin Go wrapper over include/ferrite.h with cgo: enough of the C ABI for the everything
// server, and a demonstration that the ABI's conventions (callback triples, pending
// completion, reply callbacks, owned buffers) map onto Go without hacks.
//
// Go memory never crosses into C beyond a call: user_data is a C allocation holding a
// cgo.Handle, freed by the finalizer the library calls exactly once.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -Wl,-rpath,${SRCDIR}/../../target/release -lferrite -lpthread -ldl -lm
#include <stdint.h>
#include <stdlib.h>
#include "ferrite.h"

extern uint32_t goToolCallback(void *user_data, ferrite_request *request);
extern uint32_t goResourceCallback(void *user_data, ferrite_request *request, ferrite_str uri, ferrite_str variables_json);
extern uint32_t goPromptCallback(void *user_data, ferrite_request *request);
extern void goReplyCallback(void *user_data, ferrite_result result, ferrite_str result_json, ferrite_str error_message);
extern void goFinalizer(void *user_data);
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/cgo"
	"time"
	"unsafe"
)

// ErrPending, returned by a handler, means it will complete the request later (from a
// goroutine) with Complete or Fail.
var ErrPending = errors.New("pending")

// ToolFunc handles tools/call; the result is marshalled as a CallToolResult.
type ToolFunc func(req Request, args json.RawMessage) (any, error)

// ResourceFunc reads a resource; the result is marshalled as a ReadResourceResult.
type ResourceFunc func(req Request, uri string, vars map[string]string) (any, error)

// PromptFunc gets a prompt; the result is marshalled as a GetPromptResult.
type PromptFunc func(req Request, args map[string]string) (any, error)

// ReplyFunc receives the answer to a server-to-client request.
type ReplyFunc func(result json.RawMessage, err error)

// Server owns a ferrite_server.
type Server struct{ ptr *C.ferrite_server }

// Request is the in-flight request handed to a handler.
type Request struct{ ptr *C.ferrite_request }

// Error is a failed ferrite call.
type Error struct {
	Code   uint32
	Detail string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", C.GoString(C.ferrite_result_message(C.uint32_t(e.Code))), e.Detail)
}

func check(rc C.ferrite_result) error {
	if rc == C.FERRITE_RESULT_OK {
		return nil
	}
	return &Error{Code: uint32(rc), Detail: C.GoString(C.ferrite_last_error())}
}

// str passes a Go string to C for the duration of one call without copying: the bytes hold
// no Go pointers, which cgo permits.
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
	return C.GoStringN(s.ptr, C.int(s.len))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// userData boxes a Go value as C memory holding a cgo.Handle; goFinalizer frees both.
func userData(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(p) = C.uintptr_t(cgo.NewHandle(v))
	return p
}

func fromUserData(p unsafe.Pointer) any {
	return cgo.Handle(*(*C.uintptr_t)(p)).Value()
}

//export goFinalizer
func goFinalizer(p unsafe.Pointer) {
	cgo.Handle(*(*C.uintptr_t)(p)).Delete()
	C.free(p)
}

// NewServer creates a server (stateful or stateless) with its identity and instructions.
func NewServer(name, version, instructions string, stateful bool) (*Server, error) {
	info, infoLen := nonNull(mustJSON(map[string]string{"name": name, "version": version}))
	ins, insLen := str(instructions)
	mode := C.uint32_t(C.FERRITE_SERVER_MODE_STATELESS)
	if stateful {
		mode = C.FERRITE_SERVER_MODE_STATEFUL
	}
	var ptr *C.ferrite_server
	if err := check(C.ferrite_server_new(info, infoLen, mode, ins, insLen, &ptr)); err != nil {
		return nil, err
	}
	return &Server{ptr: ptr}, nil
}

// AddTool registers a tool from its descriptor (the MCP Tool shape).
func (s *Server) AddTool(descriptor any, f ToolFunc) error {
	d, n := nonNull(mustJSON(descriptor))
	return check(C.ferrite_server_add_tool(s.ptr, d, n, C.ferrite_tool_callback(C.goToolCallback), userData(f),
		C.ferrite_finalizer(C.goFinalizer)))
}

// AddResource registers a direct resource.
func (s *Server) AddResource(descriptor any, f ResourceFunc) error {
	d, n := nonNull(mustJSON(descriptor))
	return check(C.ferrite_server_add_resource(s.ptr, d, n, C.ferrite_resource_callback(C.goResourceCallback),
		userData(f), C.ferrite_finalizer(C.goFinalizer)))
}

// AddResourceTemplate registers a resource template.
func (s *Server) AddResourceTemplate(descriptor any, f ResourceFunc) error {
	d, n := nonNull(mustJSON(descriptor))
	return check(C.ferrite_server_add_resource_template(s.ptr, d, n,
		C.ferrite_resource_callback(C.goResourceCallback), userData(f), C.ferrite_finalizer(C.goFinalizer)))
}

// AddPrompt registers a prompt.
func (s *Server) AddPrompt(descriptor any, f PromptFunc) error {
	d, n := nonNull(mustJSON(descriptor))
	return check(C.ferrite_server_add_prompt(s.ptr, d, n, C.ferrite_prompt_callback(C.goPromptCallback),
		userData(f), C.ferrite_finalizer(C.goFinalizer)))
}

// SetArgumentCandidates completes one argument of one reference from a fixed list.
func (s *Server) SetArgumentCandidates(reference any, argument string, candidates []string) error {
	r, rn := nonNull(mustJSON(reference))
	a, an := nonNull(argument)
	c, cn := nonNull(mustJSON(candidates))
	return check(C.ferrite_server_set_argument_candidates(s.ptr, r, rn, a, an, c, cn))
}

// EnableLogging advertises logging.
func (s *Server) EnableLogging() error { return check(C.ferrite_server_enable_logging(s.ptr)) }

// EnableResourceSubscriptions advertises resources.subscribe.
func (s *Server) EnableResourceSubscriptions() error {
	return check(C.ferrite_server_enable_resource_subscriptions(s.ptr))
}

// EnableListChanged advertises listChanged for tools, resources and prompts.
func (s *Server) EnableListChanged() error {
	return errors.Join(check(C.ferrite_server_enable_tools_list_changed(s.ptr)),
		check(C.ferrite_server_enable_resources_list_changed(s.ptr)),
		check(C.ferrite_server_enable_prompts_list_changed(s.ptr)))
}

// NotifyToolsListChanged tells listening clients the tools changed; how many it reached.
func (s *Server) NotifyToolsListChanged() int {
	var n C.size_t
	C.ferrite_server_notify_tools_list_changed(s.ptr, &n)
	return int(n)
}

// NotifyPromptsListChanged tells listening clients the prompts changed; how many it reached.
func (s *Server) NotifyPromptsListChanged() int {
	var n C.size_t
	C.ferrite_server_notify_prompts_list_changed(s.ptr, &n)
	return int(n)
}

// SetToolRequiredClientCapabilities refuses calls of tool name from clients lacking caps.
func (s *Server) SetToolRequiredClientCapabilities(name string, caps any) error {
	n, nl := nonNull(name)
	c, cl := nonNull(mustJSON(caps))
	return check(C.ferrite_server_set_tool_required_client_capabilities(s.ptr, n, nl, c, cl))
}

// SetResourceCacheHint sets the 2026-07-28 cache hint of reads of one resource or template.
func (s *Server) SetResourceCacheHint(uri string, ttl time.Duration, public bool) error {
	u, n := nonNull(uri)
	return check(C.ferrite_server_set_resource_cache_hint(s.ptr, u, n, C.uint64_t(ttl.Milliseconds()), C.bool(public)))
}

// AddSkill serves a skill at root made of files (relative path -> text).
func (s *Server) AddSkill(root string, files map[string]string) error {
	r, rn := nonNull(root)
	f, fn := nonNull(mustJSON(files))
	return check(C.ferrite_server_add_skill(s.ptr, r, rn, f, fn))
}

// ServeStdio serves stdin/stdout until EOF.
func (s *Server) ServeStdio() error { return check(C.ferrite_server_serve_stdio(s.ptr)) }

// Listen binds host:port (0 picks a free port) for Streamable HTTP at /mcp with the default
// options, without serving yet; read the port with Port, then call Serve.
func (s *Server) Listen(host string, port uint16) (*Listener, error) {
	h, n := nonNull(host)
	var l *C.ferrite_http_listener
	if err := check(C.ferrite_server_http_bind(s.ptr, h, n, C.uint16_t(port), nil, &l)); err != nil {
		return nil, err
	}
	return &Listener{server: s, ptr: l}, nil
}

// Listener is a bound, not yet serving, HTTP socket.
type Listener struct {
	server *Server
	ptr    *C.ferrite_http_listener
}

// Port is the bound TCP port.
func (l *Listener) Port() uint16 {
	var p C.uint16_t
	C.ferrite_http_listener_port(l.ptr, &p)
	return uint16(p)
}

// Serve serves until the server is closed (it then returns nil); it consumes the listener.
// It blocks the calling goroutine (and its OS thread); the requests run on library threads.
func (l *Listener) Serve() error {
	p := l.ptr
	l.ptr = nil
	err := check(C.ferrite_server_http_run(l.server.ptr, p))
	var fe *Error
	if errors.As(err, &fe) && fe.Code == uint32(C.FERRITE_RESULT_CLOSED) {
		return nil
	}
	return err
}

// Close stops the server and runs every finalizer; Free releases it.
func (s *Server) Close() error { return check(C.ferrite_server_close(s.ptr)) }

// Free closes (if needed) and frees the server.
func (s *Server) Free() {
	C.ferrite_server_free(s.ptr)
	s.ptr = nil
}

// Complete finishes the request with a result (marshalled to JSON).
func (r Request) Complete(result any) error {
	b, err := json.Marshal(result)
	if err != nil {
		return r.Fail("cannot encode the result: " + err.Error())
	}
	p, n := nonNull(string(b))
	return check(C.ferrite_request_complete(r.ptr, p, n))
}

// Fail finishes the request with an error message (isError for tools).
func (r Request) Fail(message string) error {
	p, n := nonNull(message)
	return check(C.ferrite_request_fail(r.ptr, p, n))
}

// Log sends notifications/message at a ferrite_log_level.
func (r Request) Log(level uint32, data any) error {
	d, n := nonNull(mustJSON(data))
	return check(C.ferrite_request_log(r.ptr, C.uint32_t(level), d, n, nil, 0, nil))
}

// Progress sends notifications/progress (if the request has a progress token).
func (r Request) Progress(progress, total float64) error {
	t := C.double(total)
	return check(C.ferrite_request_report_progress(r.ptr, C.double(progress), &t, nil, 0, nil))
}

// CloseSSEStream closes the HTTP stream the request's messages ride on (the client resumes
// it after retry); false on transports that cannot (stdio, JSON responses).
func (r Request) CloseSSEStream(retry time.Duration) bool {
	ms := C.uint64_t(retry.Milliseconds())
	var closed C.bool
	return check(C.ferrite_request_close_sse_stream(r.ptr, &ms, &closed)) == nil && bool(closed)
}

// IsCancelled reports whether the client cancelled the request.
func (r Request) IsCancelled() bool {
	var out C.bool
	return check(C.ferrite_request_is_cancelled(r.ptr, &out)) == nil && bool(out)
}

// Sample asks the client's LLM; reply runs on a library worker thread.
func (r Request) Sample(params any, reply ReplyFunc) error {
	p, n := nonNull(mustJSON(params))
	return check(C.ferrite_request_sample(r.ptr, p, n, C.ferrite_reply_callback(C.goReplyCallback), userData(reply),
		C.ferrite_finalizer(C.goFinalizer)))
}

// Elicit asks the user; reply runs on a library worker thread.
func (r Request) Elicit(params any, reply ReplyFunc) error {
	p, n := nonNull(mustJSON(params))
	return check(C.ferrite_request_elicit(r.ptr, p, n, C.ferrite_reply_callback(C.goReplyCallback), userData(reply),
		C.ferrite_finalizer(C.goFinalizer)))
}

// settle turns a handler's return into the library's status: ErrPending, an *RPCError
// (a JSON-RPC error), another error (ferrite_request_fail), an InputRequired reply, or the
// result.
func settle(req Request, result any, err error) C.uint32_t {
	var rpc *RPCError
	switch {
	case errors.Is(err, ErrPending):
		return C.FERRITE_RESULT_PENDING
	case errors.As(err, &rpc):
		req.FailRPC(rpc.Code, rpc.Message)
	case err != nil:
		req.Fail(err.Error())
	default:
		if ir, ok := result.(InputRequired); ok {
			req.InputRequired(ir)
		} else {
			req.Complete(result)
		}
	}
	return C.FERRITE_RESULT_OK
}

// RPCError, returned by a handler, fails the request with this JSON-RPC error.
type RPCError struct {
	Code    int32
	Message string
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// InvalidParams is a -32602 error.
func InvalidParams(format string, args ...any) error {
	return &RPCError{Code: -32602, Message: fmt.Sprintf(format, args...)}
}

// FailRPC fails the request with a JSON-RPC error.
func (r Request) FailRPC(code int32, message string) error {
	p, n := nonNull(message)
	return check(C.ferrite_request_fail_rpc(r.ptr, C.int32_t(code), p, n, nil, 0))
}

// InputRequest is one request a multi round-trip handler needs answered: build it with
// Elicit, Sample or ListRoots. The library checks it (into the core's type) when the reply
// is made.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// ElicitRequest asks the user to fill a form.
func ElicitRequest(message string, schema any) InputRequest {
	return InputRequest{"elicitation/create", map[string]any{"message": message, "requestedSchema": schema}}
}

// SampleRequest asks the client's LLM (params: the sampling/createMessage params).
func SampleRequest(params any) InputRequest { return InputRequest{"sampling/createMessage", params} }

// ListRootsRequest asks for the client's roots.
func ListRootsRequest() InputRequest { return InputRequest{Method: "roots/list"} }

// InputRequired, returned as a tool's, prompt's or resource's result, replies "input
// required": the requests by key, and state wanted back on the retry ("" for none).
type InputRequired struct {
	Requests map[string]InputRequest
	State    string
}

// InputRequired settles the request with an "input required" reply.
func (r Request) InputRequired(ir InputRequired) error {
	var reqs, state *C.char
	var reqsLen, stateLen C.size_t
	if len(ir.Requests) > 0 {
		reqs, reqsLen = nonNull(mustJSON(ir.Requests))
	}
	if ir.State != "" {
		state, stateLen = nonNull(ir.State)
	}
	return check(C.ferrite_request_input_required(r.ptr, reqs, reqsLen, state, stateLen))
}

// optional converts a getter's ferrite_str, whose NULL ptr means absent.
func optional(s C.ferrite_str) (string, bool) {
	if s.ptr == nil {
		return "", false
	}
	return goString(s), true
}

// InputResponse is the client's answer to input request key (the bare result JSON), if any.
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

// IsModern reports whether the request uses the 2026-07-28 revision.
func (r Request) IsModern() bool {
	var out C.bool
	return check(C.ferrite_request_is_modern(r.ptr, &out)) == nil && bool(out)
}

// ClientSupports reports whether the client declared a capability (dotted path).
func (r Request) ClientSupports(capability string) bool {
	c, n := nonNull(capability)
	var out C.bool
	return check(C.ferrite_request_client_supports(r.ptr, c, n, &out)) == nil && bool(out)
}

// Header is an HTTP request header, if the request came over HTTP with it.
func (r Request) Header(name string) (string, bool) {
	h, n := nonNull(name)
	var s C.ferrite_str
	if check(C.ferrite_request_header(r.ptr, h, n, &s)) != nil {
		return "", false
	}
	return optional(s)
}

// Arguments is the JSON text of a tool call's or prompt's arguments.
func (r Request) Arguments() (json.RawMessage, error) {
	var s C.ferrite_str
	if err := check(C.ferrite_request_arguments(r.ptr, &s)); err != nil {
		return nil, err
	}
	return json.RawMessage(goString(s)), nil
}

//export goToolCallback
func goToolCallback(ud unsafe.Pointer, request *C.ferrite_request) C.uint32_t {
	req := Request{ptr: request}
	args, err := req.Arguments()
	if err != nil {
		return settle(req, nil, err)
	}
	result, err := fromUserData(ud).(ToolFunc)(req, args)
	return settle(req, result, err)
}

//export goResourceCallback
func goResourceCallback(ud unsafe.Pointer, request *C.ferrite_request, uri C.ferrite_str, vars C.ferrite_str) C.uint32_t {
	req := Request{ptr: request}
	variables := map[string]string{}
	if err := json.Unmarshal([]byte(goString(vars)), &variables); err != nil {
		return settle(req, nil, err)
	}
	result, err := fromUserData(ud).(ResourceFunc)(req, goString(uri), variables)
	return settle(req, result, err)
}

//export goPromptCallback
func goPromptCallback(ud unsafe.Pointer, request *C.ferrite_request) C.uint32_t {
	req := Request{ptr: request}
	args, err := req.Arguments()
	if err != nil {
		return settle(req, nil, err)
	}
	arguments := map[string]string{}
	if err := json.Unmarshal(args, &arguments); err != nil {
		return settle(req, nil, err)
	}
	result, err := fromUserData(ud).(PromptFunc)(req, arguments)
	return settle(req, result, err)
}

//export goReplyCallback
func goReplyCallback(ud unsafe.Pointer, result C.ferrite_result, resultJSON C.ferrite_str, message C.ferrite_str) {
	reply := fromUserData(ud).(ReplyFunc)
	if result != C.FERRITE_RESULT_OK {
		reply(nil, &Error{Code: uint32(result), Detail: goString(message)})
		return
	}
	reply(json.RawMessage(goString(resultJSON)), nil)
}

// Log levels (ferrite_log_level).
const LogInfo = uint32(C.FERRITE_LOG_LEVEL_INFO)
