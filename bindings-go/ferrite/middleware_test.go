package ferrite_test

// Middleware (issue 16): order, changing the request, answering without the handler (a result
// or an error), reading and changing the answer, errors from the chain, typed hooks picked
// inside one call, and faults (a panic, a bad result, next twice), in both eras.

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

// mwEnvelope is the 2026-07-28 _meta of a client declaring nothing.
var mwEnvelope = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
	"io.modelcontextprotocol/clientCapabilities": map[string]any{},
}

// mwServer has add (counting its calls) and hidden, and has been initialized (handshake era).
func mwServer(t *testing.T, calls *atomic.Int32) *ferrite.Server {
	t.Helper()
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "add", InputSchema: addSchema}, func(req ferrite.Request, args json.RawMessage) (any, error) {
		calls.Add(1)
		return sum(req, args)
	})
	addTool(t, s, ferrite.Tool{Name: "hidden"}, func(ferrite.Request, json.RawMessage) (any, error) {
		return ferrite.TextResult("secret"), nil
	})
	call(t, s.HandleRaw, fmt.Sprintf(initialize, "{}"))
	return s
}

var mwID atomic.Int32

// rpc sends method with params (nil: none) in an era: with the 2026-07-28 envelope when modern.
func rpc(t *testing.T, s *ferrite.Server, modern bool, method string, params map[string]any) map[string]any {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": mwID.Add(1), "method": method}
	if modern {
		p := map[string]any{"_meta": mwEnvelope}
		for k, v := range params {
			p[k] = v
		}
		params = p
	}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return call(t, s.HandleRaw, string(b))
}

func addCall(a, b int) map[string]any {
	return map[string]any{"name": "add", "arguments": map[string]any{"a": a, "b": b}}
}

func eras(t *testing.T, f func(t *testing.T, modern bool)) {
	t.Run("2025-06-18", func(t *testing.T) { f(t, false) })
	t.Run("2026-07-28", func(t *testing.T) { f(t, true) })
}

