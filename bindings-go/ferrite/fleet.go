package ferrite

/*
#include "bridge.h"
*/
import "C"

// UseRedis keeps the state the instances of a fleet share in Redis at url
// ("redis://host:port/db"), under keys starting with keyPrefix ("" for "ferrite:"; every
// instance of one fleet uses the same): the tasks of both generations, and the fleet-wide
// notifications (resource updates, task status, Notify) through pub/sub
// (ferrite_server_use_redis). Every instance must also seal request states with the same keys
// (SetRequestStateKeys). Call it before serving: once tasks have begun it is a *Error with
// CodeTasksStarted. A malformed URL is a *Error with the core's message; Redis itself is
// connected lazily (a Redis that is down fails the requests that need it, not this call).
func (s *Server) UseRedis(url, keyPrefix string) error {
	u, un := nonNull(url)
	if keyPrefix == "" {
		return check(C.ferrite_server_use_redis(s.ptr, u, un, nil, 0))
	}
	p, pn := nonNull(keyPrefix)
	return check(C.ferrite_server_use_redis(s.ptr, u, un, p, pn))
}
