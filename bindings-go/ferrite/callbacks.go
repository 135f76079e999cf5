package ferrite

// The functions libferrite calls: each finds the Go value behind its user data (a
// cgo.Handle in C memory) and calls it.

/*
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"runtime/cgo"
	"unsafe"
)

//export goFinalizer
func goFinalizer(p unsafe.Pointer) {
	h := cgo.Handle(*(*C.uintptr_t)(p))
	if f, ok := h.Value().(finalizable); ok {
		f.finalize()
	}
	h.Delete()
	C.free(p)
}

// recovered, deferred by each handler callback, settles the request of a handler that
// panicked as a failure with the panic's own message, what the core does with a Rust
// handler's panic: a tool execution error (isError) for a tool, -32603 for other handlers,
// a failed task in a task. So the process keeps serving. A handler that panics after
// starting a goroutine holding the request must not let that goroutine use it: the request
// is settled here.
func recovered(req Request, status *C.uint32_t) {
	if p := recover(); p != nil {
		req.Fail(fmt.Sprint(p))
		*status = C.FERRITE_RESULT_OK
	}
}

//export goToolCallback
func goToolCallback(ud unsafe.Pointer, request *C.ferrite_request) (status C.uint32_t) {
	req := Request{ptr: request}
	defer recovered(req, &status)
	args, err := req.Arguments()
	if err != nil {
		return settle(req, nil, err)
	}
	result, err := fromUserData(ud).(ToolFunc)(req, args)
	return settle(req, result, err)
}

//export goResourceCallback
func goResourceCallback(ud unsafe.Pointer, request *C.ferrite_request, uri C.ferrite_str, vars C.ferrite_str) (status C.uint32_t) {
	req := Request{ptr: request}
	defer recovered(req, &status)
	variables := map[string]string{}
	if err := json.Unmarshal([]byte(goString(vars)), &variables); err != nil {
		return settle(req, nil, err)
	}
	result, err := fromUserData(ud).(ResourceFunc)(req, goString(uri), variables)
	return settle(req, result, err)
}

//export goPromptCallback
func goPromptCallback(ud unsafe.Pointer, request *C.ferrite_request) (status C.uint32_t) {
	req := Request{ptr: request}
	defer recovered(req, &status)
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

//export goCompletionCallback
func goCompletionCallback(ud unsafe.Pointer, request *C.ferrite_request, requestJSON C.ferrite_str) (status C.uint32_t) {
	req := Request{ptr: request}
	defer recovered(req, &status)
	var cr CompleteRequest
	if err := json.Unmarshal([]byte(goString(requestJSON)), &cr); err != nil {
		return settle(req, nil, err)
	}
	values, err := fromUserData(ud).(CompleteFunc)(req, cr)
	if err != nil {
		return settle(req, nil, err)
	}
	if values == nil {
		values = []string{}
	}
	v, n, err := jsonArg(values)
	if err != nil {
		return settle(req, nil, err)
	}
	C.ferrite_request_complete_values(request, v, n)
	return C.FERRITE_RESULT_OK
}

//export goMethodCallback
func goMethodCallback(ud unsafe.Pointer, request *C.ferrite_request, params C.ferrite_str) (status C.uint32_t) {
	req := Request{ptr: request}
	defer recovered(req, &status)
	result, err := fromUserData(ud).(MethodFunc)(req, json.RawMessage(goString(params)))
	return settle(req, result, err)
}

//export goReplyCallback
func goReplyCallback(ud unsafe.Pointer, result C.ferrite_result, resultJSON C.ferrite_str, message C.ferrite_str) {
	reply := fromUserData(ud).(ReplyFunc)
	if result != C.FERRITE_RESULT_OK {
		reply(nil, &Error{Code: Code(result), Detail: goString(message)})
		return
	}
	reply(json.RawMessage(goString(resultJSON)), nil)
}

//export goCancelCallback
func goCancelCallback(ud unsafe.Pointer) {
	fromUserData(ud).(*cancelWatch).f()
}

//export goSendCallback
func goSendCallback(ud unsafe.Pointer, frame C.ferrite_str) {
	fromUserData(ud).(func(string))(goString(frame))
}