// arg is params.arguments[name] of a tools/call, or -1.
func arg(req *ferrite.MiddlewareRequest, name string) int {
	var p struct {
		Arguments map[string]int `json:"arguments"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return -1
	}
	if v, ok := p.Arguments[name]; ok {
		return v
	}
	return -1
}

func rpcError(resp map[string]any) map[string]any {
	e, _ := resp["error"].(map[string]any)
	return e
}

func TestMiddlewareRunsInTheOrderAddedAroundTheHandlerInBothEras(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	var mu sync.Mutex
	var log []string
	for _, name := range []string{"a", "b"} {
		err := s.AddMiddleware(func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
			mu.Lock()
			log = append(log, fmt.Sprintf("%s> %s %s", name, req.Method, req.Name()))
			mu.Unlock()
			result, err := next(nil)
			mu.Lock()
			log = append(log, "<"+name)
			mu.Unlock()
			return result, err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	eras(t, func(t *testing.T, modern bool) {
		mu.Lock()
		log = nil
		mu.Unlock()
		if got := text(t, rpc(t, s, modern, "tools/call", addCall(1, 2))); got != "3" {
			t.Fatalf("text %q", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := "a> tools/call add|b> tools/call add|<b|<a"; strings.Join(log, "|") != want {
			t.Fatalf("log %v, want %s", log, want)
		}
	})
	if calls.Load() != 2 {
		t.Fatalf("the handler ran %d times, want 2", calls.Load())
	}
}

func TestMiddlewareCanChangeTheRequestAndTheAnswer(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	s.AddMiddleware(func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
		if req.Name() != "add" {
			return next(nil)
		}
		var p map[string]any
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		p["arguments"].(map[string]any)["a"] = 40
		params, _ := json.Marshal(p)
		raw, err := next(params)
		if err != nil {
			return nil, err
		}
		var result ferrite.CallToolResult
		if err := json.Unmarshal(raw, &result); err != nil {
			return nil, err
		}
		result.Content[0]["text"] = result.Content[0]["text"].(string) + "!"
		return result, nil
	})
	eras(t, func(t *testing.T, modern bool) {
		if got := text(t, rpc(t, s, modern, "tools/call", addCall(1, 2))); got != "42!" {
			t.Fatalf("text %q, want 42!", got)
		}
	})
}

func TestMiddlewareCanAnswerWithoutTheHandlerWithAResultOrAnError(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	s.AddMiddleware(func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
		switch {
		case req.Name() == "add" && arg(req, "a") == 13:
			return nil, &ferrite.RPCError{Code: -32001, Message: "thirteen is refused here", Data: map[string]any{"why": "superstition"}}
		case req.Name() == "add" && arg(req, "a") == 7:
			return ferrite.TextResult("seven, from the middleware"), nil
		}
		return next(nil)
	})
	eras(t, func(t *testing.T, modern bool) {
		calls.Store(0)
		e := rpcError(rpc(t, s, modern, "tools/call", addCall(13, 1)))
		b, _ := json.Marshal(e)
		if want := `{"code":-32001,"data":{"why":"superstition"},"message":"thirteen is refused here"}`; string(b) != want {
			t.Fatalf("error %s, want %s", b, want)
		}
		if got := text(t, rpc(t, s, modern, "tools/call", addCall(7, 1))); got != "seven, from the middleware" {
			t.Fatalf("text %q", got)
		}
		if calls.Load() != 0 {
			t.Fatalf("the handler ran %d times", calls.Load())
		}
		if got := text(t, rpc(t, s, modern, "tools/call", addCall(1, 1))); got != "2" || calls.Load() != 1 {
			t.Fatalf("text %q, calls %d", got, calls.Load())
		}
	})
}

func TestAnErrorFromTheChainReachesTheMiddlewareAsRPCError(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	var seen atomic.Int32
	s.AddMiddleware(func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
		result, err := next(nil)
		var rpc *ferrite.RPCError
		if errors.As(err, &rpc) {
			seen.Store(rpc.Code)
		}
		return result, err
	})
	eras(t, func(t *testing.T, modern bool) {
		seen.Store(0)
		resp := rpc(t, s, modern, "tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}})
		if errorCode(resp) != -32602 || seen.Load() != -32602 {
			t.Fatalf("response %v, seen %d", resp, seen.Load())
		}
	})
}

func TestTypedHooksRunInsideOneCallAndCanFilterLists(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	var mu sync.Mutex
	var log []string
	note := func(s string) {
		mu.Lock()
		log = append(log, s)
		mu.Unlock()
	}
	hooks := ferrite.Hooks{
		OnRequest: func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
			note("request")
			return next(nil)
		},
		OnCallTool: func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
			note("call_tool")
			return next(nil)
		},
		OnListTools: func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
			note("list_tools")
			raw, err := next(nil)
			if err != nil {
				return nil, err
			}
			var result map[string]any
			if err := json.Unmarshal(raw, &result); err != nil {
				return nil, err
			}
			var kept []any
			for _, tool := range result["tools"].([]any) {
				if tool.(map[string]any)["name"] != "hidden" {
					kept = append(kept, tool)
				}
			}
			result["tools"] = kept
			return result, nil
		},
	}
	if err := s.AddMiddleware(hooks.Middleware()); err != nil {
		t.Fatal(err)
	}
	eras(t, func(t *testing.T, modern bool) {
		check := func(want string) {
			t.Helper()
			mu.Lock()
			defer mu.Unlock()
			if got := strings.Join(log, "|"); got != want {
				t.Fatalf("hooks %s, want %s", got, want)
			}
			log = nil
		}
		tools := rpc(t, s, modern, "tools/list", nil)["result"].(map[string]any)["tools"].([]any)
		if len(tools) != 1 || tools[0].(map[string]any)["name"] != "add" {
			t.Fatalf("tools %v", tools)
		}
		check("request|list_tools")
		if got := text(t, rpc(t, s, modern, "tools/call", addCall(1, 1))); got != "2" {
			t.Fatalf("text %q", got)
		}
		check("request|call_tool")
		// A method without a typed hook (here one no route answers) gets OnRequest only.
		if code := errorCode(rpc(t, s, modern, "x/unknown", nil)); code != -32601 {
			t.Fatalf("code %v", code)
		}
		check("request")
	})
}

func TestHooksPassChangedParamsFromOnRequestToTheTypedHook(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	var seenA atomic.Int32
	hooks := ferrite.Hooks{
		OnRequest: func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
			if req.Name() != "add" {
				return next(nil)
			}
			return next(json.RawMessage(`{"name":"add","arguments":{"a":40,"b":2}}`))
		},
		OnCallTool: func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
			seenA.Store(int32(arg(req, "a")))
			return next(nil) // unchanged from what OnRequest passed on
		},
	}
	s.AddMiddleware(hooks.Middleware())
	if got := text(t, rpc(t, s, true, "tools/call", addCall(1, 1))); got != "42" || seenA.Load() != 40 {
		t.Fatalf("text %q, the typed hook saw a = %d", got, seenA.Load())
	}
}

func TestTheMiddlewareRequestCarriesTheMethodTheHookAndTheRequestContext(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	var mu sync.Mutex
	var seen []string
	s.AddMiddleware(func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s %s %t", req.Method, req.Hook, req.Request.ProtocolVersion(),
			req.Context().Err() == nil))
		mu.Unlock()
		return next(nil)
	})
	rpc(t, s, true, "tools/list", nil)
	rpc(t, s, true, "resources/templates/list", nil)
	rpc(t, s, false, "x/unknown", nil)
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"tools/list list_tools 2026-07-28 true",
		"resources/templates/list list_resource_templates 2026-07-28 true",
		"x/unknown  2025-06-18 true",
	}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Fatalf("seen %q, want %q", seen, want)
	}
}

func TestAMiddlewareThatBreaksIsMinus32603AndTheServerKeepsServing(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	s.AddMiddleware(func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
		switch arg(req, "a") {
		case 0:
			panic("middleware went wrong")
		case 1:
			return nil, nil
		case 2:
			next(nil)
			return next(nil)
		case 3:
			return json.RawMessage(`{not json`), nil
		case 4:
			return nil, errors.New("a plain error")
		case 5:
			return next(json.RawMessage(`{bad`))
		}
		return next(nil)
	})
	eras(t, func(t *testing.T, modern bool) {
		expect := func(a int, code float64, message string, prefix bool) {
			t.Helper()
			e := rpcError(rpc(t, s, modern, "tools/call", addCall(a, 0)))
			got, _ := e["message"].(string)
			t.Logf("a=%d: %v", a, e)
			if e["code"] != code || (prefix && !strings.HasPrefix(got, message)) || (!prefix && got != message) {
				t.Fatalf("a=%d: error %v, want %v %q", a, e, code, message)
			}
		}
		expect(0, -32603, "middleware went wrong", false)
		expect(1, -32603, "the handler's result is not valid:", true)
		expect(2, -32603, "a middleware called next twice", false)
		expect(3, -32603, "the handler's result is not valid:", true)
		expect(4, -32603, "a plain error", false)
		expect(5, -32603, "params_json", true) // the library refused the params (INVALID_JSON)
		if got := text(t, rpc(t, s, modern, "tools/call", addCall(30, 4))); got != "34" {
			t.Fatalf("text %q", got)
		}
	})
}

func TestAddMiddlewareRefusesNil(t *testing.T) {
	s := newServer(t)
	var fe *ferrite.Error
	if err := s.AddMiddleware(nil); !errors.As(err, &fe) || fe.Code != ferrite.CodeNullPointer {
		t.Fatalf("err %v", err)
	}
}

// Notification middleware: order, dropping (notifications/initialized, on a server that
// requires it), changing the params (a notifications/cancelled pointed at another request),
// a panic dropping only its notification.
func TestNotificationMiddlewareRunsInOrderAndCanDropOrChangeANotification(t *testing.T) {
	s := newServer(t)
	if err := s.RequireInitialized(); err != nil {
		t.Fatal(err)
	}
	cancelled := make(chan struct{})
	addTool(t, s, ferrite.Tool{Name: "wait"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		ctx := req.Context()
		go func() {
			<-ctx.Done()
			close(cancelled)
			req.CompleteText("stopped", nil)
		}()
		return nil, ferrite.ErrPending
	})
	addTool(t, s, ferrite.Tool{Name: "ok"}, func(ferrite.Request, json.RawMessage) (any, error) {
		return ferrite.TextResult("ok"), nil
	})
	var mu sync.Mutex
	var log []string
	var dropInitialized atomic.Bool
	dropInitialized.Store(true)
	for _, name := range []string{"a", "b"} {
		err := s.AddNotificationMiddleware(func(n *ferrite.Notification) (json.RawMessage, bool) {
			mu.Lock()
			log = append(log, fmt.Sprintf("%s> %s %t", name, n.Method, n.ConnectionID != ""))
			mu.Unlock()
			switch {
			case name == "b" && n.Method == "notifications/initialized" && dropInitialized.Load():
				return nil, false
			case name == "a" && n.Method == "notifications/cancelled":
				// Point the cancellation at request 77, whatever it named.
				return json.RawMessage(`{"requestId":77}`), true
			case name == "a" && n.Method == "notifications/progress":
				panic("this middleware breaks")
			}
			return nil, true
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	conn, err := s.NewConnection(nil)
	if err != nil {
		t.Fatal(err)
	}
	call(t, conn.HandleRaw, fmt.Sprintf(initialize, "{}"))
	if out, err := conn.HandleRaw(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || out != "" {
		t.Fatalf("initialized: %q %v", out, err)
	}
	mu.Lock()
	got := strings.Join(log, "|")
	log = nil
	mu.Unlock()
	if got != "a> notifications/initialized true|b> notifications/initialized true" {
		t.Fatalf("order: %s", got)
	}
	// b dropped notifications/initialized: the server still waits for it.
	if e := rpcError(call(t, conn.HandleRaw, toolCall(2, "ok", "{}"))); e == nil {
		t.Fatal("a request was served before the (dropped) notifications/initialized")
	}
	dropInitialized.Store(false)
	conn.HandleRaw(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if got := text(t, call(t, conn.HandleRaw, toolCall(3, "ok", "{}"))); got != "ok" {
		t.Fatalf("after initialized: %s", got)
	}
	// a points a cancellation of request 999 at request 77, which is cancelled.
	done := make(chan struct{})
	go func() {
		conn.HandleRaw(toolCall(77, "wait", "{}"))
		close(done)
	}()
	for i := 0; i < 200; i++ {
		conn.HandleRaw(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}`)
		select {
		case <-cancelled:
			i = 200
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("request 77 was not cancelled by the changed notification")
	}
	<-done
	// A panicking middleware drops its notification; the server keeps serving.
	conn.HandleRaw(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`)
	if got := text(t, call(t, conn.HandleRaw, toolCall(4, "ok", "{}"))); got != "ok" {
		t.Fatalf("after a panic: %s", got)
	}
	if err := s.AddNotificationMiddleware(nil); err == nil {
		t.Fatal("AddNotificationMiddleware(nil) was accepted")
	}
}

func TestAMiddlewaresRequestIsSettledByItsReturnNotByCompleteOrFail(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	var refused []error
	var mu sync.Mutex
	s.AddMiddleware(func(req *ferrite.MiddlewareRequest, next ferrite.NextFunc) (any, error) {
		if req.Name() != "add" {
			return next(nil)
		}
		errs := []error{
			req.Request.Complete(ferrite.TextResult("from Complete")),
			req.Request.CompleteText("from CompleteText", nil),
			req.Request.Fail("from Fail"),
			req.Request.FailRPC(-32001, "from FailRPC", nil),
			req.Request.ReplyInputRequired(ferrite.InputRequired{State: "s"}),
			req.Request.FailURLElicitationRequired(),
		}
		mu.Lock()
		refused = append(refused, errs...)
		mu.Unlock()
		return ferrite.TextResult("from the return"), nil
	})
	eras(t, func(t *testing.T, modern bool) {
		mu.Lock()
		refused = nil
		mu.Unlock()
		if got := text(t, rpc(t, s, modern, "tools/call", addCall(1, 2))); got != "from the return" {
			t.Fatalf("text %q", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(refused) != 6 {
			t.Fatalf("%d errors", len(refused))
		}
		for i, err := range refused {
			var fe *ferrite.Error
			if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument {
				t.Fatalf("settling method %d: %v, want CodeInvalidArgument", i, err)
			}
		}
		// The server serves on.
		if got := text(t, rpc(t, s, modern, "tools/call", map[string]any{"name": "hidden", "arguments": map[string]any{}})); got != "secret" {
			t.Fatalf("text %q", got)
		}
	})
}
