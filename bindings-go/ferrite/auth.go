package ferrite

// Authorization: the server as an OAuth 2.1 resource server (MCP authorization). The
// configuration is the core's (AuthConfig mirrors its keys), checked by the core; a Go token
// verifier becomes the core's TokenVerifier through libferrite's ferrite_verify_callback.

/*
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// AuthConfig is the core's resource-server configuration, key for key (the same keys on
// every Ferrite surface). Empty fields keep the core's defaults; the core checks every value
// and refuses a bad one with its own message (`invalid auth option jwt.issuer: ...`).
// WithAuth also takes a map or a json.RawMessage of the same keys.
type AuthConfig struct {
	// Resource is this server's canonical URI (https://mcp.example.com/mcp): the audience
	// tokens must carry (RFC 8707) and the base of the metadata URL.
	Resource string `json:"resource,omitempty"`
	// AuthorizationServers issue tokens for it (at least one).
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported is advertised in the metadata (default: every scope named below).
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// RequiredScopes are needed by every request.
	RequiredScopes []string `json:"required_scopes,omitempty"`
	// ToolScopes, PromptScopes and ResourceScopes are needed per tool name, prompt name and
	// resource URI.
	ToolScopes     map[string][]string `json:"tool_scopes,omitempty"`
	PromptScopes   map[string][]string `json:"prompt_scopes,omitempty"`
	ResourceScopes map[string][]string `json:"resource_scopes,omitempty"`
	// HideUnauthorized leaves what the caller lacks a scope for out of the lists (false:
	// listed, and a call answers 403 with the scopes to ask for).
	HideUnauthorized bool `json:"hide_unauthorized,omitempty"`
	// RequireAudience, with a verifier given by WithTokenVerifier, makes the core also require
	// the identity's aud claim to name Resource (401 invalid_token otherwise; false: the
	// verifier decides). The JWT and introspection verifiers always check it; naming it with
	// them is an error.
	RequireAudience bool `json:"require_audience,omitempty"`
	// ResourceName and ResourceDocumentation go in the metadata.
	ResourceName          string `json:"resource_name,omitempty"`
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// JWT verifies JWT access tokens; Introspection asks an RFC 7662 endpoint. Exactly one,
	// unless WithTokenVerifier gives a verifier (then neither).
	JWT           *JWTConfig           `json:"jwt,omitempty"`
	Introspection *IntrospectionConfig `json:"introspection,omitempty"`
}

// JWTConfig is the core's JWT verification (defaults in parentheses).
type JWTConfig struct {
	// Issuer is the iss every token must carry.
	Issuer string `json:"issuer,omitempty"`
	// Audience is the aud every token must carry (the resource).
	Audience string `json:"audience,omitempty"`
	// JWKSURL is where the issuer publishes its keys; or Keys (JWK objects or PEM strings).
	JWKSURL string `json:"jwks_url,omitempty"`
	Keys    []any  `json:"keys,omitempty"`
	// Algorithms accepted (RS256, ES256, EdDSA; HMAC and none are refused).
	Algorithms []string `json:"algorithms,omitempty"`
	// LeewaySecs is the clock skew tolerated on exp and nbf (60).
	LeewaySecs *uint64 `json:"leeway_secs,omitempty"`
	// JWKSCacheSecs is how long a fetched JWKS is used (300).
	JWKSCacheSecs *uint64 `json:"jwks_cache_secs,omitempty"`
	// JWKSMinRefreshMs is the least time between refetches for unknown kids (10000).
	JWKSMinRefreshMs *uint64 `json:"jwks_min_refresh_ms,omitempty"`
	// CacheSecs is how long a verified token is remembered, by its SHA-256 (60; 0: never).
	CacheSecs *uint64 `json:"cache_secs,omitempty"`
	// CacheCapacity is how many verified tokens are remembered (10000).
	CacheCapacity *uint64 `json:"cache_capacity,omitempty"`
}

// IntrospectionConfig is the core's RFC 7662 token introspection.
type IntrospectionConfig struct {
	URL          string  `json:"url,omitempty"`
	ClientID     string  `json:"client_id,omitempty"`
	ClientSecret string  `json:"client_secret,omitempty"`
	CacheSecs    *uint64 `json:"cache_secs,omitempty"`
	// CacheCapacity is how many answers are kept (10000; 0 turns the cache off).
	CacheCapacity *uint64 `json:"cache_capacity,omitempty"`
}

// VerifyTokenFunc checks a bearer token and returns its claims (sub, client_id, scope or
// scp, exp, iss, anything else), which become the request's Identity. It runs on a goroutine
// of its own, possibly several at once. Returning nil claims, or an error, refuses the token
// (401 invalid_token with the error's text); an error wrapping ErrVerifierUnavailable
// answers 503 (the client retries). Never log the token.
type VerifyTokenFunc func(token string) (map[string]any, error)

// ErrVerifierUnavailable, wrapped in a VerifyTokenFunc's error, says the verifier cannot
// decide now (its authorization server is unreachable): 503 with Retry-After, not 401.
var ErrVerifierUnavailable = errors.New("the token verifier is unavailable")

// refused is the reason given for a verifier that returned neither claims nor an error.
const refused = "the token verifier did not accept the token"

// WithAuth protects the server as an OAuth 2.1 resource server with config (an AuthConfig,
// or a map or json.RawMessage of the core's keys): over HTTP every request needs a bearer
// token the configuration's verifier accepts, the Protected Resource Metadata is served, and
// tools, prompts and resources need their configured scopes. NewServer returns the core's
// error for a bad configuration.
func WithAuth(config any) ServerOption {
	return func(c *serverConfig) {
		c.auth = config
		c.protected = true
	}
}

// WithTokenVerifier verifies tokens with f instead of the configuration's jwt or
// introspection (which it must then leave out). Needs WithAuth.
func WithTokenVerifier(f VerifyTokenFunc) ServerOption {
	return func(c *serverConfig) { c.verifier = f }
}

// newAuth builds the library's ferrite_auth of the options (nil when unprotected).
func newAuth(cfg *serverConfig) (*C.ferrite_auth, error) {
	if !cfg.protected {
		if cfg.verifier != nil {
			return nil, errors.New("ferrite: WithTokenVerifier needs WithAuth")
		}
		return nil, nil
	}
	text, n, err := jsonArg(cfg.auth)
	if err != nil {
		return nil, err
	}
	callback, data, fin := C.ferrite_verify_callback(nil), unsafe.Pointer(nil), C.ferrite_finalizer(nil)
	if cfg.verifier != nil {
		callback, data, fin = C.ferrite_verify_callback(C.goVerifyCallback), userData(cfg.verifier), finalizer
	}
	var auth *C.ferrite_auth
	if err := check(C.ferrite_auth_new(text, n, callback, data, fin, &auth)); err != nil {
		return nil, err
	}
	return auth, nil
}

//export goVerifyCallback
func goVerifyCallback(ud unsafe.Pointer, token C.ferrite_str, v *C.ferrite_verification) C.uint32_t {
	f := fromUserData(ud).(VerifyTokenFunc)
	t := goString(token)
	// A verifier may do I/O: it runs on a goroutine, and the library thread moves on.
	go answerVerification(v, f, t)
	return C.FERRITE_RESULT_PENDING
}

// answerVerification runs f and settles v with its verdict; a panic refuses the token.
func answerVerification(v *C.ferrite_verification, f VerifyTokenFunc, token string) {
	defer func() {
		if p := recover(); p != nil {
			reject(v, fmt.Sprintf("the token verifier panicked: %v", p))
		}
	}()
	claims, err := f(token)
	switch {
	case errors.Is(err, ErrVerifierUnavailable):
		m, n := nonNull(err.Error())
		C.ferrite_verification_unavailable(v, m, n)
	case err != nil:
		reject(v, err.Error())
	case claims == nil:
		reject(v, refused)
	default:
		text, err := marshal(claims)
		if err != nil {
			reject(v, err.Error())
			return
		}
		p, n := nonNull(text)
		C.ferrite_verification_accept(v, p, n)
	}
}

func reject(v *C.ferrite_verification, message string) {
	m, n := nonNull(message)
	C.ferrite_verification_reject(v, m, n)
}

// Identity is the caller's verified identity on a protected server: what its access token
// says (never the token itself).
type Identity struct {
	// Subject is the token's sub (or its client id when it has none).
	Subject string
	// ClientID is the client the token was issued to (client_id or azp), "" if none.
	ClientID string
	// Scopes are the granted scopes.
	Scopes []string
	// ExpiresAt is when the token expires (zero if it does not say).
	ExpiresAt time.Time
	// Issuer is the token's iss, "" if none.
	Issuer string
	// Claims holds every claim of the token (or of the introspection answer).
	Claims map[string]any
}

// HasScope reports whether the token grants scope.
func (id *Identity) HasScope(scope string) bool {
	for _, s := range id.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// Identity is the caller's verified identity, or nil when the request was not authenticated
// (an unprotected server, stdio, HandleRaw).
func (r Request) Identity() *Identity {
	var s C.ferrite_str
	if check(C.ferrite_request_identity(r.ptr, &s)) != nil || s.ptr == nil {
		return nil
	}
	var wire struct {
		Subject   string         `json:"subject"`
		ClientID  *string        `json:"clientId"`
		Scopes    []string       `json:"scopes"`
		ExpiresAt *int64         `json:"expiresAt"`
		Issuer    *string        `json:"issuer"`
		Claims    map[string]any `json:"claims"`
	}
	if json.Unmarshal([]byte(goString(s)), &wire) != nil {
		return nil
	}
	id := &Identity{Subject: wire.Subject, Scopes: wire.Scopes, Claims: wire.Claims}
	if wire.ClientID != nil {
		id.ClientID = *wire.ClientID
	}
	if wire.Issuer != nil {
		id.Issuer = *wire.Issuer
	}
	if wire.ExpiresAt != nil {
		id.ExpiresAt = time.Unix(*wire.ExpiresAt, 0)
	}
	return id
}

// Subject is the caller's verified subject, "" when the request was not authenticated.
func (r Request) Subject() string {
	var s C.ferrite_str
	if check(C.ferrite_request_subject(r.ptr, &s)) != nil {
		return ""
	}
	return goString(s)
}
