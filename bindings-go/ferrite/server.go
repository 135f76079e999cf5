package ferrite

/*
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Implementation is a server's identity (the MCP Implementation shape).
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
}

// ServerOption configures NewServer.
type ServerOption func(*serverConfig)

type serverConfig struct {
	mode         C.uint32_t
	instructions string
	auth         any
	protected    bool
	verifier     VerifyTokenFunc
}

// Stateless opts out of sessions: state is built per request, so there are no
// server-to-client requests and no subscriptions. The default is stateful.
func Stateless() ServerOption {
	return func(c *serverConfig) { c.mode = C.FERRITE_SERVER_MODE_STATELESS }
}

// WithInstructions sets the instructions sent in the initialize result.
func WithInstructions(text string) ServerOption {
	return func(c *serverConfig) { c.instructions = text }
}

// Server is an MCP server and the library threads that run it. Its methods may be called
// from any goroutine. Close (or Free) it when done: that stops serving and releases every
// handler.
type Server struct{ ptr *C.ferrite_server }

// NewServer creates a server with the core's defaults: stateful, the logging capability on,
// tool arguments validated against their input schemas; WithAuth protects it.
func NewServer(info Implementation, opts ...ServerOption) (*Server, error) {
	cfg := serverConfig{mode: C.FERRITE_SERVER_MODE_DEFAULT}
	for _, o := range opts {
		o(&cfg)
	}
	text, err := marshal(info)
	if err != nil {
		return nil, err
	}
	auth, err := newAuth(&cfg)
	if err != nil {
		return nil, err
	}
	defer C.ferrite_auth_free(auth) // the server keeps what it needs
	i, n := nonNull(text)
	ins, insLen := str(cfg.instructions)
	var ptr *C.ferrite_server
	if err := check(C.ferrite_server_new_with_auth(i, n, cfg.mode, ins, insLen, auth, &ptr)); err != nil {
		return nil, err
	}
	return &Server{ptr: ptr}, nil
}

// Tool is an MCP tool descriptor (the Tool wire shape). InputSchema must be a JSON Schema
// object with "type": "object". TaskSupport says whether its calls may or must run as tasks
// (execution.taskSupport on the wire; the zero value, TaskForbidden, never).
type Tool struct {
	Name         string         `json:"name"`
	Title        string         `json:"title,omitempty"`
	Description  string         `json:"description,omitempty"`
	InputSchema  any            `json:"inputSchema"`
	OutputSchema any            `json:"outputSchema,omitempty"`
	Annotations  any            `json:"annotations,omitempty"`
	Meta         map[string]any `json:"_meta,omitempty"`
	TaskSupport  TaskSupport    `json:"-"`
}

// TaskSupport says whether a tool's calls run as tasks (a ferrite_task_support; the numbers are
// stable). The handler is the tool's ordinary handler either way: the core decides per call
// whether it runs inline or as a task's body (Request.IsTask).
type TaskSupport uint32

// The task supports.
const (
	// TaskForbidden: never a task (the default).
	TaskForbidden TaskSupport = C.FERRITE_TASK_SUPPORT_FORBIDDEN
	// TaskOptional: a task when the client asks for one (2025-11-25 params.task) or declares
	// the tasks extension (2026-07-28); otherwise an ordinary call.
	TaskOptional TaskSupport = C.FERRITE_TASK_SUPPORT_OPTIONAL
	// TaskRequired: only as a task; a client that cannot take one gets the core's error.
	TaskRequired TaskSupport = C.FERRITE_TASK_SUPPORT_REQUIRED
)

// String is the wire word ("forbidden", "optional", "required").
func (t TaskSupport) String() string {
	switch t {
	case TaskForbidden:
		return "forbidden"
	case TaskOptional:
		return "optional"
	case TaskRequired:
		return "required"
	}
	return fmt.Sprintf("TaskSupport(%d)", uint32(t))
}

// ToolFunc handles tools/call: args are the validated arguments (a JSON object). The result
// is marshalled as a CallToolResult (or is an InputRequired reply); return ErrPending to
// complete later with Request.Complete, an *RPCError for a JSON-RPC error, any other error
// for a tool execution error (isError).
type ToolFunc func(req Request, args json.RawMessage) (any, error)

// ResourceFunc reads a resource: uri is the URI read, vars a template's captured variables.
// The result is marshalled as a ReadResourceResult.
type ResourceFunc func(req Request, uri string, vars map[string]string) (any, error)

// PromptFunc gets a prompt; the result is marshalled as a GetPromptResult.
type PromptFunc func(req Request, args map[string]string) (any, error)

// CompleteFunc completes one argument: it returns every matching value, and the core keeps
// the first 100 with total and hasMore filled in.
type CompleteFunc func(req Request, request CompleteRequest) ([]string, error)

// MethodFunc serves a custom request method: params is the request's params without _meta.
// The result is marshalled as a JSON object.
type MethodFunc func(req Request, params json.RawMessage) (any, error)

// CompleteRequest is what a completer is asked (the completion/complete params).
type CompleteRequest struct {
	Ref      json.RawMessage `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`
}

// jsonArg marshals v for one call (json.RawMessage and []byte pass as they are).
func jsonArg(v any) (*C.char, C.size_t, error) {
	text, err := marshal(v)
	if err != nil {
		return nil, 0, err
	}
	p, n := nonNull(text)
	return p, n, nil
}

// AddTool registers (or replaces) a tool; descriptor is a Tool or any value that marshals to
// the Tool shape. A Tool's TaskSupport other than TaskForbidden lets its calls run as tasks
// (any other descriptor says so with "execution": {"taskSupport": ...}); a value the library
// does not know is an *Error with CodeInvalidArgument.
func (s *Server) AddTool(descriptor any, f ToolFunc) error {
	support, declared := taskSupportOf(descriptor)
	d, n, err := jsonArg(descriptor)
	if err != nil {
		return err
	}
	cb := C.ferrite_tool_callback(C.goToolCallback)
	if declared {
		return check(C.ferrite_server_add_tool_with_task_support(s.ptr, d, n, C.uint32_t(support), cb, userData(f), finalizer))
	}
	return check(C.ferrite_server_add_tool(s.ptr, d, n, cb, userData(f), finalizer))
}

// taskSupportOf is a Tool's TaskSupport, when it declares one.
func taskSupportOf(descriptor any) (TaskSupport, bool) {
	switch t := descriptor.(type) {
	case Tool:
		return t.TaskSupport, t.TaskSupport != TaskForbidden
	case *Tool:
		if t != nil {
			return t.TaskSupport, t.TaskSupport != TaskForbidden
		}
	}
	return TaskForbidden, false
}

// RemoveTool removes a tool by name (an *Error with CodeNotFound if there was none).
func (s *Server) RemoveTool(name string) error {
	p, n := nonNull(name)
	return check(C.ferrite_server_remove_tool(s.ptr, p, n))
}

// Tools lists the registered tools in registration order (what tools/list serves), each with
// its TaskSupport.
func (s *Server) Tools() ([]Tool, error) {
	var p *C.char
	var n C.size_t
	if err := check(C.ferrite_server_list_tools(s.ptr, &p, &n)); err != nil {
		return nil, err
	}
	var tools []Tool
	text := []byte(owned(p, n))
	if err := json.Unmarshal(text, &tools); err != nil {
		return nil, err
	}
	// TaskSupport is read back from execution.taskSupport (the library refused any other word).
	var executions []struct {
		Execution json.RawMessage `json:"execution"`
	}
	if err := json.Unmarshal(text, &executions); err != nil {
		return nil, err
	}
	for i, e := range executions {
		var execution struct {
			TaskSupport string `json:"taskSupport"`
		}
		if json.Unmarshal(e.Execution, &execution) != nil {
			continue
		}
		for _, t := range []TaskSupport{TaskOptional, TaskRequired} {
			if execution.TaskSupport == t.String() {
				tools[i].TaskSupport = t
			}
		}
	}
	return tools, nil
}

// AddResource registers (or replaces, by URI) a direct resource (the Resource shape).
func (s *Server) AddResource(descriptor any, f ResourceFunc) error {
	d, n, err := jsonArg(descriptor)
	if err != nil {
		return err
	}
	return check(C.ferrite_server_add_resource(s.ptr, d, n, C.ferrite_resource_callback(C.goResourceCallback),
		userData(f), finalizer))
}

// AddResourceTemplate registers (or replaces) a resource template (the ResourceTemplate
// shape, with a uriTemplate).
func (s *Server) AddResourceTemplate(descriptor any, f ResourceFunc) error {
	d, n, err := jsonArg(descriptor)
	if err != nil {
		return err
	}
	return check(C.ferrite_server_add_resource_template(s.ptr, d, n,
		C.ferrite_resource_callback(C.goResourceCallback), userData(f), finalizer))
}

// AddPrompt registers (or replaces) a prompt (the Prompt shape).
func (s *Server) AddPrompt(descriptor any, f PromptFunc) error {
	d, n, err := jsonArg(descriptor)
	if err != nil {
		return err
	}
	return check(C.ferrite_server_add_prompt(s.ptr, d, n, C.ferrite_prompt_callback(C.goPromptCallback),
		userData(f), finalizer))
}

// SetArgumentCompleter completes one argument of one reference ({"type": "ref/prompt",
// "name": ...} or {"type": "ref/resource", "uri": ...}) with f.
func (s *Server) SetArgumentCompleter(reference any, argument string, f CompleteFunc) error {
	r, rn, err := jsonArg(reference)
	if err != nil {
		return err
	}
	a, an := nonNull(argument)
	return check(C.ferrite_server_set_argument_completer(s.ptr, r, rn, a, an,
		C.ferrite_completion_callback(C.goCompletionCallback), userData(f), finalizer))
}

// SetArgumentCandidates completes one argument of one reference from a fixed list.
func (s *Server) SetArgumentCandidates(reference any, argument string, candidates []string) error {
	r, rn, err := jsonArg(reference)
	if err != nil {
		return err
	}
	c, cn, err := jsonArg(candidates)
	if err != nil {
		return err
	}
	a, an := nonNull(argument)
	return check(C.ferrite_server_set_argument_candidates(s.ptr, r, rn, a, an, c, cn))
}

// AddMethod serves a custom request method (an extension's "com.example/search").
func (s *Server) AddMethod(method string, f MethodFunc) error {
	m, n := nonNull(method)
	return check(C.ferrite_server_add_method(s.ptr, m, n, C.ferrite_method_callback(C.goMethodCallback), userData(f),
		finalizer))
}

// AddExtension declares an extension (id "com.example/name") with its settings (nil: {}).
func (s *Server) AddExtension(id string, settings any) error {
	i, n := nonNull(id)
	var sp *C.char
	var sn C.size_t
	if settings != nil {
		var err error
		if sp, sn, err = jsonArg(settings); err != nil {
			return err
		}
	}
	return check(C.ferrite_server_add_extension(s.ptr, i, n, sp, sn))
}

// AddSkill serves a skill at root made of files (relative path -> text).
func (s *Server) AddSkill(root string, files map[string]string) error {
	f, fn, err := jsonArg(files)
	if err != nil {
		return err
	}
	r, rn := nonNull(root)
	return check(C.ferrite_server_add_skill(s.ptr, r, rn, f, fn))
}

// SetToolRequiredClientCapabilities refuses calls of tool name from clients lacking caps (the
// ClientCapabilities shape, e.g. {"sampling": {}}).
func (s *Server) SetToolRequiredClientCapabilities(name string, caps any) error {
	c, cn, err := jsonArg(caps)
	if err != nil {
		return err
	}
	n, nl := nonNull(name)
	return check(C.ferrite_server_set_tool_required_client_capabilities(s.ptr, n, nl, c, cn))
}

// SetResourceCacheHint sets the 2026-07-28 cache hint of reads of one resource or template.
func (s *Server) SetResourceCacheHint(uri string, ttl time.Duration, public bool) error {
	u, n := nonNull(uri)
	return check(C.ferrite_server_set_resource_cache_hint(s.ptr, u, n, C.uint64_t(ttl.Milliseconds()), C.bool(public)))
}

// SetRequestStateKeys seals multi round-trip request states with current and also opens those
// sealed with previous (rotation); each key is 64 hex characters or base64 of 32 bytes.
func (s *Server) SetRequestStateKeys(current string, previous ...string) error {
	c, cn := nonNull(current)
	var pp *C.char
	var pn C.size_t
	if len(previous) > 0 {
		var err error
		if pp, pn, err = jsonArg(previous); err != nil {
			return err
		}
	}
	return check(C.ferrite_server_set_request_state_keys(s.ptr, c, cn, pp, pn))
}

// Capabilities is what the server declares now (the ServerCapabilities shape).
func (s *Server) Capabilities() (json.RawMessage, error) {
	var p *C.char
	var n C.size_t
	if err := check(C.ferrite_server_capabilities(s.ptr, &p, &n)); err != nil {
		return nil, err
	}
	return json.RawMessage(owned(p, n)), nil
}

// Stats is what a server counts (the figures telemetry exports as metrics).
type Stats struct {
	// SSEStreams is the number of SSE streams open now.
	SSEStreams uint64 `json:"sseStreams"`
	// TasksRunning is the number of tasks running in this process now.
	TasksRunning uint64 `json:"tasksRunning"`
	// TasksCreated is the number of tasks created so far.
	TasksCreated uint64 `json:"tasksCreated"`
	// StoreRoundTrips is the number of Redis round trips of UseRedis so far.
	StoreRoundTrips uint64 `json:"storeRoundTrips"`
}

// Stats answers what the server counts now (ferrite_server_stats).
func (s *Server) Stats() (Stats, error) {
	var p *C.char
	var n C.size_t
	if err := check(C.ferrite_server_stats(s.ptr, &p, &n)); err != nil {
		return Stats{}, err
	}
	var st Stats
	if err := json.Unmarshal([]byte(owned(p, n)), &st); err != nil {
		return Stats{}, err
	}
	return st, nil
}

// EnableLogging advertises logging and accepts logging/setLevel (on by default).
func (s *Server) EnableLogging() error { return check(C.ferrite_server_enable_logging(s.ptr)) }

// DisableLogging stops advertising logging; logging/setLevel is then -32601 and Log sends
// nothing.
func (s *Server) DisableLogging() error { return check(C.ferrite_server_disable_logging(s.ptr)) }

// EnableInputValidation validates tool arguments against their input schemas (the default).
func (s *Server) EnableInputValidation() error {
	return check(C.ferrite_server_enable_input_validation(s.ptr))
}

// DisableInputValidation hands tool arguments to handlers unchecked.
func (s *Server) DisableInputValidation() error {
	return check(C.ferrite_server_disable_input_validation(s.ptr))
}

// EnableOutputValidation requires a tool with an outputSchema to return conforming
// structuredContent (a violation is a -32603 error).
func (s *Server) EnableOutputValidation() error {
	return check(C.ferrite_server_enable_output_validation(s.ptr))
}

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

// RequireInitialized refuses requests other than ping until notifications/initialized.
func (s *Server) RequireInitialized() error {
	return check(C.ferrite_server_require_initialized(s.ptr))
}

// SetPageSize returns at most size items per */list page (0: no pagination).
func (s *Server) SetPageSize(size int) error {
	return check(C.ferrite_server_set_page_size(s.ptr, C.size_t(size)))
}

