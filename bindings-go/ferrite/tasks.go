package ferrite

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"time"
)

// TaskOptions is how a server runs tasks (the core's TaskOptions). A zero field keeps that
// setting's current value: at first the core's defaults, the same on every Ferrite surface
// (DefaultTTL 5 minutes, MaxTTL 1 hour, PollInterval 1 second, PromoteAfter 100 ms). The
// library counts in milliseconds: a positive duration below one rounds up to 1 ms.
type TaskOptions struct {
	// DefaultTTL is how long a task is kept when the client asks for nothing else (a
	// 2025-11-25 task without ttl, every 2026-07-28 task).
	DefaultTTL time.Duration
	// MaxTTL is the longest ttl a 2025-11-25 client may ask for; a longer one is cut to it.
	MaxTTL time.Duration
	// PollInterval is the pollInterval suggested to clients.
	PollInterval time.Duration
	// PromoteAfter is how long a 2026-07-28 call runs inline before it becomes a task.
	PromoteAfter time.Duration
}

// millis is d in whole milliseconds, rounded up (0 stays 0: keep the current value).
func millis(name string, d time.Duration) (C.uint64_t, error) {
	if d < 0 {
		return 0, fmt.Errorf("ferrite: TaskOptions.%s is negative (%v)", name, d)
	}
	return C.uint64_t((d + time.Millisecond - 1) / time.Millisecond), nil
}

// SetTaskOptions sets how the server runs tasks (ferrite_server_set_task_options). Call it
// before serving: once the server has begun running tasks (the first call of a tool with a
// TaskSupport) the options are fixed, and this is a *Error with CodeTasksStarted and the core's
// message, changing nothing.
func (s *Server) SetTaskOptions(o TaskOptions) error {
	var ms [4]C.uint64_t
	for i, f := range []struct {
		name string
		d    time.Duration
	}{{"DefaultTTL", o.DefaultTTL}, {"MaxTTL", o.MaxTTL}, {"PollInterval", o.PollInterval}, {"PromoteAfter", o.PromoteAfter}} {
		var err error
		if ms[i], err = millis(f.name, f.d); err != nil {
			return err
		}
	}
	return check(C.ferrite_server_set_task_options(s.ptr, ms[0], ms[1], ms[2], ms[3]))
}
