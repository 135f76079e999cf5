package ferrite

/*
#include "bridge.h"
*/
import "C"

import "errors"

// HTTPOptions are the Streamable HTTP options: the core's HttpConfig, field for field. A
// nil field keeps the core's default (in parentheses); the core checks every value and
// refuses a bad one with its own message (`invalid HTTP option max_body_bytes: must be at
// least 1 byte, not 0`), the same text on every Ferrite surface.
type HTTPOptions struct {
	// Path is the endpoint path ("/mcp").
	Path *string `json:"path"`
	// ResponseMode is "auto" (JSON unless the handler talks first), "json" or "sse".
	ResponseMode *string `json:"response_mode"`
	// MaxBodyBytes is the largest accepted POST body (4 MiB; at least 1).
	MaxBodyBytes *uint64 `json:"max_body_bytes"`
	// SessionIdleTimeoutMs ends sessions idle this long (30 minutes; 0: never).
	SessionIdleTimeoutMs *uint64 `json:"session_idle_timeout_ms"`
	// MaxSessions is the most sessions held at once (10000; 0: unbounded): a new one evicts
	// the longest idle session that is not busy (its client gets 404 and initializes again),
	// or gets 503 with Retry-After when every session is busy.
	MaxSessions *uint64 `json:"max_sessions"`
	// HeaderReadTimeoutMs closes a connection whose request head has not arrived this long
	// after it opened or went idle (30000; 0: never).
	HeaderReadTimeoutMs *uint64 `json:"header_read_timeout_ms"`
	// BodyReadTimeoutMs answers 408 to a request whose body has not arrived this long after
	// its head (30000; 0: never).
	BodyReadTimeoutMs *uint64 `json:"body_read_timeout_ms"`
	// AllowedHosts are the accepted Host names, without port (the loopback names; not empty).
	AllowedHosts []string `json:"allowed_hosts"`
	// AllowedOrigins are the accepted Origins, scheme://host (http and https on the loopback
	// names; not empty).
	AllowedOrigins []string `json:"allowed_origins"`
	// AllowAnyHost turns the Host and Origin checks off (false); contradicts AllowedHosts and
	// AllowedOrigins.
	AllowAnyHost *bool `json:"allow_any_host"`
	// Resumable keeps SSE events for Last-Event-ID resumption (true).
	Resumable *bool `json:"resumable"`
	// MaxEventsPerStream is how many events the in-memory event store keeps per stream for
	// resumption, oldest dropped first (1024; at least 1).
	MaxEventsPerStream *uint64 `json:"max_events_per_stream"`
	// MaxEventStreams is how many streams the in-memory event store keeps events of, least
	// recent dropped first (4096; at least 1).
	MaxEventStreams *uint64 `json:"max_event_streams"`
	// SSERetryMs is the reconnection delay advertised in SSE retry fields (1000).
	SSERetryMs *uint64 `json:"sse_retry_ms"`
	// SSEKeepAliveMs sends an SSE comment on a stream idle this long (15000; 0: never).
	SSEKeepAliveMs *uint64 `json:"sse_keep_alive_ms"`
	// StreamBuffer is how many events an SSE stream buffers before a slow reader is cut off
	// (1024; at least 1).
	StreamBuffer *uint64 `json:"stream_buffer"`
	// LegacySSE also serves the deprecated 2024-11-05 HTTP+SSE transport (false).
	LegacySSE *bool `json:"legacy_sse"`
	// LegacySSEPath is the HTTP+SSE stream path ("/sse").
	LegacySSEPath *string `json:"legacy_sse_path"`
	// LegacyMessagesPath is the HTTP+SSE message path ("/messages").
	LegacyMessagesPath *string `json:"legacy_messages_path"`
}

// Ptr returns a pointer to v, for the optional fields of HTTPOptions.
func Ptr[T any](v T) *T { return &v }

// cOptions hands opts to the core (nil: every default); free the result with
// ferrite_http_options_free.
func cOptions(opts *HTTPOptions) (*C.ferrite_http_options, error) {
	var o *C.ferrite_http_options
	if err := check(C.ferrite_http_options_new(&o)); err != nil {
		return nil, err
	}
	if opts == nil {
		return o, nil
	}
	j, n, err := jsonArg(opts)
	if err == nil {
		err = check(C.ferrite_http_options_set_json(o, j, n))
	}
	if err != nil {
		C.ferrite_http_options_free(o)
		return nil, err
	}
	return o, nil
}

// Listener is a bound, not yet serving, HTTP socket.
type Listener struct {
	server *Server
	ptr    *C.ferrite_http_listener
}

// Listen binds host (an IP address; "" for 127.0.0.1) and port (0 picks a free one) for
// Streamable HTTP with opts (nil: defaults), without serving yet: read the port with Port,
// then call Serve. A bad option is the core's error, before anything is bound.
func (s *Server) Listen(host string, port uint16, opts *HTTPOptions) (*Listener, error) {
	o, err := cOptions(opts)
	if err != nil {
		return nil, err
	}
	defer C.ferrite_http_options_free(o)
	h, hn := str(host)
	var l *C.ferrite_http_listener
	if err := check(C.ferrite_server_http_bind(s.ptr, h, hn, C.uint16_t(port), o, &l)); err != nil {
		return nil, err
	}
	return &Listener{server: s, ptr: l}, nil
}

// Port is the bound TCP port. Read it before Serve, which consumes the listener (Port is 0
// afterwards).
func (l *Listener) Port() uint16 {
	var p C.uint16_t
	C.ferrite_http_listener_port(l.ptr, &p)
	return uint16(p)
}

// Serve serves until the server is closed (it then returns nil); it consumes the listener.
// It blocks the calling goroutine (and its OS thread); requests run on library threads.
func (l *Listener) Serve() error {
	p := l.ptr
	l.ptr = nil
	err := check(C.ferrite_server_http_run(l.server.ptr, p))
	var fe *Error
	if errors.As(err, &fe) && fe.Code == CodeClosed {
		return nil
	}
	return err
}

// Close releases a listener that was never served, closing its socket.
func (l *Listener) Close() {
	if l.ptr != nil {
		C.ferrite_http_listener_free(l.ptr)
		l.ptr = nil
	}
}

// ServeHTTP is Listen then Serve.
func (s *Server) ServeHTTP(host string, port uint16, opts *HTTPOptions) error {
	l, err := s.Listen(host, port, opts)
	if err != nil {
		return err
	}
	return l.Serve()
}
