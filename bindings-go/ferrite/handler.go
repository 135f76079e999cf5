package ferrite

// The MCP endpoint as an http.Handler: net/http (or any router on it) receives the request,
// and the core's endpoint answers it through the C ABI's exchange (ferrite_http_service,
// ferrite_http_exchange_*). This file only moves bytes: the head and the body in, the
// response's head and chunks out, a cancel when the client goes away.

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// Handler is the server's Streamable HTTP endpoint as an http.Handler, to mount in an
// application's own net/http server, beside its other routes and behind its middleware:
//
//	h, err := s.Handler(nil)
//	mux := http.NewServeMux()
//	mux.Handle("/mcp", h)
//	mux.HandleFunc("GET /health", health)
//	http.ListenAndServe(":8080", mux)
//
// The core does all protocol work (sessions, SSE, resumability, the Host and Origin checks,
// the 2026-07-28 classifier) as it does for Listen; the handler serves whatever path the
// router hands it. Each request being answered holds one OS thread while it waits in the
// library (an open SSE stream included). Close it when the application stops.
type Handler struct {
	mu         sync.RWMutex
	ptr        *C.ferrite_http_service
	path       string
	hostValues func(*http.Request) map[string]any
}

// HandlerOption configures Server.Handler.
type HandlerOption func(*Handler)

// WithHostValues attaches values to every request for handlers to read (Request.HostValue,
// Request.Info): f is called with the incoming request (after the application's middleware)
// and its map is marshalled to JSON. Values from ContextWithHostValue come first; f's win on
// the same name.
func WithHostValues(f func(*http.Request) map[string]any) HandlerOption {
	return func(h *Handler) { h.hostValues = f }
}

type hostValuesKey struct{}

// ContextWithHostValue returns a copy of ctx carrying value under name for the Handler to
// attach to the request (Request.HostValue reads it as JSON): what an application's
// middleware does with what it learned (a tenant, an authenticated user):
//
//	next.ServeHTTP(w, r.WithContext(ferrite.ContextWithHostValue(r.Context(), "user", user)))
func ContextWithHostValue(ctx context.Context, name string, value any) context.Context {
	prev, _ := ctx.Value(hostValuesKey{}).(map[string]any)
	values := make(map[string]any, len(prev)+1)
	for k, v := range prev {
		values[k] = v
	}
	values[name] = value
	return context.WithValue(ctx, hostValuesKey{}, values)
}

// Handler makes the server's Streamable HTTP endpoint as an http.Handler with opts (nil:
// defaults; the same options, checked the same way, as Listen; Host and Port are not used, as
// the application listens, and LegacySSE is not served). A bad option is the core's error.
func (s *Server) Handler(opts *HTTPOptions, options ...HandlerOption) (*Handler, error) {
	o, err := cOptions(opts)
	if err != nil {
		return nil, err
	}
	defer C.ferrite_http_options_free(o)
	h := &Handler{}
	for _, opt := range options {
		opt(h)
	}
	if err := check(C.ferrite_http_service_new(s.ptr, o, &h.ptr)); err != nil {
		return nil, err
	}
	var p C.ferrite_str
	C.ferrite_http_service_path(h.ptr, &p)
	h.path = goString(p)
	return h, nil
}

// Path is the endpoint path of the options ("/mcp"), for mounting; the handler serves any.
func (h *Handler) Path() string { return h.path }

// Close ends every session and its streams and releases the endpoint: later requests get
// 503. Requests being answered finish. Call it when the application stops (before the
// server's Close).
func (h *Handler) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ptr != nil {
		C.ferrite_http_service_free(h.ptr)
		h.ptr = nil
	}
}

// bodyChunk is how much of the request body is read and handed over at a time.
const bodyChunk = 32 << 10

// ServeHTTP answers one request through the core's endpoint: the body is streamed in as it
// arrives, the response streamed out (every SSE event flushed at once), and the requests it
// carries are cancelled when the client goes away (r.Context() ends).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	values, err := h.values(r)
	if err != nil {
		http.Error(w, "ferrite: the host values: "+err.Error(), http.StatusInternalServerError)
		return
	}
	ex, err := h.begin(r, values)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) && fe.Code == CodeClosed {
			http.Error(w, "the MCP endpoint is closed", http.StatusServiceUnavailable)
			return
		}
		http.Error(w, "ferrite: "+err.Error(), http.StatusInternalServerError)
		return
	}
	// The client going away cancels the exchange: a write or respond waiting in the library
	// returns at once and the requests are cancelled. The exchange is freed only once the
	// watcher is done with it.
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-r.Context().Done():
			C.ferrite_http_exchange_cancel(ex)
		case <-done:
		}
	}()
	defer func() {
		close(done)
		<-watched
		C.ferrite_http_exchange_free(ex)
	}()

	if r.Body != nil {
		buf := make([]byte, bodyChunk)
		for {
			n, err := r.Body.Read(buf)
			if n > 0 && C.ferrite_http_exchange_write(ex, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(n)) != C.FERRITE_RESULT_OK {
				break // the endpoint answered already (413, ...), or the exchange was cancelled
			}
			if err != nil {
				break
			}
		}
	}
	C.ferrite_http_exchange_end_body(ex)

	rs := &responding{w: w, rc: http.NewResponseController(w)}
	handle := cgo.NewHandle(rs)
	box := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(box) = C.uintptr_t(handle)
	rc := C.ferrite_http_exchange_respond(ex, C.ferrite_http_head_callback(C.goHTTPHead),
		C.ferrite_http_chunk_callback(C.goHTTPChunk), box)
	C.free(box)
	handle.Delete()
	if rc == C.FERRITE_RESULT_CLOSED && !rs.headSent && r.Context().Err() == nil {
		http.Error(w, "the MCP endpoint is closed", http.StatusServiceUnavailable)
	}
}

