package ferrite

// Middleware: Go functions in the core's chain around every request. The core calls each Go
// middleware once per request (one cgo crossing, whatever hooks it has); the middleware runs on
// a goroutine of its own, so it may wait on next without holding a library thread, and next
// runs the rest of the chain on the library's threads (ferrite_middleware_next_run), its answer
// coming back on a channel. What the chain does, what a second next answers and how a result
// that is not a JSON object becomes an error are the core's.

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Middleware answers one request, usually through next: it may read or change the request
// (call next with new params), answer without the handler (return a result, or an *RPCError
// for a JSON-RPC error), or call next and read or change its answer. The result is marshalled
// as the method's result, a JSON object (a json.RawMessage, such as what next returned, passes
// as it is); a result that is not a JSON object is the core's -32603 "the handler's result is
// not valid: ...". Any other error is -32603 with its message, and so is a panic (with the
// panic's message): the server keeps serving.
//
// Middleware runs for every request the server dispatches, in both protocol eras (not
// initialize, ping or notifications: see NotificationMiddleware), in the order added, the first outermost. Each call runs
// on a goroutine of its own, possibly several at once.
type Middleware func(req *MiddlewareRequest, next NextFunc) (any, error)

// NextFunc runs the rest of the chain (the middlewares added later, then the handler) and
// waits for its answer: the result as JSON, or an *RPCError for a JSON-RPC error (an unknown
// tool's -32602, ...). params replaces the request's params (nil: unchanged; the method cannot
// change). Call it at most once: a second call answers the core's -32603 "a middleware called
// next twice". It must not be called after the middleware returned.
type NextFunc func(params json.RawMessage) (json.RawMessage, error)

// MiddlewareRequest is one request as a middleware sees it.
type MiddlewareRequest struct {
	// Method is the JSON-RPC method ("tools/call", ...), to read: next takes params only,
	// so a middleware changes what is asked, not which route answers.
	Method string
	// Params are the request's params without _meta (Request.Meta has it, the 2026-07-28
	// envelope included); nil when it had none.
	Params json.RawMessage
	// Hook is the method's typed hook, from the core's one table ("call_tool", "list_tools",
	// "read_resource", "list_resources", "list_resource_templates", "get_prompt",
	// "list_prompts", "complete"), or "" for other methods.
	Hook string
	// Request is the request's handle, valid until the middleware returns: its getters
	// (ProtocolVersion, ID, Meta, Identity, Header, Info, ...), Log, Context. The middleware's
	// return settles it: its Complete, Fail, FailRPC, ReplyInputRequired, ... refuse with
	// CodeInvalidArgument.
	Request Request

	call *middlewareCall
}

// middlewareCall is what the copies of one request's MiddlewareRequest share.
type middlewareCall struct {
	next *C.ferrite_middleware_next
	// mu is held across the returned check and ferrite_middleware_next_run, and while
	// returned is set: settling the request frees next, so no next_run may be under way then.
	mu       sync.Mutex
	returned atomic.Bool
	ctxOnce  sync.Once
	ctx      context.Context
}

// Name is params.name: the tool or prompt a tools/call or prompts/get names ("" for none).
func (r *MiddlewareRequest) Name() string {
	var p struct {
		Name string `json:"name"`
	}
	if len(r.Params) == 0 || json.Unmarshal(r.Params, &p) != nil {
		return ""
	}
	return p.Name
}

// Context is Request.Context, made once per request: cancelled when the client cancels the
// request or its connection ends, and once the middleware answered.
func (r *MiddlewareRequest) Context() context.Context {
	r.call.ctxOnce.Do(func() { r.call.ctx = r.Request.Context() })
	return r.call.ctx
}

// Notification is a client notification as a NotificationMiddleware sees it.
type Notification struct {
	// Method is the notification's method ("notifications/cancelled", ...).
	Method string
	// Params are its params; nil when it had none.
	Params json.RawMessage
	// ConnectionID is the connection it came on (the session id on a stateful HTTP server).
	ConnectionID string
}

