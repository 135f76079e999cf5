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

// EnableResourceSubscriptions advertises resources.subscribe (stateful servers only).
func (s *Server) EnableResourceSubscriptions() error {
	return check(C.ferrite_server_enable_resource_subscriptions(s.ptr))
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

// settle turns a handler's return into the library's status.
func settle(req Request, result any, err error) C.uint32_t {
	switch {
	case errors.Is(err, ErrPending):
		return C.FERRITE_RESULT_PENDING
	case err != nil:
		req.Fail(err.Error())
	default:
		req.Complete(result)
	}
	return C.FERRITE_RESULT_OK
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
