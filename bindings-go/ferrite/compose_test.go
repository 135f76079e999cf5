package ferrite_test

// Composition (issue 16): a server mounted in another under a prefix, from Go.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

func TestMountServesTheChildUnderItsPrefixInBothEras(t *testing.T) {
	parent, child := newServer(t), newServer(t)
	addTool(t, child, ferrite.Tool{Name: "add", InputSchema: addSchema}, sum)
	var readURI string
	if err := child.AddResourceTemplate(map[string]any{"uriTemplate": "data://cities/{city}", "name": "city"},
		func(_ ferrite.Request, uri string, vars map[string]string) (any, error) {
			readURI = uri
			return map[string]any{"contents": []any{map[string]any{"uri": uri, "text": vars["city"]}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := parent.Mount("math", child); err != nil {
		t.Fatalf("Mount: %v", err)
	}
	call(t, parent.HandleRaw, fmt.Sprintf(initialize, "{}"))
	for _, modern := range []bool{false, true} {
		r := rpc(t, parent, modern, "tools/call", map[string]any{"name": "math_add", "arguments": map[string]any{"a": 2, "b": 5}})
		if got := text(t, r); got != "7" {
			t.Errorf("math_add (modern %v) = %q, want 7: %v", modern, got, r)
		}
	}
	r := rpc(t, parent, false, "resources/read", map[string]any{"uri": "data://math/cities/oslo"})
	contents, _ := r["result"].(map[string]any)["contents"].([]any)
	if len(contents) != 1 || contents[0].(map[string]any)["uri"] != "data://math/cities/oslo" || readURI != "data://cities/oslo" {
		t.Errorf("the child reads its own URI (%q) and the contents go out under the parent's: %v", readURI, r)
	}
	// Live: a tool the child adds later is served by the parent.
	addTool(t, child, ferrite.Tool{Name: "later"}, func(ferrite.Request, json.RawMessage) (any, error) {
		return ferrite.TextResult("later"), nil
	})
	if got := text(t, rpc(t, parent, false, "tools/call", map[string]any{"name": "math_later", "arguments": map[string]any{}})); got != "later" {
		t.Errorf("math_later = %q", got)
	}
}

func TestMountCarriesTheChildsNotificationsToTheParentsClients(t *testing.T) {
	parent, child := newServer(t), newServer(t)
	addTool(t, child, ferrite.Tool{Name: "t"}, func(ferrite.Request, json.RawMessage) (any, error) { return ferrite.TextResult(""), nil })
	if err := parent.Mount("c", child); err != nil {
		t.Fatal(err)
	}
	frames := make(chan string, 4)
	conn, err := parent.NewConnection(func(f string) { frames <- f })
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.HandleRaw(fmt.Sprintf(initialize, "{}")); err != nil {
		t.Fatal(err)
	}
	if n := child.NotifyToolsListChanged(); n != 1 {
		t.Errorf("the child's list change reached %d of the parent's listeners, want 1", n)
	}
	select {
	case f := <-frames:
		if !strings.Contains(f, `"method":"notifications/tools/list_changed"`) {
			t.Errorf("frame = %s", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's connection got no notification")
	}
}

func TestMountRefusesBadPrefixesAndCyclesAndUnmountTakesItOut(t *testing.T) {
	parent, child := newServer(t), newServer(t)
	addTool(t, child, ferrite.Tool{Name: "add", InputSchema: addSchema}, sum)
	var fe *ferrite.Error
	if err := parent.Mount("no spaces", child); !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument {
		t.Errorf("a bad prefix: %v, want CodeInvalidArgument", err)
	}
	if err := parent.Mount("", child); err != nil {
		t.Fatal(err)
	}
	if err := child.Mount("loop", parent); !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument ||
		!strings.Contains(err.Error(), "cannot be mounted in itself") {
		t.Errorf("a cycle: %v, want CodeInvalidArgument", err)
	}
	if got := text(t, rpc(t, parent, true, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}})); got != "2" {
		t.Errorf("add without a prefix = %q", got)
	}
	if err := parent.Unmount("", child); err != nil {
		t.Fatalf("Unmount: %v", err)
	}
	if err := parent.Unmount("", child); !errors.As(err, &fe) || fe.Code != ferrite.CodeNotFound {
		t.Errorf("a second Unmount: %v, want CodeNotFound", err)
	}
	r := rpc(t, parent, true, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}})
	if code := r["error"].(map[string]any)["code"]; code != float64(-32601) {
		t.Errorf("after Unmount the parent serves no tools: %v", r)
	}
}

func TestProxyServesAStdioUpstreamInBothErasAndReportsBadUpstreams(t *testing.T) {
	proxy := newServer(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// This test binary's stdio mode (see TestMain) is the upstream child.
	up := ferrite.Upstream{Command: exe, Env: map[string]string{"FERRITE_GO_TEST_STDIO": "1"}}
	if err := proxy.Proxy(up); err != nil {
		t.Fatalf("Proxy: %v", err)
	}
	call(t, proxy.HandleRaw, fmt.Sprintf(initialize, "{}"))
	for _, modern := range []bool{false, true} {
		got := text(t, rpc(t, proxy, modern, "tools/call", map[string]any{"name": "seen", "arguments": map[string]any{}}))
		if !strings.Contains(got, `"infoIsNil":true`) {
			t.Errorf("seen through the proxy (modern %v) = %s", modern, got)
		}
	}
	var fe *ferrite.Error
	if err := proxy.Proxy(ferrite.Upstream{Command: "/nonexistent/mcp-server"}); !errors.As(err, &fe) || fe.Code != ferrite.CodeUpstream {
		t.Errorf("a missing program: %v, want CodeUpstream", err)
	}
	if err := proxy.Proxy(ferrite.Upstream{}); !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument {
		t.Errorf("no command or url: %v, want CodeInvalidArgument", err)
	}
	err = proxy.Proxy(ferrite.Upstream{URL: "http://127.0.0.1:9/mcp", Timeout: time.Microsecond})
	if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument || !strings.Contains(err.Error(), "timeout_ms must be a positive whole number") {
		t.Errorf("a timeout under a millisecond: %v, want CodeInvalidArgument naming timeout_ms", err)
	}
	second := newServer(t)
	if err := second.Proxy(ferrite.Upstream{Command: exe, Env: map[string]string{"FERRITE_GO_TEST_STDIO": "1"}, Timeout: 5 * time.Second}); err != nil {
		t.Errorf("Proxy with a timeout: %v", err)
	}
}