// NotificationMiddleware sees each notification a client sends before the server acts on it,
// in the chain's order (request and notification middleware share it, the first added
// outermost). It returns the params to pass the notification on with (n.Params, or new ones;
// nil keeps them) and true, or false to drop it. It runs on a library thread while the
// notification waits: keep it short. A panic drops the notification; the server keeps serving.
type NotificationMiddleware func(n *Notification) (params json.RawMessage, pass bool)

// AddNotificationMiddleware adds mw at the end of the server's chain
// (ferrite_server_add_notification_middleware). It lives until the server closes.
func (s *Server) AddNotificationMiddleware(mw NotificationMiddleware) error {
	if mw == nil {
		return &Error{Code: CodeNullPointer, Detail: "the notification middleware is nil"}
	}
	cb := C.ferrite_notification_middleware_callback(C.goNotificationMiddlewareCallback)
	return check(C.ferrite_server_add_notification_middleware(s.ptr, cb, userData(mw), finalizer))
}

//export goNotificationMiddlewareCallback
func goNotificationMiddlewareCallback(ud unsafe.Pointer, method, params, connection C.ferrite_str,
	next *C.ferrite_notification_next) {
	n := &Notification{Method: goString(method), ConnectionID: goString(connection)}
	if p, ok := optional(params); ok {
		n.Params = json.RawMessage(p)
	}
	out, pass := runNotificationMiddleware(fromUserData(ud).(NotificationMiddleware), n)
	if !pass {
		return
	}
	if len(out) == 0 {
		C.ferrite_notification_next_run(next, nil, 0)
		return
	}
	text := C.CString(string(out))
	defer C.free(unsafe.Pointer(text))
	C.ferrite_notification_next_run(next, text, C.size_t(len(out)))
}

// runNotificationMiddleware calls mw; a panic drops the notification.
func runNotificationMiddleware(mw NotificationMiddleware, n *Notification) (out json.RawMessage, pass bool) {
	defer func() {
		if recover() != nil {
			out, pass = nil, false
		}
	}()
	return mw(n)
}

// AddMiddleware adds mw at the end of the server's chain (the first added runs first,
// outermost). Middleware cannot be removed; it lives until the server closes.
func (s *Server) AddMiddleware(mw Middleware) error {
	if mw == nil {
		return &Error{Code: CodeNullPointer, Detail: "the middleware is nil"}
	}
	cb := C.ferrite_middleware_callback(C.goMiddlewareCallback)
	return check(C.ferrite_server_add_middleware(s.ptr, cb, userData(mw), finalizer))
}

//export goMiddlewareCallback
func goMiddlewareCallback(ud unsafe.Pointer, request *C.ferrite_request, method, params, hook C.ferrite_str,
	next *C.ferrite_middleware_next) C.uint32_t {
	req := &MiddlewareRequest{
		Method:  goString(method),
		Hook:    goString(hook),
		Request: Request{ptr: request, inMiddleware: true},
		call:    &middlewareCall{next: next},
	}
	if p, ok := optional(params); ok {
		req.Params = json.RawMessage(p)
	}
	go runMiddleware(fromUserData(ud).(Middleware), req)
	return C.FERRITE_RESULT_PENDING
}

// runMiddleware calls mw and settles the request with what it returned; a panic is -32603
// with the panic's message.
func runMiddleware(mw Middleware, req *MiddlewareRequest) {
	r := Request{ptr: req.Request.ptr} // the one place that settles a middleware's request
	defer func() {
		if p := recover(); p != nil {
			req.call.finish()
			r.Fail(fmt.Sprint(p))
		}
	}()
	result, err := mw(req, req.runNext)
	req.call.finish()
	var rpc *RPCError
	switch {
	case errors.As(err, &rpc):
		r.FailRPC(rpc.Code, rpc.Message, rpc.Data)
	case err != nil:
		r.Fail(err.Error())
	default:
		text, err := marshal(result)
		if err != nil {
			r.Fail(err.Error())
			return
		}
		p, n := nonNull(text)
		C.ferrite_request_complete(r.ptr, p, n) // a bad result settles as the core's -32603
	}
}

// nextAnswer is what the rest of the chain answered.
type nextAnswer struct {
	result json.RawMessage
	err    error
}

