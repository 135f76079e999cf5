package ferrite_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

// The tests talk to servers in-process: Server.HandleRaw (the server's own connection) and
// Connection.HandleRaw (a connection the test holds, with a send function playing the
// client's side of the wire).

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":%s,"clientInfo":{"name":"go-test","version":"1.0"}}}`

var addSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
	"required":   []string{"a", "b"},
}

func newServer(t *testing.T, opts ...ferrite.ServerOption) *ferrite.Server {
	t.Helper()
	s, err := ferrite.NewServer(ferrite.Implementation{Name: "go-test", Version: "1.0.0"}, opts...)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	t.Cleanup(s.Free)
	return s
}

// listening serves s on its own listener on a loopback port (opts) until the test ends, when
// the server is closed and serving has returned; the endpoint's URL. (The port is read before
// Serve, which consumes the listener.)
func listening(t *testing.T, s *ferrite.Server, opts *ferrite.HTTPOptions) string {
	t.Helper()
	l, err := s.Listen("127.0.0.1", 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", l.Port())
	served := make(chan error, 1)
	go func() { served <- l.Serve() }()
	t.Cleanup(func() {
		s.Close()
		<-served
	})
	return url
}

func addTool(t *testing.T, s *ferrite.Server, tool ferrite.Tool, f ferrite.ToolFunc) {
	t.Helper()
	if tool.InputSchema == nil {
		tool.InputSchema = map[string]any{"type": "object"}
	}
	if err := s.AddTool(tool, f); err != nil {
		t.Fatalf("AddTool %s: %v", tool.Name, err)
	}
}

func sum(_ ferrite.Request, args json.RawMessage) (any, error) {
	var a struct{ A, B int }
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	return ferrite.CallToolResult{Content: []ferrite.Content{ferrite.TextContent(fmt.Sprint(a.A + a.B))},
		StructuredContent: map[string]int{"sum": a.A + a.B}}, nil
}

// decode parses a response and fails the test on anything but one JSON object.
func decode(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not a JSON object: %q: %v", text, err)
	}
	return v
}

func call(t *testing.T, handle func(string) (string, error), msg string) map[string]any {
	t.Helper()
	out, err := handle(msg)
	if err != nil {
		t.Fatalf("handle %s: %v", msg, err)
	}
	return decode(t, out)
}

func toolCall(id int, name, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
}

// text is the first content block's text of a tools/call response.
func text(t *testing.T, resp map[string]any) string {
	t.Helper()
	result, _ := resp["result"].(map[string]any)
	content, _ := result["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no content in %v", resp)
	}
	return content[0].(map[string]any)["text"].(string)
}

func errorCode(resp map[string]any) float64 {
	e, _ := resp["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

func TestVersionMatchesTheHeader(t *testing.T) {
	if ferrite.Version() != ferrite.HeaderVersion() {
		t.Fatalf("library %q, header %q", ferrite.Version(), ferrite.HeaderVersion())
	}
	if ferrite.ABIVersion() != ferrite.HeaderABIVersion {
		t.Fatalf("ABI %d, header %d", ferrite.ABIVersion(), ferrite.HeaderABIVersion)
	}
}

func TestToolsAnswerThroughHandleRaw(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "add", InputSchema: addSchema}, sum)
	call(t, s.HandleRaw, fmt.Sprintf(initialize, "{}"))
	resp := call(t, s.HandleRaw, toolCall(2, "add", `{"a":40,"b":2}`))
	if got := text(t, resp); got != "42" {
		t.Fatalf("text %q", got)
	}
	sc := resp["result"].(map[string]any)["structuredContent"].(map[string]any)
	if sc["sum"] != float64(42) {
		t.Fatalf("structuredContent %v", sc)
	}
}

