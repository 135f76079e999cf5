package ferrite_test

// Tasks (issue 12): a tool declares its task support on ferrite.Tool, and its ordinary Go
// handler is the task's body. 2025-11-25 runs on a Connection (the client's side played by the
// test), 2026-07-28 through Server.HandleRaw with the tasks extension declared.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

const initialize2025 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{"elicitation":{}},"clientInfo":{"name":"go-test","version":"1.0"}}}`

// tasksEnvelope is the 2026-07-28 _meta of a client declaring the tasks extension.
const tasksEnvelope = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` +
	`{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}}`

func modernCall(id int, name string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":%s}}`,
		id, name, tasksEnvelope)
}

func modernTask(method, taskID, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":90,"method":%q,"params":{"taskId":%q%s,"_meta":%s}}`, method, taskID, extra,
		tasksEnvelope)
}

// field walks a decoded response by keys.
func field(v any, path ...string) any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// pollTask polls a 2026-07-28 tasks/get until the status is want (10 s at most): the result.
func pollTask(t *testing.T, s *ferrite.Server, id, want string) map[string]any {
	t.Helper()
	var result map[string]any
	for i := 0; i < 500; i++ {
		result, _ = call(t, s.HandleRaw, modernTask("tasks/get", id, ""))["result"].(map[string]any)
		if result["status"] == want {
			return result
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("task %s never became %s: %v", id, want, result)
	return nil
}

// startTask calls tool `name` at 2026-07-28 and returns the task it became.
func startTask(t *testing.T, s *ferrite.Server, name string) string {
	t.Helper()
	resp := call(t, s.HandleRaw, modernCall(2, name))
	if field(resp, "result", "resultType") != "task" {
		t.Fatalf("%s did not become a task: %v", name, resp)
	}
	return field(resp, "result", "taskId").(string)
}

func taskText(result map[string]any) any {
	content, _ := field(result, "result", "content").([]any)
	if len(content) == 0 {
		return nil
	}
	return field(content[0], "text")
}

func isTaskText(req ferrite.Request, what string) ferrite.CallToolResult {
	return ferrite.TextResult(fmt.Sprintf("%s is_task=%v", what, req.IsTask()))
}

func TestTaskSupportIsDeclaredOnTheToolAndAnUnknownValueIsRefused(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "opt", TaskSupport: ferrite.TaskOptional}, fixedText("opt"))
	addTool(t, s, ferrite.Tool{Name: "req", TaskSupport: ferrite.TaskRequired}, fixedText("req"))
	addTool(t, s, ferrite.Tool{Name: "plain"}, fixedText("plain"))
	if err := s.AddTool(map[string]any{"name": "by_json", "inputSchema": map[string]any{"type": "object"},
		"execution": map[string]any{"taskSupport": "optional"}}, fixedText("json")); err != nil {
		t.Fatalf("execution.taskSupport in a map descriptor: %v", err)
	}
	tools, err := s.Tools()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ferrite.TaskSupport{}
	for _, tool := range tools {
		got[tool.Name] = tool.TaskSupport
	}
	want := map[string]ferrite.TaskSupport{"opt": ferrite.TaskOptional, "req": ferrite.TaskRequired,
		"plain": ferrite.TaskForbidden, "by_json": ferrite.TaskOptional}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("task supports read back: %v, want %v", got, want)
	}
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initialize2025)
	listed := call(t, c.conn.HandleRaw, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list, _ := field(listed, "result", "tools").([]any)
	if len(list) != 4 || field(list[0], "execution", "taskSupport") != "optional" ||
		field(list[1], "execution", "taskSupport") != "required" || field(list[2], "execution") != nil {
		t.Fatalf("tools/list at 2025-11-25: %v", listed)
	}

	var fe *ferrite.Error
	err = s.AddTool(ferrite.Tool{Name: "bad", InputSchema: map[string]any{"type": "object"}, TaskSupport: 7}, fixedText("x"))
	if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument || err.Error() != "7 is not a ferrite_task_support (0, 1 or 2)" {
		t.Fatalf("an unknown TaskSupport: %v", err)
	}
	err = s.AddTool(map[string]any{"name": "odd", "inputSchema": map[string]any{"type": "object"},
		"execution": map[string]any{"taskSupport": "sometimes"}}, fixedText("x"))
	if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument ||
		err.Error() != `tool "odd": execution.taskSupport must be one of "forbidden", "optional", "required", not "sometimes"` {
		t.Fatalf("an unknown execution.taskSupport: %v", err)
	}
	if ferrite.TaskOptional.String() != "optional" || ferrite.TaskSupport(7).String() != "TaskSupport(7)" {
		t.Fatalf("String: %s %s", ferrite.TaskOptional, ferrite.TaskSupport(7))
	}
}