// SendLogMessage sends notifications/message at level with data (any JSON value; a string for
// a plain message) and logger ("": none) to every connected client whose logging/setLevel
// minimum the level reaches, or, with session (a session id; "": every one), to that session
// only: the official SDKs' server-wide sendLoggingMessage (ferrite_server_send_log_message).
// Inside a handler, Request.Log reaches the requesting client in either era. Nothing is sent
// when the server has no logging capability. How many connections it reached.
func (s *Server) SendLogMessage(level LogLevel, data any, logger, session string) (int, error) {
	d, dn, err := jsonArg(data)
	if err != nil {
		return 0, err
	}
	l, ln := str(logger)
	id, idn := str(session)
	var n C.size_t
	err = check(C.ferrite_server_send_log_message(s.ptr, C.uint32_t(level), d, dn, l, ln, id, idn, &n))
	return int(n), err
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

// NotifyResourcesListChanged tells listening clients the resources changed; how many it
// reached.
func (s *Server) NotifyResourcesListChanged() int {
	var n C.size_t
	C.ferrite_server_notify_resources_list_changed(s.ptr, &n)
	return int(n)
}

// NotifyResourceUpdated tells the clients subscribed to uri that it changed; how many.
func (s *Server) NotifyResourceUpdated(uri string) int {
	u, un := nonNull(uri)
	var n C.size_t
	C.ferrite_server_notify_resource_updated(s.ptr, u, un, &n)
	return int(n)
}

// PingClient sends ping to the connection connectionID (an HTTP session id, the stdio
// connection, or a Connection's ID) and waits up to timeout for its answer. It blocks the
// calling goroutine, not a library thread.
func (s *Server) PingClient(connectionID string, timeout time.Duration) error {
	done := make(chan error, 1)
	reply := ReplyFunc(func(_ json.RawMessage, err error) { done <- err })
	id, n := nonNull(connectionID)
	if err := check(C.ferrite_server_ping_client(s.ptr, id, n, C.uint64_t(timeout.Milliseconds()),
		C.ferrite_reply_callback(C.goReplyCallback), userData(reply), finalizer)); err != nil {
		return err
	}
	return <-done
}

// HandleRaw handles one JSON-RPC message (or batch) in-process on the server's own
// connection and returns the response ("" for a notification). There is no channel back to
// a client: use NewConnection for that.
func (s *Server) HandleRaw(message string) (string, error) {
	m, mn := nonNull(message)
	var p *C.char
	var n C.size_t
	if err := check(C.ferrite_server_handle_raw(s.ptr, m, mn, &p, &n)); err != nil {
		return "", err
	}
	return owned(p, n), nil
}

// ServeStdio serves stdin/stdout until end of input (nil) or Close from another goroutine
// (an *Error with CodeClosed).
func (s *Server) ServeStdio() error { return check(C.ferrite_server_serve_stdio(s.ptr)) }

// Close stops serving and releases every handler (their user data is freed). Later calls
// return an *Error with CodeClosed.
func (s *Server) Close() error { return check(C.ferrite_server_close(s.ptr)) }

// Free closes the server (if needed) and frees it; the Server must not be used afterwards.
func (s *Server) Free() {
	if s.ptr != nil {
		C.ferrite_server_free(s.ptr)
		s.ptr = nil
	}
}