func TestHandlerErrorsMapToToolErrorsAndRPCErrors(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "fails"}, func(ferrite.Request, json.RawMessage) (any, error) {
		return nil, errors.New("deliberate failure")
	})
	addTool(t, s, ferrite.Tool{Name: "rpc"}, func(ferrite.Request, json.RawMessage) (any, error) {
		return nil, ferrite.InvalidParams("bad %s", "input")
	})
	addTool(t, s, ferrite.Tool{Name: "later"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		go func() { req.CompleteText("done later", map[string]bool{"late": true}) }()
		return nil, ferrite.ErrPending
	})
	call(t, s.HandleRaw, fmt.Sprintf(initialize, "{}"))
	resp := call(t, s.HandleRaw, toolCall(2, "fails", "{}"))
	if text(t, resp) != "deliberate failure" || resp["result"].(map[string]any)["isError"] != true {
		t.Fatalf("an error is a tool execution error: %v", resp)
	}
	resp = call(t, s.HandleRaw, toolCall(3, "rpc", "{}"))
	if errorCode(resp) != -32602 || resp["error"].(map[string]any)["message"] != "bad input" {
		t.Fatalf("an *RPCError is a JSON-RPC error: %v", resp)
	}
	resp = call(t, s.HandleRaw, toolCall(4, "later", "{}"))
	if text(t, resp) != "done later" {
		t.Fatalf("ErrPending then CompleteText: %v", resp)
	}
	resp = call(t, s.HandleRaw, toolCall(5, "nope", "{}"))
	if errorCode(resp) != -32602 {
		t.Fatalf("an unknown tool is -32602: %v", resp)
	}
	err := s.AddTool(ferrite.Tool{Name: "bad", InputSchema: map[string]any{"type": "string"}}, sum)
	var fe *ferrite.Error
	if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument ||
		err.Error() != `tool "bad": inputSchema must be a JSON object with "type": "object"` {
		t.Fatalf("a non-object input schema is refused with the core's message: %v", err)
	}
	if err := s.RemoveTool("nope"); !errors.As(err, &fe) || fe.Code != ferrite.CodeNotFound {
		t.Fatalf("removing an unknown tool is CodeNotFound: %v", err)
	}
}

// roots asks the client for its roots and completes with them (or fails with the reason).
func roots(req ferrite.Request, _ json.RawMessage) (any, error) {
	err := req.ListRoots(func(result json.RawMessage, err error) {
		if err != nil {
			req.Fail(err.Error())
			return
		}
		req.CompleteText(string(result), nil)
	})
	if err != nil {
		return nil, err
	}
	return nil, ferrite.ErrPending
}

// The one set of defaults: stateful, logging on, input validation on.
func TestDefaults(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "add", InputSchema: addSchema}, sum)
	addTool(t, s, ferrite.Tool{Name: "roots"}, roots)
	client := newClient(t, s)
	init := call(t, client.conn.HandleRaw, fmt.Sprintf(initialize, `{"roots":{}}`))
	caps := init["result"].(map[string]any)["capabilities"].(map[string]any)
	if _, ok := caps["logging"]; !ok {
		t.Fatalf("a fresh server declares logging: %v", caps)
	}
	resp := call(t, client.conn.HandleRaw, toolCall(2, "add", `{"a":"x","b":1}`))
	if resp["result"].(map[string]any)["isError"] != true ||
		text(t, resp) != `Invalid arguments for tool add: /a: "x" is not of type "integer"` {
		t.Fatalf("a schema-violating argument is an isError result: %v", resp)
	}
	resp = call(t, client.conn.HandleRaw, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`)
	if _, ok := resp["result"]; !ok {
		t.Fatalf("logging/setLevel works: %v", resp)
	}
	client.answer(0, `{"roots":[{"uri":"file:///project"}]}`)
	resp = call(t, client.conn.HandleRaw, toolCall(4, "roots", "{}"))
	if got := text(t, resp); got != `{"roots":[{"uri":"file:///project"}]}` {
		t.Fatalf("a server-to-client request is possible on a stateful session: %v", resp)
	}

	stateless := newServer(t, ferrite.Stateless())
	addTool(t, stateless, ferrite.Tool{Name: "roots"}, roots)
	sc := newClient(t, stateless)
	call(t, sc.conn.HandleRaw, fmt.Sprintf(initialize, `{"roots":{}}`))
	resp = call(t, sc.conn.HandleRaw, toolCall(2, "roots", "{}"))
	if text(t, resp) != "server-to-client requests need a stateful server" {
		t.Fatalf("Stateless() opts out: %v", resp)
	}
}

func TestValidationSwitches(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "add", InputSchema: addSchema}, sum)
	addTool(t, s, ferrite.Tool{Name: "shaped", OutputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"n": map[string]any{"type": "integer"}}}},
		func(ferrite.Request, json.RawMessage) (any, error) {
			return ferrite.CallToolResult{Content: []ferrite.Content{ferrite.TextContent("seven")},
				StructuredContent: map[string]string{"n": "seven"}}, nil
		})
	call(t, s.HandleRaw, fmt.Sprintf(initialize, "{}"))
	bad := toolCall(2, "add", `{"a":2,"b":"3"}`)
	if got := text(t, call(t, s.HandleRaw, bad)); got != `Invalid arguments for tool add: /b: "3" is not of type "integer"` {
		t.Fatalf("validated by default: %q", got)
	}
	if err := s.DisableInputValidation(); err != nil {
		t.Fatal(err)
	}
	resp := call(t, s.HandleRaw, bad)
	if resp["result"].(map[string]any)["isError"] != true || !strings.Contains(text(t, resp), "cannot unmarshal") {
		t.Fatalf("without validation the handler sees the raw argument: %v", resp)
	}
	if err := s.EnableInputValidation(); err != nil {
		t.Fatal(err)
	}
	if got := text(t, call(t, s.HandleRaw, bad)); !strings.HasPrefix(got, "Invalid arguments for tool add") {
		t.Fatalf("validation is back: %q", got)
	}
	if got := text(t, call(t, s.HandleRaw, toolCall(3, "shaped", "{}"))); got != "seven" {
		t.Fatalf("output validation is off by default: %q", got)
	}
	if err := s.EnableOutputValidation(); err != nil {
		t.Fatal(err)
	}
	resp = call(t, s.HandleRaw, toolCall(4, "shaped", "{}"))
	if errorCode(resp) != -32603 || resp["error"].(map[string]any)["message"] !=
		`tool shaped returned structuredContent that violates its outputSchema: /n: "seven" is not of type "integer"` {
		t.Fatalf("output validation: %v", resp)
	}
}

func TestToolsListing(t *testing.T) {
	s := newServer(t)
	if tools, err := s.Tools(); err != nil || len(tools) != 0 {
		t.Fatalf("no tools: %v %v", tools, err)
	}
	addTool(t, s, ferrite.Tool{Name: "add", Description: "Add two integers", InputSchema: addSchema}, sum)
	addTool(t, s, ferrite.Tool{Name: "echo", Title: "Echo"}, sum)
	tools, err := s.Tools()
	if err != nil || len(tools) != 2 || tools[0].Name != "add" || tools[0].Description != "Add two integers" ||
		tools[1].Name != "echo" || tools[1].Title != "Echo" {
		t.Fatalf("Tools lists in registration order: %+v %v", tools, err)
	}
	schema, _ := json.Marshal(tools[0].InputSchema)
	if string(schema) != `{"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"type":"object"}` {
		t.Fatalf("input schema %s", schema)
	}
}

