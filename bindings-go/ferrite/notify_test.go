package ferrite_test

// Server.SendLogMessage (the official SDKs' server-wide sendLoggingMessage): notifications/message
// to the connections whose logging/setLevel minimum the level reaches, or to the session named.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

func TestSendLogMessageReachesTheLevelAndTheSessionNamed(t *testing.T) {
	s := newServer(t)
	frames := make(chan string, 8)
	conn, err := s.NewConnection(func(f string) { frames <- f })
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call(t, conn.HandleRaw, fmt.Sprintf(initialize, "{}"))
	call(t, conn.HandleRaw, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}`)
	for _, c := range []struct {
		level   ferrite.LogLevel
		session string
	}{{ferrite.LogInfo, ""}, {ferrite.LogError, "no-such-session"}} {
		if n, err := s.SendLogMessage(c.level, "quiet", "", c.session); n != 0 || err != nil {
			t.Errorf("level %d to session %q: reached %d (%v), want 0", c.level, c.session, n, err)
		}
	}
	if n, err := s.SendLogMessage(ferrite.LogWarning, map[string]string{"disk": "low"}, "ops", conn.ID()); n != 1 || err != nil {
		t.Fatalf("at the level, to the connection's session: reached %d (%v), want 1", n, err)
	}
	select {
	case f := <-frames:
		var got map[string]any
		_ = json.Unmarshal([]byte(f), &got)
		want := map[string]any{"level": "warning", "data": map[string]any{"disk": "low"}, "logger": "ops"}
		if got["method"] != "notifications/message" || !reflect.DeepEqual(got["params"], any(want)) {
			t.Errorf("the frame (the refused ones must not come first): %s", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the connection got no log message")
	}
	if _, err := s.SendLogMessage(ferrite.LogLevel(8), "x", "", ""); err == nil {
		t.Error("a level that is not a LogLevel: no error")
	}
}
