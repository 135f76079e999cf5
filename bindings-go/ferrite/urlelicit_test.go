package ferrite_test

// URL elicitation (issue 12): Request.ElicitURL's request and its answer, the completion
// notification from a request and from the server, and the -32042 failure a handler returns.

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

const initializeURL = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"go-test","version":"1.0"}}}`

const loginURL = "https://example.com/login"

func TestElicitURLSendsTheURLRequestAndTheAnswerAndCompletionFollow(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "login"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		err := req.ElicitURL("Sign in first", loginURL, "login-1", func(result json.RawMessage, err error) {
			if err != nil {
				req.Fail(err.Error())
				return
			}
			var r struct{ Action string }
			json.Unmarshal(result, &r)
			if err := req.NotifyElicitationComplete("login-1"); err != nil {
				req.Fail(err.Error())
				return
			}
			req.Complete(ferrite.TextResult("login: " + r.Action))
		})
		if err != nil {
			return nil, err
		}
		return nil, ferrite.ErrPending
	})
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initializeURL)
	c.answer(0, `{"action":"accept"}`)
	if got := text(t, call(t, c.conn.HandleRaw, toolCall(2, "login", "{}"))); got != "login: accept" {
		t.Fatalf("the answer reaches the reply function: %s", got)
	}
	asked := c.frame(t, 0)
	if asked["method"] != "elicitation/create" || field(asked, "params", "mode") != "url" ||
		field(asked, "params", "url") != loginURL || field(asked, "params", "elicitationId") != "login-1" ||
		field(asked, "params", "message") != "Sign in first" {
		t.Fatalf("the URL elicitation request: %v", asked)
	}
	done := c.frame(t, 1)
	if done["method"] != "notifications/elicitation/complete" || field(done, "params", "elicitationId") != "login-1" {
		t.Fatalf("the completion notification: %v", done)
	}
}

func TestAHandlerReturningURLElicitationRequiredAnswersTheCores32042(t *testing.T) {
	s := newServer(t)
	wanted := []ferrite.URLElicitation{{Message: "Sign in to export", URL: loginURL, ElicitationID: "login-2"}}
	addTool(t, s, ferrite.Tool{Name: "export"}, func(ferrite.Request, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("export: %w", &ferrite.URLElicitationRequired{Elicitations: wanted})
	})
	addTool(t, s, ferrite.Tool{Name: "export_later"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		go req.FailURLElicitationRequired(wanted...)
		return nil, ferrite.ErrPending
	})
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initializeURL)
	for i, name := range []string{"export", "export_later"} {
		resp := call(t, c.conn.HandleRaw, toolCall(2+i, name, "{}"))
		list, _ := field(resp, "error", "data", "elicitations").([]any)
		if errorCode(resp) != -32042 || field(resp, "error", "message") != "URL elicitation required" || len(list) != 1 ||
			field(list[0], "mode") != "url" || field(list[0], "url") != loginURL ||
			field(list[0], "elicitationId") != "login-2" || field(list[0], "message") != "Sign in to export" {
			t.Fatalf("%s: the -32042 error: %v", name, resp)
		}
	}
	var e *ferrite.URLElicitationRequired
	if err := error(&ferrite.URLElicitationRequired{Elicitations: wanted}); !errors.As(err, &e) ||
		err.Error() != "URL elicitation required: ["+loginURL+"]" {
		t.Fatalf("Error: %v", err)
	}
}

func TestServerNotifyElicitationCompleteReachesAListeningConnectionOnly(t *testing.T) {
	s := newServer(t)
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initializeURL)
	if !s.NotifyElicitationComplete(c.conn.ID(), "login-3") {
		t.Fatal("NotifyElicitationComplete to a listening connection: false")
	}
	done := c.frame(t, 0)
	if done["method"] != "notifications/elicitation/complete" || field(done, "params", "elicitationId") != "login-3" {
		t.Fatalf("the completion notification: %v", done)
	}
	if s.NotifyElicitationComplete("no-such-connection", "login-4") {
		t.Fatal("NotifyElicitationComplete to an unknown connection: true")
	}
	c.mu.Lock()
	n := len(c.frames)
	c.mu.Unlock()
	if n != 1 {
		t.Fatalf("frames after the unknown id: %d", n)
	}
}

func TestAnElicitationOpenWhenItsCallIsCancelledIsWithdrawnFromTheClient(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "login"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		err := req.ElicitURL("Sign in first", loginURL, "login-5", func(_ json.RawMessage, err error) {
			if err != nil {
				req.Fail(err.Error())
				return
			}
			req.Complete(ferrite.TextResult("answered"))
		})
		if err != nil {
			return nil, err
		}
		return nil, ferrite.ErrPending
	})
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initializeURL)
	answered := make(chan string, 1)
	go func() {
		out, _ := c.conn.HandleRaw(toolCall(2, "login", "{}"))
		answered <- out
	}()
	asked := c.frame(t, 0)
	if asked["method"] != "elicitation/create" {
		t.Fatalf("the elicitation request: %v", asked)
	}
	if _, err := c.conn.HandleRaw(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if out := <-answered; out != "" {
		t.Fatalf("the cancelled call got a response: %s", out)
	}
	withdrawn := c.frame(t, 1)
	if withdrawn["method"] != "notifications/cancelled" || field(withdrawn, "params", "requestId") != asked["id"] {
		t.Fatalf("the elicitation %v is withdrawn: %v", asked["id"], withdrawn)
	}
}
