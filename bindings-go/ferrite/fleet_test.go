package ferrite_test

// A fleet (issue 14): two servers sharing one real redis-server through UseRedis. A task
// created on one is read and cancelled on the other, and its handler on the first sees the
// cancellation; a malformed URL and a late UseRedis are the core's errors.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

// startRedis runs a throwaway redis-server (scripts/redis.sh install puts it on PATH) on a free
// port until the test ends; its URL.
func startRedis(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("redis-server", "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server is not on PATH (scripts/redis.sh install): %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return fmt.Sprintf("redis://127.0.0.1:%d/", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("redis-server did not start")
	return ""
}

// fleetMember is a server keeping its tasks in the fleet's Redis, with a slow task tool whose
// cancellations it counts.
func fleetMember(t *testing.T, url string, cancelled *atomic.Int32) *ferrite.Server {
	s := newServer(t)
	if err := s.SetTaskOptions(ferrite.TaskOptions{PollInterval: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := s.UseRedis(url, "go-fleet:"); err != nil {
		t.Fatalf("UseRedis: %v", err)
	}
	addTool(t, s, ferrite.Tool{Name: "slow", TaskSupport: ferrite.TaskRequired},
		func(req ferrite.Request, _ json.RawMessage) (any, error) {
			ctx := req.Context()
			go func() {
				select {
				case <-ctx.Done():
					if req.IsCancelled() {
						cancelled.Add(1)
					}
				case <-time.After(30 * time.Second):
				}
				req.CompleteText("done", nil)
			}()
			return nil, ferrite.ErrPending
		})
	return s
}

func TestATaskCreatedOnOneInstanceIsReadAndCancelledOnAnother(t *testing.T) {
	url := startRedis(t)
	var cancelledA, cancelledB atomic.Int32
	a := fleetMember(t, url, &cancelledA)
	b := fleetMember(t, url, &cancelledB)
	id := startTask(t, a, "slow")
	if got := pollTask(t, b, id, "working"); got["taskId"] != id {
		t.Fatalf("tasks/get on the other instance: %v", got)
	}
	call(t, b.HandleRaw, modernTask("tasks/cancel", id, ""))
	pollTask(t, a, id, "cancelled")
	for i := 0; i < 250 && cancelledA.Load() == 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if cancelledA.Load() != 1 || cancelledB.Load() != 0 {
		t.Fatalf("the handler on the first instance sees the cancellation made on the second: A %d, B %d",
			cancelledA.Load(), cancelledB.Load())
	}
}

func TestUseRedisRefusesAMalformedURLAndALateCall(t *testing.T) {
	s := newServer(t)
	var fe *ferrite.Error
	if err := s.UseRedis("not a url", ""); !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument {
		t.Fatalf("a malformed URL: %v", err)
	}
	url := startRedis(t)
	var n atomic.Int32
	m := fleetMember(t, url, &n)
	startTask(t, m, "slow")
	if err := m.UseRedis(url, "other:"); !errors.As(err, &fe) || fe.Code != ferrite.CodeTasksStarted {
		t.Fatalf("UseRedis after a task: %v", err)
	}
}
