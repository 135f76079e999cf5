package ferrite_test

// Authorization over real HTTP: JWTs signed here with crypto/rsa and crypto/ecdsa (keys
// generated per run), a JWK Set served by net/http/httptest, the server on a loopback port.
// Each case checks the exact status and WWW-Authenticate the core gives (core/tests/auth.rs),
// then that a valid request still succeeds.

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

var b64 = base64.RawURLEncoding

// signingKey is an RS256 or ES256 key with its kid.
type signingKey struct {
	kid string
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}

func rsaKey(t *testing.T, kid string) *signingKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &signingKey{kid: kid, rsa: k}
}

func ecKey(t *testing.T, kid string) *signingKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &signingKey{kid: kid, ec: k}
}

func (k *signingKey) alg() string {
	if k.rsa != nil {
		return "RS256"
	}
	return "ES256"
}

// jwk is the public half as a JWK.
func (k *signingKey) jwk() map[string]any {
	if k.rsa != nil {
		e := big.NewInt(int64(k.rsa.E)).Bytes()
		return map[string]any{"kty": "RSA", "kid": k.kid, "alg": "RS256", "use": "sig",
			"n": b64.EncodeToString(k.rsa.N.Bytes()), "e": b64.EncodeToString(e)}
	}
	x, y := make([]byte, 32), make([]byte, 32)
	k.ec.X.FillBytes(x)
	k.ec.Y.FillBytes(y)
	return map[string]any{"kty": "EC", "kid": k.kid, "alg": "ES256", "use": "sig", "crv": "P-256",
		"x": b64.EncodeToString(x), "y": b64.EncodeToString(y)}
}

// sign makes a compact JWS of claims.
func (k *signingKey) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	header, _ := json.Marshal(map[string]any{"alg": k.alg(), "typ": "JWT", "kid": k.kid})
	payload, _ := json.Marshal(claims)
	input := b64.EncodeToString(header) + "." + b64.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	if k.rsa != nil {
		sig, err = rsa.SignPKCS1v15(rand.Reader, k.rsa, crypto.SHA256, digest[:])
	} else {
		var r, s *big.Int
		r, s, err = ecdsa.Sign(rand.Reader, k.ec, digest[:])
		if err == nil {
			sig = make([]byte, 64)
			r.FillBytes(sig[:32])
			s.FillBytes(sig[32:])
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64.EncodeToString(sig)
}

// issuer serves a JWK Set whose keys the test may replace (rotation).
type issuer struct {
	url  string
	mu   sync.Mutex
	keys []*signingKey
}

func newIssuer(t *testing.T, keys ...*signingKey) *issuer {
	iss := &issuer{keys: keys}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		iss.mu.Lock()
		set := []map[string]any{}
		for _, k := range iss.keys {
			set = append(set, k.jwk())
		}
		iss.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"keys": set})
	}))
	t.Cleanup(srv.Close)
	iss.url = srv.URL
	return iss
}

func (iss *issuer) rotate(keys ...*signingKey) {
	iss.mu.Lock()
	iss.keys = keys
	iss.mu.Unlock()
}

// protected is a protected server serving HTTP on a loopback port.
type protected struct {
	base     string // http://127.0.0.1:PORT
	resource string // base + /mcp
}

func (p protected) metadataURL() string { return p.base + "/.well-known/oauth-protected-resource/mcp" }

