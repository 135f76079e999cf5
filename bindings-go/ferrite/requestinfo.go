package ferrite

// What the HTTP transport knows about a request: the core's request info through
// ferrite_request_info and its getters; nothing here is decided in Go but the printing, and
// which headers it redacts is the core's list (ferrite_http_header_is_sensitive).

/*
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// RequestInfo is what the HTTP transport knows about a request: its method, the path the
// endpoint received, its headers (sensitive ones included: the handler is trusted), the
// client's address and the values the host attached (WithHostValues, ContextWithHostValue).
// Printing it with fmt (any verb) or String redacts the headers that carry credentials
// (Authorization, Cookie, Proxy-Authorization, Set-Cookie, X-Api-Key: the core's list), so it
// is safe to log.
type RequestInfo struct {
	// Method is the HTTP method ("POST").
	Method string
	// Path is the path the endpoint received ("/mcp"), without the query.
	Path string
	// Header holds the request headers, canonical names; a header sent several times has its
	// values joined with ", " in one entry.
	Header http.Header
	// RemoteAddr is the client's "IP:port", or "" when unknown.
	RemoteAddr string
	// HostValues are the values the host attached, by name, as JSON.
	HostValues map[string]json.RawMessage
}

// Info is what the HTTP transport knows about the request, or nil when it did not come over
// HTTP (stdio, HandleRaw).
func (r Request) Info() *RequestInfo {
	var s C.ferrite_str
	if check(C.ferrite_request_info(r.ptr, &s)) != nil || s.ptr == nil {
		return nil
	}
	var wire struct {
		Method     string                     `json:"method"`
		Path       string                     `json:"path"`
		Headers    map[string]string          `json:"headers"`
		RemoteAddr *string                    `json:"remoteAddr"`
		HostValues map[string]json.RawMessage `json:"hostValues"`
	}
	if json.Unmarshal([]byte(goString(s)), &wire) != nil {
		return nil
	}
	info := &RequestInfo{Method: wire.Method, Path: wire.Path, Header: http.Header{}, HostValues: wire.HostValues}
	for name, value := range wire.Headers {
		info.Header[http.CanonicalHeaderKey(name)] = []string{value}
	}
	if wire.RemoteAddr != nil {
		info.RemoteAddr = *wire.RemoteAddr
	}
	if info.HostValues == nil {
		info.HostValues = map[string]json.RawMessage{}
	}
	return info
}

// Method is the HTTP method of the request ("POST"), or "" when it did not come over HTTP.
func (r Request) Method() string {
	var s C.ferrite_str
	if check(C.ferrite_request_http_method(r.ptr, &s)) != nil {
		return ""
	}
	return goString(s)
}

// Path is the path the endpoint received ("/mcp"; under http.StripPrefix, what is left), or
// "" when the request did not come over HTTP.
func (r Request) Path() string {
	var s C.ferrite_str
	if check(C.ferrite_request_http_path(r.ptr, &s)) != nil {
		return ""
	}
	return goString(s)
}

// RemoteAddr is the HTTP client's "IP:port", or "" when unknown or not over HTTP.
func (r Request) RemoteAddr() string {
	var s C.ferrite_str
	if check(C.ferrite_request_remote_addr(r.ptr, &s)) != nil {
		return ""
	}
	return goString(s)
}

// HostValue is the value the host attached under name (WithHostValues,
// ContextWithHostValue), as JSON, if there is one.
func (r Request) HostValue(name string) (json.RawMessage, bool) {
	n, nn := nonNull(name)
	var s C.ferrite_str
	if check(C.ferrite_request_host_value(r.ptr, n, nn, &s)) != nil {
		return nil, false
	}
	v, ok := optional(s)
	if !ok {
		return nil, false
	}
	return json.RawMessage(v), true
}

// IsSensitiveHeader reports whether an HTTP header carries credentials (the core's list,
// case-insensitive), the headers RequestInfo redacts when printed.
func IsSensitiveHeader(name string) bool {
	n, nn := str(name)
	return bool(C.ferrite_http_header_is_sensitive(n, nn))
}

// String renders the info with credentials redacted.
func (i RequestInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "RequestInfo{Method: %s, Path: %s, RemoteAddr: %s, Header: {", i.Method, i.Path, i.RemoteAddr)
	names := make([]string, 0, len(i.Header))
	for name := range i.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	for k, name := range names {
		if k > 0 {
			b.WriteString(", ")
		}
		value := strings.Join(i.Header[name], ", ")
		if IsSensitiveHeader(name) {
			value = "<redacted>"
		}
		fmt.Fprintf(&b, "%s: %s", name, value)
	}
	b.WriteString("}, HostValues: {")
	names = names[:0]
	for name := range i.HostValues {
		names = append(names, name)
	}
	sort.Strings(names)
	for k, name := range names {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", name, i.HostValues[name])
	}
	b.WriteString("}}")
	return b.String()
}

// GoString is String: %#v redacts too.
func (i RequestInfo) GoString() string { return i.String() }

// Format makes every fmt verb (%v, %+v, %#v, %s, ...) print String, so no verb shows a
// credential.
func (i RequestInfo) Format(f fmt.State, _ rune) { fmt.Fprint(f, i.String()) }