// values are the host values of r as a JSON object ("" when none).
func (h *Handler) values(r *http.Request) (string, error) {
	ctxValues, _ := r.Context().Value(hostValuesKey{}).(map[string]any)
	var fromFunc map[string]any
	if h.hostValues != nil {
		fromFunc = h.hostValues(r)
	}
	if len(ctxValues) == 0 && len(fromFunc) == 0 {
		return "", nil
	}
	all := make(map[string]any, len(ctxValues)+len(fromFunc))
	for k, v := range ctxValues {
		all[k] = v
	}
	for k, v := range fromFunc {
		all[k] = v
	}
	b, err := json.Marshal(all)
	return string(b), err
}

// begin starts the exchange with r's head. The headers go to C memory (one allocation, freed
// here: the library copies them), with Host, which net/http moves out of r.Header.
func (h *Handler) begin(r *http.Request, values string) (*C.ferrite_http_exchange, error) {
	type pair struct{ name, value string }
	pairs := make([]pair, 0, len(r.Header)+2)
	pairs = append(pairs, pair{"host", r.Host})
	for name, vs := range r.Header {
		for _, v := range vs {
			pairs = append(pairs, pair{name, v})
		}
	}
	if r.ContentLength >= 0 && r.Header.Get("Content-Length") == "" && r.Body != nil && r.Body != http.NoBody {
		pairs = append(pairs, pair{"content-length", itoa(r.ContentLength)})
	}
	size := 0
	for _, p := range pairs {
		size += len(p.name) + len(p.value)
	}
	hdrSize := int(unsafe.Sizeof(C.ferrite_http_header{}))
	mem := C.malloc(C.size_t(len(pairs)*hdrSize + size + 1))
	defer C.free(mem)
	headers := unsafe.Slice((*C.ferrite_http_header)(mem), len(pairs))
	text := unsafe.Slice((*byte)(unsafe.Add(mem, len(pairs)*hdrSize)), size+1)
	at := 0
	for i, p := range pairs {
		headers[i].name = (*C.char)(unsafe.Pointer(&text[at]))
		headers[i].name_len = C.size_t(len(p.name))
		at += copy(text[at:], p.name)
		headers[i].value = (*C.char)(unsafe.Pointer(&text[at]))
		headers[i].value_len = C.size_t(len(p.value))
		at += copy(text[at:], p.value)
	}
	m, mn := nonNull(r.Method)
	t, tn := nonNull(r.URL.RequestURI())
	ra, ran := str(r.RemoteAddr)
	hv, hvn := str(values)
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.ptr == nil {
		return nil, &Error{Code: CodeClosed, Detail: "the handler was closed"}
	}
	var ex *C.ferrite_http_exchange
	if err := check(C.ferrite_http_exchange_begin(h.ptr, m, mn, t, tn, &headers[0], C.size_t(len(pairs)), ra, ran, hv, hvn,
		&ex)); err != nil {
		return nil, err
	}
	return ex, nil
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// responding is one response being written: the callbacks' state.
type responding struct {
	w           http.ResponseWriter
	rc          *http.ResponseController
	eventStream bool
	headSent    bool
}

//export goHTTPHead
func goHTTPHead(ud unsafe.Pointer, status C.uint16_t, headers *C.ferrite_http_header, n C.size_t, eventStream C.bool) C.uint32_t {
	rs := fromUserData(ud).(*responding)
	out := rs.w.Header()
	for _, h := range unsafe.Slice(headers, int(n)) {
		name := C.GoStringN(h.name, C.int(h.name_len))
		value := ""
		if h.value_len > 0 {
			value = C.GoStringN(h.value, C.int(h.value_len))
		}
		out.Add(name, value)
	}
	rs.eventStream = bool(eventStream)
	rs.w.WriteHeader(int(status))
	rs.headSent = true
	if rs.eventStream && rs.rc.Flush() != nil {
		return 1
	}
	return 0
}

//export goHTTPChunk
func goHTTPChunk(ud unsafe.Pointer, data *C.char, n C.size_t) C.uint32_t {
	rs := fromUserData(ud).(*responding)
	// Write does not keep the slice (io.Writer's contract), so the library's bytes are
	// written without a copy.
	if _, err := rs.w.Write(unsafe.Slice((*byte)(unsafe.Pointer(data)), int(n))); err != nil {
		return 1
	}
	if rs.eventStream && rs.rc.Flush() != nil {
		return 1
	}
	return 0
}
