package ferrite_test

// The dispatch limits (issue 15): Server.SetLimits and Server.Limits, the core's message for a
// bad value, a call past max_in_flight_per_connection refused naming the limit while the one
// running finishes, and a batch past max_batch_len refused whole; and the HTTP session cap
// (HTTPOptions.MaxSessions 1): a second initialize evicts the first session (404 after); a
// message nested past max_json_depth answered -32700 naming the limit (400 over HTTP, through
// Listen and the net/http Handler).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

func limitsOf(t *testing.T, s *ferrite.Server) [4]uint64 {
	t.Helper()
	l, err := s.Limits()
	if err != nil || l.MaxBatchLen == nil || l.MaxInFlightPerConnection == nil || l.MaxInFlight == nil || l.MaxJSONDepth == nil {
		t.Fatalf("Limits: %+v, %v", l, err)
	}
	return [4]uint64{*l.MaxBatchLen, *l.MaxInFlightPerConnection, *l.MaxInFlight, *l.MaxJSONDepth}
}

func TestLimitsAreSetAndReadAndABadOneIsTheCoresMessage(t *testing.T) {
	s := newServer(t)
	if got := limitsOf(t, s); got != [4]uint64{100, 256, 10000, 127} {
		t.Fatalf("the core's defaults: %v", got)
	}
	if err := s.SetLimits(ferrite.Limits{MaxBatchLen: ferrite.Ptr[uint64](7), MaxInFlight: ferrite.Ptr[uint64](50)}); err != nil {
		t.Fatalf("SetLimits: %v", err)
	}
	if got := limitsOf(t, s); got != [4]uint64{7, 256, 50, 127} {
		t.Fatalf("the fields set changed, the nil one kept its value: %v", got)
	}
	var fe *ferrite.Error
	err := s.SetLimits(ferrite.Limits{MaxBatchLen: ferrite.Ptr[uint64](3), MaxInFlight: ferrite.Ptr[uint64](0)})
	if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument || err.Error() != "invalid limit max_in_flight: must be at least 1" {
		t.Fatalf("0: %v", err)
	}
	if got := limitsOf(t, s); got != [4]uint64{7, 256, 50, 127} {
		t.Fatalf("the refused setting changed nothing: %v", got)
	}
}

