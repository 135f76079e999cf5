package ferrite_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

func TestBuiltinRateLimitRunsInTheCoreAndRefusesOverTheBurst(t *testing.T) {
	var calls atomic.Int32
	s := mwServer(t, &calls)
	if err := s.AddBuiltinMiddleware("rate_limit", map[string]any{"perSecond": 0.01, "burst": 2, "methods": []string{"tools/call"}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if got := text(t, rpc(t, s, true, "tools/call", addCall(1, 2))); got != "3" {
			t.Fatalf("call %d: text %q", i, got)
		}
	}
	e := rpcError(rpc(t, s, true, "tools/call", addCall(1, 2)))
	if e == nil || e["code"] != float64(-32000) {
		t.Fatalf("over the burst: %v", e)
	}
	data, _ := e["data"].(map[string]any)
	if data["limit"] != "rate" || data["retryAfterMs"].(float64) < 90000 {
		t.Fatalf("data %v", data)
	}
	if r := rpc(t, s, true, "tools/list", nil); r["result"] == nil {
		t.Fatalf("tools/list is not limited: %v", r)
	}
	if calls.Load() != 2 {
		t.Fatalf("the handler ran %d times, want 2", calls.Load())
	}
}

func TestBuiltinMiddlewareRefusesAnUnknownNameOrABadConfiguration(t *testing.T) {
	s := newServer(t)
	for _, c := range []struct {
		name   string
		config any
		want   string
	}{
		{"nope", nil, `no such built-in middleware "nope"`},
		{"rate_limit", map[string]any{"perSecond": 0}, "perSecond must be a positive number"},
	} {
		err := s.AddBuiltinMiddleware(c.name, c.config)
		var fe *ferrite.Error
		if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument || !strings.Contains(fe.Error(), c.want) {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
}
