package ferrite

/*
#include "bridge.h"
*/
import "C"

import (
	"runtime"
	"time"
)

// Mount serves child's tools, prompts, resources, resource templates and completions from s
// under prefix (ferrite_server_mount): tools and prompts become prefix_name, URIs
// scheme://prefix/rest; an empty prefix keeps the names. Custom methods and extensions come as
// they are. The mount is live: what child registers or removes later shows in s, and child's
// notifications (list changes, resource updates) reach the clients of s. Handlers run as
// registered, with the child's own names and URIs. The own registrations of s win over mounted
// ones of the same name; child's middleware does not run for calls through s. Keep child
// alive while it is mounted: closing it unmounts it. A prefix with characters other than ASCII
// letters, digits, '-', '_' and '.', or a mount that makes a cycle, is an *Error with
// CodeInvalidArgument.
func (s *Server) Mount(prefix string, child *Server) error {
	p, n := str(prefix)
	err := check(C.ferrite_server_mount(s.ptr, p, n, child.ptr))
	runtime.KeepAlive(s)
	runtime.KeepAlive(child)
	return err
}

// Unmount stops serving what child was mounted with under prefix (ferrite_server_unmount); an
// *Error with CodeNotFound if it was not mounted so.
func (s *Server) Unmount(prefix string, child *Server) error {
	p, n := str(prefix)
	err := check(C.ferrite_server_unmount(s.ptr, p, n, child.ptr))
	runtime.KeepAlive(s)
	runtime.KeepAlive(child)
	return err
}

// Upstream describes the MCP server a proxy fronts: Command (with Args and Env) starts a child
// speaking MCP on stdio; URL (with Headers) reaches a Streamable HTTP endpoint. Era is "auto"
// (the default: each client's request upstream in the client's era, when the upstream serves
// both), "handshake" or "modern". Timeout is how long a request to the upstream may go
// without an answer, a progress notification or a question open with the client (0: the
// default, 60 s; under a millisecond otherwise: CodeInvalidArgument); past it the request is
// cancelled upstream and the client gets -32001.
type Upstream struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Era     string            `json:"era,omitempty"`
	Timeout time.Duration     `json:"-"`
}

// upstreamJSON is Upstream as ferrite_server_proxy reads it: the timeout in whole milliseconds.
type upstreamJSON struct {
	Upstream
	TimeoutMS *int64 `json:"timeout_ms,omitempty"`
}

// Proxy serves what another MCP server serves (ferrite_server_proxy): it connects and
// initializes the upstream now, then mirrors its tools, resources, templates and prompts as
// registrations that forward each call (progress, logs, server-to-client requests and
// cancellation go between the upstream and the client of the call), follows its list changes,
// and forwards completions, subscriptions and custom methods. The upstream stops when the
// server closes. An upstream that cannot be started or reached is an *Error with CodeUpstream;
// a description with neither Command nor URL, CodeInvalidArgument.
func (s *Server) Proxy(upstream Upstream) error {
	spec := upstreamJSON{Upstream: upstream}
	if upstream.Timeout != 0 {
		ms := upstream.Timeout.Milliseconds() // under 1 ms (or negative): refused by the core
		spec.TimeoutMS = &ms
	}
	p, n, err := jsonArg(spec)
	if err != nil {
		return err
	}
	err = check(C.ferrite_server_proxy(s.ptr, p, n))
	runtime.KeepAlive(s)
	return err
}
