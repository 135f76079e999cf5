package ferrite_test

// The endpoint mounted in a net/http app (Server.Handler) and the request info handlers read,
// against a real http.Server on a loopback port (net/http/httptest) and a real http.Client;
// the stdio case runs this test binary as a stdio server (TestMain).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

// jsonAndSSE is the Accept of a Streamable HTTP client (initBody, the initialize request, is
// auth_test.go's).
const jsonAndSSE = "application/json, text/event-stream"

// TestMain serves stdio when FERRITE_GO_TEST_STDIO is set: the server of
// TestRequestInfoIsNilOverStdio, in a child process.
func TestMain(m *testing.M) {
	if os.Getenv("FERRITE_GO_TEST_STDIO") == "1" {
		s, err := ferrite.NewServer(ferrite.Implementation{Name: "go-stdio", Version: "1.0.0"})
		if err == nil {
			err = s.AddTool(ferrite.Tool{Name: "seen", InputSchema: map[string]any{"type": "object"}}, seenTool)
		}
		if err == nil {
			err = s.ServeStdio()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// seenTool answers what the request info getters saw, as JSON.
func seenTool(req ferrite.Request, _ json.RawMessage) (any, error) {
	tenant, hasTenant := req.Header("x-tenant")
	user, _ := req.HostValue("user")
	plan, _ := req.HostValue("plan")
	info := req.Info()
	seen := map[string]any{
		"method": req.Method(), "path": req.Path(), "remoteAddr": req.RemoteAddr(), "tenant": tenant,
		"hasTenant": hasTenant, "user": user, "plan": plan, "infoIsNil": info == nil,
	}
	if info != nil {
		seen["printed"] = fmt.Sprintf("%v|%+v|%#v|%s|%v", info, info, info, info, *info)
		seen["infoAuthorization"] = info.Header.Get("Authorization")
		seen["infoTenant"] = info.Header.Get("X-Tenant")
	}
	b, err := json.Marshal(seen)
	return ferrite.TextResult(string(b)), err
}

// postMCP sends one MCP message; headers alternate name, value.
func postMCP(t *testing.T, url, body string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", jsonAndSSE)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// toolText is the first text block of a tools/call answer (JSON or one SSE event).
func toolText(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	text := string(raw)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "data:") && strings.Contains(line, `"result"`) {
				text = strings.TrimSpace(strings.TrimPrefix(line, "data:"))
			}
		}
	}
	var v struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil || len(v.Result.Content) == 0 {
		t.Fatalf("not a tool result (%d): %q", resp.StatusCode, raw)
	}
	return v.Result.Content[0].Text
}

// identify is the application's middleware: the x-user header becomes the host value user.
func identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferrite.ContextWithHostValue(r.Context(), "user", user))
		}
		next.ServeHTTP(w, r)
	})
}

// mount serves h under /mcp of a ServeMux that also answers GET /health, on a loopback port.
func mount(t *testing.T, h *ferrite.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.Handle("/mcp", identify(h))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		h.Close()
	})
	return srv.URL
}

func TestHandlerMountedBesideAnotherRouteAHandlerReadsAHeaderAndHostValues(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "seen"}, seenTool)
	h, err := s.Handler(nil, ferrite.WithHostValues(func(*http.Request) map[string]any { return map[string]any{"plan": "pro"} }))
	if err != nil {
		t.Fatal(err)
	}
	if h.Path() != "/mcp" {
		t.Fatalf("Path() = %q", h.Path())
	}
	base := mount(t, h)

	health, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(health.Body)
	health.Body.Close()
	if health.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("GET /health: %d %q", health.StatusCode, body)
	}

	opened := postMCP(t, base+"/mcp", initBody)
	opened.Body.Close()
	session := opened.Header.Get("Mcp-Session-Id")
	if opened.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d, session %q", opened.StatusCode, session)
	}
	ack := postMCP(t, base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", session)
	ack.Body.Close()
	if ack.StatusCode != 202 {
		t.Fatalf("notifications/initialized: %d", ack.StatusCode)
	}

	resp := postMCP(t, base+"/mcp", toolCall(2, "seen", "{}"), "Mcp-Session-Id", session, "X-Tenant", "acme",
		"X-User", "ada", "Authorization", "Bearer secret-token")
	var seen map[string]any
	text := toolText(t, resp)
	if err := json.Unmarshal([]byte(text), &seen); err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	for key, want := range map[string]any{"method": "POST", "path": "/mcp", "tenant": "acme", "hasTenant": true,
		"user": "ada", "plan": "pro", "infoIsNil": false, "infoTenant": "acme", "infoAuthorization": "Bearer secret-token"} {
		if seen[key] != want {
			t.Errorf("%s = %#v, want %#v (all: %s)", key, seen[key], want, text)
		}
	}
	if addr, _ := seen["remoteAddr"].(string); !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("remoteAddr = %q, want the client's loopback address", addr)
	}
	printed, _ := seen["printed"].(string)
	if strings.Contains(printed, "secret-token") || !strings.Contains(printed, "Authorization: <redacted>") ||
		!strings.Contains(printed, "X-Tenant: acme") {
		t.Errorf("printing the request info must redact Authorization and keep the rest: %s", printed)
	}
}

