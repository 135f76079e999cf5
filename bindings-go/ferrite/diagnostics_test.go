package ferrite_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

const invalidRecord = "the handler's result is not valid: the result is not a valid CallToolResult: " +
	"EOF while parsing a list at line 1 column 13"

// badTool completes with text that is not JSON: the core's invalid result, an error record.
func badTool(t *testing.T) *ferrite.Server {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "bad"}, func(ferrite.Request, json.RawMessage) (any, error) {
		return json.RawMessage(`{"content": [`), nil
	})
	return s
}

func TestDiagnosticsReachAGoFunctionUntilTurnedOff(t *testing.T) {
	var mu sync.Mutex
	var got []string
	record := func(level ferrite.DiagnosticLevel, target, message string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%d %s %s", level, target, message))
	}
	if err := ferrite.SetDiagnostics(ferrite.DiagnosticError, record); err != nil {
		t.Fatal(err)
	}
	defer ferrite.SetDiagnostics(ferrite.DiagnosticsOff, nil)
	s := badTool(t)
	if resp := call(t, s.HandleRaw, toolCall(1, "bad", "{}")); errorCode(resp) != -32603 {
		t.Fatalf("the invalid result: %v", resp)
	}
	mu.Lock()
	want := fmt.Sprintf("%d ferrite::handler %s", ferrite.DiagnosticError, invalidRecord)
	if len(got) != 1 || got[0] != want {
		t.Fatalf("records %q, want [%q]", got, want)
	}
	mu.Unlock()
	if err := ferrite.SetDiagnostics(ferrite.DiagnosticsOff, nil); err != nil {
		t.Fatal(err)
	}
	call(t, s.HandleRaw, toolCall(2, "bad", "{}"))
	mu.Lock()
	if len(got) != 1 {
		t.Fatalf("records after off: %q", got)
	}
	mu.Unlock()
	var e *ferrite.Error
	if err := ferrite.SetDiagnostics(9, record); !errors.As(err, &e) || e.Code != ferrite.CodeInvalidArgument {
		t.Fatalf("level 9: %v", err)
	}
}

func TestSlogDiagnosticsLogsAtTheSlogLevelWithTheTarget(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	h := slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug})
	if err := ferrite.SetDiagnostics(ferrite.DiagnosticWarn, ferrite.SlogDiagnostics(slog.New(h))); err != nil {
		t.Fatal(err)
	}
	defer ferrite.SetDiagnostics(ferrite.DiagnosticsOff, nil)
	s := badTool(t)
	call(t, s.HandleRaw, toolCall(1, "bad", "{}"))
	mu.Lock()
	defer mu.Unlock()
	line := buf.String()
	if !strings.Contains(line, `level=ERROR msg="`+invalidRecord+`" target=ferrite::handler`) {
		t.Fatalf("slog got %q", line)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