// client plays the client's side of a Connection: frames the server sends are queued.
type client struct {
	conn   *ferrite.Connection
	mu     sync.Mutex
	frames []string
	ready  chan struct{}
}

func newClient(t *testing.T, s *ferrite.Server) *client {
	t.Helper()
	c := &client{ready: make(chan struct{}, 64)}
	conn, err := s.NewConnection(func(frame string) {
		c.mu.Lock()
		c.frames = append(c.frames, frame)
		c.mu.Unlock()
		c.ready <- struct{}{}
	})
	if err != nil {
		t.Fatalf("NewConnection: %v", err)
	}
	c.conn = conn
	t.Cleanup(conn.Close)
	return c
}

// next waits up to 10 s for frame number n the server sent.
func (c *client) next(n int) (string, bool) {
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		if len(c.frames) > n {
			f := c.frames[n]
			c.mu.Unlock()
			return f, true
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-deadline:
			return "", false
		}
	}
}

// frame is frame number n, decoded.
func (c *client) frame(t *testing.T, n int) map[string]any {
	t.Helper()
	f, ok := c.next(n)
	if !ok {
		t.Fatalf("frame %d never came", n)
	}
	return decode(t, f)
}

// answer answers the server's request in frame n with result, once it arrives.
func (c *client) answer(n int, result string) {
	go func() {
		f, ok := c.next(n)
		if !ok {
			return
		}
		var req struct{ ID json.RawMessage }
		if json.Unmarshal([]byte(f), &req) == nil {
			c.conn.HandleRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result))
		}
	}()
}

