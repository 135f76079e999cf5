package ferrite

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrPending, returned by a handler, means it completes the request later (from any
// goroutine) with Complete, CompleteText, Fail, FailRPC or ReplyInputRequired.
var ErrPending = errors.New("ferrite: the request completes later")

// Request is the in-flight request handed to a handler. It is valid from the handler's call
// until the request is settled: when the handler returns (anything but ErrPending), or,
// after ErrPending, when Complete/Fail returns. Any goroutine may use it in that window.
type Request struct {
	ptr *C.ferrite_request
	// A middleware's request: settled by what the middleware returns, never by the
	// settling methods (which refuse it: the handle is gone once the middleware answered).
	inMiddleware bool
}

// settlesByReturn is the error the settling methods give on a middleware's request.
func (r Request) settlesByReturn() error {
	if r.inMiddleware {
		return &Error{Code: CodeInvalidArgument, Detail: "a middleware answers by returning a result or an error: its Request cannot be completed or failed"}
	}
	return nil
}

// RPCError, returned by a handler, fails the request with this JSON-RPC error.
type RPCError struct {
	Code    int32
	Message string
	Data    any
}

// Error renders the JSON-RPC error.
func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// InvalidParams is a -32602 JSON-RPC error.
func InvalidParams(format string, args ...any) error {
	return &RPCError{Code: -32602, Message: fmt.Sprintf(format, args...)}
}

// Content is one content block (the MCP ContentBlock shape).
type Content = map[string]any

// TextContent is a text content block.
func TextContent(text string) Content { return Content{"type": "text", "text": text} }

// CallToolResult is the tools/call result shape.
type CallToolResult struct {
	Content           []Content      `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// TextResult is a tool result with one text block.
func TextResult(text string) CallToolResult {
	return CallToolResult{Content: []Content{TextContent(text)}}
}

// Complete settles the request with its result, marshalled to the kind's wire shape
// (CallToolResult, ReadResourceResult, GetPromptResult, a JSON object for a custom method).
func (r Request) Complete(result any) error {
	if err := r.settlesByReturn(); err != nil {
		return err
	}
	text, err := marshal(result)
	if err != nil {
		return r.Fail(err.Error())
	}
	p, n := nonNull(text)
	return check(C.ferrite_request_complete(r.ptr, p, n))
}

// CompleteText settles a tool call with one text block and optional structuredContent (nil:
// none), without building the result's JSON.
func (r Request) CompleteText(text string, structured any) error {
	if err := r.settlesByReturn(); err != nil {
		return err
	}
	t, tn := nonNull(text)
	var sp *C.char
	var sn C.size_t
	if structured != nil {
		var err error
		if sp, sn, err = jsonArg(structured); err != nil {
			return r.Fail(err.Error())
		}
	}
	return check(C.ferrite_request_complete_text(r.ptr, t, tn, sp, sn))
}

// Fail settles the request with an error message: a tool execution error (isError) for a
// tool, -32603 for other handlers.
func (r Request) Fail(message string) error {
	if err := r.settlesByReturn(); err != nil {
		return err
	}
	p, n := nonNull(message)
	return check(C.ferrite_request_fail(r.ptr, p, n))
}

// FailRPC settles the request with a JSON-RPC error, data optional (nil: none).
func (r Request) FailRPC(code int32, message string, data any) error {
	if err := r.settlesByReturn(); err != nil {
		return err
	}
	p, n := nonNull(message)
	var dp *C.char
	var dn C.size_t
	if data != nil {
		var err error
		if dp, dn, err = jsonArg(data); err != nil {
			return err
		}
	}
	return check(C.ferrite_request_fail_rpc(r.ptr, C.int32_t(code), p, n, dp, dn))
}

// ID is the request's JSON-RPC id as JSON (7 or "abc").
func (r Request) ID() json.RawMessage {
	var s C.ferrite_str
	if check(C.ferrite_request_id(r.ptr, &s)) != nil {
		return nil
	}
	return json.RawMessage(goString(s))
}

// Arguments is the JSON of a tool call's or prompt's arguments (a custom method's params).
func (r Request) Arguments() (json.RawMessage, error) {
	var s C.ferrite_str
	if err := check(C.ferrite_request_arguments(r.ptr, &s)); err != nil {
		return nil, err
	}
	return json.RawMessage(goString(s)), nil
}

// ProtocolVersion is the protocol revision in effect for the request ("2025-06-18").
func (r Request) ProtocolVersion() string {
	var s C.ferrite_str
	if check(C.ferrite_request_protocol_version(r.ptr, &s)) != nil {
		return ""
	}
	return goString(s)
}

// ConnectionID is a stable id of the request's connection (stdio process, session).
func (r Request) ConnectionID() string {
	var s C.ferrite_str
	if check(C.ferrite_request_connection_id(r.ptr, &s)) != nil {
		return ""
	}
	return goString(s)
}

// ClientCapabilities is what the client declared (the ClientCapabilities shape; {} when
// nothing).
func (r Request) ClientCapabilities() json.RawMessage {
	var s C.ferrite_str
	if check(C.ferrite_request_client_capabilities(r.ptr, &s)) != nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(goString(s))
}

// ClientInfo is the client's clientInfo (the Implementation shape), if it sent one.
func (r Request) ClientInfo() (json.RawMessage, bool) {
	var s C.ferrite_str
	if check(C.ferrite_request_client_info(r.ptr, &s)) != nil {
		return nil, false
	}
	v, ok := optional(s)
	return json.RawMessage(v), ok
}

// ProgressToken is the request's _meta.progressToken as JSON ("abc" or 7), if it has one.
func (r Request) ProgressToken() (json.RawMessage, bool) {
	var s C.ferrite_str
	if check(C.ferrite_request_progress_token(r.ptr, &s)) != nil {
		return nil, false
	}
	v, ok := optional(s)
	return json.RawMessage(v), ok
}

// Meta is the request's _meta object as JSON, if it has one.
func (r Request) Meta() (json.RawMessage, bool) {
	var s C.ferrite_str
	if check(C.ferrite_request_meta(r.ptr, &s)) != nil {
		return nil, false
	}
	v, ok := optional(s)
	return json.RawMessage(v), ok
}

// ClientSupports reports whether the client declared a capability (dotted path:
// "sampling", "elicitation.url", "roots.listChanged").
func (r Request) ClientSupports(capability string) bool {
	c, n := nonNull(capability)
	var out C.bool
	return check(C.ferrite_request_client_supports(r.ptr, c, n, &out)) == nil && bool(out)
}

// ClientExtension is the settings the client declared for extension id, if it did.
func (r Request) ClientExtension(id string) (json.RawMessage, bool) {
	i, n := nonNull(id)
	var s C.ferrite_str
	if check(C.ferrite_request_client_extension(r.ptr, i, n, &s)) != nil {
		return nil, false
	}
	v, ok := optional(s)
	return json.RawMessage(v), ok
}

// Header is an HTTP request header (case-insensitive), if the request came over HTTP with it.
func (r Request) Header(name string) (string, bool) {
	h, n := nonNull(name)
	var s C.ferrite_str
	if check(C.ferrite_request_header(r.ptr, h, n, &s)) != nil {
		return "", false
	}
	return optional(s)
}

// IsCancelled reports whether the client cancelled the request (in a task: tasks/cancel; a
// poll; see Context and OnCancel).
func (r Request) IsCancelled() bool {
	var out C.bool
	return check(C.ferrite_request_is_cancelled(r.ptr, &out)) == nil && bool(out)
}

// cancelWatch is OnCancel's user data: f runs if the request is cancelled, done when the
// library lets go of it (after f, or when the request was settled first).
type cancelWatch struct {
	f    func()
	done func()
}

func (w *cancelWatch) finalize() {
	if w.done != nil {
		w.done()
	}
}

// OnCancel calls f once, on a library thread, if the request is cancelled before it is
// settled: the client sent notifications/cancelled for it, or its connection ended (in a task,
// tasks/cancel or the task's ttl: a task outlives its connection). f must not block; it may
// settle the request (a late result is discarded anyway).
func (r Request) OnCancel(f func()) error {
	return r.onCancel(&cancelWatch{f: f})
}

func (r Request) onCancel(w *cancelWatch) error {
	return check(C.ferrite_request_on_cancel(r.ptr, C.ferrite_cancel_callback(C.goCancelCallback), userData(w),
		finalizer))
}

// Context is a context.Context cancelled when the client cancels the request or its
// connection ends (in a task: tasks/cancel), and in any case once the request is settled (like
// an http.Request's).
// Each call registers a watcher: call it once per handler and pass the context on.
func (r Request) Context() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if r.onCancel(&cancelWatch{f: cancel, done: cancel}) != nil {
		cancel()
	}
	return ctx
}

// LogLevel is an RFC 5424 level for Log.
type LogLevel uint32

// The log levels, least severe first.
const (
	LogDebug     LogLevel = C.FERRITE_LOG_LEVEL_DEBUG
	LogInfo      LogLevel = C.FERRITE_LOG_LEVEL_INFO
	LogNotice    LogLevel = C.FERRITE_LOG_LEVEL_NOTICE
	LogWarning   LogLevel = C.FERRITE_LOG_LEVEL_WARNING
	LogError     LogLevel = C.FERRITE_LOG_LEVEL_ERROR
	LogCritical  LogLevel = C.FERRITE_LOG_LEVEL_CRITICAL
	LogAlert     LogLevel = C.FERRITE_LOG_LEVEL_ALERT
	LogEmergency LogLevel = C.FERRITE_LOG_LEVEL_EMERGENCY
)

// Log sends notifications/message at level with data (a string for a plain message) from
// logger ("" for none); whether it was sent (not when logging is off or the level is below
// the client's logging/setLevel).
func (r Request) Log(level LogLevel, data any, logger string) (bool, error) {
	d, dn, err := jsonArg(data)
	if err != nil {
		return false, err
	}
	l, ln := str(logger)
	var sent C.bool
	err = check(C.ferrite_request_log(r.ptr, C.uint32_t(level), d, dn, l, ln, &sent))
	return bool(sent), err
}

// ReportProgress sends notifications/progress with progress, total (0: none) and message
// ("": none); whether it was sent (not when the request carried no progress token).
func (r Request) ReportProgress(progress, total float64, message string) (bool, error) {
	var t *C.double
	if total != 0 {
		ct := C.double(total)
		t = &ct
	}
	m, mn := str(message)
	var sent C.bool
	err := check(C.ferrite_request_report_progress(r.ptr, C.double(progress), t, m, mn, &sent))
	return bool(sent), err
}

// Notify sends a notification related to the request (before its response); params nil for
// none.
func (r Request) Notify(method string, params any) error {
	m, mn := nonNull(method)
	var p *C.char
	var pn C.size_t
	if params != nil {
		var err error
		if p, pn, err = jsonArg(params); err != nil {
			return err
		}
	}
	return check(C.ferrite_request_notify(r.ptr, m, mn, p, pn))
}

// CloseSSEStream closes the HTTP stream the request's messages ride on (the client resumes
// it after retry); false on transports that cannot (stdio, JSON responses).
func (r Request) CloseSSEStream(retry time.Duration) bool {
	ms := C.uint64_t(retry.Milliseconds())
	var closed C.bool
	return check(C.ferrite_request_close_sse_stream(r.ptr, &ms, &closed)) == nil && bool(closed)
}

// ReplyFunc receives the answer to a server-to-client request, on a library thread.
type ReplyFunc func(result json.RawMessage, err error)

// Sample asks the client's LLM (sampling/createMessage params; maxTokens defaults to the
// core's 1000); reply gets the CreateMessageResult. Needs a stateful session, or a task (where
// it waits in the task in both eras).
func (r Request) Sample(params any, reply ReplyFunc) error {
	p, n, err := jsonArg(params)
	if err != nil {
		return err
	}
	return check(C.ferrite_request_sample(r.ptr, p, n, C.ferrite_reply_callback(C.goReplyCallback), userData(reply),
		finalizer))
}

// Elicit asks the user (elicitation/create params: a form with requestedSchema, or URL mode);
// reply gets the ElicitResult. Needs a stateful session, or a task (where it waits in the task
// until the client answers: tasks/update on 2026-07-28, through tasks/result on 2025-11-25).
func (r Request) Elicit(params any, reply ReplyFunc) error {
	p, n, err := jsonArg(params)
	if err != nil {
		return err
	}
	return check(C.ferrite_request_elicit(r.ptr, p, n, C.ferrite_reply_callback(C.goReplyCallback), userData(reply),
		finalizer))
}

// ListRoots asks the client for its roots; reply gets the ListRootsResult.
func (r Request) ListRoots(reply ReplyFunc) error {
	return check(C.ferrite_request_list_roots(r.ptr, C.ferrite_reply_callback(C.goReplyCallback), userData(reply),
		finalizer))
}

// SendRequest sends any request to the client (params nil for none); reply gets its result.
func (r Request) SendRequest(method string, params any, reply ReplyFunc) error {
	m, mn := nonNull(method)
	var p *C.char
	var pn C.size_t
	if params != nil {
		var err error
		if p, pn, err = jsonArg(params); err != nil {
			return err
		}
	}
	return check(C.ferrite_request_send(r.ptr, m, mn, p, pn, C.ferrite_reply_callback(C.goReplyCallback),
		userData(reply), finalizer))
}

// settle turns a handler's return into the library's status: ErrPending, an *RPCError (a
// JSON-RPC error), a *URLElicitationRequired (-32042), another error (Fail), an InputRequired
// reply, or the result.
func settle(req Request, result any, err error) C.uint32_t {
	var rpc *RPCError
	var urls *URLElicitationRequired
	switch {
	case errors.Is(err, ErrPending):
		return C.FERRITE_RESULT_PENDING
	case errors.As(err, &rpc):
		req.FailRPC(rpc.Code, rpc.Message, rpc.Data)
	case errors.As(err, &urls):
		req.FailURLElicitationRequired(urls.Elicitations...)
	case err != nil:
		req.Fail(err.Error())
	default:
		if ir, ok := result.(InputRequired); ok {
			req.ReplyInputRequired(ir)
		} else {
			req.Complete(result)
		}
	}
	return C.FERRITE_RESULT_OK
}
