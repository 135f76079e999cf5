package ferrite

// URL elicitation (2025-11-25 on): sending the user to a URL (a sign-in, a payment) and
// hearing back, telling the client such an elicitation has completed, and failing a request
// that cannot go on until the user has visited some URLs (-32042). The wire shapes are the
// core's.

/*
#include "bridge.h"
*/
import "C"

import "fmt"

// URLElicitation is one URL the user is asked to visit: why (Message), where (URL), and the
// id that its completion notification names (ElicitationID).
type URLElicitation struct {
	Message       string `json:"message"`
	URL           string `json:"url"`
	ElicitationID string `json:"elicitationId"`
}

// URLElicitationRequired, returned by a handler, fails the request with the JSON-RPC error
// -32042 (the core's "URL elicitation required", data.elicitations each with mode "url"): the
// request cannot go on until the user has completed these elicitations. Tell the client when
// one completes with Server.NotifyElicitationComplete; it may then retry.
type URLElicitationRequired struct {
	Elicitations []URLElicitation
}

// Error names the URLs.
func (e *URLElicitationRequired) Error() string {
	urls := make([]string, len(e.Elicitations))
	for i, el := range e.Elicitations {
		urls[i] = el.URL
	}
	return fmt.Sprintf("URL elicitation required: %v", urls)
}

// ElicitURL asks the user to visit url (elicitation/create in URL mode, with message saying
// why and elicitationID naming it); reply gets the client's ElicitResult ({"action": "accept"}
// once the user agreed to go, or decline/cancel). The user finishes at the URL out of band:
// tell the client when that is done with NotifyElicitationComplete (while the request runs) or
// Server.NotifyElicitationComplete (later). Needs the client's elicitation.url capability
// (2025-11-25 on) and a stateful session; otherwise reply gets a *Error with CodePeerError.
func (r Request) ElicitURL(message, url, elicitationID string, reply ReplyFunc) error {
	m, mn := nonNull(message)
	u, un := nonNull(url)
	i, in := nonNull(elicitationID)
	return check(C.ferrite_request_elicit_url(r.ptr, m, mn, u, un, i, in, C.ferrite_reply_callback(C.goReplyCallback),
		userData(reply), finalizer))
}

// NotifyElicitationComplete tells the client that the URL elicitation elicitationID has
// completed (notifications/elicitation/complete, tied to this request).
func (r Request) NotifyElicitationComplete(elicitationID string) error {
	i, in := nonNull(elicitationID)
	return check(C.ferrite_request_notify_elicitation_complete(r.ptr, i, in))
}

// FailURLElicitationRequired settles the request with the JSON-RPC error -32042 for these
// elicitations (what returning a *URLElicitationRequired does; for a handler that returned
// ErrPending).
func (r Request) FailURLElicitationRequired(elicitations ...URLElicitation) error {
	if err := r.settlesByReturn(); err != nil {
		return err
	}
	if elicitations == nil {
		elicitations = []URLElicitation{}
	}
	p, n, err := jsonArg(elicitations)
	if err != nil {
		return r.Fail(err.Error())
	}
	return check(C.ferrite_request_fail_url_elicitation_required(r.ptr, p, n))
}

// NotifyElicitationComplete tells the connection connectionID (Request.ConnectionID, an HTTP
// session id, a Connection's ID) that the URL elicitation elicitationID has completed
// (notifications/elicitation/complete): the out-of-band end of a URL elicitation, for the web
// page or callback that learns of it after the request has ended. Whether it went out: only to
// a listening connection (stdio, an HTTP session with its GET stream open, a Connection with a
// send function) that negotiated 2025-11-25 or later; false for an unknown id.
func (s *Server) NotifyElicitationComplete(connectionID, elicitationID string) bool {
	c, cn := nonNull(connectionID)
	i, in := nonNull(elicitationID)
	var sent C.bool
	return check(C.ferrite_server_notify_elicitation_complete(s.ptr, c, cn, i, in, &sent)) == nil && bool(sent)
}