func TestRequestContext(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "who"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		info, _ := req.ClientInfo()
		token, hasToken := req.ProgressToken()
		meta, hasMeta := req.Meta()
		return ferrite.TextResult(fmt.Sprintf("caps=%s info=%s token=%s/%v meta=%s/%v conn=%v", req.ClientCapabilities(),
			info, token, hasToken, meta, hasMeta, req.ConnectionID() != "")), nil
	})
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, fmt.Sprintf(initialize, `{"sampling":{}}`))
	resp := call(t, c.conn.HandleRaw, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"who","arguments":{},`+
		`"_meta":{"progressToken":"tok","com.example/trace":"t1"}}}`)
	want := `caps={"sampling":{}} info={"name":"go-test","version":"1.0"} token="tok"/true ` +
		`meta={"com.example/trace":"t1","progressToken":"tok"}/true conn=true`
	if got := text(t, resp); got != want {
		t.Fatalf("context:\n got  %s\n want %s", got, want)
	}
	resp = call(t, c.conn.HandleRaw, toolCall(3, "who", "{}"))
	if got := text(t, resp); !strings.Contains(got, "token=/false meta=/false") {
		t.Fatalf("no token or _meta: %s", got)
	}
}

func TestCancellation(t *testing.T) {
	s := newServer(t)
	started := make(chan struct{}, 2)
	var cancelled atomic.Int32
	addTool(t, s, ferrite.Tool{Name: "wait"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		ctx := req.Context()
		if err := req.OnCancel(func() { cancelled.Add(1) }); err != nil {
			return nil, err
		}
		go func() {
			<-ctx.Done()
			req.CompleteText("stopped", nil)
		}()
		started <- struct{}{}
		return nil, ferrite.ErrPending
	})
	conn, err := s.NewConnection(nil)
	if err != nil {
		t.Fatal(err)
	}
	call(t, conn.HandleRaw, fmt.Sprintf(initialize, "{}"))
	answered := make(chan string, 1)
	go func() {
		out, _ := conn.HandleRaw(toolCall(41, "wait", "{}"))
		answered <- out
	}()
	<-started
	if out, err := conn.HandleRaw(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41}}`); err != nil || out != "" {
		t.Fatalf("cancel notification: %q %v", out, err)
	}
	if out := <-answered; out != "" {
		t.Fatalf("a cancelled request gets no response, got %q", out)
	}
	// OnCancel runs on a library thread, alongside the Context's own watcher (which may settle
	// the request and so free HandleRaw first): wait for it, then check it ran once only.
	if n := waitCount(&cancelled, 1); n != 1 {
		t.Fatalf("OnCancel ran %d times", n)
	}

	go func() {
		out, _ := conn.HandleRaw(toolCall(42, "wait", "{}"))
		answered <- out
	}()
	<-started
	conn.Close() // the client went away
	if out := <-answered; out != "" {
		t.Fatalf("the end of the connection: %q", out)
	}
	if n := waitCount(&cancelled, 2); n != 2 {
		t.Fatalf("OnCancel after the connection ended ran %d times in all", n)
	}
}

// waitCount waits up to five seconds for n to reach want, then a little longer to see that it
// does not go past it, and returns what it holds.
func waitCount(n *atomic.Int32, want int32) int32 {
	deadline := time.Now().Add(5 * time.Second)
	for n.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	return n.Load()
}

func TestPingClient(t *testing.T) {
	s := newServer(t)
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, fmt.Sprintf(initialize, "{}"))
	c.answer(0, "{}")
	if err := s.PingClient(c.conn.ID(), 10*time.Second); err != nil {
		t.Fatalf("an answered ping: %v", err)
	}
	if f := c.frame(t, 0); f["method"] != "ping" {
		t.Fatalf("the ping frame: %v", f)
	}
	err := s.PingClient(c.conn.ID(), 50*time.Millisecond)
	var fe *ferrite.Error
	if !errors.As(err, &fe) || fe.Code != ferrite.CodePeerError || err.Error() != "the client did not answer in time" {
		t.Fatalf("an unanswered ping: %v", err)
	}
	err = s.PingClient("conn-none", time.Second)
	if !errors.As(err, &fe) || fe.Code != ferrite.CodePeerError ||
		err.Error() != "this transport has no server-to-client request channel" {
		t.Fatalf("an unknown connection: %v", err)
	}
}

