package ferrite_test

// Task options (issue 12): Server.SetTaskOptions before the first task, seen in a
// task-augmented call's pollInterval and ttl; refused with CodeTasksStarted afterwards.

import (
	"errors"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

const tasksStartedMessage = "the task options cannot change after the first task was created"

func TestTaskOptionsApplyToATaskAndAreRefusedAfterTheFirst(t *testing.T) {
	s := newServer(t)
	if err := s.SetTaskOptions(ferrite.TaskOptions{DefaultTTL: 7 * time.Second, MaxTTL: 20 * time.Second,
		PollInterval: 250 * time.Millisecond}); err != nil {
		t.Fatalf("SetTaskOptions before any task: %v", err)
	}
	// Zero fields keep what is set.
	if err := s.SetTaskOptions(ferrite.TaskOptions{PromoteAfter: 50 * time.Millisecond}); err != nil {
		t.Fatalf("SetTaskOptions with zeros: %v", err)
	}
	if err := s.SetTaskOptions(ferrite.TaskOptions{MaxTTL: -time.Second}); err == nil ||
		err.Error() != "ferrite: TaskOptions.MaxTTL is negative (-1s)" {
		t.Fatalf("a negative duration: %v", err)
	}
	addTool(t, s, ferrite.Tool{Name: "quick", TaskSupport: ferrite.TaskOptional}, fixedText("quick"))
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initialize2025)

	created := call(t, c.conn.HandleRaw, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","arguments":{},"task":{}}}`)
	if field(created, "result", "task", "pollInterval") != float64(250) || field(created, "result", "task", "ttl") != float64(7000) {
		t.Fatalf("the task's pollInterval and ttl are the options set: %v", created)
	}
	capped := call(t, c.conn.HandleRaw, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quick","arguments":{},"task":{"ttl":600000}}}`)
	if field(capped, "result", "task", "ttl") != float64(20000) {
		t.Fatalf("a ttl past MaxTTL is cut to it: %v", capped)
	}

	var fe *ferrite.Error
	err := s.SetTaskOptions(ferrite.TaskOptions{DefaultTTL: time.Second})
	if !errors.As(err, &fe) || fe.Code != ferrite.CodeTasksStarted || err.Error() != tasksStartedMessage ||
		ferrite.CodeTasksStarted.String() != "the task options are fixed once tasks have begun" {
		t.Fatalf("SetTaskOptions after the first task: %v", err)
	}
	again := call(t, c.conn.HandleRaw, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quick","arguments":{},"task":{}}}`)
	if field(again, "result", "task", "ttl") != float64(7000) {
		t.Fatalf("the refused call changed nothing: %v", again)
	}
}