func (p protected) invalid(why string) string {
	return fmt.Sprintf(`Bearer error="invalid_token", error_description="%s", resource_metadata="%s"`, why, p.metadataURL())
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// serveProtected starts a server made by config(resource) (and opts), with the tools me
// (the caller's identity as JSON) and whoami (scope mcp:whoami).
func serveProtected(t *testing.T, config func(resource string) any, opts ...ferrite.ServerOption) protected {
	t.Helper()
	port := freePort(t)
	p := protected{base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	p.resource = p.base + "/mcp"
	s := newServer(t, append([]ferrite.ServerOption{ferrite.WithAuth(config(p.resource))}, opts...)...)
	addTool(t, s, ferrite.Tool{Name: "me"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		id := req.Identity()
		if id == nil {
			return nil, errors.New("no identity")
		}
		return ferrite.CallToolResult{Content: []ferrite.Content{ferrite.TextContent(req.Subject())}, StructuredContent: id}, nil
	})
	addTool(t, s, ferrite.Tool{Name: "whoami"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		return ferrite.TextResult(req.Subject()), nil
	})
	l, err := s.Listen("127.0.0.1", uint16(port), nil)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	done := make(chan struct{})
	go func() { l.Serve(); close(done) }()
	t.Cleanup(func() { s.Close(); <-done })
	return p
}

func jwtConfig(iss *issuer, extra map[string]any) func(string) any {
	return func(resource string) any {
		jwt := map[string]any{"issuer": iss.url, "jwks_url": iss.url}
		for k, v := range extra {
			jwt[k] = v
		}
		return map[string]any{"resource": resource, "authorization_servers": []string{iss.url},
			"tool_scopes": map[string][]string{"whoami": {"mcp:whoami"}}, "jwt": jwt}
	}
}

type reply struct {
	status    int
	challenge string
	header    http.Header
	body      map[string]any
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"go-test","version":"1.0"}}}`

// post sends body to the MCP endpoint with an Authorization header (authz "" for none).
func post(t *testing.T, p protected, authz, session, body string) reply {
	t.Helper()
	req, _ := http.NewRequest("POST", p.resource, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "data: ") {
				raw = []byte(strings.TrimPrefix(line, "data: "))
			}
		}
	}
	r := reply{status: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), header: resp.Header}
	if len(bytes.TrimSpace(raw)) > 0 {
		json.Unmarshal(raw, &r.body)
	}
	return r
}

func bearer(token string) string { return "Bearer " + token }

// session initializes a session with token and gives its id.
func session(t *testing.T, p protected, token string) string {
	t.Helper()
	r := post(t, p, bearer(token), "", initBody)
	if r.status != 200 {
		t.Fatalf("initialize: %d %v", r.status, r.body)
	}
	id := r.header.Get("Mcp-Session-Id")
	post(t, p, bearer(token), id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

func claimsFor(iss *issuer, resource, subject, scope string) map[string]any {
	now := time.Now().Unix()
	return map[string]any{"iss": iss.url, "aud": resource, "sub": subject, "scope": scope, "iat": now,
		"exp": now + 600, "client_id": "go-client"}
}

func with(c map[string]any, patch map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range c {
		out[k] = v
	}
	for k, v := range patch {
		out[k] = v
	}
	return out
}

func resultText(t *testing.T, r reply) string {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %v", r.status, r.body)
	}
	return text(t, r.body)
}

func TestAuthValidRS256AndES256TokensReachTheHandlerAsAnIdentity(t *testing.T) {
	rs, es := rsaKey(t, "r1"), ecKey(t, "e1")
	iss := newIssuer(t, rs, es)
	p := serveProtected(t, jwtConfig(iss, nil))
	for _, key := range []*signingKey{rs, es} {
		c := with(claimsFor(iss, p.resource, "alice", "mcp:whoami files:read"), map[string]any{"tenant": "acme"})
		token := key.sign(t, c)
		id := session(t, p, token)
		r := post(t, p, bearer(token), id, toolCall(2, "me", `{}`))
		if got := resultText(t, r); got != "alice" {
			t.Fatalf("%s: subject %q", key.alg(), got)
		}
		result := r.body["result"].(map[string]any)
		sc, _ := json.Marshal(result["structuredContent"])
		if strings.Contains(string(sc), token) {
			t.Fatalf("the token reached the handler: %s", sc)
		}
		var got ferrite.Identity
		json.Unmarshal(sc, &got)
		want := ferrite.Identity{Subject: "alice", ClientID: "go-client", Scopes: []string{"mcp:whoami", "files:read"},
			Issuer: iss.url}
		if got.Subject != want.Subject || got.ClientID != want.ClientID || got.Issuer != want.Issuer ||
			strings.Join(got.Scopes, " ") != "mcp:whoami files:read" || got.Claims["tenant"] != "acme" ||
			got.ExpiresAt.Unix() != c["exp"].(int64) {
			t.Fatalf("%s: identity %+v", key.alg(), got)
		}
		if r := post(t, p, bearer(token), id, toolCall(3, "whoami", `{}`)); resultText(t, r) != "alice" {
			t.Fatalf("whoami: %v", r.body)
		}
	}
}

func TestAuthInvalidTokensAre401WithTheReasonAndTheServerKeepsServing(t *testing.T) {
	key, stranger := rsaKey(t, "r1"), rsaKey(t, "r1")
	iss := newIssuer(t, key)
	p := serveProtected(t, jwtConfig(iss, nil))
	good := claimsFor(iss, p.resource, "alice", "")
	now := time.Now().Unix()
	header, _ := json.Marshal(map[string]any{"alg": "none", "typ": "JWT"})
	payload, _ := json.Marshal(good)
	none := b64.EncodeToString(header) + "." + b64.EncodeToString(payload) + "."
	cases := []struct{ token, why string }{
		{key.sign(t, with(good, map[string]any{"exp": now - 600})), "the token has expired"},
		{key.sign(t, with(good, map[string]any{"nbf": now + 600})), "the token is not valid yet (nbf)"},
		{key.sign(t, with(good, map[string]any{"aud": "https://other.example/mcp"})), "the token is for another audience"},
		{key.sign(t, with(good, map[string]any{"iss": "https://evil.example"})), "the token's issuer is not trusted"},
		{stranger.sign(t, good), "the token's signature does not verify"},
		{none, "the token is not a well-formed signed JWT"},
	}
	for _, c := range cases {
		r := post(t, p, bearer(c.token), "", initBody)
		if r.status != 401 || r.challenge != p.invalid(c.why) {
			t.Errorf("%s: %d %q", c.why, r.status, r.challenge)
		}
		if r := post(t, p, bearer(key.sign(t, good)), "", initBody); r.status != 200 {
			t.Fatalf("not serving after %q: %d", c.why, r.status)
		}
	}
}

func TestAuthNoTokenIs401NamingTheMetadata(t *testing.T) {
	key := rsaKey(t, "r1")
	iss := newIssuer(t, key)
	p := serveProtected(t, jwtConfig(iss, nil))
	r := post(t, p, "", "", initBody)
	if want := fmt.Sprintf(`Bearer resource_metadata="%s"`, p.metadataURL()); r.status != 401 || r.challenge != want {
		t.Fatalf("%d %q", r.status, r.challenge)
	}
	resp, err := http.Get(p.metadataURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta map[string]any
	json.NewDecoder(resp.Body).Decode(&meta)
	got, _ := json.Marshal(meta)
	want, _ := json.Marshal(map[string]any{"resource": p.resource, "authorization_servers": []string{iss.url},
		"scopes_supported": []string{"mcp:whoami"}, "bearer_methods_supported": []string{"header"}})
	if resp.StatusCode != 200 || string(got) != string(want) {
		t.Fatalf("metadata %d %s", resp.StatusCode, got)
	}
}

func TestAuthAMissingToolScopeIs403WithTheStepUpChallenge(t *testing.T) {
	key := rsaKey(t, "r1")
	iss := newIssuer(t, key)
	p := serveProtected(t, jwtConfig(iss, nil))
	token := key.sign(t, claimsFor(iss, p.resource, "alice", "files:read"))
	id := session(t, p, token)
	r := post(t, p, bearer(token), id, toolCall(2, "whoami", `{}`))
	want := fmt.Sprintf(`Bearer error="insufficient_scope", error_description="the request needs the scopes: mcp:whoami", `+
		`scope="mcp:whoami", resource_metadata="%s"`, p.metadataURL())
	if r.status != 403 || r.challenge != want {
		t.Fatalf("%d %q", r.status, r.challenge)
	}
	if got := resultText(t, post(t, p, bearer(token), id, toolCall(3, "me", `{}`))); got != "alice" {
		t.Fatalf("me: %q", got)
	}
}

func TestAuthMalformedAuthorizationHeadersAre400(t *testing.T) {
	key := rsaKey(t, "r1")
	iss := newIssuer(t, key)
	p := serveProtected(t, jwtConfig(iss, nil))
	cases := []struct{ header, why string }{
		{"Bearer", "the Bearer credentials carry no token"},
		{"Bearer a b", "the bearer token has characters RFC 6750 does not allow (b64token)"},
	}
	for _, c := range cases {
		r := post(t, p, c.header, "", initBody)
		want := fmt.Sprintf(`Bearer error="invalid_request", error_description="%s", resource_metadata="%s"`, c.why, p.metadataURL())
		if r.status != 400 || r.challenge != want {
			t.Errorf("%q: %d %q", c.header, r.status, r.challenge)
		}
	}
	if r := post(t, p, bearer(key.sign(t, claimsFor(iss, p.resource, "a", ""))), "", initBody); r.status != 200 {
		t.Fatalf("not serving: %d", r.status)
	}
}

func TestAuthAnotherSubjectsTokenOnASessionIs404(t *testing.T) {
	key := rsaKey(t, "r1")
	iss := newIssuer(t, key)
	p := serveProtected(t, jwtConfig(iss, nil))
	alice := key.sign(t, claimsFor(iss, p.resource, "alice", "mcp:whoami"))
	bob := key.sign(t, claimsFor(iss, p.resource, "bob", "mcp:whoami"))
	id := session(t, p, alice)
	if r := post(t, p, bearer(bob), id, toolCall(2, "whoami", `{}`)); r.status != 404 {
		t.Fatalf("bob on alice's session: %d %v", r.status, r.body)
	}
	if got := resultText(t, post(t, p, bearer(alice), id, toolCall(3, "whoami", `{}`))); got != "alice" {
		t.Fatalf("the owner: %q", got)
	}
}

func TestAuthAnUnknownKidRefetchesTheRotatedJWKS(t *testing.T) {
	old, next := rsaKey(t, "old"), ecKey(t, "new")
	iss := newIssuer(t, old)
	p := serveProtected(t, jwtConfig(iss, map[string]any{"jwks_min_refresh_ms": 1}))
	c := claimsFor(iss, p.resource, "alice", "")
	if r := post(t, p, bearer(old.sign(t, c)), "", initBody); r.status != 200 {
		t.Fatalf("old key: %d", r.status)
	}
	iss.rotate(old, next)
	time.Sleep(5 * time.Millisecond)
	if r := post(t, p, bearer(next.sign(t, c)), "", initBody); r.status != 200 {
		t.Fatalf("the rotated key: %d %q", r.status, r.challenge)
	}
}

// An RFC 7662 introspection endpoint on loopback: Basic client credentials checked, answers
// from a table by token, calls counted.
func TestAuthIntrospectedTokensAreCheckedAndCached(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	var resource string
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		if user, pass, ok := r.BasicAuth(); !ok || user != "rs-client" || pass != "rs-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		answer := map[string]any{"active": false}
		switch r.PostFormValue("token") {
		case "opaque-alice":
			answer = map[string]any{"active": true, "sub": "alice", "scope": "mcp:whoami", "aud": resource,
				"exp": time.Now().Add(time.Hour).Unix(), "client_id": "app"}
		case "opaque-elsewhere":
			answer = map[string]any{"active": true, "sub": "alice", "aud": "https://other.example/mcp"}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(endpoint.Close)
	config := func(r string) any {
		resource = r
		return ferrite.AuthConfig{Resource: r, AuthorizationServers: []string{"https://auth.example.com"},
			ToolScopes:    map[string][]string{"whoami": {"mcp:whoami"}},
			Introspection: &ferrite.IntrospectionConfig{URL: endpoint.URL, ClientID: "rs-client", ClientSecret: "rs-secret"}}
	}
	p := serveProtected(t, config)
	id := session(t, p, "opaque-alice")
	if got := resultText(t, post(t, p, bearer("opaque-alice"), id, toolCall(2, "whoami", `{}`))); got != "alice" {
		t.Fatalf("whoami: %q", got)
	}
	mu.Lock()
	if calls != 1 {
		t.Fatalf("introspection calls after two requests with one token: %d, want 1 (cached)", calls)
	}
	mu.Unlock()
	for _, c := range []struct{ token, why string }{
		{"opaque-revoked", "the token is not active"},
		{"opaque-elsewhere", "the token is for another audience"},
	} {
		if r := post(t, p, bearer(c.token), "", initBody); r.status != 401 || r.challenge != p.invalid(c.why) {
			t.Errorf("%s: %d %q", c.token, r.status, r.challenge)
		}
	}
}

func TestAuthAGoVerifierAcceptsRefusesAndIsUnavailable(t *testing.T) {
	verify := func(token string) (map[string]any, error) {
		switch token {
		case "good":
			return map[string]any{"sub": "carol", "scope": "mcp:whoami", "client_id": "app", "team": "blue"}, nil
		case "nil":
			return nil, nil
		case "revoked":
			return nil, errors.New("the token was revoked")
		case "down":
			return nil, fmt.Errorf("the issuer is down: %w", ferrite.ErrVerifierUnavailable)
		case "panic":
			panic("boom")
		}
		return nil, errors.New("unknown token")
	}
	config := func(resource string) any {
		return ferrite.AuthConfig{Resource: resource, AuthorizationServers: []string{"https://auth.example.com"},
			ToolScopes: map[string][]string{"whoami": {"mcp:whoami"}}}
	}
	p := serveProtected(t, config, ferrite.WithTokenVerifier(verify))
	id := session(t, p, "good")
	r := post(t, p, bearer("good"), id, toolCall(2, "me", `{}`))
	if got := resultText(t, r); got != "carol" {
		t.Fatalf("subject %q", got)
	}
	sc := r.body["result"].(map[string]any)["structuredContent"].(map[string]any)
	if sc["ClientID"] != "app" || sc["Claims"].(map[string]any)["team"] != "blue" {
		t.Fatalf("identity %v", sc)
	}
	refusals := []struct{ token, why string }{
		{"nil", "the token verifier did not accept the token"},
		{"revoked", "the token was revoked"},
		{"panic", "the token verifier panicked: boom"},
	}
	for _, c := range refusals {
		r := post(t, p, bearer(c.token), "", initBody)
		if r.status != 401 || r.challenge != p.invalid(c.why) {
			t.Errorf("%s: %d %q", c.token, r.status, r.challenge)
		}
	}
	r = post(t, p, bearer("down"), "", initBody)
	msg, _ := r.body["error"].(map[string]any)["message"].(string)
	if r.status != 503 || r.header.Get("Retry-After") == "" ||
		msg != "the token could not be verified: the issuer is down: the token verifier is unavailable" {
		t.Fatalf("unavailable: %d %q %v", r.status, r.header.Get("Retry-After"), r.body)
	}
	if got := resultText(t, post(t, p, bearer("good"), id, toolCall(3, "whoami", `{}`))); got != "carol" {
		t.Fatalf("still serving: %q", got)
	}
}

func TestAuthRequireAudienceChecksAGoVerifiersAud(t *testing.T) {
	var resource string
	verify := func(token string) (map[string]any, error) {
		switch token {
		case "ours":
			return map[string]any{"sub": "carol", "aud": []any{"https://other.example", resource}}, nil
		case "theirs":
			return map[string]any{"sub": "carol", "aud": "https://other.example"}, nil
		}
		return map[string]any{"sub": "carol"}, nil
	}
	config := func(r string) any {
		resource = r
		return ferrite.AuthConfig{Resource: r, AuthorizationServers: []string{"https://auth.example.com"},
			RequireAudience: true}
	}
	p := serveProtected(t, config, ferrite.WithTokenVerifier(verify))
	if r := post(t, p, bearer("ours"), "", initBody); r.status != 200 {
		t.Fatalf("aud naming the resource: %d %q", r.status, r.challenge)
	}
	for _, c := range []struct{ token, why string }{
		{"theirs", "the token is for another audience"},
		{"none", "the token names no audience (aud)"},
	} {
		if r := post(t, p, bearer(c.token), "", initBody); r.status != 401 || r.challenge != p.invalid(c.why) {
			t.Errorf("%s: %d %q", c.token, r.status, r.challenge)
		}
	}
}

func TestAuthConfigErrorsAreTheCoresMessages(t *testing.T) {
	resource := "http://127.0.0.1:1/mcp"
	cases := []struct {
		opts []ferrite.ServerOption
		want string
	}{
		{[]ferrite.ServerOption{ferrite.WithAuth(map[string]any{"resource": resource, "tool_scope": map[string]any{}})},
			"invalid auth option tool_scope: unknown option"},
		{[]ferrite.ServerOption{ferrite.WithAuth(ferrite.AuthConfig{Resource: resource})},
			"invalid auth option authorization_servers: name at least one authorization server"},
		{[]ferrite.ServerOption{ferrite.WithAuth(ferrite.AuthConfig{Resource: resource, AuthorizationServers: []string{"https://as.example"},
			JWT: &ferrite.JWTConfig{Issuer: "https://as.example", JWKSURL: "https://as.example/jwks"}}),
			ferrite.WithTokenVerifier(func(string) (map[string]any, error) { return nil, nil })},
			"invalid auth option verifier: a verifier given in code replaces jwt and introspection; name neither"},
	}
	for _, c := range cases {
		_, err := ferrite.NewServer(ferrite.Implementation{Name: "t", Version: "1"}, c.opts...)
		var fe *ferrite.Error
		if !errors.As(err, &fe) || fe.Code != ferrite.CodeInvalidArgument || fe.Detail != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestIdentityIsNilWithoutAuth(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "who"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		return ferrite.TextResult(fmt.Sprintf("%v %q", req.Identity() == nil, req.Subject())), nil
	})
	call(t, s.HandleRaw, fmt.Sprintf(initialize, "{}"))
	if got := text(t, call(t, s.HandleRaw, toolCall(2, "who", `{}`))); got != `true ""` {
		t.Fatalf("%s", got)
	}
}