func fixedText(s string) ferrite.ToolFunc {
	return func(ferrite.Request, json.RawMessage) (any, error) { return ferrite.TextResult(s), nil }
}

func TestAGoHandlerCompletesAsATaskReturningAtOnceAndLater(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "now", TaskSupport: ferrite.TaskOptional},
		func(req ferrite.Request, _ json.RawMessage) (any, error) { return isTaskText(req, "now"), nil })
	addTool(t, s, ferrite.Tool{Name: "later", TaskSupport: ferrite.TaskOptional},
		func(req ferrite.Request, _ json.RawMessage) (any, error) {
			go func() {
				time.Sleep(300 * time.Millisecond) // past the 100 ms a 2026-07-28 call runs inline
				req.Complete(isTaskText(req, "later"))
			}()
			return nil, ferrite.ErrPending
		})
	// 2025-11-25: an ordinary call, then a task-augmented one and its tasks/result.
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initialize2025)
	if got := text(t, call(t, c.conn.HandleRaw, toolCall(2, "now", "{}"))); got != "now is_task=false" {
		t.Fatalf("an ordinary call: %s", got)
	}
	created := call(t, c.conn.HandleRaw, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"now","arguments":{},"task":{}}}`)
	id, _ := field(created, "result", "task", "taskId").(string)
	if len(id) != 32 {
		t.Fatalf("no task: %v", created)
	}
	result := call(t, c.conn.HandleRaw, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":%q}}`, id))
	if got := text(t, result); got != "now is_task=true" {
		t.Fatalf("tasks/result of a handler returning at once: %v", result)
	}
	// Server.Stats counts the task (ferrite_server_stats), and none runs once it has ended.
	if st, err := s.Stats(); err != nil || st.TasksCreated != 1 || st.TasksRunning != 0 || st.SSEStreams != 0 {
		t.Fatalf("stats after one task: %+v %v", st, err)
	}
	// 2026-07-28: ErrPending, completed later from a goroutine.
	id = startTask(t, s, "later")
	if got := taskText(pollTask(t, s, id, "completed")); got != "later is_task=true" {
		t.Fatalf("a handler completing later: %v", got)
	}
}

func TestACancelledTasksHandlerSeesItsContextDone(t *testing.T) {
	s := newServer(t)
	observed := make(chan error, 1)
	addTool(t, s, ferrite.Tool{Name: "wait", TaskSupport: ferrite.TaskOptional},
		func(req ferrite.Request, _ json.RawMessage) (any, error) {
			ctx := req.Context()
			go func() {
				select {
				case <-ctx.Done():
					observed <- nil
					req.Fail("cancelled")
				case <-time.After(20 * time.Second):
					observed <- errors.New("never cancelled")
					req.Complete(ferrite.TextResult("done"))
				}
			}()
			return nil, ferrite.ErrPending
		})
	id := startTask(t, s, "wait")
	if resp := call(t, s.HandleRaw, modernTask("tasks/cancel", id, "")); field(resp, "result", "resultType") != "complete" {
		t.Fatalf("tasks/cancel: %v", resp)
	}
	pollTask(t, s, id, "cancelled")
	select {
	case err := <-observed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never saw its context end")
	}
}

