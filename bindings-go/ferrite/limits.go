package ferrite

/*
#include "bridge.h"
*/
import "C"

import "encoding/json"

// Limits are the server's dispatch limits: the core's Limits, field for field. In SetLimits a
// nil field keeps its current value; Limits() fills every field. The core checks every value
// (each at least 1) and refuses a bad one with its own message (`invalid limit max_in_flight:
// must be at least 1`), the same text on every Ferrite surface.
type Limits struct {
	// MaxBatchLen is how many messages one JSON-RPC batch (2025-03-26) may hold (100); a longer
	// batch is refused whole with -32600 and data {"limit": "max_batch_len", "value": N}.
	MaxBatchLen *uint64 `json:"max_batch_len"`
	// MaxInFlightPerConnection is how many requests may run at once on one connection (the
	// stdio process, an HTTP session, a Connection, HandleRaw's connection) (256); one more is
	// answered -32603 with data {"limit": "max_in_flight_per_connection", "value": N}.
	MaxInFlightPerConnection *uint64 `json:"max_in_flight_per_connection"`
	// MaxInFlight is how many requests may run at once in the whole server (10000); one more is
	// answered -32603 with data {"limit": "max_in_flight", "value": N}.
	MaxInFlight *uint64 `json:"max_in_flight"`
	// MaxJSONDepth is how deep objects and arrays may nest in one inbound message (127, which
	// is also the most: serde_json's own limit); deeper text is answered -32700 (HTTP 400)
	// with data {"limit": "max_json_depth", "value": N}.
	MaxJSONDepth *uint64 `json:"max_json_depth"`
}

// SetLimits changes the limits whose fields are set (ferrite_server_set_limits); they apply
// at once, to requests that arrive afterwards. A bad value is an *Error with
// CodeInvalidArgument and the core's message, and nothing changes.
func (s *Server) SetLimits(l Limits) error {
	j, n, err := jsonArg(l)
	if err != nil {
		return err
	}
	return check(C.ferrite_server_set_limits(s.ptr, j, n))
}

// Limits are the limits in force (ferrite_server_limits), every field set.
func (s *Server) Limits() (Limits, error) {
	var p *C.char
	var n C.size_t
	if err := check(C.ferrite_server_limits(s.ptr, &p, &n)); err != nil {
		return Limits{}, err
	}
	var l Limits
	if err := json.Unmarshal([]byte(owned(p, n)), &l); err != nil {
		return Limits{}, err
	}
	return l, nil
}