func TestACallPastTheConnectionLimitIsRefusedNamingIt(t *testing.T) {
	s := newServer(t)
	held := make(chan ferrite.Request, 4)
	addTool(t, s, ferrite.Tool{Name: "hold"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		held <- req
		return nil, ferrite.ErrPending
	})
	if err := s.SetLimits(ferrite.Limits{MaxInFlightPerConnection: ferrite.Ptr[uint64](1)}); err != nil {
		t.Fatal(err)
	}
	conn, err := s.NewConnection(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call(t, conn.HandleRaw, initialize2025)
	first := make(chan map[string]any, 1)
	go func() {
		out, _ := conn.HandleRaw(toolCall(2, "hold", "{}"))
		var v map[string]any
		_ = json.Unmarshal([]byte(out), &v)
		first <- v
	}()
	var running ferrite.Request
	select {
	case running = <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the first call never ran")
	}
	refused := call(t, conn.HandleRaw, toolCall(3, "hold", "{}"))
	want := map[string]any{"limit": "max_in_flight_per_connection", "value": float64(1)}
	if errorCode(refused) != -32603 || !reflect.DeepEqual(field(refused, "error", "data"), any(want)) {
		t.Fatalf("the second call on the connection: %v", refused)
	}
	if len(held) != 0 {
		t.Fatal("the refused call reached its handler")
	}
	if err := running.Complete(ferrite.TextResult("released")); err != nil {
		t.Fatal(err)
	}
	if got := text(t, <-first); got != "released" {
		t.Fatalf("the first call: %q", got)
	}
}

func TestABatchPastMaxBatchLenIsRefusedWhole(t *testing.T) {
	s := newServer(t)
	if err := s.SetLimits(ferrite.Limits{MaxBatchLen: ferrite.Ptr[uint64](2)}); err != nil {
		t.Fatal(err)
	}
	call(t, s.HandleRaw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",`+
		`"capabilities":{},"clientInfo":{"name":"go-test","version":"1.0"}}}`)
	ping := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
	out, err := s.HandleRaw("[" + ping(2) + "," + ping(3) + "]")
	var answers []any
	if err != nil || json.Unmarshal([]byte(out), &answers) != nil || len(answers) != 2 {
		t.Fatalf("a batch of max_batch_len: %q %v", out, err)
	}
	r := call(t, s.HandleRaw, "["+ping(4)+","+ping(5)+","+ping(6)+"]")
	want := map[string]any{"limit": "max_batch_len", "value": float64(2)}
	if errorCode(r) != -32600 || !reflect.DeepEqual(field(r, "error", "data"), any(want)) {
		t.Fatalf("a longer batch: %v", r)
	}
}

func TestMaxSessions1ASecondInitializeEvictsTheFirstSession(t *testing.T) {
	s := newServer(t)
	url := listening(t, s, &ferrite.HTTPOptions{MaxSessions: ferrite.Ptr[uint64](1),
		HeaderReadTimeoutMs: ferrite.Ptr[uint64](5000), BodyReadTimeoutMs: ferrite.Ptr[uint64](5000),
		MaxEventsPerStream: ferrite.Ptr[uint64](8), MaxEventStreams: ferrite.Ptr[uint64](8)})
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"go-test","version":"1.0"}}}`
	session := func() string {
		resp := postMCP(t, url, initBody)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: %d %v", resp.StatusCode, resp.Header)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	first, second := session(), session()
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	resp := postMCP(t, url, ping, "Mcp-Session-Id", first)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the evicted session: status %d, want 404", resp.StatusCode)
	}
	resp = postMCP(t, url, ping, "Mcp-Session-Id", second)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the new session: status %d, want 200", resp.StatusCode)
	}
}

func TestTheEventStoreBoundsAreTheCoresOptions(t *testing.T) {
	s := newServer(t)
	for _, c := range []struct {
		opts *ferrite.HTTPOptions
		want string
	}{
		{&ferrite.HTTPOptions{MaxEventsPerStream: ferrite.Ptr[uint64](0)}, "invalid HTTP option max_events_per_stream: must be at least 1, not 0"},
		{&ferrite.HTTPOptions{MaxEventStreams: ferrite.Ptr[uint64](0)}, "invalid HTTP option max_event_streams: must be at least 1, not 0"},
	} {
		_, err := s.Listen("127.0.0.1", 0, c.opts)
		var fe *ferrite.Error
		if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestMaxJSONDepthPastTheCoresIsRefused(t *testing.T) {
	s := newServer(t)
	err := s.SetLimits(ferrite.Limits{MaxJSONDepth: ferrite.Ptr[uint64](128)})
	if err == nil || err.Error() != "invalid limit max_json_depth: must be at most 127" {
		t.Fatalf("128: %v", err)
	}
}

// nestedPing is a ping nested arrays+2 deep (the envelope and params are two levels).
func nestedPing(id, arrays int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"a":%s1%s}}`, id,
		strings.Repeat("[", arrays), strings.Repeat("]", arrays))
}

var depthRefused = map[string]any{"limit": "max_json_depth", "value": float64(6)}

func TestAMessagePastMaxJSONDepthIsAParseErrorNamingIt(t *testing.T) {
	s := newServer(t)
	if err := s.SetLimits(ferrite.Limits{MaxJSONDepth: ferrite.Ptr[uint64](6)}); err != nil {
		t.Fatal(err)
	}
	call(t, s.HandleRaw, initialize2025)
	r := call(t, s.HandleRaw, nestedPing(2, 5))
	if r["id"] != nil || errorCode(r) != -32700 || !reflect.DeepEqual(field(r, "error", "data"), any(depthRefused)) {
		t.Fatalf("nested 7 deep: %v", r)
	}
	if r := call(t, s.HandleRaw, nestedPing(3, 4)); !reflect.DeepEqual(r["result"], any(map[string]any{})) {
		t.Fatalf("nested 6 deep: %v", r)
	}
}

func TestABodyPastMaxJSONDepthIs400NamingItOverHTTP(t *testing.T) {
	s := newServer(t)
	if err := s.SetLimits(ferrite.Limits{MaxJSONDepth: ferrite.Ptr[uint64](6)}); err != nil {
		t.Fatal(err)
	}
	own := listening(t, s, nil)
	h, err := s.Handler(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, url := range map[string]string{
		"Listen":  own,
		"Handler": mount(t, h) + "/mcp",
	} {
		resp := postMCP(t, url, nestedPing(2, 5))
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v map[string]any
		_ = json.Unmarshal(body, &v)
		if resp.StatusCode != http.StatusBadRequest || errorCode(v) != -32700 || !reflect.DeepEqual(field(v, "error", "data"), any(depthRefused)) {
			t.Errorf("%s: nested 7 deep: %d %s", name, resp.StatusCode, body)
		}
	}
}