func TestAPanickingTaskEndsFailedAndTheServerKeepsServing(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "boom", TaskSupport: ferrite.TaskRequired},
		func(ferrite.Request, json.RawMessage) (any, error) { panic("the handler blew up") })
	addTool(t, s, ferrite.Tool{Name: "fine"}, fixedText("fine"))
	id := startTask(t, s, "boom")
	failed := pollTask(t, s, id, "failed")
	if field(failed, "error", "code") != float64(-32603) ||
		!strings.Contains(field(failed, "error", "message").(string), "the handler blew up") {
		t.Fatalf("a panicking task: %v", failed)
	}
	if got := text(t, call(t, s.HandleRaw, modernCall(3, "fine"))); got != "fine" {
		t.Fatalf("after the panic: %s", got)
	}
	// The same recovery outside a task: a tool execution error whose text is the panic's,
	// as a Rust handler's panic gives.
	addTool(t, s, ferrite.Tool{Name: "boom_inline"}, func(ferrite.Request, json.RawMessage) (any, error) { panic("inline") })
	resp := call(t, s.HandleRaw, toolCall(4, "boom_inline", "{}"))
	if field(resp, "result", "isError") != true || text(t, resp) != "inline" {
		t.Fatalf("an ordinary call that panics: %v", resp)
	}
}

// confirm asks the user with req.Elicit; the reply completes the request.
func confirm(req ferrite.Request, _ json.RawMessage) (any, error) {
	err := req.Elicit(map[string]any{"message": "Sure?", "requestedSchema": map[string]any{"type": "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}},
		func(result json.RawMessage, err error) {
			if err != nil {
				req.Fail(err.Error())
				return
			}
			var r struct{ Action string }
			json.Unmarshal(result, &r)
			req.Complete(ferrite.TextResult("confirmed " + r.Action))
		})
	if err != nil {
		return nil, err
	}
	return nil, ferrite.ErrPending
}

func TestElicitInsideATaskIsAnsweredThroughTasksUpdate(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "confirm", TaskSupport: ferrite.TaskRequired}, confirm)
	id := startTask(t, s, "confirm")
	parked := pollTask(t, s, id, "input_required")
	requests, _ := parked["inputRequests"].(map[string]any)
	if len(requests) != 1 {
		t.Fatalf("input requests: %v", parked)
	}
	var key string
	for k, r := range requests {
		key = k
		if field(r, "method") != "elicitation/create" || field(r, "params", "message") != "Sure?" {
			t.Fatalf("the input request: %v", r)
		}
	}
	call(t, s.HandleRaw, modernTask("tasks/update", id, fmt.Sprintf(`,"inputResponses":{%q:{"action":"accept","content":{"ok":true}}}`, key)))
	if got := taskText(pollTask(t, s, id, "completed")); got != "confirmed accept" {
		t.Fatalf("after tasks/update: %v", got)
	}
}

func TestElicitInsideATaskReachesTheClientThroughTasksResult(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "confirm", TaskSupport: ferrite.TaskRequired}, confirm)
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initialize2025)
	created := call(t, c.conn.HandleRaw, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"task":{}}}`)
	id, _ := field(created, "result", "task", "taskId").(string)
	c.answer(0, `{"action":"decline"}`)
	result := call(t, c.conn.HandleRaw, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, id))
	if got := text(t, result); got != "confirmed decline" {
		t.Fatalf("tasks/result: %v", result)
	}
	asked := c.frame(t, 0)
	if asked["method"] != "elicitation/create" ||
		field(asked, "params", "_meta", "io.modelcontextprotocol/related-task", "taskId") != id {
		t.Fatalf("the elicitation is tied to the task: %v", asked)
	}
}