func TestHandlerClientDisconnectMidSSECancelsTheHandler(t *testing.T) {
	s := newServer(t, ferrite.Stateless())
	cancelled := make(chan struct{})
	addTool(t, s, ferrite.Tool{Name: "wait"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		ctx := req.Context()
		if _, err := req.ReportProgress(1, 0, "started"); err != nil {
			return nil, err
		}
		go func() {
			<-ctx.Done()
			if req.IsCancelled() {
				close(cancelled)
			}
			req.CompleteText("cancelled", nil)
		}()
		return nil, ferrite.ErrPending
	})
	h, err := s.Handler(nil)
	if err != nil {
		t.Fatal(err)
	}
	base := mount(t, h)
	resp := postMCP(t, base+"/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"progressToken":"p"}}}`)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("want an SSE answer, got %d %q", resp.StatusCode, ct)
	}
	lines := bufio.NewReader(resp.Body)
	for {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before the progress event: %v", err)
		}
		if strings.Contains(line, "notifications/progress") {
			break
		}
	}
	resp.Body.Close() // the client goes away mid-stream
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not observe the cancellation")
	}
}

func TestHandlerOversizedBodyIs413(t *testing.T) {
	s := newServer(t)
	h, err := s.Handler(&ferrite.HTTPOptions{MaxBodyBytes: ferrite.Ptr[uint64](64)})
	if err != nil {
		t.Fatal(err)
	}
	base := mount(t, h)
	resp := postMCP(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`+strings.Repeat(" ", 4096))
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
	if _, err := s.Handler(&ferrite.HTTPOptions{MaxBodyBytes: ferrite.Ptr[uint64](0)}); err == nil ||
		!strings.Contains(err.Error(), "max_body_bytes") {
		t.Fatalf("a bad option must be the core's error, got %v", err)
	}
}

func TestHandlerClosedIs503(t *testing.T) {
	s := newServer(t)
	h, err := s.Handler(nil)
	if err != nil {
		t.Fatal(err)
	}
	base := mount(t, h)
	h.Close()
	resp := postMCP(t, base+"/mcp", initBody)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", resp.StatusCode)
	}
}

func TestRequestInfoOverFerritesOwnListener(t *testing.T) {
	s := newServer(t, ferrite.Stateless())
	addTool(t, s, ferrite.Tool{Name: "seen"}, seenTool)
	url := listening(t, s, nil)
	var seen map[string]any
	json.Unmarshal([]byte(toolText(t, postMCP(t, url, toolCall(1, "seen", "{}"),
		"X-Tenant", "t1"))), &seen)
	if seen["method"] != "POST" || seen["path"] != "/mcp" || seen["tenant"] != "t1" ||
		!strings.HasPrefix(fmt.Sprint(seen["remoteAddr"]), "127.0.0.1:") {
		t.Fatalf("own listener: %v", seen)
	}
}

func TestRequestInfoIsNilOverStdio(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FERRITE_GO_TEST_STDIO=1")
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	fmt.Fprintln(stdin, initBody)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(stdin, toolCall(2, "seen", "{}"))
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(lines.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		var seen map[string]any
		json.Unmarshal([]byte(msg.Result.Content[0].Text), &seen)
		if seen["infoIsNil"] != true || seen["method"] != "" || seen["path"] != "" || seen["remoteAddr"] != "" ||
			seen["hasTenant"] != false || seen["user"] != nil {
			t.Fatalf("over stdio the request info must be absent: %v", seen)
		}
		return
	}
	t.Fatal("no answer to the tools/call over stdio")
}

func TestRequestInfoPrintingRedactsCredentials(t *testing.T) {
	info := &ferrite.RequestInfo{Method: "POST", Path: "/mcp", RemoteAddr: "127.0.0.1:1",
		Header: http.Header{"Authorization": {"Bearer s1"}, "Cookie": {"c=s2"}, "X-Api-Key": {"s3"},
			"X-Tenant": {"acme"}},
		HostValues: map[string]json.RawMessage{"user": json.RawMessage(`"ada"`)}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{info, *info} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, "s1") || strings.Contains(out, "s2") || strings.Contains(out, "s3") ||
				!strings.Contains(out, "X-Tenant: acme") || !strings.Contains(out, `user: "ada"`) {
				t.Errorf("%s of %T: %s", verb, v, out)
			}
		}
	}
	if !ferrite.IsSensitiveHeader("proxy-authorization") || ferrite.IsSensitiveHeader("x-tenant") {
		t.Error("IsSensitiveHeader is the core's list")
	}
}