func TestMultiRoundTrip(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "greet"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		answer, ok := req.InputResponse("name")
		if !ok {
			return ferrite.InputRequired{Requests: map[string]ferrite.InputRequest{
				"name": ferrite.ElicitRequest("Name?", map[string]any{"type": "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}}}),
			}, State: "step-1"}, nil
		}
		state, _ := req.RequestState()
		var r struct{ Content struct{ Name string } }
		if err := json.Unmarshal(answer, &r); err != nil {
			return nil, ferrite.InvalidParams("name: %v", err)
		}
		return ferrite.TextResult(fmt.Sprintf("Hello, %s! (%s, resubmission=%v)", r.Content.Name, state,
			req.IsResubmission())), nil
	})
	// A handshake-era session: the core asks the client itself and calls the handler again.
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, fmt.Sprintf(initialize, `{"elicitation":{}}`))
	c.answer(0, `{"action":"accept","content":{"name":"Ada"}}`)
	resp := call(t, c.conn.HandleRaw, toolCall(2, "greet", "{}"))
	if got := text(t, resp); got != "Hello, Ada! (step-1, resubmission=true)" {
		t.Fatalf("handshake era: %v", resp)
	}
	if f := c.frame(t, 0); f["method"] != "elicitation/create" {
		t.Fatalf("the core elicited: %v", f)
	}
	// 2026-07-28: the client gets input_required and retries with the answer and the state.
	envelope := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	first := call(t, s.HandleRaw, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{},"_meta":`+envelope+`}}`)
	result := first["result"].(map[string]any)
	if result["resultType"] != "input_required" {
		t.Fatalf("first round: %v", first)
	}
	state, _ := json.Marshal(result["requestState"])
	retry := fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"greet","arguments":{},`+
		`"inputResponses":{"name":{"action":"accept","content":{"name":"Grace"}}},"requestState":%s,"_meta":%s}}`, state, envelope)
	if got := text(t, call(t, s.HandleRaw, retry)); got != "Hello, Grace! (step-1, resubmission=true)" {
		t.Fatalf("retry: %s", got)
	}
}

func TestCompletionValuesAreCappedByTheCore(t *testing.T) {
	s := newServer(t)
	if err := s.AddPrompt(map[string]any{"name": "p", "arguments": []any{map[string]any{"name": "x"}}},
		func(ferrite.Request, map[string]string) (any, error) { return map[string]any{"messages": []any{}}, nil }); err != nil {
		t.Fatal(err)
	}
	var seen ferrite.CompleteRequest
	err := s.SetArgumentCompleter(map[string]string{"type": "ref/prompt", "name": "p"}, "x",
		func(_ ferrite.Request, r ferrite.CompleteRequest) ([]string, error) {
			seen = r
			values := make([]string, 150)
			for i := range values {
				values[i] = fmt.Sprint("v", i)
			}
			return values, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	call(t, s.HandleRaw, fmt.Sprintf(initialize, "{}"))
	resp := call(t, s.HandleRaw, `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},`+
		`"argument":{"name":"x","value":"v"},"context":{"arguments":{"y":"z"}}}}`)
	c := resp["result"].(map[string]any)["completion"].(map[string]any)
	if len(c["values"].([]any)) != 100 || c["total"] != float64(150) || c["hasMore"] != true {
		t.Fatalf("the core keeps 100 of 150: %v", c)
	}
	if seen.Argument.Name != "x" || seen.Argument.Value != "v" || seen.Context.Arguments["y"] != "z" {
		t.Fatalf("the completer got the request: %+v", seen)
	}
}

// The same bad HTTP option gives the core's message, the text every surface shows.
func TestHTTPOptionErrorsAreTheCoresMessages(t *testing.T) {
	s := newServer(t)
	cases := []struct {
		opts *ferrite.HTTPOptions
		want string
	}{
		{&ferrite.HTTPOptions{MaxBodyBytes: ferrite.Ptr[uint64](0)}, "invalid HTTP option max_body_bytes: must be at least 1 byte, not 0"},
		{&ferrite.HTTPOptions{AllowedHosts: []string{}},
			"invalid HTTP option allowed_hosts: is empty, which would refuse every request (allow_any_host accepts any)"},
		{&ferrite.HTTPOptions{Path: ferrite.Ptr("mcp")}, `invalid HTTP option path: "mcp" is not a literal path starting with '/'`},
		{&ferrite.HTTPOptions{ResponseMode: ferrite.Ptr("xml")},
			"invalid HTTP option response_mode: unknown variant `xml`, expected one of `auto`, `json`, `sse`"},
		{&ferrite.HTTPOptions{AllowAnyHost: ferrite.Ptr(true), AllowedOrigins: []string{"https://a.example"}},
			"invalid HTTP option allowed_origins: contradicts allow_any_host, which turns the Host and Origin checks off"},
	}
	for _, c := range cases {
		_, err := s.Listen("127.0.0.1", 0, c.opts)
		var fe *ferrite.Error
		if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	_, err := s.Listen("localhost", 0, nil)
	if err == nil || err.Error() != `invalid HTTP option host: "localhost" is not an IP address (bind to 127.0.0.1, 0.0.0.0 or ::)` {
		t.Errorf("a host name: %v", err)
	}
	l, err := s.Listen("", 0, &ferrite.HTTPOptions{SessionIdleTimeoutMs: ferrite.Ptr[uint64](0),
		AllowedHosts: []string{"mcp.example.com"}})
	if err != nil || l.Port() == 0 {
		t.Fatalf("good options bind: %v", err)
	}
	l.Close()
}
