// The task fixtures of the Go everything server (examples/SURFACE.md, "Task fixtures").
//
// Each tool declares its task support (ferrite.Tool.TaskSupport); the handlers are ordinary
// handlers, and the core decides per call whether one runs inline or as a task's body
// (Request.IsTask says which). Slow work returns ferrite.ErrPending and finishes in a goroutine
// that watches req.Context(), which inside a task ends on tasks/cancel. confirm_delete and
// multi_input ask the user with req.Elicit inside the task (the question waits in the task until
// the client answers); test_tool_with_task replies ferrite.InputRequired before any task exists
// (MRTR), then works as a task.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

// pause waits d, unless ctx ends first; whether it waited the whole time.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// afterPause settles req with done after d in a goroutine, or fails it when cancelled first.
func afterPause(req ferrite.Request, d time.Duration, done func()) (any, error) {
	ctx := req.Context()
	return later(func() {
		if !pause(ctx, d) {
			req.Fail("cancelled")
			return
		}
		done()
	})
}

// accepted reports whether an ElicitResult's action is accept.
func accepted(result json.RawMessage) bool {
	var r struct {
		Action string `json:"action"`
	}
	return json.Unmarshal(result, &r) == nil && r.Action == "accept"
}

func registerTasks(s *ferrite.Server) error {
	twoFields := obj{"type": "object", "properties": obj{"name": obj{"type": "string"}, "confirm": obj{"type": "boolean"}}}
	tools := []struct {
		tool any
		f    ferrite.ToolFunc
	}{
		// A Tool's zero TaskSupport declares nothing; greet declares "forbidden" on the wire, as
		// on every surface, so its descriptor spells execution out.
		{obj{"name": "greet", "description": "Greets someone at once (never a task)",
			"inputSchema": obj{"type": "object", "properties": obj{"name": obj{"type": "string"}}, "required": []string{"name"}},
			"execution":   obj{"taskSupport": "forbidden"}},
			func(_ ferrite.Request, args json.RawMessage) (any, error) {
				var a struct{ Name string }
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				return text("Hello, " + a.Name + "!"), nil
			}},
		{ferrite.Tool{Name: "slow_compute", Description: "Works for `seconds` seconds, then answers (a task when the client can take one)",
			InputSchema: obj{"type": "object", "properties": obj{"seconds": obj{"type": "number", "minimum": 0},
				"label": obj{"type": "string"}}},
			TaskSupport: ferrite.TaskOptional},
			func(req ferrite.Request, args json.RawMessage) (any, error) {
				a := struct {
					Seconds float64
					Label   string
				}{Seconds: 1, Label: "slow_compute"}
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				a.Seconds = min(max(a.Seconds, 0), 3600)
				answer := fmt.Sprintf("%s: computed for %s s", a.Label, strconv.FormatFloat(a.Seconds, 'f', -1, 64))
				return afterPause(req, time.Duration(a.Seconds*float64(time.Second)), func() { req.Complete(text(answer)) })
			}},
		{ferrite.Tool{Name: "failing_job", Description: "Fails as a tool (isError) after a second; only as a task",
			InputSchema: noArgs(), TaskSupport: ferrite.TaskRequired},
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				return afterPause(req, time.Second, func() {
					req.Complete(ferrite.CallToolResult{Content: []ferrite.Content{ferrite.TextContent("failing_job failed, as it always does")},
						IsError: true})
				})
			}},
		{ferrite.Tool{Name: "protocol_error_job", Description: "Fails with a JSON-RPC error after 300 ms; only as a task",
			InputSchema: noArgs(), TaskSupport: ferrite.TaskRequired},
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				return afterPause(req, 300*time.Millisecond, func() {
					req.FailRPC(-32603, "protocol_error_job failed with a protocol error", nil)
				})
			}},
		{ferrite.Tool{Name: "confirm_delete", Description: "Asks the user to confirm deleting a file; only as a task",
			InputSchema: obj{"type": "object", "properties": obj{"filename": obj{"type": "string"}}, "required": []string{"filename"}},
			TaskSupport: ferrite.TaskRequired},
			func(req ferrite.Request, args json.RawMessage) (any, error) {
				var a struct{ Filename string }
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				// Asked in the task (not as an MRTR reply): the call becomes a task at once and
				// waits in input_required until the client answers.
				err := req.Elicit(obj{"message": "Delete " + a.Filename + "?", "requestedSchema": obj{"type": "object",
					"properties": obj{"confirm": obj{"type": "boolean"}}, "required": []string{"confirm"}}},
					func(result json.RawMessage, err error) {
						switch {
						case err != nil:
							req.Fail("no confirmation: " + err.Error())
						case accepted(result):
							req.Complete(text("Deleted " + a.Filename))
						default:
							req.Complete(text("Kept " + a.Filename))
						}
					})
				if err != nil {
					return nil, err
				}
				return nil, ferrite.ErrPending
			}},
		{ferrite.Tool{Name: "multi_input", Description: "Asks two questions at once; only as a task",
			InputSchema: noArgs(), TaskSupport: ferrite.TaskRequired},
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				type answer struct {
					accepted bool
					err      error
				}
				answers := [2]chan answer{make(chan answer, 1), make(chan answer, 1)}
				for i, question := range []string{"First question", "Second question"} {
					ch := answers[i]
					err := req.Elicit(obj{"message": question, "requestedSchema": twoFields}, func(result json.RawMessage, err error) {
						ch <- answer{accepted(result), err}
					})
					if err != nil {
						ch <- answer{false, err}
					}
				}
				return later(func() {
					first, second := <-answers[0], <-answers[1]
					for _, a := range []answer{first, second} {
						if a.err != nil {
							req.Fail("no answer: " + a.err.Error())
							return
						}
					}
					req.Complete(text(fmt.Sprintf("first accepted: %v, second accepted: %v", first.accepted, second.accepted)))
				})
			}},
		{ferrite.Tool{Name: "test_tool_with_task", Description: "Asks for a name (before the task exists), then greets as a task",
			InputSchema: noArgs(), TaskSupport: ferrite.TaskRequired},
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				raw, ok := req.InputResponse("user_name")
				if !ok {
					return ferrite.InputRequired{Requests: map[string]ferrite.InputRequest{"user_name": askName()}}, nil
				}
				var r struct {
					Content struct{ Name string } `json:"content"`
				}
				if err := json.Unmarshal(raw, &r); err != nil {
					return nil, ferrite.InvalidParams("input response \"user_name\": %v", err)
				}
				name := r.Content.Name
				if name == "" {
					name = "stranger"
				}
				return afterPause(req, 200*time.Millisecond, func() { req.Complete(text("Hello, " + name + "!")) })
			}},
	}
	for _, t := range tools {
		if err := s.AddTool(t.tool, t.f); err != nil {
			return err
		}
	}
	return nil
}
