package ferrite

/*
#include "bridge.h"
*/
import "C"

// Connection is a peer of the server that the host carries over a transport of its own (a
// WebSocket, a pipe per client, a test): its own negotiated state, and a send function for
// every message the server sends it (notifications, server-to-client requests). Feed the
// client's messages, answers to the server's requests included, to HandleRaw.
type Connection struct {
	server *Server
	ptr    *C.ferrite_connection
}

// NewConnection makes a connection of s. send (nil for none) receives each message the
// server sends on it, on a library thread; it must not block (hand the frame to the
// transport). Without send there is no channel back: server-to-client requests, broadcasts
// and PingClient cannot reach it.
func (s *Server) NewConnection(send func(frame string)) (*Connection, error) {
	var c *C.ferrite_connection
	var rc C.ferrite_result
	if send == nil {
		rc = C.ferrite_connection_new(s.ptr, nil, nil, nil, &c)
	} else {
		rc = C.ferrite_connection_new(s.ptr, C.ferrite_send_callback(C.goSendCallback), userData(send), finalizer, &c)
	}
	if err := check(rc); err != nil {
		return nil, err
	}
	return &Connection{server: s, ptr: c}, nil
}

// ID is the connection's id ("conn-7"): the ConnectionID its requests see, and what
// PingClient takes.
func (c *Connection) ID() string {
	var s C.ferrite_str
	if check(C.ferrite_connection_id(c.ptr, &s)) != nil {
		return ""
	}
	return goString(s)
}

// HandleRaw handles one message the client sent on this connection and returns the
// response ("" for a notification, an answer to a server request, or a cancelled request).
// It blocks until the handlers answer; call it from several goroutines when a handler waits
// for the client (the client's answer must be handled meanwhile).
func (c *Connection) HandleRaw(message string) (string, error) {
	m, mn := nonNull(message)
	var p *C.char
	var n C.size_t
	if err := check(C.ferrite_server_handle_raw_on(c.server.ptr, c.ptr, m, mn, &p, &n)); err != nil {
		return "", err
	}
	return owned(p, n), nil
}

// Close ends the connection (the client went away): its running requests are cancelled
// (their Context and OnCancel fire) and server requests waiting on it fail.
func (c *Connection) Close() {
	if c.ptr != nil {
		C.ferrite_connection_free(c.ptr)
		c.ptr = nil
	}
}