// nextWait is ferrite_middleware_next_run's user data: where the answer goes. The finalizer
// answers for a chain dropped unanswered (the server closed), so no goroutine waits forever.
type nextWait struct {
	ch       chan nextAnswer
	answered atomic.Bool
}

func (w *nextWait) finalize() {
	if !w.answered.Load() {
		w.ch <- nextAnswer{err: &Error{Code: CodeClosed, Detail: "the server closed before the rest of the chain answered"}}
	}
}

// finish marks the middleware returned, once no next_run is under way (see mu).
func (c *middlewareCall) finish() {
	c.mu.Lock()
	c.returned.Store(true)
	c.mu.Unlock()
}

func (req *MiddlewareRequest) runNext(params json.RawMessage) (json.RawMessage, error) {
	req.call.mu.Lock()
	if req.call.returned.Load() {
		req.call.mu.Unlock()
		return nil, &Error{Code: CodeAlreadyCompleted, Detail: "next called after the middleware returned"}
	}
	var p *C.char
	var n C.size_t
	if params != nil {
		p, n = nonNull(string(params))
	}
	w := &nextWait{ch: make(chan nextAnswer, 1)}
	cb := C.ferrite_middleware_answer_callback(C.goMiddlewareAnswer)
	err := check(C.ferrite_middleware_next_run(req.call.next, p, n, cb, userData(w), finalizer))
	req.call.mu.Unlock()
	if err != nil {
		return nil, err
	}
	a := <-w.ch
	return a.result, a.err
}

//export goMiddlewareAnswer
func goMiddlewareAnswer(ud unsafe.Pointer, result C.ferrite_str, code C.int32_t, message, data C.ferrite_str) {
	w := fromUserData(ud).(*nextWait)
	w.answered.Store(true)
	if result.ptr != nil {
		w.ch <- nextAnswer{result: json.RawMessage(goString(result))}
		return
	}
	e := &RPCError{Code: int32(code), Message: goString(message)}
	if d, ok := optional(data); ok {
		e.Data = json.RawMessage(d)
	}
	w.ch <- nextAnswer{err: e}
}

// Hooks is a Middleware made of typed hooks, each a Middleware for its method family, picked
// inside the one call the core makes by MiddlewareRequest.Hook (the core's table). OnRequest,
// if set, runs first for every request, around the typed hook; a nil hook passes the request
// on. Use it with AddMiddleware(h.Middleware()).
type Hooks struct {
	OnRequest               Middleware
	OnCallTool              Middleware
	OnListTools             Middleware
	OnReadResource          Middleware
	OnListResources         Middleware
	OnListResourceTemplates Middleware
	OnGetPrompt             Middleware
	OnListPrompts           Middleware
	OnComplete              Middleware
}

func (h *Hooks) typed(hook string) Middleware {
	switch hook {
	case "call_tool":
		return h.OnCallTool
	case "list_tools":
		return h.OnListTools
	case "read_resource":
		return h.OnReadResource
	case "list_resources":
		return h.OnListResources
	case "list_resource_templates":
		return h.OnListResourceTemplates
	case "get_prompt":
		return h.OnGetPrompt
	case "list_prompts":
		return h.OnListPrompts
	case "complete":
		return h.OnComplete
	}
	return nil
}

// Middleware is the hooks as one Middleware.
func (h Hooks) Middleware() Middleware {
	return func(req *MiddlewareRequest, next NextFunc) (any, error) {
		typed := h.typed(req.Hook)
		// The typed hook (or the rest of the chain) on r, which OnRequest may have changed.
		inner := func(r *MiddlewareRequest) (any, error) {
			forward := func(params json.RawMessage) (json.RawMessage, error) {
				if params == nil && r != req {
					params = r.Params
				}
				return next(params)
			}
			if typed == nil {
				return forward(nil)
			}
			return typed(r, forward)
		}
		if h.OnRequest == nil {
			return inner(req)
		}
		return h.OnRequest(req, func(params json.RawMessage) (json.RawMessage, error) {
			r := req
			if params != nil {
				changed := *req
				changed.Params = params
				r = &changed
			}
			v, err := inner(r)
			if err != nil {
				return nil, err
			}
			text, err := marshal(v)
			return json.RawMessage(text), err
		})
	}
}
